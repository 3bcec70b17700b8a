// Shared by this package's tests: real temp dirs and a counting, deterministic test double
// for an embedding provider (our own stand-in, not a mock of anything we depend on).
import { createHash } from 'node:crypto';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Embedder } from './index.js';

export function makeTempRoot(): { root: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'chunkyard-embedding-cache-'));
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** A vector derived from the text's sha256 (and the model name), so equal texts give equal vectors. */
export function fakeVector(text: string, dims: number, salt = ''): Float32Array {
  const out = new Float32Array(dims);
  let block = Buffer.alloc(0);
  for (let i = 0; i < dims; i++) {
    if (i % 8 === 0) block = createHash('sha256').update(`${salt}\u0000${i}\u0000${text}`).digest();
    // 4 bytes → a float in [-1, 1); finite by construction.
    out[i] = block.readInt32LE((i % 8) * 4) / 2 ** 31;
  }
  return out;
}

export class CountingEmbedder implements Embedder {
  /** Every embed() call's texts, in order. */
  readonly calls: string[][] = [];
  /** 1-based call number that throws (to simulate a provider failing mid-way); 0 = never. */
  failOnCall = 0;

  constructor(
    readonly model: string,
    readonly dims = 16,
  ) {}

  get textsEmbedded(): number {
    return this.calls.reduce((n, c) => n + c.length, 0);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    if (this.failOnCall === this.calls.length) throw new Error(`fake provider ${this.model}: call ${this.calls.length} failed`);
    return texts.map((t) => fakeVector(t, this.dims, this.model));
  }
}

/** Every path under `dir` (relative, directories end in '/'). */
export function walk(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = `${prefix}${entry.name}`;
    if (entry.isDirectory()) out.push(`${rel}/`, ...walk(join(dir, entry.name), `${rel}/`));
    else out.push(rel);
  }
  return out;
}

/**
 * Every path under `dir` with what it is: a regular file's sha256, a symlink's target, or its
 * kind. Only regular files are read: opening a FIFO waits for a writer forever, and a test that
 * snapshotted one that way hung.
 */
export function snapshot(dir: string): string[] {
  return walk(dir).map((rel) => {
    if (rel.endsWith('/')) return rel;
    const path = join(dir, rel);
    const st = lstatSync(path);
    if (st.isFile()) return `${rel} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    if (st.isSymbolicLink()) return `${rel} -> ${readlinkSync(path)}`;
    return `${rel} (${st.isFIFO() ? 'fifo' : st.isSocket() ? 'socket' : 'device'})`;
  });
}

/** Leftovers of writers: hidden temp names (`.tmp-`; entries moved aside use them too; `.old-` was their former name). */
export const leftovers = (dir: string): string[] => walk(dir).filter((p) => /\.(tmp|old)-\d+-[0-9a-f]+/.test(p));

export const bitsOf = (v: Float32Array): number[] => [...new Uint32Array(v.buffer, v.byteOffset, v.length)];

/** `n` distinct chunk texts, like a document's chunks. */
export function chunkTexts(n: number, tag = 'doc'): string[] {
  return Array.from({ length: n }, (_, i) => `## Section ${i} of ${tag}\n\nParagraph ${i}: some prose about topic ${tag}, part ${i}.`);
}
