// Issue 15: a chunking-tool SIGKILLed between StagedDir.commit's two renames (the topic's
// _chunks/ moved aside, the new folder not yet in) left the topic with no _chunks/, only two
// temp folders. docs-export took the topic for one never built and exported the rest, exit 0,
// without a word. Now the export fails naming the topic and what to run; and the next run of
// another tool writing in the topic (keyword-extractor) puts the previous _chunks/ back, so the
// export has the topic again. The kill is real: strace injects SIGKILL into the real CLI at the
// rename that would put the new folder in (skipped without strace).
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApps, doc, filesOf, hasStrace, killAtRename, run, stagedRenameNumber } from '../../chunking-tool/src/test-killed-build.js';

let ws: string;
beforeAll(() => {
  if (hasStrace) buildApps(['apps/chunking-tool', 'apps/keyword-extractor', 'apps/docs-export']);
  ws = mkdtempSync(join(tmpdir(), 'docs-export-killed-'));
}, 240_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

describe.runIf(hasStrace)('a chunk build killed between its two renames', () => {
  it('docs-export fails naming the topic; the next keyword-extractor run puts the previous _chunks/ back', () => {
    const topic = join(ws, 'docs/guides/t');
    mkdirSync(topic, { recursive: true });
    mkdirSync(join(ws, 'docs/other'), { recursive: true });
    writeFileSync(join(ws, 'docs/other/golden-reference.md'), doc('other'));
    expect(run(ws, 'chunking-tool', ['docs/other']).status).toBe(0);
    writeFileSync(join(topic, 'golden-reference.md'), doc('alpha'));
    expect(run(ws, 'chunking-tool', ['docs/guides/t']).status).toBe(0);
    writeFileSync(join(topic, 'golden-reference.md'), doc('beta'));
    const at = stagedRenameNumber(ws, 'docs/guides/t');
    const previous = filesOf(join(topic, '_chunks'));
    const exported = run(ws, 'docs-export', ['docs', '--format', 'jsonl']);
    expect(exported.status, exported.stderr).toBe(0);

    writeFileSync(join(topic, 'golden-reference.md'), doc('gamma'));
    killAtRename(ws, 'docs/guides/t', at);
    const left = readdirSync(topic).filter((n) => n !== 'golden-reference.md').sort();
    expect(left).toEqual([expect.stringMatching(/^\._chunks\.aside-/), expect.stringMatching(/^\._chunks\.tmp-/)]);

    // Before: exit 0, the other topic's chunks only.
    const r = run(ws, 'docs-export', ['docs', '--format', 'jsonl']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `docs-export: ${join(ws, 'docs/guides/t')}: this topic has no _chunks/, only ${left[0]} (its previous _chunks/, moved aside): a build of the topic was killed before it finished, or is running now; build it again (npx nx run-many -t index, or chunkyard chunk ${join(ws, 'docs/guides/t')}), then export again\n`,
    );
    expect(r.status).toBe(1);

    // Another tool writing in the topic sweeps the killed run's temps: the previous folder is back, whole.
    const k = run(ws, 'keyword-extractor', ['docs/guides/t']);
    expect(k.status, k.stderr).toBe(0);
    expect(readdirSync(topic).filter((n) => n.includes('.tmp-') || n.includes('.aside-'))).toEqual([]);
    expect(filesOf(join(topic, '_chunks'))).toEqual(previous);
    const again = run(ws, 'docs-export', ['docs', '--format', 'jsonl']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toBe(exported.stdout);
  }, 180_000);
});
