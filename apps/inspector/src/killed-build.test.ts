// A chunking-tool SIGKILLed between StagedDir.commit's two renames (the topic's _chunks/ moved
// aside as ._chunks.aside-*, the new folder not yet in) left the topic with no _chunks/.
// docs-serve answers its chunks 503 with a body saying why (3019d2c), but the page said only
// "<manifest URL>: HTTP 503": no word of why nor what to run. It now gives the server's words,
// the manifest's URL (the topic's path) and the command. Real docs-serve, real tools, the page's
// own loader (static/data.js) in Node with Node's fetch; the kill is real: strace injects SIGKILL
// into the real chunking-tool at the rename that would put the new folder in (skipped without
// strace).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../docs-serve/src/server.js';
import { loadTopic } from '../static/data.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const hasStrace = spawnSync('sh', ['-c', 'command -v strace']).status === 0;
const RENAMES = 'trace=rename,renameat,renameat2';

const doc = (word: string) => `# Guide\n\n${Array.from({ length: 6 }, (_, i) => `## Part ${i}\n\n${`The ${word} setting ${i} controls how the service starts. `.repeat(12)}\n`).join('\n')}`;

let ws: string;
beforeAll(() => {
  if (hasStrace) execFileSync(process.execPath, ['tools/build.mjs', 'apps/chunking-tool', 'apps/keyword-extractor', 'apps/topic-spec', 'apps/index-tool'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
  ws = mkdtempSync(join(tmpdir(), 'inspector-killed-'));
}, 300_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const node = (app: string, args: string[]) => [process.execPath, join(REPO, 'apps', app, 'bin', `${app}.js`), ...args];
function ok(app: string, args: string[]) {
  const [cmd, ...rest] = node(app, args);
  const r = spawnSync(cmd!, rest, { cwd: ws, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, `${app}: ${r.stderr}`).toBe(0);
}

/** The 1-based number of the rename(2) by which chunking-tool puts its staged folder in as `_chunks` (the run commits). */
function stagedRenameNumber(topic: string): number {
  const log = join(ws, 'strace.log');
  const r = spawnSync('strace', ['-f', '-qq', '-o', log, '-e', RENAMES, ...node('chunking-tool', [topic])], { cwd: ws, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  const renames = readFileSync(log, 'utf8').split('\n').filter((l) => /rename(at2?)?\(/.test(l));
  const at = renames.findIndex((l) => /\._chunks\.tmp-[^"]*", [^"]*"[^"]*\/_chunks"/.test(l));
  expect(at, renames.join('\n')).toBeGreaterThan(0);
  return at + 1;
}

describe.runIf(hasStrace)('the inspector page after a chunk build killed between its two renames', () => {
  it("says why the topic's manifest cannot be had and what to run, and draws it again once rebuilt", async () => {
    const topic = join(ws, 'docs/guides/t');
    mkdirSync(topic, { recursive: true });
    writeFileSync(join(topic, 'golden-reference.md'), doc('alpha'));
    const at = stagedRenameNumber('docs/guides/t');
    ok('keyword-extractor', ['docs/guides/t']);
    ok('topic-spec', ['docs/guides/t']);
    ok('index-tool', ['docs/guides/t', 'docs/guides', 'docs', '--root', 'docs']);
    const srv = await startServer({ root: join(ws, 'docs'), port: 0, inspector: false, log: () => {} });
    try {
      const root = new URL(srv.url);
      expect((await loadTopic(root, 'guides/t', null)).manifest.chunks.length).toBeGreaterThan(1);

      writeFileSync(join(topic, 'golden-reference.md'), doc('beta'));
      const killed = spawnSync('strace', ['-f', '-qq', '-o', '/dev/null', '-e', RENAMES, '-e', `inject=rename,renameat,renameat2:signal=KILL:when=${at}`, ...node('chunking-tool', ['docs/guides/t'])], { cwd: ws, encoding: 'utf8', timeout: 60_000 });
      expect(killed.status, 'killed').not.toBe(0);
      expect(readdirSync(topic).some((n) => n.startsWith('._chunks.aside-'))).toBe(true);

      // Before: "<root>guides/t/_chunks/golden-reference.json: HTTP 503", and nothing more.
      await expect(loadTopic(root, 'guides/t', null)).rejects.toThrow(
        `${srv.url}guides/t/_chunks/golden-reference.json: HTTP 503: Service Unavailable (this topic's _chunks/ is missing: a chunk build of it was killed before it finished, or is running now); the server cannot give it while a build of this topic is under way or after one was killed before it finished: wait for the build, or build the topic again (npx nx run-many -t index, or chunkyard chunk <topic folder>), then reload`,
      );

      // What it says to run puts the previous folder back and builds the topic again.
      ok('chunking-tool', ['docs/guides/t']);
      ok('topic-spec', ['docs/guides/t']);
      ok('index-tool', ['docs/guides/t', '--root', 'docs']);
      expect((await loadTopic(root, 'guides/t', null)).source).toBe(doc('beta'));
    } finally {
      await srv.close();
    }
  }, 180_000);
});
