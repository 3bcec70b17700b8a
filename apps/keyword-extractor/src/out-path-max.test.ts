// --out and PATH_MAX: keyword-extractor gave checkFolderOption (3aefdda) its defaults, a folder
// swapped in whole holding any 255-byte name, while with --out it writes one file, words.md,
// through a temp name beside it (about 35 bytes), into the folder as it is. An --out the table
// fits in was refused, exit 2. Now the bound is the real temp name's length: the longest --out
// it takes gets words.md, one byte more is refused up front with nothing made. Real folders,
// real extraction, the built CLI and in-process runs.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, outLongestInside } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const PATH_BYTES = 4095;
const root = mkdtempSync(join(tmpdir(), 'chunkyard-kw-out-path-max-'));
const topic = join(root, 't');
beforeAll(() => {
  execFileSync(process.execPath, ['tools/build.mjs', 'apps/keyword-extractor'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
  mkdirSync(topic);
  writeFileSync(join(topic, 'golden-reference.md'), `# Widgets\n\n${'The widget renderer draws widgets on the canvas. '.repeat(20)}\n`);
}, 240_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A path below `root` of exactly `bytes` bytes, in folders of 200-byte names (none made). */
function pathOf(bytes: number): string {
  let p = join(root, 'deep');
  let left = bytes - Buffer.byteLength(p);
  for (; left > 203; left -= 201) p = join(p, 'd'.repeat(200));
  // 2..203 bytes to go, each name '/' and at least one byte.
  p = left <= 201 ? join(p, 'g'.repeat(left - 1)) : join(p, 'e'.repeat(100), 'f'.repeat(left - 102));
  expect(Buffer.byteLength(p)).toBe(bytes);
  return p;
}

const cli = (out: string) => spawnSync(process.execPath, [join(REPO, 'apps/keyword-extractor/bin/keyword-extractor.js'), topic, '--out', out], { encoding: 'utf8', timeout: 60_000 });
const refusal = (out: string, bytes: number) =>
  `keyword-extractor: --out ${out}: path too long (it is ${bytes} bytes from the root, and what this tool writes in it reaches ${bytes + 1 + outLongestInside()}; a path may be at most ${PATH_BYTES} bytes); use a shorter path\n`;

describe('keyword-extractor --out near PATH_MAX', () => {
  it('the bound is words.md\'s temp name, well below the 255 of any name', () => {
    expect(outLongestInside()).toBe('.words.md.tmp-'.length + String(process.pid).length + '~0000-00000000'.length);
  });

  it('the built CLI writes words.md at the longest --out it takes (refused before, exit 2), and refuses one byte more up front', () => {
    const longest = pathOf(PATH_BYTES - 1 - outLongestInside());
    // Before: exit 2, "--out …: path too long (… what this tool writes in it reaches 4…)".
    const ok = cli(longest);
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(readFileSync(join(longest, 'words.md'), 'utf8')).toMatch(/\| widget/);
    rmSync(join(root, 'deep'), { recursive: true, force: true });

    const over = pathOf(PATH_BYTES - outLongestInside());
    const r = cli(over);
    expect(r.stderr).toBe(refusal(over, PATH_BYTES - outLongestInside()));
    expect(r.status).toBe(2);
    expect(existsSync(join(root, 'deep'))).toBe(false);
  });

  it('any --out length: refused up front exactly when words.md\'s temp would pass PATH_MAX, else written', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.integer({ min: PATH_BYTES - 300, max: PATH_BYTES }), fc.constantFrom(PATH_BYTES - 1 - outLongestInside(), PATH_BYTES - outLongestInside())), async (bytes) => {
        const out = pathOf(bytes);
        let stderr = '';
        const code = await main([topic, '--out', out], { stdout: () => {}, stderr: (s) => void (stderr += s) });
        try {
          if (bytes + 1 + outLongestInside() <= PATH_BYTES) {
            expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
            expect(readFileSync(join(out, 'words.md'), 'utf8')).toMatch(/\| widget/);
          } else {
            expect({ code, stderr }).toEqual({ code: 2, stderr: refusal(out, bytes) });
            expect(existsSync(join(root, 'deep'))).toBe(false);
          }
        } finally {
          rmSync(join(root, 'deep'), { recursive: true, force: true });
        }
      }),
      { numRuns: 25 },
    );
  });
});
