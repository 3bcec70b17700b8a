// A chunking-tool SIGKILLed between StagedDir.commit's two renames (the topic's _chunks/ moved
// aside as ._chunks.aside-*, the new folder not yet in) left the topic with no _chunks/.
// topic-spec failed with "no chunk manifest; run chunking-tool on the topic first", though it
// writes topic-spec.md in the topic and the sweep of killed runs' temps that comes with that
// write puts the previous folder back: it came after the reads. topic-spec sweeps first, as
// index-tool does (723142d); a temp of a run still alive is named with the topic and what to
// run. The kill is real: strace injects SIGKILL into the real chunking-tool at the rename that
// would put the new folder in (skipped without strace).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApps, doc, filesOf, hasStrace, killAtRename, ok, run, stagedRenameNumber } from '../../chunking-tool/src/test-killed-build.js';

let ws: string;
beforeAll(() => {
  if (hasStrace) buildApps(['apps/chunking-tool', 'apps/keyword-extractor', 'apps/topic-spec']);
  ws = mkdtempSync(join(tmpdir(), 'topic-spec-killed-'));
}, 300_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const temps = (topic: string) => readdirSync(topic).filter((n) => n.startsWith('._chunks.')).sort();

describe.runIf(hasStrace)('topic-spec after a chunk build killed between its two renames', () => {
  const topic = () => join(ws, 'docs/t');

  it('puts the previous _chunks/ back and writes the spec from it', () => {
    mkdirSync(topic(), { recursive: true });
    writeFileSync(join(topic(), 'golden-reference.md'), doc('alpha'));
    const at = stagedRenameNumber(ws, 'docs/t');
    ok(ws, 'keyword-extractor', ['docs/t']);
    ok(ws, 'topic-spec', ['docs/t']);
    const previous = filesOf(join(topic(), '_chunks'));
    const spec = readFileSync(join(topic(), 'topic-spec.md'), 'utf8');
    rmSync(join(topic(), 'topic-spec.md'));

    writeFileSync(join(topic(), 'golden-reference.md'), doc('beta'));
    killAtRename(ws, 'docs/t', at);
    expect(temps(topic())).toEqual([expect.stringMatching(/^\._chunks\.aside-/), expect.stringMatching(/^\._chunks\.tmp-/)]);
    // The source as the previous chunks were made from it: the spec is the one of before.
    writeFileSync(join(topic(), 'golden-reference.md'), doc('alpha'));

    // Before: exit 1, "docs/t: docs/t/_chunks/golden-reference.json: no chunk manifest; run chunking-tool on the topic first".
    const r = run(ws, 'topic-spec', ['docs/t']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(join(topic(), 'topic-spec.md'), 'utf8')).toBe(spec);
    expect(filesOf(join(topic(), '_chunks'))).toEqual(previous);
    expect(temps(topic())).toEqual([]);
  }, 180_000);

  it('a _chunks/ temp of a run still alive, with no _chunks/, is named with the topic and what to run', () => {
    // This test's own process stands for the live chunk run (its pid is alive).
    const stage = join(topic(), `._chunks.tmp-${process.pid}-0123abcd`);
    renameSync(join(topic(), '_chunks'), stage);
    try {
      const before = readFileSync(join(topic(), 'topic-spec.md'), 'utf8');
      const r = run(ws, 'topic-spec', ['docs/t']);
      expect(r.stderr).toBe(
        `topic-spec: docs/t: this topic has no _chunks/, only ._chunks.tmp-${process.pid}-0123abcd: a chunking-tool run is running now, or one was killed before it put its folder in; wait for it, or run chunking-tool on the topic again (nx run <topic>:chunk), then topic-spec\n`,
      );
      expect(r.status).toBe(1);
      expect(readFileSync(join(topic(), 'topic-spec.md'), 'utf8')).toBe(before);
    } finally {
      renameSync(stage, join(topic(), '_chunks'));
    }
  });

  it('a keyword-extractor killed between its two renames: the previous _keywords/ goes back, and the spec is written from it', () => {
    // A topic of its own, so that this case stands whatever the others left.
    const dir = join(ws, 'docs/k');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'golden-reference.md'), doc('delta'));
    ok(ws, 'chunking-tool', ['docs/k']);
    const at = stagedRenameNumber(ws, 'docs/k', 'keyword-extractor', '_keywords');
    ok(ws, 'topic-spec', ['docs/k']);
    const words = readFileSync(join(dir, '_keywords/words.md'), 'utf8');
    const spec = readFileSync(join(dir, 'topic-spec.md'), 'utf8');
    rmSync(join(dir, 'topic-spec.md'));
    writeFileSync(join(dir, 'keywords.md'), '| keyword | score |\n| --- | --- |\n| gamma ray | 9 |\n');
    killAtRename(ws, 'docs/k', at, 'keyword-extractor');
    expect(readdirSync(dir).filter((n) => n.startsWith('._keywords.')).sort()).toEqual([expect.stringMatching(/^\._keywords\.aside-/), expect.stringMatching(/^\._keywords\.tmp-/)]);

    // Before: exit 1, "docs/k: docs/k/_keywords/words.md: no keyword table; run keyword-extractor on the topic first".
    const r = run(ws, 'topic-spec', ['docs/k']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(join(dir, 'topic-spec.md'), 'utf8')).toBe(spec);
    expect(readFileSync(join(dir, '_keywords/words.md'), 'utf8')).toBe(words);
    expect(readdirSync(dir).filter((n) => n.startsWith('._keywords.'))).toEqual([]);
  }, 180_000);
});
