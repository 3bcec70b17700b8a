// Issue 15: a chunking-tool SIGKILLed between StagedDir.commit's two renames (the topic's
// _chunks/ moved aside, the new folder not yet in) left the topic with no _chunks/. index-tool
// failed every chunk file as "missing, though topic-spec.md lists it", though the previous
// chunks, the ones the spec was built from, were beside it under a temp name. index-tool
// writes index.json in the topic, so it sweeps killed runs' temps there before it reads: the
// previous _chunks/ goes back and the index is built from it. A _chunks/ temp of a run still
// alive is named, with what to do. The kill is real: strace injects SIGKILL into the real CLI
// at the rename that would put the new folder in (skipped without strace).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApps, doc, filesOf, hasStrace, killAtRename, ok, run, stagedRenameNumber } from '../../chunking-tool/src/test-killed-build.js';

let ws: string;
beforeAll(() => {
  if (hasStrace) buildApps(['apps/chunking-tool', 'apps/keyword-extractor', 'apps/topic-spec', 'apps/index-tool']);
  ws = mkdtempSync(join(tmpdir(), 'index-tool-killed-'));
}, 300_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

/** The rename to kill chunking-tool at (stagedRenameNumber), found by the first test. */
let at = 0;

describe.runIf(hasStrace)('index-tool after a chunk build killed between its two renames', () => {
  it('puts the previous _chunks/ back and builds the index from it', () => {
    const topic = join(ws, 'docs/t');
    mkdirSync(topic, { recursive: true });
    writeFileSync(join(topic, 'golden-reference.md'), doc('alpha'));
    at = stagedRenameNumber(ws, 'docs/t');
    ok(ws, 'keyword-extractor', ['docs/t']);
    ok(ws, 'topic-spec', ['docs/t']);
    ok(ws, 'index-tool', ['docs/t', '--root', 'docs']);
    const previous = filesOf(join(topic, '_chunks'));
    const index = readFileSync(join(topic, 'index.json'), 'utf8');
    rmSync(join(topic, 'index.json'));

    writeFileSync(join(topic, 'golden-reference.md'), doc('beta'));
    killAtRename(ws, 'docs/t', at);
    expect(readdirSync(topic).filter((n) => n.startsWith('._chunks.')).sort()).toEqual([expect.stringMatching(/^\._chunks\.aside-/), expect.stringMatching(/^\._chunks\.tmp-/)]);

    // Before: exit 1, "docs/t/_chunks/golden-reference-0.md: missing, though docs/t/topic-spec.md lists it".
    const r = run(ws, 'index-tool', ['docs/t', '--root', 'docs']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(join(topic, 'index.json'), 'utf8')).toBe(index);
    expect(filesOf(join(topic, '_chunks'))).toEqual(previous);
    expect(readdirSync(topic).filter((n) => n.startsWith('._chunks.'))).toEqual([]);
  }, 180_000);

  it('a _chunks/ temp of a run still alive, with no _chunks/, is named with what to do', () => {
    const topic = join(ws, 'docs/t');
    // This test's own process stands for the live chunk run (its pid is alive).
    const stage = join(topic, `._chunks.tmp-${process.pid}-0123abcd`);
    renameSync(join(topic, '_chunks'), stage);
    try {
      const r = run(ws, 'index-tool', ['docs/t', '--root', 'docs']);
      expect(r.stderr).toBe(`index-tool: docs/t: this topic has no _chunks/, only ._chunks.tmp-${process.pid}-0123abcd: a chunk build is running now, or one was killed before it put its folder in; wait for it, or run the chunk step again (nx run <topic>:index runs it and spec), then index-tool\n`);
      expect(r.status).toBe(1);
    } finally {
      renameSync(stage, join(topic, '_chunks'));
    }
  });

  it('--llms-full names the topic, the moved-aside folder and what to run, and writes neither llms file', () => {
    const topic = join(ws, 'docs/t');
    ok(ws, 'index-tool', ['docs/t', 'docs', '--root', 'docs']);
    ok(ws, 'index-tool', ['docs', '--root', 'docs', '--llms-txt', '--llms-full']);
    const llms = [readFileSync(join(ws, 'docs/llms.txt'), 'utf8'), readFileSync(join(ws, 'docs/llms-full.txt'), 'utf8')];
    writeFileSync(join(topic, 'golden-reference.md'), doc('gamma'));
    killAtRename(ws, 'docs/t', at);
    const aside = readdirSync(topic).find((n) => n.startsWith('._chunks.aside-'));
    expect(aside).toBeDefined();

    // Before: 'docs/t/_chunks/golden-reference-0.md: missing, but its topic's index.json links it; rebuild the topic'.
    const r = run(ws, 'index-tool', ['docs', '--root', 'docs', '--llms-txt', '--llms-full']);
    expect(r.stderr).toBe(
      `index-tool: ${topic}: this topic has no _chunks/, only ${aside} (its previous _chunks/, moved aside): a chunk build of the topic was killed before it finished, or is running now; build it again (npx nx run-many -t index, or chunkyard chunk ${topic}), then run --llms-txt --llms-full again (nothing written)\n`,
    );
    expect(r.status).toBe(1);
    expect([readFileSync(join(ws, 'docs/llms.txt'), 'utf8'), readFileSync(join(ws, 'docs/llms-full.txt'), 'utf8')]).toEqual(llms);
    // It writes nothing in the topic, so the folder is left where the killed run put it.
    expect(readdirSync(topic)).toContain(aside);

    // What it says to run puts the folder back and builds again; then --llms-full writes.
    ok(ws, 'chunking-tool', ['docs/t']);
    ok(ws, 'topic-spec', ['docs/t']);
    ok(ws, 'index-tool', ['docs/t', 'docs', '--root', 'docs']);
    ok(ws, 'index-tool', ['docs', '--root', 'docs', '--llms-txt', '--llms-full']);
    expect(readFileSync(join(ws, 'docs/llms-full.txt'), 'utf8')).toContain('gamma');
  }, 180_000);
});
