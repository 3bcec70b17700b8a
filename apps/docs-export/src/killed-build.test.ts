// Issue 15: a chunking-tool SIGKILLed between StagedDir.commit's two renames (the topic's
// _chunks/ moved aside, the new folder not yet in) left the topic with no _chunks/, only two
// temp folders. docs-export took the topic for one never built and exported the rest, exit 0,
// without a word. Now the export fails naming the topic and what to run; and the next run of
// another tool writing in the topic (keyword-extractor) puts the previous _chunks/ back, so the
// export has the topic again. The kill is real: strace injects SIGKILL into the real CLI at the
// rename that would put the new folder in (skipped without strace).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const hasStrace = spawnSync('sh', ['-c', 'command -v strace']).status === 0;
const RENAMES = 'trace=rename,renameat,renameat2';

const doc = (word: string) => `# Guide\n\n${Array.from({ length: 6 }, (_, i) => `## Part ${i}\n\n${`The ${word} setting ${i} controls how the service starts. `.repeat(12)}\n`).join('\n')}`;

let ws: string;
beforeAll(() => {
  if (hasStrace) execFileSync(process.execPath, ['tools/build.mjs', 'apps/chunking-tool', 'apps/keyword-extractor', 'apps/docs-export'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
  ws = mkdtempSync(join(tmpdir(), 'docs-export-killed-'));
}, 240_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const node = (app: string, args: string[]) => [process.execPath, join(REPO, 'apps', app, 'bin', `${app}.js`), ...args];
function run(app: string, args: string[]) {
  const [cmd, ...rest] = node(app, args);
  return spawnSync(cmd!, rest, { cwd: ws, encoding: 'utf8', timeout: 60_000 });
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

const chunksOf = (dir: string) => Object.fromEntries(readdirSync(dir).sort().map((n) => [n, readFileSync(join(dir, n), 'utf8')]));

describe.runIf(hasStrace)('a chunk build killed between its two renames', () => {
  it('docs-export fails naming the topic; the next keyword-extractor run puts the previous _chunks/ back', () => {
    const topic = join(ws, 'docs/guides/t');
    mkdirSync(topic, { recursive: true });
    mkdirSync(join(ws, 'docs/other'), { recursive: true });
    writeFileSync(join(ws, 'docs/other/golden-reference.md'), doc('other'));
    expect(run('chunking-tool', ['docs/other']).status).toBe(0);
    writeFileSync(join(topic, 'golden-reference.md'), doc('alpha'));
    expect(run('chunking-tool', ['docs/guides/t']).status).toBe(0);
    writeFileSync(join(topic, 'golden-reference.md'), doc('beta'));
    const at = stagedRenameNumber('docs/guides/t');
    const previous = chunksOf(join(topic, '_chunks'));
    const exported = run('docs-export', ['docs', '--format', 'jsonl']);
    expect(exported.status, exported.stderr).toBe(0);

    writeFileSync(join(topic, 'golden-reference.md'), doc('gamma'));
    const killed = spawnSync('strace', ['-f', '-qq', '-o', '/dev/null', '-e', RENAMES, '-e', `inject=rename,renameat,renameat2:signal=KILL:when=${at}`, ...node('chunking-tool', ['docs/guides/t'])], { cwd: ws, encoding: 'utf8', timeout: 60_000 });
    expect(killed.status, 'killed').not.toBe(0);
    const left = readdirSync(topic).filter((n) => n !== 'golden-reference.md').sort();
    expect(left).toEqual([expect.stringMatching(/^\._chunks\.aside-/), expect.stringMatching(/^\._chunks\.tmp-/)]);

    // Before: exit 0, the other topic's chunks only.
    const r = run('docs-export', ['docs', '--format', 'jsonl']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `docs-export: ${join(ws, 'docs/guides/t')}: this topic has no _chunks/, only ${left[0]} (its previous _chunks/, moved aside): a build of the topic was killed before it finished, or is running now; build it again (npx nx run-many -t index, or chunkyard chunk ${join(ws, 'docs/guides/t')}), then export again\n`,
    );
    expect(r.status).toBe(1);

    // Another tool writing in the topic sweeps the killed run's temps: the previous folder is back, whole.
    const k = run('keyword-extractor', ['docs/guides/t']);
    expect(k.status, k.stderr).toBe(0);
    expect(readdirSync(topic).filter((n) => n.includes('.tmp-') || n.includes('.aside-'))).toEqual([]);
    expect(chunksOf(join(topic, '_chunks'))).toEqual(previous);
    const again = run('docs-export', ['docs', '--format', 'jsonl']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toBe(exported.stdout);
  }, 180_000);
});
