// index-tool --prune and the temps killed runs leave beside a topic's outputs: a chunk build
// SIGKILLed between StagedDir.commit's two renames leaves `._chunks.aside-…` (the previous
// _chunks/, a whole copy) and `._chunks.tmp-…` (the new one). In a live topic the next run's
// sweep puts the aside back; in a topic deleted afterwards nothing sweeps, and --prune removed
// the topic's outputs but left these for good, without a word. Now they go with the outputs and
// the report names them; a live topic's are left to its sweep, a live run's to the run. The kill
// is real (strace injects SIGKILL at the rename, skipped without strace); the property test
// makes the temps by hand with fs-atomic's own tempName.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { tempName } from '@chunkyard/fs-atomic';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApps, doc, filesOf, hasStrace, killAtRename, ok, run, stagedRenameNumber } from '../../chunking-tool/src/test-killed-build.js';
import { pruneGoneTopics } from './prune.js';

let ws: string;
beforeAll(() => {
  if (hasStrace) buildApps(['apps/chunking-tool', 'apps/keyword-extractor', 'apps/topic-spec', 'apps/index-tool']);
  ws = mkdtempSync(join(tmpdir(), 'index-tool-prune-leftovers-'));
}, 300_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const temps = (dir: string) => readdirSync(dir).filter((n) => /^\._chunks\.(aside|tmp)-/.test(n)).sort();

describe.runIf(hasStrace)('--prune after a chunk build killed between its two renames', () => {
  it('a deleted topic loses its moved-aside and staged _chunks/ with its outputs, both named; a live topic keeps its own for its sweep', () => {
    for (const t of ['live', 'gone']) {
      mkdirSync(join(ws, 'docs', t), { recursive: true });
      writeFileSync(join(ws, 'docs', t, 'golden-reference.md'), doc('alpha'));
    }
    const at = stagedRenameNumber(ws, 'docs/gone');
    for (const t of ['docs/live', 'docs/gone']) {
      ok(ws, 'chunking-tool', [t]);
      ok(ws, 'keyword-extractor', [t]);
      ok(ws, 'topic-spec', [t]);
      ok(ws, 'index-tool', [t, '--root', 'docs']);
    }
    ok(ws, 'index-tool', ['docs', '--root', 'docs']);
    const live = join(ws, 'docs/live');
    const gone = join(ws, 'docs/gone');
    const liveChunks = filesOf(join(live, '_chunks'));
    for (const t of ['docs/live', 'docs/gone']) {
      writeFileSync(join(ws, t, 'golden-reference.md'), doc('beta'));
      killAtRename(ws, t, at);
    }
    const goneTemps = temps(gone);
    expect(goneTemps).toEqual([expect.stringMatching(/^\._chunks\.aside-/), expect.stringMatching(/^\._chunks\.tmp-/)]);
    const liveTemps = temps(live);
    expect(liveTemps).toHaveLength(2);
    // The topic is deleted (git rm takes the tracked source; the git-ignored outputs stay).
    rmSync(join(gone, 'golden-reference.md'));

    // Only the root named: index-tool writes nothing in docs/live, so nothing sweeps there.
    const r = run(ws, 'index-tool', ['docs', '--root', 'docs', '--prune']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // Before: the outputs went, both temps stayed (the aside a whole copy of the old chunks), unreported.
    expect(readdirSync(gone)).toEqual([]);
    for (const name of goneTemps) expect(r.stdout).toContain(`${join('docs/gone', name)}: removed (left by a killed run; its folder is no longer a topic)\n`);
    expect(r.stdout).toContain('docs/gone/index.json: removed (its folder is no longer a topic)\n');
    // The live topic's temps are its sweep's: the next run there puts the aside back.
    expect(temps(live)).toEqual(liveTemps);
    ok(ws, 'index-tool', ['docs/live', '--root', 'docs']);
    expect(temps(live)).toEqual([]);
    expect(filesOf(join(live, '_chunks'))).toEqual(liveChunks);
  }, 300_000);
});

describe('--prune and hand-made temps (fs-atomic tempName)', () => {
  const TARGETS = ['_chunks', '_keywords', 'topic-spec.md', 'index.json', '_keywords/words.md'] as const;
  const HOUR_AGO = (Date.now() - 2 * 60 * 60 * 1000) / 1000;
  let n = 0;

  it('property: exactly the temps of runs that are over, of outputs, in folders that are no topic, are removed and returned', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ folder: fc.constantFrom('a', 'a/b', 'c'), target: fc.constantFrom(...TARGETS), kind: fc.constantFrom('tmp' as const, 'aside' as const), over: fc.boolean() }), { maxLength: 12 }),
        fc.subarray(['a', 'a/b', 'c']),
        (made, topics) => {
          const docs = join(ws, `hand-${n++}`, 'docs');
          for (const f of ['a', 'a/b', 'c']) mkdirSync(join(docs, f), { recursive: true });
          for (const t of topics) writeFileSync(join(docs, t, 'golden-reference.md'), '# T\n');
          // A user's file that only looks like one is never touched.
          writeFileSync(join(docs, 'c', '._chunks.tmp-notes'), 'mine\n');
          const all: string[] = [];
          const expected: string[] = [];
          for (const { folder, target, kind, over } of made) {
            const file = join(docs, folder, target);
            mkdirSync(join(file, '..'), { recursive: true });
            // A live run's temp carries this process's pid; one over is older than an hour.
            const temp = tempName(file, kind);
            if (target === '_chunks' || target === '_keywords') {
              mkdirSync(temp);
              writeFileSync(join(temp, 'x.md'), 'x\n');
            } else writeFileSync(temp, 'x\n');
            if (over) utimesSync(temp, HOUR_AGO, HOUR_AGO);
            const rel = `${folder}/${target.startsWith('_keywords/') ? '_keywords/' : ''}${basename(temp)}`;
            all.push(rel);
            // index.json is a section's (live) where a topic is below it: a/b below a.
            const section = target === 'index.json' && folder === 'a' && topics.includes('a/b');
            if (over && !topics.includes(folder) && !section) expected.push(rel);
          }
          const { outputs, leftovers } = pruneGoneTopics(docs, 'golden-reference.md');
          expect(outputs).toEqual([]);
          expect([...leftovers].sort()).toEqual([...expected].sort());
          // The rest stay: a topic's own (its sweep restores or removes them), a live run's, a section's index.json's.
          for (const p of all) expect(existsSync(join(docs, p)), p).toBe(!expected.includes(p));
          expect(existsSync(join(docs, 'c', '._chunks.tmp-notes'))).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
});
