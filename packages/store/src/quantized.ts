/**
 * Int8 rows with an exact rerank. Each row is scaled to ±127 (one Float32 scale per row);
 * the query to ±4095 (int16). The int8 kernel scans a quarter of the Float32 bytes, and the
 * result stays exact: for every row we know a bound on how far its int8 score can be from
 * its true cosine (Cauchy–Schwarz on the two rounding residuals), so the rows that can still
 * be in the top k are exactly those whose upper bound reaches the k-th best lower bound.
 * Only those few are rescored from the Float32 rows.
 *
 *   true − approx = q·(v − v') + (q − q')·v',  |q| = 1, |v'| ≤ 1 + |v − v'|
 */
import { createMemory, instantiateInt8Kernel, type ScoresFn } from './simd-kernel.js';

export interface VectorMatch {
  /** Row in the index. */
  row: number;
  /** Cosine similarity, in [-1, 1]. */
  score: number;
}

/** Row-major Float32 rows (normalised), as the exact rerank reads them. */
export interface FloatRows {
  readonly data: Float32Array;
  readonly stride: number;
  readonly dims: number;
}

/** Bounds also absorb Float32 rounding in the normalised rows and the Float64 sums. */
const SLACK = 1e-6;
const Q_RANGE = 4095;

export class Int8Matrix {
  private constructor(
    readonly rows: number,
    readonly stride: number,
    private readonly buffer: ArrayBuffer,
    private readonly kernel: ScoresFn,
    private readonly outOffset: number,
    private readonly matrixOffset: number,
    /** Per row: the dequantisation scale and the norm of the rounding residual. */
    readonly scale: Float32Array,
    readonly err: Float32Array,
  ) {}

  /**
   * Quantises `count` rows of `source`, taking position p from source row `order[p]` (or p).
   * Null where WebAssembly SIMD or enough WebAssembly memory is missing.
   */
  static fromFloat(source: FloatRows, count: number, order: Int32Array | null = null): Int8Matrix | null {
    const dims = source.dims;
    const stride = Math.max(16, Math.ceil(dims / 16) * 16);
    const outOffset = stride * 2;
    const matrixOffset = outOffset + Math.ceil(Math.max(count, 1) / 4) * 16;
    const memory = createMemory(matrixOffset + count * stride);
    if (!memory) return null;
    const kernel = instantiateInt8Kernel(memory);
    if (!kernel) return null;
    const m = new Int8Array(memory.buffer, matrixOffset, count * stride);
    const scale = new Float32Array(count);
    const err = new Float32Array(count);
    const src = source.data;
    for (let p = 0; p < count; p++) {
      const base = (order ? order[p]! : p) * source.stride;
      let max = 0;
      for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(src[base + d]!));
      const s = max / 127;
      const inv = s > 0 ? 127 / max : 0;
      let e = 0;
      if (s > 0) {
        const out = p * stride;
        for (let d = 0; d < dims; d++) {
          const x = src[base + d]!;
          const v = Math.round(x * inv);
          m[out + d] = v;
          e += (x - v * s) ** 2;
        }
      }
      scale[p] = s;
      err[p] = Math.sqrt(e);
    }
    return new Int8Matrix(count, stride, memory.buffer, kernel, outOffset, matrixOffset, scale, err);
  }

  /** Bytes of the int8 rows. */
  get bytes(): number {
    return this.rows * this.stride;
  }

  /** Loads a normalised query; returns its scale and the norm of its rounding residual. */
  setQuery(q: Float32Array, dims: number): { qScale: number; qErr: number } {
    const q16 = new Int16Array(this.buffer, 0, this.stride);
    q16.fill(0);
    let max = 0;
    for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(q[d]!));
    const qScale = max / Q_RANGE;
    let e = 0;
    if (qScale > 0) {
      for (let d = 0; d < dims; d++) {
        const v = Math.round(q[d]! / qScale);
        q16[d] = v;
        e += (q[d]! - v * qScale) ** 2;
      }
    }
    return { qScale, qErr: Math.sqrt(e) };
  }

  /** Integer dot products of the loaded query with positions [start, end). */
  dots(start: number, end: number): Int32Array {
    const out = this.outOffset + start * 4;
    if (end > start) this.kernel(0, this.matrixOffset + start * this.stride, this.stride, end - start, out);
    return new Int32Array(this.buffer, this.outOffset, this.rows);
  }
}

/**
 * The exact top k of `query` (normalised, `dims` long) among positions in `ranges` of `m`,
 * position p standing for row `order[p]` (or p) of `rows`. Ties go to the lower row.
 */
export function searchInt8(
  m: Int8Matrix,
  rows: FloatRows,
  query: Float32Array,
  k: number,
  ranges: readonly (readonly [number, number])[],
  order: Int32Array | null,
  accept?: (row: number) => boolean,
): VectorMatch[] {
  const dims = rows.dims;
  const { qScale, qErr } = m.setQuery(query, dims);
  const { scale, err } = m;
  const topLo = new Float64Array(k).fill(-Infinity);
  let filled = 0;
  let floor = -Infinity;
  const candRow: number[] = [];
  const candHi: number[] = [];
  for (const [start, end] of ranges) {
    const dots = m.dots(start, end);
    for (let p = start; p < end; p++) {
      const e = err[p]!;
      const approx = dots[p]! * qScale * scale[p]!;
      const bound = e * (1 + SLACK) + qErr * (1 + e) + SLACK;
      const hi = approx + bound;
      if (hi < floor) continue;
      const row = order ? order[p]! : p;
      if (accept && !accept(row)) continue;
      candRow.push(row);
      candHi.push(hi);
      const lo = approx - bound;
      if (filled === k && lo <= topLo[k - 1]!) continue;
      let i = filled < k ? filled++ : k - 1;
      while (i > 0 && topLo[i - 1]! < lo) {
        topLo[i] = topLo[i - 1]!;
        i--;
      }
      topLo[i] = lo;
      if (filled === k) floor = topLo[k - 1]!;
    }
  }
  const out: VectorMatch[] = [];
  const data = rows.data;
  for (let c = 0; c < candRow.length; c++) {
    if (candHi[c]! < floor) continue;
    const row = candRow[c]!;
    const base = row * rows.stride;
    let s = 0;
    for (let d = 0; d < dims; d++) s += query[d]! * data[base + d]!;
    out.push({ row, score: s });
  }
  out.sort((a, b) => b.score - a.score || a.row - b.row);
  return out.slice(0, k);
}
