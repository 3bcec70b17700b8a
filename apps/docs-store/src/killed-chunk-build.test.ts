// Issue 15: a chunking-tool SIGKILLed between StagedDir.commit's two renames (the topic's
// _chunks/ moved aside as ._chunks.aside-*, the new folder staged, not yet in) left the topic
// with no _chunks/. `docs-store ingest --built` said only "no _chunks/ folder: build the topic
// first", as for a topic never built, naming neither the leftover nor the way back. Now it
// names the topic, the temp and what to run, as docs-export does (b8e5e17), leaves that topic
// out and stores the others (exit 1); after the command it names, the topic goes in. The kill
// is real: strace injects SIGKILL into the real CLI at the rename that would put the new folder
// in (skipped without strace), as in docs-export's and index-tool's tests.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApps, doc, hasStrace, killAtRename, run as runApp, stagedRenameNumber } from '../../chunking-tool/src/test-killed-build.js';
import { ensureBuilt } from './test-build.js';

let ws: string;
beforeAll(async () => {
  if (hasStrace) {
    buildApps(['apps/chunking-tool']);
    await ensureBuilt();
  }
  ws = mkdtempSync(join(tmpdir(), 'docs-store-killed-'));
  writeFileSync(join(ws, 'chunkyard.config.yaml'), 'chunking: {}\n');
}, 240_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const run = (app: string, args: string[]) => runApp(ws, app, args, { PATH: process.env.PATH ?? '', CI: '1' });

describe.runIf(hasStrace)('ingest --built on a topic whose chunk build was killed between its two renames', () => {
  it('names the topic, the leftover and what to run; the other topic is stored; after that command the topic goes in', () => {
    const topic = join(ws, 'docs/guides/t');
    mkdirSync(topic, { recursive: true });
    mkdirSync(join(ws, 'docs/other'), { recursive: true });
    writeFileSync(join(ws, 'docs/other/golden-reference.md'), doc('other'));
    expect(run('chunking-tool', ['docs/other']).status).toBe(0);
    writeFileSync(join(topic, 'golden-reference.md'), doc('alpha'));
    expect(run('chunking-tool', ['docs/guides/t']).status).toBe(0);
    writeFileSync(join(topic, 'golden-reference.md'), doc('beta'));
    const at = stagedRenameNumber(ws, 'docs/guides/t');

    writeFileSync(join(topic, 'golden-reference.md'), doc('gamma'));
    killAtRename(ws, 'docs/guides/t', at);
    const left = readdirSync(topic).filter((n) => n !== 'golden-reference.md').sort();
    expect(left).toEqual([expect.stringMatching(/^\._chunks\.aside-/), expect.stringMatching(/^\._chunks\.tmp-/)]);

    // Before: "<topic>: no _chunks/ folder: build the topic first (nx run <topic>:chunk, or chunking-tool)".
    const r = run('docs-store', ['ingest', '--built', '--json', 'docs/other', 'docs/guides/t']);
    expect(r.stderr).toBe(
      `docs-store: ${topic}: this topic has no _chunks/, only ${left[0]} (its previous _chunks/, moved aside): a build of the topic was killed before it finished, or is running now; build it again (npx nx run-many -t index, or chunkyard chunk ${topic}), then ingest again\n`,
    );
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout) as { artifacts: { sourceFile: string }[] };
    expect(out.artifacts.map((a) => a.sourceFile)).toEqual(['docs/other/golden-reference.md']);
    // docs-store writes nothing in the topic: the leftovers are as they were.
    expect(readdirSync(topic).filter((n) => n !== 'golden-reference.md').sort()).toEqual(left);

    // The command it names (chunkyard chunk is chunking-tool), then the ingest it names.
    const c = run('chunking-tool', ['docs/guides/t']);
    expect(c.status, c.stderr).toBe(0);
    const again = run('docs-store', ['ingest', '--built', '--json', 'docs/other', 'docs/guides/t']);
    expect(again.status, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { artifacts: { sourceFile: string }[] }).artifacts.map((a) => a.sourceFile)).toEqual(['docs/other/golden-reference.md', 'docs/guides/t/golden-reference.md']);
    const s = run('docs-store', ['search', '--mode', 'fts', 'gamma']);
    expect(s.status, s.stderr).toBe(0);
    expect(s.stdout).toContain('docs/guides/t/golden-reference.md');
  }, 180_000);

  it('a topic with only a staged _chunks/ (a first build killed) is named as such', () => {
    const topic = join(ws, 'docs/first');
    mkdirSync(join(topic, `._chunks.tmp-${process.pid}-0badcafe`), { recursive: true });
    writeFileSync(join(topic, 'golden-reference.md'), doc('first'));
    const r = run('docs-store', ['ingest', '--built', 'docs/first']);
    expect(r.stderr).toBe(
      `docs-store: ${topic}: this topic has no _chunks/, only ._chunks.tmp-${process.pid}-0badcafe (a new _chunks/ staged, never put in place): a build of the topic was killed before it finished, or is running now; build it again (npx nx run-many -t index, or chunkyard chunk ${topic}), then ingest again\n`,
    );
    expect(r.status).toBe(1);
  });
});
