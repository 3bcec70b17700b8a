// tools/fuzz.mjs run for a second against small chunking modules with planted faults: it must
// report each kind of fault, save what reproduces it, cut a block difference down to a minimal
// document, and exit 0 only when nothing failed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'chunkyard-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A chunking module: `chunk` is the body of chunkDocument(text, options), `blocks` of fastBlocks(text). */
function fake(name: string, chunk: string, blocks = 'return { blocks: [] };'): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `export class ChunkOptionsError extends Error {}
export function chunkDocument(text, options) { ${chunk} }
export function chunkDocumentStream(text, options) { return { chunks: chunkDocument(text, options).chunks[Symbol.iterator]() }; }
export function fastBlocks(text) { ${blocks} }
export function flatten() { return []; }
export function parse() { return null; }
`,
  );
  return file;
}

function fuzz(...args: string[]) {
  const r = spawnSync(process.execPath, ['tools/fuzz.mjs', '--seconds', '1', ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('tools/fuzz.mjs', () => {
  it('exits 0 and says so when nothing fails', () => {
    const r = fuzz('--chunking', fake('clean', 'return { chunks: [{ id: text.length }] };'), '--out', join(dir, 'clean-out'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^fuzz seed 1: [1-9]\d* documents in 1 s, 0 failures\n$/);
  });

  it('saves a document that throws, with its options and the error, once per message, and exits 1', () => {
    const out = join(dir, 'throw-out');
    const r = fuzz('--chunking', fake('throws', "if (text.includes('#')) throw new Error('boom'); return { chunks: [] };"), '--out', out);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/threw: boom/);
    const files = readdirSync(out);
    expect(files).toHaveLength(1);
    const saved = JSON.parse(readFileSync(join(out, files[0]!), 'utf8')) as { text: string; options: { strategy: string }; error: string };
    expect(saved.text).toContain('#');
    expect(saved.error).toMatch(/Error: boom/);
    expect(['semantic', 'token-window', 'hierarchical', 'paginate']).toContain(saved.options.strategy);
  });

  it('takes ChunkOptionsError as an answer, not a failure', () => {
    const r = fuzz('--chunking', fake('refuses', "if (options.maxTokens < 20) throw new ChunkOptionsError('too small'); return { chunks: [] };"), '--out', join(dir, 'refuse-out'));
    expect(r.code, r.stdout).toBe(0);
  });

  it('finds a stream that differs from the whole document', () => {
    const file = join(dir, 'stream.mjs');
    writeFileSync(
      file,
      readFileSync(fake('stream-base', 'return { chunks: [text.length] };'), 'utf8').replace(
        /export function chunkDocumentStream[^\n]*/,
        'export function chunkDocumentStream(text) { return { chunks: [text.length + 1][Symbol.iterator]() }; }',
      ),
    );
    const r = fuzz('--chunking', file, '--out', join(dir, 'stream-out'));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/stream differs: .*stream-1-0\.json/);
  });

  it('with --conform, counts block lists that differ and cuts each saved one down to a minimal document', () => {
    const out = join(dir, 'conform-out');
    // Blocks differ exactly when the text holds a `>`: the minimal such document is `>`.
    const r = fuzz('--chunking', fake('conform', 'return { chunks: [] };', "return { blocks: text.includes('>') ? [1] : [] };"), '--conform', '--keep', '3', '--out', out);
    expect(r.code, r.stdout).toBe(0);
    const [, differ, compared] = /, (\d+) of (\d+) block lists differ/.exec(r.stdout) ?? [];
    expect(Number(differ)).toBeGreaterThan(0);
    expect(Number(differ)).toBeLessThan(Number(compared));
    const files = readdirSync(out);
    expect(files).toHaveLength(3);
    for (const f of files) {
      const saved = JSON.parse(readFileSync(join(out, f), 'utf8')) as { text: string; minimized: string };
      expect(saved.text).toContain('>');
      expect(saved.minimized).toBe('>');
    }
  });

  it('is repeatable from its seed', () => {
    const module = fake('seeded', "if (text.length % 97 === 3) throw new Error('len ' + text.length); return { chunks: [] };");
    const a = fuzz('--chunking', module, '--seed', '7', '--out', join(dir, 'seed-a'));
    const b = fuzz('--chunking', module, '--seed', '7', '--out', join(dir, 'seed-b'));
    const first = (r: { stdout: string }) => /threw: (len \d+)/.exec(r.stdout)?.[1];
    expect(first(a)).toBeDefined();
    expect(first(a)).toBe(first(b));
  });

  it('refuses bad options with its usage, exit 2', () => {
    for (const args of [['--seconds', '0'], ['--seconds', 'x'], ['--seed', '0'], ['--seed', '1.5'], ['--keep', '-1'], ['--bogus']]) {
      const r = fuzz(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/usage: node tools\/fuzz\.mjs/);
    }
    const missing = fuzz('--chunking', join(dir, 'none.mjs'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot load .*none\.mjs/);
  });
});
