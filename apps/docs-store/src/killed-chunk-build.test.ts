// Issue 15: a chunking-tool SIGKILLed between StagedDir.commit's two renames (the topic's
// _chunks/ moved aside as ._chunks.aside-*, the new folder staged, not yet in) left the topic
// with no _chunks/. `docs-store ingest --built` said only "no _chunks/ folder: build the topic
// first", as for a topic never built, naming neither the leftover nor the way back. Now it
// names the topic, the temp and what to run, as docs-export does (b8e5e17), leaves that topic
// out and stores the others (exit 1); after the command it names, the topic goes in. The kill
// is real: strace injects SIGKILL into the real CLI at the rename that would put the new folder
// in (skipped without strace), as in docs-export's and index-tool's tests.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './test-build.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const hasStrace = spawnSync('sh', ['-c', 'command -v strace']).status === 0;
const RENAMES = 'trace=rename,renameat,renameat2';

const doc = (word: string) => `# Guide\n\n${Array.from({ length: 6 }, (_, i) => `## Part ${i}\n\n${`The ${word} setting ${i} controls how the service starts. `.repeat(12)}\n`).join('\n')}`;

let ws: string;
beforeAll(async () => {
  if (hasStrace) {
    execFileSync(process.execPath, ['tools/build.mjs', 'apps/chunking-tool'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
    await ensureBuilt();
  }
  ws = mkdtempSync(join(tmpdir(), 'docs-store-killed-'));
  writeFileSync(join(ws, 'chunkyard.config.yaml'), 'chunking: {}\n');
}, 240_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const node = (app: string, args: string[]) => [process.execPath, join(REPO, 'apps', app, 'bin', `${app}.js`), ...args];
function run(app: string, args: string[]) {
  const [cmd, ...rest] = node(app, args);
  return spawnSync(cmd!, rest, { cwd: ws, encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '', CI: '1' } });
}

/** The 1-based number of the rename(2) by which chunking-tool puts its staged folder in as `_chunks`. */
function stagedRenameNumber(topic: string): number {
  const log = join(ws, 'strace.log');
  const r = spawnSync('strace', ['-f', '-qq', '-o', log, '-e', RENAMES, ...node('chunking-tool', [topic])], { cwd: ws, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  const renames = readFileSync(log, 'utf8').split('\n').filter((l) => /rename(at2?)?\(/.test(l));
  const at = renames.findIndex((l) => /\._chunks\.tmp-[^"]*", [^"]*"[^"]*\/_chunks"/.test(l));
  expect(at, renames.join('\n')).toBeGreaterThan(0);
  return at + 1;
}

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
    const at = stagedRenameNumber('docs/guides/t');

    writeFileSync(join(topic, 'golden-reference.md'), doc('gamma'));
    const killed = spawnSync('strace', ['-f', '-qq', '-o', '/dev/null', '-e', RENAMES, '-e', `inject=rename,renameat,renameat2:signal=KILL:when=${at}`, ...node('chunking-tool', ['docs/guides/t'])], { cwd: ws, encoding: 'utf8', timeout: 60_000 });
    expect(killed.status, 'killed').not.toBe(0);
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
