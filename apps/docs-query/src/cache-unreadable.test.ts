// docs-query over a workspace whose embedding cache this user may not read (another user's,
// written under umask 077): the search goes on, and docs-query says so once, as a warning in the
// words and with the "docs-query: warning:" prefix the cache's own warnings have (fs-atomic
// warnOnce: "docs-query: warning: embedding cache … cannot be written"). It printed
// "docs-query: embedding cache … cannot be read …" without the prefix, read from the backend's
// cacheUnwritable, a name left from when it meant "cannot be written" (helper probe). Run as
// nobody (setpriv), the built bin in a real child process, over a real fixture and cache that
// root filled; root reads any file, so the check needs another user.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureDocs, type FixtureDocs, nodeAs, unreadableAsUmask077 } from '../../../packages/retrieval/src/test-fixture-docs.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const BIN = join(REPO, 'apps/docs-query/bin/docs-query.js');
const canSetpriv = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v setpriv']).status === 0;
const QUERY = ['-q', 'Which runtime features does trimming remove?', '--max-distance', '0', '-n', '2', '--json'];

function docsQuery(fx: FixtureDocs, asNobody: boolean) {
  const [cmd, ...args] = nodeAs(asNobody);
  return spawnSync(cmd, [...args, BIN, fx.docs, ...QUERY], { encoding: 'utf8', timeout: 60_000 });
}

let fx: FixtureDocs | undefined;
beforeAll(async () => {
  if (!canSetpriv) return;
  execFileSync(process.execPath, ['tools/build.mjs', 'apps/docs-query'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
  fx = await buildFixtureDocs({ topics: ['deployment/native-aot'] });
  chmodSync(fx.workspace, 0o755);
}, 180_000);
afterAll(() => fx?.cleanup());

describe.runIf(canSetpriv)('docs-query -q over an embedding cache it may not read', () => {
  it('searches all the same and says once "docs-query: warning: embedding cache … cannot be read", as the cache\'s own warnings are said', () => {
    // Root fills the cache, as a build would, and says nothing.
    const filled = docsQuery(fx!, false);
    expect(filled.status, filled.stderr).toBe(0);
    expect(filled.stderr).toBe('');
    const cache = join(fx!.workspace, '.embedding-cache');
    unreadableAsUmask077(cache);

    const r = docsQuery(fx!, true);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { method: string; chunks: unknown[] };
    expect(out.method).toBe('embedding');
    expect(out.chunks.length).toBeGreaterThan(0);
    const lines = r.stderr.trimEnd().split('\n');
    const unreadable = lines.filter((l) => l.includes('cannot be read'));
    expect(unreadable).toHaveLength(1);
    expect(unreadable[0]).toMatch(new RegExp(`^docs-query: warning: embedding cache ${cache} cannot be read \\(.*\\(EACCES\\).*\\); the search goes on, embedding what it could not read$`));
    // Every line docs-query printed is a warning of this kind (the cache, owned by root, cannot be written either).
    for (const line of lines) expect(line).toMatch(/^docs-query: warning: embedding cache /);
  });
});
