// --out naming a generated folder of another topic (s57 probe): `chunking-tool a --out b/_chunks`
// replaced topic b's chunk files and manifest of the same document name with a's, and stale-file
// removal took the rest (78 chunk files became 22, exit 0), so b's index pointed at files that
// were gone; a topic's _keywords/ is replaced whole by keyword-extractor. Real temp folders,
// the real chunker.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const root = mkdtempSync(join(tmpdir(), 'chunkyard-chunk-out-generated-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const a = join(root, 'a');
const b = join(root, 'b');

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}
const snapshot = (dir: string) => Object.fromEntries(readdirSync(dir).sort().map((n) => [n, readFileSync(join(dir, n), 'utf8')]));

beforeAll(async () => {
  for (const [dir, topic] of [[a, 'deployment/native-aot'], [b, 'libraries/system-text-json-polymorphism']] as const) {
    mkdirSync(dir);
    cpSync(join(REPO, 'docs', topic, 'golden-reference.md'), join(dir, 'golden-reference.md'));
  }
  expect((await run([b])).code).toBe(0);
});

it("another topic's _chunks/, from a topic or a file: a usage error naming it, and that folder left as it was", async () => {
  const before = snapshot(join(b, '_chunks'));
  for (const input of [a, join(a, 'golden-reference.md')]) {
    const out = join(b, '_chunks');
    expect(await run([input, '--out', out])).toEqual({
      code: 2,
      stdout: '',
      stderr: `chunking-tool: --out ${out}: the generated _chunks/ folder of the topic ${b}, whose chunk files and manifests it would replace; choose a folder of its own\n`,
    });
  }
  expect(snapshot(join(b, '_chunks'))).toEqual(before);
});

it("a topic's _keywords/, its own too: a usage error, nothing written", async () => {
  for (const owner of [a, b]) {
    const out = join(owner, '_keywords');
    const r = await run([a, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`chunking-tool: --out ${out}: the generated _keywords/ folder of the topic ${owner}, which keyword-extractor replaces whole; choose a folder of its own\n`);
    expect(existsSync(out)).toBe(false);
  }
});

it("the topic's own _chunks/, and a folder so named outside any topic, are written as before", async () => {
  expect((await run([a, '--out', join(a, '_chunks')])).code).toBe(0);
  expect(existsSync(join(a, '_chunks', 'golden-reference.json'))).toBe(true);
  const elsewhere = join(root, 'elsewhere', '_chunks');
  expect((await run([a, '--out', elsewhere])).code).toBe(0);
  expect(existsSync(join(elsewhere, 'golden-reference.json'))).toBe(true);
});
