// Built files that are not UTF-8 (s57 probe). index-tool read a child's index.json, the
// indexes --llms-txt reads and a topic's chunk files with replacement characters: a damaged
// byte of a topic's title became U+FFFD in its section's index.json and in llms.txt, and a
// damaged chunk file was hashed into the topic's index.json, all with exit 0, while docs-query
// refuses each of those files ("not valid UTF-8 … rebuild"). Real topics, built by the real
// chunking-tool, keyword-extractor and topic-spec, damaged one byte at a time.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { main as spec } from '../../topic-spec/src/main.js';
import { main } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const quiet = { stdout: () => {}, stderr: () => {} };

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}

let root: string;
let docs: string;
let topic: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-index-utf8-'));
  docs = join(root, 'docs');
  topic = join(docs, 'deployment', 'native-aot');
  const config = join(root, 'chunkyard.config.yaml');
  writeFileSync(config, 'chunking:\n  maxTokens: 512\n');
  mkdirSync(topic, { recursive: true });
  for (const f of ['golden-reference.md', 'qa-pairs.md']) cpSync(join(REPO, 'docs/deployment/native-aot', f), join(topic, f));
  expect(await chunk([topic, '--config', config], quiet)).toBe(0);
  expect(await keywords([topic], quiet)).toBe(0);
  expect(await spec([topic, '--config', config], quiet)).toBe(0);
  expect((await run([topic, join(docs, 'deployment'), docs, '--root', docs])).code).toBe(0);
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** `file` with the ASCII byte at `at` made `bad` while `body` runs; put back after. */
async function damaged<T>(file: string, at: number, bad: number, body: () => Promise<T>): Promise<T> {
  const original = readFileSync(file);
  const bytes = Buffer.from(original);
  bytes[at] = bad;
  writeFileSync(file, bytes);
  try {
    return await body();
  } finally {
    writeFileSync(file, original);
  }
}
const asciiAt = (file: string): number[] => {
  const bytes = readFileSync(file);
  return [...bytes.keys()].filter((i) => bytes[i]! < 0x80);
};
const badByte = fc.constantFrom(0xff, 0xfe, 0x80, 0xc0, 0xf8);

it("a child's index.json: the section fails naming it and the offset, its index.json is left as it was (property)", async () => {
  const child = join(topic, 'index.json');
  const section = join(docs, 'deployment', 'index.json');
  const before = readFileSync(section, 'utf8');
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...asciiAt(child)), badByte, (at, bad) =>
      damaged(child, at, bad, async () => {
        const r = await run([join(docs, 'deployment'), '--root', docs]);
        expect(r.code).toBe(1);
        expect(r.stderr).toBe(
          `index-tool: ${child}: not valid UTF-8 (first bad byte at offset ${at}), so it was damaged or replaced after the build; build the child's index again (nx run-many -t index builds children before parents)\n`,
        );
        expect(readFileSync(section, 'utf8')).toBe(before);
      }),
    ),
    { numRuns: 25 },
  );
});

it('--llms-txt: a damaged index.json fails the run naming it, and no llms.txt is written (property)', async () => {
  const child = join(topic, 'index.json');
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...asciiAt(child)), badByte, (at, bad) =>
      damaged(child, at, bad, async () => {
        rmSync(join(docs, 'llms.txt'), { force: true });
        const r = await run([docs, '--root', docs, '--llms-txt']);
        expect(r.code).toBe(1);
        expect(r.stderr).toBe(`index-tool: ${child}: not valid UTF-8 (first bad byte at offset ${at}), so it was damaged or replaced after the build; rebuild it with index-tool\n`);
        expect(() => readFileSync(join(docs, 'llms.txt'))).toThrow(/ENOENT/);
      }),
    ),
    { numRuns: 25 },
  );
});

it("a damaged chunk file: the topic fails naming it, and its index.json is left as it was (property)", async () => {
  const index = join(topic, 'index.json');
  const before = readFileSync(index, 'utf8');
  const chunkFile = join(topic, '_chunks', 'golden-reference-0.md');
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...asciiAt(chunkFile)), badByte, (at, bad) =>
      damaged(chunkFile, at, bad, async () => {
        const r = await run([topic, '--root', docs]);
        expect(r.code).toBe(1);
        expect(r.stderr).toBe(
          `index-tool: ${chunkFile}: not valid UTF-8 (first bad byte at offset ${at}), so it was damaged or replaced after the build; run the chunk step again, then spec (nx run <topic>:index runs both)\n`,
        );
        expect(readFileSync(index, 'utf8')).toBe(before);
      }),
    ),
    { numRuns: 25 },
  );
});
