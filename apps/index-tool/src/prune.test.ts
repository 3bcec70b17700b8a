// index-tool --prune: the outputs a deleted topic leaves behind (git rm removes only tracked
// files) are removed, and nothing else is: not a live topic's outputs, not a section's index,
// not a user's own files that merely share a name. Real outputs, built once by the real tools.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { main } from './main.js';
import { tree, useBuiltTopic } from './test-built-topic.js';

const topic = useBuiltTopic('chunkyard-prune-');
const freshDocs = () => topic.freshDocs();
const OUTPUT = /(^|\/)(_chunks\/.*|_keywords\/words\.md|topic-spec\.md|index\.json)$/;
/** Copies the built topic to `docs/<rel>`; `deleted`: then removes what git rm would (the tracked sources). */
const placeTopic = (docs: string, rel: string, deleted: boolean) => {
  cpSync(topic.built, join(docs, rel), { recursive: true });
  if (deleted) for (const f of ['golden-reference.md', 'qa-pairs.md']) rmSync(join(docs, rel, f));
};
const indexAll = async (docs: string, folders: string[], prune: boolean) => {
  let stdout = '';
  let stderr = '';
  const code = await main([...folders.map((f) => join(docs, f)), '--root', docs, ...(prune ? ['--prune'] : [])], { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
};

it('removes a git-rm-ed topic\'s outputs and an emptied section\'s index.json; keeps the live topic, the sections above it and the hand-written files', async () => {
  const docs = freshDocs();
  placeTopic(docs, 'a/live', false);
  placeTopic(docs, 'a/gone', true);
  placeTopic(docs, 'b/gone', true);
  // The sections' and root's index.json as the build before the deletion wrote them.
  placeTopic(docs, 'b/was-live', false);
  expect((await indexAll(docs, ['a/live', 'b/was-live', 'a', 'b', ''], false)).code).toBe(0);
  rmSync(join(docs, 'b/was-live/golden-reference.md'));
  writeFileSync(join(docs, 'b/was-live/notes.md'), 'kept: not an output\n');
  const before = tree(docs);
  const r = await indexAll(docs, ['a', ''], true);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const after = tree(docs);
  const removed = Object.keys(before).filter((f) => !(f in after)).sort();
  // Every output below a folder that is no topic, with none below it: b's index.json too.
  expect(removed).toEqual(Object.keys(before).filter((f) => OUTPUT.test(f) && /^(a\/gone|b)\//.test(f)).sort());
  expect(removed).toContain('b/index.json');
  expect(removed.some((f) => f.startsWith('a/live/'))).toBe(false);
  expect(after['b/was-live/notes.md']).toBe('kept: not an output\n');
  expect(existsSync(join(docs, 'a/gone/_keywords'))).toBe(false);
  expect(r.stdout).toContain(`${join(docs, 'a/gone/_chunks')}: removed`);
  // Without --prune, as before: nothing is removed.
  const docs2 = freshDocs();
  placeTopic(docs2, 'a/live', false);
  placeTopic(docs2, 'a/gone', true);
  const before2 = tree(docs2);
  expect((await indexAll(docs2, ['a/live', 'a', ''], false)).code).toBe(0);
  for (const f of Object.keys(before2)) expect(existsSync(join(docs2, f)), f).toBe(true);
});

it('a deleted topic whose folder name is percent-encoded in its links (a space, ü) loses its index.json too, and so does the section emptied with it', async () => {
  // Its self link is /a/getting%20started/index.json; compared with the raw id it was never
  // taken for index-tool's, so --prune left it (and the plugin never saw anything stale).
  const docs = freshDocs();
  for (const t of ['a/live', 'a/getting started', 'a/über', 'c d/gone']) placeTopic(docs, t, false);
  expect((await indexAll(docs, ['a/live', 'a/getting started', 'a/über', 'c d/gone', 'a', 'c d', ''], false)).code).toBe(0);
  for (const t of ['a/getting started', 'a/über', 'c d/gone']) for (const f of ['golden-reference.md', 'qa-pairs.md']) rmSync(join(docs, t, f));
  const r = await indexAll(docs, ['a', ''], true);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  for (const f of ['a/getting started/index.json', 'a/über/index.json', 'c d/gone/index.json', 'c d/index.json']) expect(existsSync(join(docs, f)), f).toBe(false);
  expect(existsSync(join(docs, 'a/live/index.json'))).toBe(true);
  expect(Object.keys(tree(docs)).filter((f) => !f.startsWith('a/live/') && !['a/index.json', 'index.json'].includes(f))).toEqual([]);
});

it('a topic that became a section (its marker gone, a topic below it) loses its topic outputs and keeps its section index.json', async () => {
  const docs = freshDocs();
  placeTopic(docs, 'outer', true);
  placeTopic(docs, 'outer/inner', false);
  const r = await indexAll(docs, ['outer/inner', 'outer', ''], true);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(existsSync(join(docs, 'outer/_chunks'))).toBe(false);
  expect(existsSync(join(docs, 'outer/topic-spec.md'))).toBe(false);
  expect(existsSync(join(docs, 'outer/_keywords'))).toBe(false);
  expect(JSON.parse(readFileSync(join(docs, 'outer/index.json'), 'utf8')).kind).toBe('section');
  expect(existsSync(join(docs, 'outer/inner/_chunks'))).toBe(true);
});

it('leaves alone what it does not recognise as its own, folders no index lists, and folders behind a symlink', async () => {
  const docs = freshDocs();
  placeTopic(docs, 'live', false);
  const own: Record<string, string> = {
    'assets/index.json': '{ "kind": "section", "_links": { "self": { "href": "/elsewhere/index.json" } } }\n',
    'assets/topic-spec.md': '# The topic spec we write by hand\n',
    'assets/_chunks/notes.json': '{ "notes": true }\n',
    'assets/_keywords/words.md': '| keyword | score |\n',
    'data/index.json': 'not json at all',
  };
  for (const [f, text] of Object.entries(own)) {
    mkdirSync(join(docs, f, '..'), { recursive: true });
    writeFileSync(join(docs, f), text);
  }
  // A topic moved into _drafts is no topic (the plugin makes none there, index-tool lists none).
  placeTopic(docs, '_drafts/old', true);
  placeTopic(docs, '.hidden/old', true);
  const outside = topic.scratch('outside');
  placeTopic(outside, 'old', true);
  symlinkSync(join(outside, 'old'), join(docs, 'linked'));
  const before = tree(docs);
  const beforeOutside = tree(outside);
  const r = await indexAll(docs, ['live', ''], true);
  expect(r.code).toBe(0);
  const after = tree(docs);
  // Only the two indexes of this run were added.
  expect(Object.keys(after).filter((f) => !(f in before)).sort()).toEqual(['index.json', 'live/index.json']);
  for (const [f, text] of Object.entries(before)) expect(after[f], f).toBe(text);
  expect(tree(outside)).toEqual(beforeOutside);
});

it('property: after a pruned build, every output lies in a topic (or is the index.json of a folder with topics below), and every other file is untouched', async () => {
  // Folders a deep tree may hold, each a live topic, a deleted one, a user's plain folder, or nothing.
  const names = fc.constantFrom('a', 'b', 'c', 'x y', 'ü', '_d', 'node_modules');
  const kind = fc.constantFrom('topic', 'deleted', 'plain', 'none');
  await fc.assert(
    fc.asyncProperty(fc.uniqueArray(fc.tuple(fc.array(names, { minLength: 1, maxLength: 3 }), kind), { maxLength: 6, selector: ([p]) => p.join('/') }), async (folders) => {
      const docs = freshDocs();
      placeTopic(docs, 'anchor', false);
      for (const [parts, k] of folders) {
        const rel = parts.join('/');
        if (k === 'none' || rel === 'anchor') continue;
        if (k === 'plain') {
          mkdirSync(join(docs, rel), { recursive: true });
          writeFileSync(join(docs, rel, 'index.json'), '{"mine":true}\n');
          writeFileSync(join(docs, rel, 'topic-spec.md'), 'mine\n');
        } else if (!existsSync(join(docs, rel, '_chunks'))) {
          cpSync(topic.built, join(docs, rel), { recursive: true, force: false });
          if (k === 'deleted') for (const f of ['golden-reference.md', 'qa-pairs.md']) rmSync(join(docs, rel, f), { force: true });
        }
      }
      const listed = (rel: string) => !rel.split('/').some((p) => p.startsWith('_') || p.startsWith('.') || p === 'node_modules');
      const isTopic = (rel: string) => existsSync(join(docs, rel, 'golden-reference.md'));
      const all = Object.keys(tree(docs));
      const folderOf = (f: string) => f.replace(/\/?(_chunks\/[^/]*|_keywords\/words\.md|topic-spec\.md|index\.json)$/, '');
      const topics = [...new Set(all.filter((f) => f.endsWith('/golden-reference.md') || f === 'golden-reference.md').map((f) => f.replace(/\/?golden-reference\.md$/, '')))].filter(listed);
      const sections = new Set(['']);
      for (const t of topics) for (let p = t.split('/'); p.length > 1; ) sections.add((p = p.slice(0, -1)).join('/'));
      const before = tree(docs);
      const r = await indexAll(docs, [...topics, ...[...sections].filter((s) => !topics.includes(s))], true);
      expect(r.stderr).toBe('');
      const after = tree(docs);
      for (const [f, text] of Object.entries(before)) {
        const folder = folderOf(f);
        const stale = OUTPUT.test(f) && listed(folder) && !isTopic(folder) && text !== '{"mine":true}\n' && text !== 'mine\n' && !(f.endsWith('index.json') && sections.has(folder));
        if (stale) expect(after[f], `${f} should be gone`).toBeUndefined();
        else if (!f.endsWith('index.json') || !(isTopic(folder) || sections.has(folder))) expect(after[f], f).toBe(text);
      }
    }),
    { numRuns: 25 },
  );
}, 120_000);

it('--prune-embedding-cache removes a gone topic\'s cache folder and .pack (the Nx plugin names them), only with --prune and only a topic cache', async () => {
  const docs = freshDocs();
  placeTopic(docs, 'a/live', false);
  const caches = join(docs, '..', '.embedding-cache');
  mkdirSync(join(caches, 'topic-a-gone', '_by-text', 'p'), { recursive: true });
  writeFileSync(join(caches, 'topic-a-gone.pack'), 'chunkyard-pack 1\n');
  mkdirSync(join(caches, 'topic-mine'), { recursive: true });
  writeFileSync(join(caches, 'topic-mine', 'notes.txt'), 'not a cache\n');
  const run = (...extra: string[]) => {
    let stdout = '';
    let stderr = '';
    return main([join(docs, 'a/live'), join(docs, 'a'), docs, '--root', docs, ...extra], { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }).then((code) => ({ code, stdout, stderr }));
  };
  const alone = await run('--prune-embedding-cache', join(caches, 'topic-a-gone'));
  expect(alone.code).toBe(2);
  expect(alone.stderr).toContain('--prune-embedding-cache goes with --prune');
  expect(existsSync(join(caches, 'topic-a-gone'))).toBe(true);
  const r = await run('--prune', '--prune-embedding-cache', join(caches, 'topic-a-gone'), '--prune-embedding-cache', join(caches, 'topic-mine'), '--prune-embedding-cache', join(caches, 'topic-never'));
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(existsSync(join(caches, 'topic-a-gone'))).toBe(false);
  expect(existsSync(join(caches, 'topic-a-gone.pack'))).toBe(false);
  expect(readFileSync(join(caches, 'topic-mine', 'notes.txt'), 'utf8')).toBe('not a cache\n');
  expect(r.stdout).toContain(`${join(caches, 'topic-a-gone')}: removed (the embedding cache of a topic that is gone)`);
  expect(r.stdout).toContain(`${join(caches, 'topic-a-gone.pack')}: removed`);
  // A path that holds something else is left and said so (a mistyped path was left without a
  // word, as if pruned); one where nothing is, was pruned already: nothing to say.
  expect(r.stdout).toContain(`${join(caches, 'topic-mine')}: left as it is (not a topic's embedding cache)`);
  expect(r.stdout).not.toContain('topic-never');
  // Again, with the cache gone: nothing removed, nothing said of it.
  const again = await run('--prune', '--json', '--prune-embedding-cache', join(caches, 'topic-a-gone'), '--prune-embedding-cache', join(caches, 'topic-mine'));
  const json = JSON.parse(again.stdout) as { prunedCaches: string[]; keptCaches: string[] };
  expect(json.prunedCaches).toEqual([]);
  expect(json.keptCaches).toEqual([join(caches, 'topic-mine')]);
});
