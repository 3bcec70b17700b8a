// index-tool --prune on a docs root whose last topic was deleted. git rm -r removes only tracked
// files, so the topics' git-ignored outputs stay, and so do the root's own index.json (still
// listing the deleted topics) and llms.txt, which docs-export, docs-store and docs-query read.
// `index-tool docs --root docs --prune` exited 2 ("neither a topic nor a section") on such a
// root, so nothing could remove them; the Nx plugin, which keeps a root project while they are
// there, needs it to. Real outputs, built by the real tools.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { main } from './main.js';
import { tree, useBuiltTopic } from './test-built-topic.js';
import { topiclessRootOutputs } from './stale-outputs.js';

const topic = useBuiltTopic('chunkyard-prune-root-');
const freshDocs = () => topic.freshDocs();
const OUTPUT = /(^|\/)(_chunks\/.*|_keywords\/words\.md|topic-spec\.md|index\.json|llms\.txt|llms-full\.txt)$/;
const run = async (args: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
};
/** Places built topics, builds every index.json and llms.txt (and llms-full.txt) as a build before the deletion did. */
const buildTree = async (docs: string, topics: string[]) => {
  for (const t of topics) cpSync(topic.built, join(docs, t), { recursive: true });
  const sections = new Set(['']);
  for (const t of topics) for (let p = t.split('/'); p.length > 1; ) sections.add((p = p.slice(0, -1)).join('/'));
  const folders = [...new Set([...topics, ...sections])].map((f) => join(docs, f));
  const indexed = await run([...folders, '--root', docs]);
  expect(indexed.code, indexed.stderr).toBe(0);
  const llms = await run([docs, '--root', docs, '--llms-txt', '--llms-full']);
  expect(llms.code, llms.stderr).toBe(0);
};
/** What `git rm -r` of a topic removes: its tracked sources. */
const deleteTopic = (docs: string, t: string) => {
  for (const f of ['golden-reference.md', 'qa-pairs.md']) rmSync(join(docs, t, f), { force: true });
};

it('--prune on a root whose last topic was deleted removes the root\'s index.json, llms files and every output its topics left, exits 0 and names them; without --prune it is the usage error it was', async () => {
  const docs = freshDocs();
  await buildTree(docs, ['guides/install', 'guides/deep/tuning', 'faq']);
  writeFileSync(join(docs, 'README.md'), '# Our docs\n');
  writeFileSync(join(docs, 'guides', 'notes.md'), 'kept: not an output\n');
  for (const t of ['guides/install', 'guides/deep/tuning', 'faq']) deleteTopic(docs, t);
  const before = tree(docs);
  expect(Object.keys(before)).toEqual(expect.arrayContaining(['index.json', 'llms.txt', 'llms-full.txt', 'guides/index.json', 'faq/_keywords/words.md']));

  // Without --prune: still exit 2 with the same words, and nothing is touched.
  const plain = await run([docs, '--root', docs]);
  expect(plain.code).toBe(2);
  expect(plain.stderr).toContain(`${docs}: neither a topic (no golden-reference.md) nor a section (no topic below it)`);
  expect(tree(docs)).toEqual(before);
  // Nor may another folder ride along: the exception is for the root alone.
  const two = await run([docs, join(docs, 'guides'), '--root', docs, '--prune']);
  expect(two.code).toBe(2);
  expect(tree(docs)).toEqual(before);

  const r = await run([docs, '--root', docs, '--prune']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const after = tree(docs);
  const removed = Object.keys(before).filter((f) => !(f in after)).sort();
  expect(removed).toEqual(Object.keys(before).filter((f) => OUTPUT.test(f)).sort());
  expect(after).toEqual({ 'README.md': '# Our docs\n', 'guides/notes.md': 'kept: not an output\n' });
  // No _keywords folder emptied, no _chunks renamed aside, is left behind.
  expect(readdirSync(join(docs, 'faq'))).toEqual([]);
  expect(existsSync(docs)).toBe(true);
  for (const f of ['index.json', 'llms.txt', 'llms-full.txt', 'guides/index.json', 'faq/_chunks']) expect(r.stdout).toContain(`${join(docs, f)}: removed (the docs root holds no topic any more)\n`);
  // The root's index.json is the last file removed: a run cut short leaves it, and the next finishes.
  expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(`${join(docs, 'index.json')}: removed (the docs root holds no topic any more)`);

  // Again: nothing left to remove, still exit 0, and it says so.
  const again = await run([docs, '--root', docs, '--prune']);
  expect(again.code).toBe(0);
  expect(again.stdout).toBe(`${docs}: holds no topic, and no output of chunkyard's to remove\n`);
  expect(tree(docs)).toEqual(after);
}, 60_000);

it('a root that was itself a topic loses its _chunks, words.md and topic-spec.md too; --json reports them, and the embedding caches named', async () => {
  const docs = freshDocs();
  cpSync(topic.built, docs, { recursive: true });
  const indexed = await run([docs, '--root', docs]);
  expect(indexed.code, indexed.stderr).toBe(0);
  deleteTopic(docs, '');
  const caches = join(docs, '..', '.embedding-cache');
  mkdirSync(join(caches, 'topic-docs', 'p'), { recursive: true });
  // A file the caches' folder also holds, named by mistake: left, and listed as left.
  writeFileSync(join(caches, 'README'), 'ours\n');
  const r = await run([docs, '--root', docs, '--prune', '--json', '--prune-embedding-cache', join(caches, 'topic-docs'), '--prune-embedding-cache', join(caches, 'README')]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const json = JSON.parse(r.stdout) as { indexes: unknown[]; errors: unknown[]; pruned: string[]; prunedCaches: string[]; keptCaches: string[] };
  expect(json.keptCaches).toEqual([join(caches, 'README')]);
  expect(readFileSync(join(caches, 'README'), 'utf8')).toBe('ours\n');
  expect(json.indexes).toEqual([]);
  expect(json.errors).toEqual([]);
  expect([...json.pruned].sort()).toEqual(['_chunks', '_keywords/words.md', 'index.json', 'topic-spec.md']);
  expect(json.pruned.at(-1)).toBe('index.json');
  expect(json.prunedCaches).toEqual([join(caches, 'topic-docs')]);
  expect(readdirSync(docs)).toEqual([]);
  expect(existsSync(join(caches, 'topic-docs'))).toBe(false);
});

it('what it does not recognise stays: a hand-written llms.txt with no index.json of the root beside it, a user\'s own index.json and topic-spec.md', async () => {
  const docs = freshDocs();
  const own: Record<string, string> = {
    'llms.txt': '# Our product\n\n> Hand-written, with no index.json of index-tool beside it.\n',
    'index.json': '{ "kind": "section", "_links": { "self": { "href": "/elsewhere/index.json" } } }\n',
    'topic-spec.md': '# The topic spec we write by hand\n',
    'data/index.json': 'not json at all',
  };
  for (const [f, text] of Object.entries(own)) {
    mkdirSync(join(docs, f, '..'), { recursive: true });
    writeFileSync(join(docs, f), text);
  }
  const r = await run([docs, '--root', docs, '--prune']);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(`${docs}: holds no topic, and no output of chunkyard's to remove\n`);
  expect(tree(docs)).toEqual(own);
  expect(topiclessRootOutputs(docs, 'golden-reference.md')).toEqual([]);
  // A topic at or below the root: the list is not this function's (staleOutputs is), and --prune
  // on the root is the ordinary run.
  cpSync(topic.built, join(docs, 'live'), { recursive: true });
  expect(topiclessRootOutputs(docs, 'golden-reference.md')).toBeNull();
});

it('property: over any tree of deleted topics and plain folders, --prune on the topicless root removes exactly chunkyard\'s outputs, and then topiclessRootOutputs (what the Nx plugin looks at) is empty', async () => {
  const names = fc.constantFrom('a', 'b', 'x y', 'ü', '_d', 'node_modules');
  const kind = fc.constantFrom('deleted', 'plain', 'none');
  await fc.assert(
    fc.asyncProperty(fc.uniqueArray(fc.tuple(fc.array(names, { minLength: 1, maxLength: 3 }), kind), { minLength: 1, maxLength: 5, selector: ([p]) => p.join('/') }), fc.boolean(), async (folders, llms) => {
      const docs = freshDocs();
      const topics = folders.filter(([p, k]) => k === 'deleted' && !p.some((x) => x.startsWith('_') || x === 'node_modules')).map(([p]) => p.join('/'));
      // Only the deepest of nested topics: a topic holding topics is built the same way, but one
      // copy over another's folder would mix their outputs.
      const leaves = topics.filter((t) => !topics.some((o) => o !== t && o.startsWith(`${t}/`)));
      if (leaves.length > 0) {
        await buildTree(docs, leaves);
        if (!llms) for (const f of ['llms.txt', 'llms-full.txt']) rmSync(join(docs, f));
      }
      const unlisted = folders.filter(([p, k]) => k === 'deleted' && p.some((x) => x.startsWith('_') || x === 'node_modules')).map(([p]) => p.join('/'));
      for (const u of unlisted) if (!existsSync(join(docs, u, '_chunks'))) cpSync(topic.built, join(docs, u), { recursive: true, force: false });
      for (const [parts, k] of folders) {
        if (k !== 'plain') continue;
        const rel = parts.join('/');
        mkdirSync(join(docs, rel), { recursive: true });
        writeFileSync(join(docs, rel, 'notes.md'), `mine: ${rel}\n`);
      }
      for (const t of [...leaves, ...unlisted]) deleteTopic(docs, t);
      const before = tree(docs);
      const r = await run([docs, '--root', docs, '--prune']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const after = tree(docs);
      const listed = (f: string) => !f.split('/').some((p) => p.startsWith('_') && p !== '_chunks' && p !== '_keywords' || p.startsWith('.') || p === 'node_modules');
      for (const [f, text] of Object.entries(before)) {
        if (OUTPUT.test(f) && listed(f)) expect(after[f], `${f} should be gone`).toBeUndefined();
        else expect(after[f], f).toBe(text);
      }
      expect(Object.keys(after).every((f) => f in before)).toBe(true);
      expect(topiclessRootOutputs(docs, 'golden-reference.md')).toEqual([]);
    }),
    { numRuns: 15 },
  );
}, 180_000);
