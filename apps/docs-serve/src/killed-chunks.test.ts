// Issue 15: a chunking-tool SIGKILLed between StagedDir.commit's two renames (the topic's
// _chunks/ moved aside, the new folder not yet in) left the topic with no _chunks/. docs-serve
// answered each of its chunks 404, as if the topic had none, and logged nothing. Now 503 with
// a body that says why, one log line naming the topic, the temp and what to run, and the chunks
// again once a run has put the folder back. Real server, real folders, real fetch; the kill is
// real: strace injects SIGKILL into the real CLI at the rename that would put the new folder in
// (skipped without strace).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from './server.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const hasStrace = spawnSync('sh', ['-c', 'command -v strace']).status === 0;
const RENAMES = 'trace=rename,renameat,renameat2';
const CHUNKER = [process.execPath, join(REPO, 'apps/chunking-tool/bin/chunking-tool.js')];

const doc = (word: string) => `# Guide\n\n${Array.from({ length: 6 }, (_, i) => `## Part ${i}\n\n${`The ${word} setting ${i} controls how the service starts. `.repeat(12)}\n`).join('\n')}`;

let ws: string;
beforeAll(() => {
  if (hasStrace) execFileSync(process.execPath, ['tools/build.mjs', 'apps/chunking-tool'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
  ws = mkdtempSync(join(tmpdir(), 'docs-serve-killed-'));
}, 240_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

/** Runs chunking-tool on `topic`; traced, it returns the 1-based number of the rename(2) that put its staged folder in as `_chunks`. */
function stagedRenameNumber(topic: string): number {
  const log = join(ws, 'strace.log');
  const r = spawnSync('strace', ['-f', '-qq', '-o', log, '-e', RENAMES, ...CHUNKER, topic], { cwd: ws, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  const renames = readFileSync(log, 'utf8').split('\n').filter((l) => /rename(at2?)?\(/.test(l));
  const at = renames.findIndex((l) => /\._chunks\.tmp-[^"]*", [^"]*"[^"]*\/_chunks"/.test(l));
  expect(at, renames.join('\n')).toBeGreaterThan(0);
  return at + 1;
}

describe.runIf(hasStrace)('docs-serve after a chunk build killed between its two renames', () => {
  it("answers the topic's chunks 503, says why once, and serves them again once the folder is back", async () => {
    const topic = join(ws, 'docs/guides/t');
    mkdirSync(topic, { recursive: true });
    writeFileSync(join(topic, 'golden-reference.md'), doc('alpha'));
    const at = stagedRenameNumber('docs/guides/t');
    const manifest = readFileSync(join(topic, '_chunks/golden-reference.json'), 'utf8');
    const lines: string[] = [];
    const srv = await startServer({ root: join(ws, 'docs'), port: 0, inspector: false, log: (line) => lines.push(line) });
    try {
      expect((await fetch(`${srv.url}guides/t/_chunks/golden-reference.json`)).status).toBe(200);
      writeFileSync(join(topic, 'golden-reference.md'), doc('beta'));
      const killed = spawnSync('strace', ['-f', '-qq', '-o', '/dev/null', '-e', RENAMES, '-e', `inject=rename,renameat,renameat2:signal=KILL:when=${at}`, ...CHUNKER, 'docs/guides/t'], { cwd: ws, encoding: 'utf8', timeout: 60_000 });
      expect(killed.status, 'killed').not.toBe(0);
      const aside = readdirSync(topic).find((n) => n.startsWith('._chunks.aside-'));
      expect(aside).toBeDefined();

      // Before: 404 "Not Found", and no log line.
      for (const path of ['guides/t/_chunks/golden-reference.json', 'guides/t/_chunks/golden-reference-0.md', 'guides/t/_chunks/']) {
        const res = await fetch(`${srv.url}${path}`);
        expect(res.status, path).toBe(503);
        expect(await res.text()).toBe("Service Unavailable (this topic's _chunks/ is missing: a chunk build of it was killed before it finished, or is running now)\n");
      }
      const real = join(realpathSync(join(ws, 'docs')), 'guides/t');
      expect(lines).toEqual([`${real}: this topic has no _chunks/, only ${aside}: a chunk build of it was killed before it finished, or is running now; answering 503 for its chunks until it is rebuilt (npx nx run-many -t index, or chunkyard chunk ${real})`]);
      // A file that is simply not there is still a 404.
      expect((await fetch(`${srv.url}guides/t/nothing.json`)).status).toBe(404);

      // The next chunk run puts the previous folder back (and rebuilds it).
      writeFileSync(join(topic, 'golden-reference.md'), doc('alpha'));
      expect(spawnSync(CHUNKER[0]!, [CHUNKER[1]!, 'docs/guides/t'], { cwd: ws, encoding: 'utf8' }).status).toBe(0);
      const back = await fetch(`${srv.url}guides/t/_chunks/golden-reference.json`);
      expect(back.status).toBe(200);
      expect(await back.text()).toBe(manifest);
      expect(lines).toHaveLength(1);
    } finally {
      await srv.close();
    }
  }, 120_000);
});
