// --cache-dir and PATH_MAX: checkFolderOption judged the cache folder as if a tool swapped it in
// whole and wrote any 255-byte name in it, where the cache is written in place and its deepest
// paths are its own layout's (a text's temp file under _by-text/<model>/<hh>/, a document
// entry's temp folder under <strategyKey>/<model>/). A --cache-dir the cache fits in was
// refused, exit 2. Now the bound is cacheLongestInside(model): the real CLI at the longest
// --cache-dir it takes embeds and writes the cache there, and one byte more is refused up front
// with nothing made.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '@chunkyard/embeddings';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { cacheLongestInside } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const quiet = { stdout: () => {}, stderr: () => {} };
const PATH_BYTES = 4095;

let ws: string;
let topic: string;
beforeAll(async () => {
  execFileSync(process.execPath, ['tools/build.mjs', 'apps/topic-spec'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
  ws = mkdtempSync(join(tmpdir(), 'spec-cache-path-max-'));
  topic = join(ws, 't');
  mkdirSync(topic);
  writeFileSync(join(topic, 'golden-reference.md'), `# Guide\n\n${'The cache setting controls how vectors are kept. '.repeat(30)}\n\n## More\n\n${'Another part about the service. '.repeat(30)}\n`);
  expect(await chunk([topic], quiet)).toBe(0);
  expect(await keywords([topic], quiet)).toBe(0);
}, 240_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

/** A path below `ws` of exactly `bytes` bytes, in folders of 200-byte names (none made). */
function pathOf(bytes: number): string {
  let p = join(ws, 'deep');
  while (Buffer.byteLength(p) + 1 + 200 < bytes - 201) p = join(p, 'd'.repeat(200));
  const left = bytes - Buffer.byteLength(p) - 1;
  if (left > 200) p = join(p, 'e'.repeat(left - 101), 'f'.repeat(100));
  else p = join(p, 'g'.repeat(left));
  expect(Buffer.byteLength(p)).toBe(bytes);
  return p;
}

function spec(cacheDir: string) {
  return spawnSync(process.execPath, [join(REPO, 'apps/topic-spec/bin/topic-spec.js'), topic, '--cache-dir', cacheDir], { cwd: ws, encoding: 'utf8', timeout: 60_000 });
}

/** Every file below `dir`, as paths relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)));
}

describe('topic-spec --cache-dir near PATH_MAX', () => {
  const model = createProvider({ provider: 'local' }, {}).model;
  const inside = cacheLongestInside(model);

  it('the bound is the layout of what the cache writes: above every entry it wrote, below the old 255', () => {
    expect(inside).toBeLessThan(255);
    // The real cache of a real run: every path in it, plus the temp suffix it was first written
    // under (fs-atomic's '.<name>.tmp-<pid>~<4 hex>-<8 hex>', 1 + 5 + pid + 1 + 4 + 1 + 8 bytes), fits.
    const cache = join(ws, 'shallow-cache');
    const r = spec(cache);
    expect(r.status, r.stderr).toBe(0);
    const written = files(cache);
    expect(written.length).toBeGreaterThan(2);
    const suffix = 1 + 5 + String(process.pid).length + 1 + 4 + 1 + 8;
    for (const f of written) expect(Buffer.byteLength(f) + suffix, f).toBeLessThanOrEqual(inside);
  });

  it('the longest --cache-dir it takes works (refused before, exit 2); one byte more is refused up front, nothing made', () => {
    const longest = pathOf(PATH_BYTES - 1 - inside);
    rmSync(join(topic, 'topic-spec.md'), { force: true });
    // Before: exit 2, "--cache-dir …: path too long (… what this tool writes in it reaches 4…)".
    const ok = spec(longest);
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(readFileSync(join(topic, 'topic-spec.md'), 'utf8')).toContain(model);
    expect(files(longest).some((f) => f.startsWith('_by-text/'))).toBe(true);
    rmSync(join(ws, 'deep'), { recursive: true, force: true });

    const over = pathOf(PATH_BYTES - inside);
    const r = spec(over);
    expect(r.stderr).toBe(
      `topic-spec: --cache-dir ${over}: path too long (it is ${PATH_BYTES - inside} bytes from the root, and what this tool writes in it reaches ${PATH_BYTES + 1}; a path may be at most ${PATH_BYTES} bytes); use a shorter path\n`,
    );
    expect(r.status).toBe(2);
    expect(existsSync(join(ws, 'deep'))).toBe(false);
  });
});
