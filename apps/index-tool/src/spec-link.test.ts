// A topic-spec.md that is a dangling or looping symlink (s57 probe): index-tool said "missing;
// run topic-spec on the topic first", and topic-spec then refused to write through the link
// ("remove the link and run again"), so the advice led nowhere. A real topic built by the real
// chunking-tool, keyword-extractor and topic-spec; the advice given is followed.
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { main as spec } from '../../topic-spec/src/main.js';
import { main } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const quiet = { stdout: () => {}, stderr: () => {} };

async function run(argv: string[]) {
  let stderr = '';
  const code = await main(argv, { stdout: () => {}, stderr: (s) => void (stderr += s) });
  return { code, stderr };
}

let root: string;
let docs: string;
let topic: string;
let config: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-index-spec-link-'));
  docs = join(root, 'docs');
  topic = join(docs, 'native-aot');
  config = join(root, 'chunkyard.config.yaml');
  writeFileSync(config, 'chunking:\n  maxTokens: 512\n');
  mkdirSync(topic, { recursive: true });
  for (const f of ['golden-reference.md', 'qa-pairs.md']) cpSync(join(REPO, 'docs/deployment/native-aot', f), join(topic, f));
  expect(await chunk([topic, '--config', config], quiet)).toBe(0);
  expect(await keywords([topic], quiet)).toBe(0);
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

it.each([
  ['dangling', 'a dangling symlink (its target does not exist)', () => symlinkSync(join(root, 'nowhere.md'), join(topic, 'topic-spec.md'))],
  ['looping', 'a symlink loop (it never reaches a file)', () => (symlinkSync('loop-b', join(topic, 'topic-spec.md')), symlinkSync('topic-spec.md', join(topic, 'loop-b')))],
])('a %s topic-spec.md link is named as one, and following the advice builds the index', async (_kind, what, plant) => {
  rmSync(join(topic, 'topic-spec.md'), { force: true });
  rmSync(join(topic, 'loop-b'), { force: true });
  plant();
  const spec1 = join(topic, 'topic-spec.md');
  const r = await run([topic, '--root', docs]);
  expect(r.code).toBe(1);
  expect(r.stderr).toBe(`index-tool: ${spec1}: ${what}; remove the link, then run topic-spec on the topic (nx run <topic>:spec)\n`);
  // The advice: remove the link, run topic-spec, run index-tool again.
  rmSync(spec1);
  expect(await spec([topic, '--config', config], quiet)).toBe(0);
  expect(await run([topic, '--root', docs])).toEqual({ code: 0, stderr: '' });
}, 60_000);

it('a topic-spec.md that is not there at all is still "missing; run topic-spec on the topic first"', async () => {
  rmSync(join(topic, 'topic-spec.md'), { force: true });
  const r = await run([topic, '--root', docs]);
  expect(r.code).toBe(1);
  expect(r.stderr).toBe(`index-tool: ${join(topic, 'topic-spec.md')}: missing; run topic-spec on the topic first (nx run <topic>:spec)\n`);
});
