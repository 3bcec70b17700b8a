// A topic holding a topic, under real Nx: Nx gives the files below the nested topic to the
// nested project, so the outer topic's `{projectRoot}/**` inputs did not see a source that its
// topic.yaml lists inside the nested folder. Editing it left the outer chunk task a cache hit
// with the old chunks (found by a probe). And a docs root that is itself a topic, with
// llms-full.txt: the root's own llms.txt and llms-full.txt are no sources of its topic steps.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTempWorkspace, nextMtimeSecond, runMany, runNx, type TempWorkspace } from './temp-workspace.mjs';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
let ws: TempWorkspace;

beforeAll(() => {
  ws = createTempWorkspace({
    prefix: 'chunkyard-nx-nested-',
    topics: {
      'docs/outer': '# Outer\n\nThe outer topic introduces the guide and links its parts together.\n',
      'docs/outer/inner': '# Inner\n\nThe inner topic is a topic of its own, nested in the outer one.\n',
    },
  });
  writeFileSync(join(ws.root, 'docs/outer/topic.yaml'), 'sources:\n  - golden-reference.md\n  - inner/extra.md\n');
  writeFileSync(join(ws.root, 'docs/outer/inner/extra.md'), '# Extra\n\nThe first wording of the extra page.\n');
});
afterAll(() => {
  if (ws && !KEEP) rmSync(ws.root, { recursive: true, force: true });
});

const chunkText = (folder: string) =>
  readdirSync(join(ws.root, folder, '_chunks'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => readFileSync(join(ws.root, folder, '_chunks', f), 'utf8'))
    .join('\n');

it('editing a source the outer topic lists inside its nested topic reruns the outer chunk task, which writes the new text', async () => {
  const first = runMany(ws, ['-t', 'chunk'], 240_000);
  expect(first.ran.has('topic-outer:chunk')).toBe(true);
  expect(chunkText('docs/outer')).toContain('first wording');
  expect(runMany(ws, ['-t', 'chunk']).ran.has('topic-outer:chunk')).toBe(false);

  await nextMtimeSecond(ws);
  writeFileSync(join(ws.root, 'docs/outer/inner/extra.md'), '# Extra\n\nThe second wording of the extra page.\n');
  const edited = runMany(ws, ['-t', 'chunk']);
  expect(edited.ran.has('topic-outer:chunk')).toBe(true);
  expect(chunkText('docs/outer')).toContain('second wording');
  // The nested topic's own outputs are no input of the outer one: a rerun is cached.
  expect(runMany(ws, ['-t', 'chunk']).ran.has('topic-outer:chunk')).toBe(false);
}, 300_000);

it('a docs root that is a topic, with llms-full.txt: a rerun after a build is served wholly from the cache', async () => {
  // llms-full.txt is not among init's .gitignore lines (chunkyard's own .gitignore lists neither).
  const nxJsonFile = join(ws.root, 'nx.json');
  const nxJson = JSON.parse(readFileSync(nxJsonFile, 'utf8'));
  nxJson.plugins = [{ plugin: '@chunkyard/nx', options: { docsRoot: 'docs', llmsTxt: { full: true } } }];
  writeFileSync(nxJsonFile, JSON.stringify(nxJson, null, 2));
  writeFileSync(join(ws.root, 'docs/golden-reference.md'), '# Docs\n\nThe docs root is a topic of its own, with an introduction.\n');
  expect(runNx(ws, ['show', 'project', 'topic-docs', '--json']).status).toBe(0);
  const first = runMany(ws, ['-t', 'index'], 240_000);
  expect(first.ran.has('topic-docs:chunk')).toBe(true);
  expect(readFileSync(join(ws.root, 'docs/llms-full.txt'), 'utf8')).toContain('introduction');
  await nextMtimeSecond(ws);
  const again = runMany(ws, ['-t', 'index']);
  expect([...again.ran].sort()).toEqual([]);
}, 300_000);

it('nx run on a topic nested three deep writes every index.json above it: index waits for its parent\'s index, and so up to the root', async () => {
  // Each folder's index names its parent's index, not every ancestor (which was D^3 for topics
  // nested D deep: plugin.deep-nesting.test.ts). Real Nx must follow that chain to the root.
  // With llms.txt off, so that only the chain of index targets reaches the root's index.json.
  const nxJsonFile = join(ws.root, 'nx.json');
  const nxJson = JSON.parse(readFileSync(nxJsonFile, 'utf8'));
  nxJson.plugins = [{ plugin: '@chunkyard/nx', options: { docsRoot: 'docs', llmsTxt: false } }];
  writeFileSync(nxJsonFile, JSON.stringify(nxJson, null, 2));
  await nextMtimeSecond(ws);
  mkdirSync(join(ws.root, 'docs/outer/inner/deeper'), { recursive: true });
  writeFileSync(join(ws.root, 'docs/outer/inner/deeper/golden-reference.md'), '# Deeper\n\nThe deeper topic sits three folders below the docs root.\n');
  for (const f of ['docs/index.json', 'docs/outer/index.json', 'docs/outer/inner/index.json']) rmSync(join(ws.root, f), { force: true });
  const r = runNx(ws, ['run', 'topic-outer-inner-deeper:index', '--outputStyle=static'], 240_000);
  expect(r.status, r.output).toBe(0);
  // eslint-disable-next-line no-control-regex
  const plain = r.output.replace(/\u001b\[[0-9;]*m/g, '');
  const tasks = new Set([...plain.matchAll(/^> nx run (\S+)/gm)].map((m) => m[1]));
  for (const t of ['topic-outer-inner-deeper:index-json', 'topic-outer-inner:index', 'topic-outer-inner:index-json', 'topic-outer:index', 'topic-outer:index-json', 'topic-docs:index', 'topic-docs:index-json']) {
    expect(tasks.has(t), `${t}\n${plain}`).toBe(true);
  }
  const ids = (f: string) => (JSON.parse(readFileSync(join(ws.root, f), 'utf8')) as { _embedded: { topics: { id: string }[] } })._embedded.topics.map((t) => t.id);
  expect(ids('docs/outer/inner/index.json')).toContain('outer/inner/deeper');
  expect(ids('docs/outer/index.json')).toContain('outer/inner');
  expect(ids('docs/index.json')).toContain('outer');
}, 300_000);
