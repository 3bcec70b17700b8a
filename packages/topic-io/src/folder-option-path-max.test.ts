// An --out (or --cache-dir) within PATH_MAX but not far enough within it for what the tool
// makes there: it passed checkFolderOption, and chunking-tool chunked the topic and then failed,
// exit 1, '<out>/golden-reference.json: name too long (ENAMETOOLONG)', naming a file the user
// never gave (issue 15 leftover). Now a usage error up front (exit 2) naming the option, the
// path's length and what the tool's writes would reach. Real files and the real built bin.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main as chunk } from '../../../apps/chunking-tool/src/main.js';
import { checkFolderOption, UsageError } from './index.js';
import { thrown } from './test-helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'topic-io-path-max-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `base` extended by folders of at most 200 bytes to `bytes` bytes, the last one `last` bytes long (when it fits). */
function pathOf(base: string, bytes: number, last = 8): string {
  let p = base;
  const target = bytes - last - 1;
  while (Buffer.byteLength(p) < target) {
    const left = target - Buffer.byteLength(p) - 1;
    p += `/${'d'.repeat(left > 200 ? (left - 200 < 2 ? 100 : 200) : Math.max(left, 1))}`;
  }
  p += `/${'o'.repeat(bytes - Buffer.byteLength(p) - 1)}`;
  expect(Buffer.byteLength(p)).toBe(bytes);
  return p;
}

/** What a staged folder's tool reaches, counted here by hand: the '.aside-' sibling and a 255-byte name in it. */
const stagedReach = (p: string): number =>
  Math.max(Buffer.byteLength(p), Buffer.byteLength(dirname(p)) + 1 + Math.min(255, 1 + Buffer.byteLength(basename(p)) + `.aside-${process.pid}~abcd-12345678`.length)) + 1 + 255;

describe.runIf(process.platform === 'linux')('checkFolderOption, a path just under PATH_MAX', () => {
  it('refused exactly when what the tool writes would pass 4095 bytes (property over lengths, last names and what is written)', () => {
    let refused = 0;
    let passed = 0;
    fc.assert(
      fc.property(fc.integer({ min: 3500, max: 4095 }), fc.integer({ min: 1, max: 240 }), fc.option(fc.integer({ min: 1, max: 300 })), (bytes, last, inside) => {
        const p = pathOf(dir, bytes, Math.min(last, bytes - Buffer.byteLength(dir) - 2));
        const writes = inside === null ? undefined : { longestInside: inside, staged: false };
        const reach = inside === null ? stagedReach(p) : bytes + 1 + inside;
        const err = thrown(() => checkFolderOption('out', p, writes));
        if (reach <= 4095) {
          passed++;
          expect(err).toBeNull();
        } else {
          refused++;
          expect(err).toBeInstanceOf(UsageError);
          expect((err as Error).message).toBe(`--out ${p}: path too long (it is ${bytes} bytes from the root, and what this tool writes in it reaches ${reach}; a path may be at most 4095 bytes); use a shorter path`);
        }
      }),
      { numRuns: 300 },
    );
    expect(refused).toBeGreaterThan(30);
    expect(passed).toBeGreaterThan(30);
  });

  it('chunking-tool, the built bin: --out of 4050 bytes is exit 2 at once naming --out, nothing made (was exit 1 after chunking, naming <out>/golden-reference.json)', () => {
    const topic = join(dir, 't');
    mkdirSync(topic);
    writeFileSync(join(topic, 'golden-reference.md'), '# Title\n\nSome words about serialization and source generation.\n');
    const out = pathOf(join(dir, 'o'), 4050);
    const r = spawnSync(process.execPath, [join(import.meta.dirname, '../../../apps/chunking-tool/bin/chunking-tool.js'), topic, '--out', out], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).toMatch(/^chunking-tool: --out \/[^\n]*: path too long \(it is 4050 bytes from the root, and what this tool writes in it reaches \d+; a path may be at most 4095 bytes\); use a shorter path\n/);
    expect(r.stderr.startsWith(`chunking-tool: --out ${out}: path too long`)).toBe(true);
    expect(r.stderr).not.toContain('golden-reference.json');
    expect(r.status).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(['t']);
    expect(readdirSync(topic)).toEqual(['golden-reference.md']);
  });

  it('chunking-tool at the longest --out it takes: the topic is chunked there (the check refuses nothing that would work for a name of 255 bytes)', async () => {
    const topic = join(dir, 't');
    mkdirSync(topic);
    writeFileSync(join(topic, 'golden-reference.md'), '# Title\n\nSome words about serialization and source generation.\n');
    let bytes = 4095;
    let out = pathOf(join(dir, 'o'), bytes);
    while (stagedReach(out) > 4095) out = pathOf(join(dir, 'o'), --bytes);
    const quiet = { stdout: () => {}, stderr: () => {} };
    expect(await chunk([topic, '--out', out], quiet)).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['golden-reference-0.md', 'golden-reference.json']);
    const over = pathOf(join(dir, 'p'), bytes + 1);
    const err: string[] = [];
    expect(await chunk([topic, '--out', over], { stdout: () => {}, stderr: (s) => void err.push(s) })).toBe(2);
    expect(err.join('')).toContain(`--out ${over}: path too long`);
  });
});
