// Property: after any sequence of an author's edits, each followed by `nx run-many -t index`
// (or, after an edit of one topic, `nx run <that topic>:index`), the outputs are byte for byte
// those of a clean build of the same sources. Real Nx over one temp workspace (its cache and
// history carry from step to step and run to run, as a docs repo's do), compared after every
// step with a clean build in a second. Few runs of few steps: each step is two Nx builds.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cleanBuildOf, outputTree } from './clean-build.mjs';
import { createTempWorkspace, nextMtimeSecond, runNx, type TempWorkspace } from './temp-workspace.mjs';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
const SECTIONS = ['a', 'b'];
const NAMES = ['t1', 't2', 't3'];
const doc = (title: string, n: number) =>
  `# ${title}\n\nAn introduction to ${title} with enough prose to form a chunk of its own.\n\n` +
  Array.from({ length: n }, (_, i) => `## Part ${i + 1}\n\nThe part ${i + 1} of ${title} explains one idea in short sentences. A reader can follow it alone.\n`).join('\n');
let ws: TempWorkspace;
let clean: TempWorkspace;
const commits: string[] = [];

const git = (...args: string[]) => {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: ws.root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
};
const topics = () => SECTIONS.flatMap((s) => NAMES.map((n) => `${s}/${n}`)).filter((t) => existsSync(join(ws.root, 'docs', t, 'golden-reference.md')));
const project = (t: string) => `topic-${t.replace('/', '-')}`;

type Edit =
  | { kind: 'add'; to: string; parts: number }
  | { kind: 'edit'; pick: number; parts: number }
  | { kind: 'remove'; pick: number }
  | { kind: 'rename'; pick: number; to: string }
  | { kind: 'qa'; pick: number; text: string | null }
  | { kind: 'config'; targetTokens: number }
  | { kind: 'delete-output'; pick: number; which: '_chunks' | 'index.json' | 'topic-spec.md' | 'root' }
  | { kind: 'checkout'; pick: number };
const place = fc.tuple(fc.constantFrom(...SECTIONS), fc.constantFrom(...NAMES)).map(([s, n]) => `${s}/${n}`);
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), to: place, parts: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('edit' as const), pick: fc.nat(), parts: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('rename' as const), pick: fc.nat(), to: place }),
  fc.record({ kind: fc.constant('qa' as const), pick: fc.nat(), text: fc.option(fc.constantFrom('How do I start?', 'What does part 2 say?'), { nil: null }) }),
  fc.record({ kind: fc.constant('config' as const), targetTokens: fc.constantFrom(40, 80) }),
  fc.record({ kind: fc.constant('delete-output' as const), pick: fc.nat(), which: fc.constantFrom('_chunks' as const, 'index.json' as const, 'topic-spec.md' as const, 'root' as const) }),
  fc.record({ kind: fc.constant('checkout' as const), pick: fc.nat() }),
);

/** Applies the edit as an author would (git for removals and renames); the topic an `nx run` may then build alone, if any. */
function apply(e: Edit): string | null {
  const live = topics();
  const at = (pick: number) => live[pick % live.length];
  const path = (t: string) => join(ws.root, 'docs', t);
  switch (e.kind) {
    case 'add':
      if (existsSync(path(e.to))) return null;
      mkdirSync(path(e.to), { recursive: true });
      writeFileSync(join(path(e.to), 'golden-reference.md'), doc(`Topic ${e.to}`, e.parts));
      return e.to;
    case 'edit': {
      const t = at(e.pick);
      if (t === undefined) return null;
      writeFileSync(join(path(t), 'golden-reference.md'), doc(`Topic ${t} edited`, e.parts));
      return t;
    }
    case 'remove': {
      const t = at(e.pick);
      if (t === undefined || live.length === 1) return null;
      // git removes the tracked files; the git-ignored outputs stay, as in a docs repo.
      git('rm', '-rq', `docs/${t}`);
      return null;
    }
    case 'rename': {
      const t = at(e.pick);
      if (t === undefined || existsSync(path(e.to))) return null;
      mkdirSync(join(path(e.to), '..'), { recursive: true });
      renameSync(path(t), path(e.to));
      return e.to;
    }
    case 'qa': {
      const t = at(e.pick);
      if (t === undefined) return null;
      if (e.text === null) rmSync(join(path(t), 'qa-pairs.md'), { force: true });
      else writeFileSync(join(path(t), 'qa-pairs.md'), `# Q&A\n\n## ${e.text}\n\nRead the parts in order.\n`);
      return t;
    }
    case 'config': {
      const f = join(ws.root, 'chunkyard.config.yaml');
      writeFileSync(f, readFileSync(f, 'utf8').replace(/targetTokens: \d+/, `targetTokens: ${e.targetTokens}`));
      return null;
    }
    case 'delete-output': {
      const t = at(e.pick);
      if (e.which === 'root') rmSync(join(ws.root, 'docs/index.json'), { force: true });
      else if (t !== undefined) rmSync(join(path(t), e.which), { recursive: true, force: true });
      return null;
    }
    case 'checkout': {
      const c = commits[e.pick % commits.length];
      if (c !== undefined) git('checkout', '-q', '--detach', c);
      return null;
    }
  }
}

beforeAll(() => {
  ws = createTempWorkspace({ prefix: 'chunkyard-nx-prop-', topics: { 'docs/a/t1': doc('Topic a/t1', 2), 'docs/b/t1': doc('Topic b/t1', 3) } });
  clean = createTempWorkspace({ prefix: 'chunkyard-nx-prop-clean-', topics: {} });
  commits.push(git('rev-parse', 'HEAD'));
});
afterAll(() => {
  for (const w of [ws, clean]) if (w && !KEEP) rmSync(w.root, { recursive: true, force: true });
});

it('property: after every edit and build, the outputs are a clean build\'s', async () => {
  const first = runNx(ws, ['run-many', '-t', 'index']);
  expect(first.status, first.output).toBe(0);
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(edit, fc.boolean()), { minLength: 2, maxLength: 3 }), async (steps) => {
      for (const [e, single] of steps) {
        await nextMtimeSecond(ws);
        const touched = apply(e);
        git('add', '-A');
        git('commit', '-qm', JSON.stringify(e), '--allow-empty');
        commits.push(git('rev-parse', 'HEAD'));
        // One topic's own index, when the edit touched only that topic: the README promises its
        // section's and the root's indexes (and llms.txt), not other topics'.
        const r = touched !== null && single ? runNx(ws, ['run', `${project(touched)}:index`]) : runNx(ws, ['run-many', '-t', 'index']);
        expect(r.status, `${JSON.stringify(e)}\n${r.output}`).toBe(0);
        const inc = outputTree(ws.root);
        const cl = cleanBuildOf(ws, clean);
        const diff = [...new Set([...Object.keys(inc), ...Object.keys(cl)])].filter((f) => inc[f] !== cl[f]).sort();
        expect(diff, `after ${JSON.stringify(e)} (${touched !== null && single ? `nx run ${project(touched)}:index` : 'run-many'})`).toEqual([]);
      }
    }),
    { numRuns: 3, endOnFailure: true },
  );
}, 240_000);
