// --prune removes the index.json of a topic that is gone; a section not written in the same run
// still listed it (s57 probe): `index-tool --root docs --prune docs` after a topic of
// docs/libraries was deleted exited 0, and docs-query then failed on the whole tree
// ("…/index.json: no such file"). Real topics built by the real chunking-tool,
// keyword-extractor and topic-spec; the tree read back through @chunkyard/retrieval.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { main as spec } from '../../topic-spec/src/main.js';
import { openSource, walkTopics } from '@chunkyard/retrieval';
import { main } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const quiet = { stdout: () => {}, stderr: () => {} };
const TOPICS = ['libraries/system-text-json-polymorphism', 'deployment/native-aot'];
const GONE = 'deployment/native-aot';

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}
const topicIds = async (docs: string) => (await walkTopics(openSource(docs))).map((t) => t.id).sort();

let root: string;
let built: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-index-prune-listed-'));
  built = join(root, 'built');
  const config = join(root, 'chunkyard.config.yaml');
  writeFileSync(config, 'chunking:\n  maxTokens: 512\n');
  for (const t of TOPICS) {
    const dir = join(built, t);
    mkdirSync(dir, { recursive: true });
    for (const f of ['golden-reference.md', 'qa-pairs.md']) cpSync(join(REPO, 'docs', t, f), join(dir, f));
    expect(await chunk([dir, '--config', config], quiet)).toBe(0);
    expect(await keywords([dir], quiet)).toBe(0);
    expect(await spec([dir, '--config', config], quiet)).toBe(0);
  }
  // A second topic in deployment/, so the section stays when the gone one is pruned.
  cpSync(join(built, TOPICS[0]!), join(built, 'deployment/polymorphism'), { recursive: true });
  const r = await run([...TOPICS.map((t) => join(built, t)), join(built, 'deployment/polymorphism'), join(built, 'libraries'), join(built, 'deployment'), built, '--root', built]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A copy of the built tree whose GONE topic was deleted with git rm (its sources only). */
function treeWithGoneTopic(name: string): string {
  const docs = join(root, name);
  cpSync(built, docs, { recursive: true });
  for (const f of ['golden-reference.md', 'qa-pairs.md']) rmSync(join(docs, GONE, f));
  return docs;
}

it('pruned under a section this run did not write: exit 1 naming the section and how to rebuild it; following it gives a tree docs-query reads', async () => {
  const docs = treeWithGoneTopic('root-only');
  const r = await run([docs, '--root', docs, '--prune']);
  expect(existsSync(join(docs, GONE, 'index.json'))).toBe(false);
  expect(r.stderr).toBe(
    `index-tool: ${join(docs, 'deployment', 'index.json')}: lists ${GONE}, which is no longer a topic and whose index.json --prune removed; build that section again (index-tool --root ${docs} ${join(docs, 'deployment')}), or name it with the others\n`,
  );
  expect(r.code).toBe(1);
  await expect(topicIds(docs)).rejects.toThrow(/no such file/);
  // The advice followed.
  expect(await run([join(docs, 'deployment'), '--root', docs])).toMatchObject({ code: 0, stderr: '' });
  expect(await topicIds(docs)).toEqual(['deployment/polymorphism', TOPICS[0]]);
});

it('the section named in the same run: exit 0, nothing said, and the tree reads', async () => {
  const docs = treeWithGoneTopic('with-section');
  const r = await run([join(docs, 'deployment'), docs, '--root', docs, '--prune']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(existsSync(join(docs, GONE, 'index.json'))).toBe(false);
  expect(await topicIds(docs)).toEqual(['deployment/polymorphism', TOPICS[0]]);
});
