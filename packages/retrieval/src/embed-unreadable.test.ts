// chunkVectors over an embedding cache this user may not write, or may not read, run as nobody
// (setpriv) in a real child process over a cache root wrote, with the local provider. Root reads
// and writes any file, so the checks need another user.
//
// Session 61: chunkVectors caught write errors (EROFS, EACCES, ENOSPC …) for a read-only cache,
// but EmbeddingCache gives up every write it cannot make and says so itself (fs-atomic warnOnce):
// a read-only cache never reaches that catch. A cache this user may not read (another user's,
// written under umask 077) did: it was reported as "cannot write the embedding cache (EACCES)",
// and the next document whose entry was unreadable failed the search with a raw
// "EACCES: permission denied, open …/metadata.json"; an unreadable build cache failed the first.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chmodTree, nodeAs, unreadableAsUmask077 } from './test-fixture-docs.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const DIST = join(REPO, 'packages/retrieval/dist/index.js');
const canSetpriv = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v setpriv']).status === 0;

/** Three searches' documents: a, b, then a again (a search over several topics meets one twice). */
const SCRIPT = `
import * as r from ${JSON.stringify(DIST)};
const doc = (sha, n) => ({ schemaVersion: 1, source: 'a.md', sourceSha256: sha.repeat(64), strategyKey: 'semantic-16-80-512',
  chunks: Array.from({ length: n }, (_, i) => ({ id: 'c' + i, chunkNumber: i, originalText: sha + ' text ' + i, embedText: sha + ' text ' + i, sourcePosition: { charStart: i, charEnd: i + 1 }, overlapChars: 0 })) });
const backend = r.createBackend({ folder: process.argv[1], env: {} });
const out = [];
for (const m of [doc('a', 3), doc('b', 2), doc('a', 3)]) {
  try {
    const got = await r.chunkVectors(backend, m);
    const want = await backend.provider.embed(m.chunks.map((c) => c.embedText));
    out.push({ same: JSON.stringify(got.map((v) => Array.from(v))) === JSON.stringify(want.map((v) => Array.from(v))), said: backend.cacheProblem ?? null, alias: backend.cacheUnwritable === backend.cacheProblem });
  } catch (err) {
    out.push({ error: String(err.message) });
  }
}
console.log(JSON.stringify(out));
`;

let ws: string;
beforeAll(() => {
  if (canSetpriv) execFileSync(process.execPath, ['tools/build.mjs', 'packages/retrieval'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
}, 120_000);
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'retrieval-embed-unreadable-'));
  chmodSync(ws, 0o755);
  writeFileSync(join(ws, 'nx.json'), '{}\n');
  mkdirSync(join(ws, 'docs'));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

type Outcome = { same: boolean; said: string | null; alias: boolean } | { error: string };

function run(asNobody: boolean): Outcome[] {
  const [cmd, ...args] = nodeAs(asNobody);
  const r = spawnSync(cmd, [...args, '--input-type=module', '-e', SCRIPT, join(ws, 'docs')], { encoding: 'utf8', timeout: 30_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Outcome[];
}

const CACHE = () => join(ws, '.embedding-cache');

describe.runIf(canSetpriv)('chunkVectors over a cache of root\'s, as nobody', () => {
  beforeEach(() => {
    // Root fills the cache with both documents' entries, as a build would.
    expect(run(false)).toEqual([{ same: true, said: null, alias: true }, { same: true, said: null, alias: true }, { same: true, said: null, alias: true }]);
    expect(statSync(join(CACHE(), 'semantic-16-80-512')).isDirectory()).toBe(true);
  });

  it('a cache it may read but not write: the vectors come from it, and chunkVectors says nothing (EmbeddingCache does)', () => {
    chmodTree(CACHE(), 0o555, 0o444);
    expect(run(true)).toEqual([{ same: true, said: null, alias: true }, { same: true, said: null, alias: true }, { same: true, said: null, alias: true }]);
  });

  it('a cache it may not read (another user\'s, umask 077): every document is embedded, and the cache is named once as unreadable', () => {
    unreadableAsUmask077(CACHE());
    const out = run(true);
    expect(out.map((o) => ('same' in o ? o.same : o.error))).toEqual([true, true, true]);
    const said = (out[0] as { said: string }).said;
    expect(said).toMatch(new RegExp(`^embedding cache ${CACHE()} cannot be read \\(.*\\(EACCES\\).*\\); the search goes on, embedding what it could not read$`));
    expect(out.map((o) => (o as { said: string }).said)).toEqual([said, said, said]);
    // cacheUnwritable, the deprecated old name, says the same.
    expect(out.map((o) => (o as { alias: boolean }).alias)).toEqual([true, true, true]);
  });

  it('a build cache (.embedding-cache/<topic>/) whose entry it may not read is passed over', () => {
    const topic = join(CACHE(), 'topic-a');
    mkdirSync(topic);
    for (const name of ['_by-text', 'semantic-16-80-512']) cpSync(join(CACHE(), name), join(topic, name), { recursive: true });
    chmodTree(topic, 0o755, 0o600);
    const out = run(true);
    expect(out.map((o) => ('same' in o ? o.same : o.error))).toEqual([true, true, true]);
    expect((out[0] as { said: string }).said).toMatch(new RegExp(`^embedding cache ${topic} cannot be read \\(.*metadata\\.json.*\\(EACCES\\)`));
  });
});
