// Issue 15: every stage runs in linear time. Whether a folder holds a topic below it was walked
// again for every section above it and for every folder named on the command line, so a chain
// of nested sections read the folders below each one again: the number of folder reads grew as
// the square of the depth (160 levels: 13,000 reads, 1.6 s). The reads are counted through the
// real fs module, so the test times nothing.
import fs, { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { main } from './main.js';

const temp = mkdtempSync(join(tmpdir(), 'chunkyard-index-sections-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const quiet = { stdout: () => {}, stderr: () => {} };

/** A topic index-tool is not asked to build: its own index.json is read for its title only. */
function topic(dir: string, title: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'golden-reference.md'), `# ${title}\n`);
  writeFileSync(join(dir, 'index.json'), JSON.stringify({ title }));
}

/** Runs main with every readdirSync counted (the real one does the reading). */
async function countingReads(argv: string[]): Promise<{ code: number; reads: number }> {
  const real = fs.readdirSync;
  let reads = 0;
  // Named imports of node:fs follow the module object only after syncBuiltinESMExports.
  fs.readdirSync = ((...args: Parameters<typeof real>) => {
    reads++;
    return real(...args);
  }) as typeof real;
  syncBuiltinESMExports();
  try {
    return { code: await main(argv, quiet), reads };
  } finally {
    fs.readdirSync = real;
    syncBuiltinESMExports();
  }
}

it('a chain of 300 nested sections reads each folder a bounded number of times', async () => {
  const depth = 300;
  const docs = join(temp, 'chain', 'docs');
  const sections: string[] = [docs];
  let dir = docs;
  for (let i = 0; i < depth; i++) {
    // Named so that the next level sorts before the level's own topic: the walk goes down first.
    dir = join(dir, 'a');
    topic(join(dir, 't'), `Topic ${i}`);
    sections.push(dir);
  }
  const { code, reads } = await countingReads([...sections, '--root', docs]);
  expect(code).toBe(0);
  // 2 folders per level (the section and its topic); the old walk read ~depth²/2 (45,000) times.
  expect(reads).toBeLessThan(10 * 2 * depth);
  const deepest = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { _embedded: { topics: { id: string }[] } };
  expect(deepest._embedded.topics.map((t) => t.id)).toEqual([relative(docs, join(dir, 't'))]);
  const top = JSON.parse(readFileSync(join(docs, 'index.json'), 'utf8')) as { _embedded: { topics: { id: string; kind: string }[] } };
  expect(top._embedded.topics).toEqual([expect.objectContaining({ id: 'a', kind: 'section' })]);
});

it('a section lists exactly the child folders that are topics or hold one below them', async () => {
  // A tree of folders, each a topic or not; generated, hidden and installed folders never count.
  const names = fc.constantFrom('a', 'b', 'c', '_chunks', '.hidden', 'node_modules');
  type Tree = { topic: boolean; children: Map<string, Tree> };
  // Paths of folders, each ending in a topic or an empty folder; a tree of them.
  const tree: fc.Arbitrary<Tree> = fc.array(fc.tuple(fc.array(names, { minLength: 1, maxLength: 6 }), fc.boolean()), { maxLength: 12 }).map((paths) => {
    const root: Tree = { topic: false, children: new Map() };
    for (const [path, isTopic] of paths) {
      let at = root;
      for (const n of path) {
        const next = at.children.get(n) ?? { topic: false, children: new Map() };
        at.children.set(n, next);
        at = next;
      }
      at.topic ||= isTopic;
    }
    return root;
  });
  let run = 0;
  await fc.assert(
    fc.asyncProperty(tree, async (t) => {
      const docs = join(temp, `prop-${run++}`, 'docs');
      mkdirSync(docs, { recursive: true });
      const holds = (x: Tree): boolean => [...x.children].some(([n, c]) => counted(n) && (c.topic || holds(c)));
      const counted = (n: string) => !n.startsWith('_') && !n.startsWith('.') && n !== 'node_modules';
      const sections: { dir: string; tree: Tree }[] = [];
      const write = (dir: string, x: Tree, top: boolean) => {
        mkdirSync(dir, { recursive: true });
        // A topic inside a topic's folder is not looked for: the outer one is the topic.
        if (x.topic && !top) {
          topic(dir, relative(docs, dir));
          return;
        }
        if (holds(x)) sections.push({ dir, tree: x });
        for (const [n, c] of x.children) write(join(dir, n), c, false);
      };
      write(docs, t, true);
      if (sections.length === 0) return;
      const code = await main([...sections.map((s) => s.dir), '--root', docs], quiet);
      expect(code).toBe(0);
      for (const s of sections) {
        const index = JSON.parse(readFileSync(join(s.dir, 'index.json'), 'utf8')) as { _embedded: { topics: { id: string; kind: string }[] } };
        const expected = [...s.tree.children]
          .filter(([n, c]) => counted(n) && (c.topic || holds(c)))
          .map(([n, c]) => ({ id: relative(docs, join(s.dir, n)), kind: c.topic ? 'topic' : 'section' }))
          .sort((x, y) => (x.id < y.id ? -1 : 1));
        expect(index._embedded.topics.map((e) => ({ id: e.id, kind: e.kind }))).toEqual(expected);
      }
    }),
    { numRuns: 100 },
  );
});
