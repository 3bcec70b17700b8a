// --out naming a generated folder of a topic (s57 probe): `keyword-extractor a --out b/_keywords`
// replaced topic b's words.md with a's keywords, exit 0, and b's spec step then used them
// without a word; into a topic's _chunks/ the table went where chunking-tool replaces the
// folder whole. docs-export refuses an --out among the generated files the same way. Real
// temp folders, real extraction.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { main } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const GOLDEN = readFileSync(join(REPO, 'docs/deployment/native-aot/golden-reference.md'), 'utf8');
const root = mkdtempSync(join(tmpdir(), 'chunkyard-kw-out-generated-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}
function topic(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'golden-reference.md'), GOLDEN);
  return dir;
}

const a = topic('a');
const b = topic('b');

it("another topic's _keywords/: a usage error naming it, and its words.md left as it was", async () => {
  expect((await run([b])).code).toBe(0);
  const before = readFileSync(join(b, '_keywords', 'words.md'), 'utf8');
  for (const out of [join(b, '_keywords'), `${join(b, '_keywords')}/`]) {
    expect(await run([a, '--out', out])).toEqual({
      code: 2,
      stdout: '',
      stderr: `keyword-extractor: --out ${out}: the generated _keywords/ folder of the topic ${b}, whose words.md it would replace; choose a folder of its own\n`,
    });
  }
  expect(readFileSync(join(b, '_keywords', 'words.md'), 'utf8')).toBe(before);
});

it("a topic's _chunks/, its own too: a usage error, nothing written", async () => {
  for (const owner of [a, b]) {
    const out = join(owner, '_chunks');
    expect(await run([a, '--out', out])).toEqual({
      code: 2,
      stdout: '',
      stderr: `keyword-extractor: --out ${out}: the generated _chunks/ folder of the topic ${owner}, which chunking-tool replaces whole; choose a folder of its own\n`,
    });
    expect(existsSync(out)).toBe(false);
  }
});

it("the topic's own _keywords/, and folders so named outside any topic, are written as before", async () => {
  expect((await run([a, '--out', join(a, '_keywords')])).code).toBe(0);
  expect(existsSync(join(a, '_keywords', 'words.md'))).toBe(true);
  for (const name of ['_keywords', '_chunks']) {
    const out = join(root, 'elsewhere', name);
    expect((await run([a, '--out', out])).code).toBe(0);
    expect(existsSync(join(out, 'words.md'))).toBe(true);
  }
});
