/**
 * Brute-force cosine similarity over one packed Float32 matrix. Rows are normalised once,
 * at build time, so a query is one dot product per row. By default the scan runs over an
 * int8 copy of the rows with an exact Float32 rerank (`quantized.ts`: a quarter of the
 * bytes, same answer); the Float32 SIMD kernel (`simd-kernel.ts`) and a JavaScript loop
 * remain as the fallbacks. It is exact and has no index structure to keep in sync with the
 * database. Cost is linear in rows × dimensions: past the size where that is fast enough,
 * `ivf.ts` is the approximate index.
 */
import { Int8Matrix, searchInt8, type FloatRows, type VectorMatch } from './quantized.js';
import { createMemory, instantiateKernel, type ScoresFn } from './simd-kernel.js';

export type { VectorMatch } from './quantized.js';

export interface IndexedUnit {
  unitId: string;
  artifactId: string;
  topic: string | null;
  artifactType: string;
  contentHints: string;
}

/**
 * One buffer: [query: stride floats][scores: rows, padded][matrix: rows × stride]. Rows are
 * padded with zeros to a multiple of 8 floats, the kernel's step.
 */
class Layout {
  readonly buffer: ArrayBuffer;
  readonly kernel: ScoresFn | null;
  readonly outOffset: number;
  readonly matrixOffset: number;

  constructor(
    readonly capacity: number,
    readonly stride: number,
    simd: boolean,
  ) {
    this.outOffset = stride * 4;
    this.matrixOffset = this.outOffset + Math.ceil(capacity / 8) * 8 * 4;
    const bytes = this.matrixOffset + capacity * stride * 4;
    // Larger than WebAssembly memory may be (4 GiB): plain memory and the JavaScript loop.
    const memory = simd ? createMemory(bytes) : null;
    this.buffer = memory ? memory.buffer : new ArrayBuffer(bytes);
    this.kernel = memory ? instantiateKernel(memory) : null;
  }

  row(r: number, dims = this.stride): Float32Array {
    return new Float32Array(this.buffer, this.matrixOffset + r * this.stride * 4, dims);
  }
}

export interface VectorSearchOptions {
  /** false: score every row with the Float32 kernel instead of int8 + exact rerank (a benchmark peer). */
  quantized?: boolean;
}

export class VectorIndex {
  readonly stride: number;
  private int8: Int8Matrix | null | undefined;

  private constructor(
    readonly dims: number,
    readonly units: IndexedUnit[],
    private readonly layout: Layout,
    /** Each row's length before it was normalised (routed search sums raw vectors over a window). */
    readonly norms: Float64Array,
  ) {
    this.stride = layout.stride;
  }

  get size(): number {
    return this.units.length;
  }

  /** The packed, normalised rows (rows × stride, zero-padded). */
  get matrix(): Float32Array {
    return new Float32Array(this.layout.buffer, this.layout.matrixOffset, this.units.length * this.stride);
  }

  /** Whether the WebAssembly SIMD kernel is in use (else the JavaScript loop). */
  get simd(): boolean {
    return this.layout.kernel !== null;
  }

  /** The normalised Float32 rows, as the exact rerank reads them. */
  get floatRows(): FloatRows {
    return { data: this.matrix, stride: this.stride, dims: this.dims };
  }

  /**
   * The int8 copy of the rows, quantised on first use (null without WebAssembly SIMD or
   * memory for it). Bytes: rows × dims rounded up to 16.
   */
  quantized(): Int8Matrix | null {
    if (this.int8 === undefined) this.int8 = this.simd && this.size > 0 ? Int8Matrix.fromFloat(this.floatRows, this.size) : null;
    return this.int8;
  }

  /**
   * Packs rows whose embedding is Float32 little-endian bytes (as stored). The bytes are
   * copied, not viewed: a Buffer from SQLite need not be 4-byte aligned. `expectedRows`
   * sizes the buffer once; more rows than that grow it by copying. `simd: false` forces the
   * JavaScript loop (tests compare the two).
   */
  static fromRows(dims: number, rows: Iterable<{ unit: IndexedUnit; embedding: Uint8Array; norm?: number }>, expectedRows = 0, options: { simd?: boolean } = {}): VectorIndex {
    const stride = Math.max(8, Math.ceil(dims / 8) * 8);
    const simd = options.simd ?? true;
    let layout = new Layout(Math.max(expectedRows, 16), stride, simd);
    const units: IndexedUnit[] = [];
    const norms: number[] = [];
    for (const { unit, embedding, norm } of rows) {
      if (embedding.byteLength !== dims * 4) {
        throw new RangeError(`vector of ${unit.unitId} has ${embedding.byteLength / 4} dimensions, the store ${dims}`);
      }
      if (units.length === layout.capacity) {
        const grown = new Layout(layout.capacity * 2, stride, simd);
        new Float32Array(grown.buffer, grown.matrixOffset, units.length * stride).set(new Float32Array(layout.buffer, layout.matrixOffset, units.length * stride));
        layout = grown;
      }
      new Uint8Array(layout.buffer, layout.matrixOffset + units.length * stride * 4, dims * 4).set(embedding);
      const row = layout.row(units.length, dims);
      let sum = 0;
      for (let i = 0; i < row.length; i++) sum += row[i]! * row[i]!;
      // A row copied from another index is normalised already: its original length comes along.
      norms.push(norm ?? Math.sqrt(sum));
      normalizeInPlace(row);
      units.push(unit);
    }
    return new VectorIndex(dims, units, layout, Float64Array.from(norms));
  }

  /**
   * A new index without the rows of the `removed` artifacts and with `added` appended: what
   * a write by this process changed, applied without reading every vector from SQLite again.
   */
  withChanges(removed: ReadonlySet<string>, added: readonly { unit: IndexedUnit; vector: Float32Array }[]): VectorIndex {
    const { buffer, matrixOffset } = this.layout;
    const dims = this.dims;
    const stride = this.stride;
    const units = this.units;
    const norms = this.norms;
    let kept = 0;
    for (const u of units) if (!removed.has(u.artifactId)) kept++;
    function* rows(): Generator<{ unit: IndexedUnit; embedding: Uint8Array; norm?: number }> {
      for (let r = 0; r < units.length; r++) {
        if (!removed.has(units[r]!.artifactId)) yield { unit: units[r]!, embedding: new Uint8Array(buffer, matrixOffset + r * stride * 4, dims * 4), norm: norms[r]! };
      }
      for (const { unit, vector } of added) yield { unit, embedding: new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength) };
    }
    return VectorIndex.fromRows(dims, rows(), kept + added.length, { simd: this.simd });
  }

  /**
   * The cosine similarity of `query` to every row, in row order (the Float32 kernel over all
   * rows): what routed search needs, which normalises each score list by its maximum.
   */
  scoreAll(query: Float32Array): Float32Array {
    if (query.length !== this.dims) throw new RangeError(`query has ${query.length} dimensions, the index ${this.dims}`);
    const n = this.units.length;
    const { buffer, outOffset, matrixOffset, kernel } = this.layout;
    const q = new Float32Array(buffer, 0, this.stride);
    q.fill(0);
    q.set(query);
    normalizeInPlace(q);
    const scores = new Float32Array(buffer, outOffset, n);
    if (kernel) kernel(0, matrixOffset, this.stride, n, outOffset);
    else scoreAll(q, new Float32Array(buffer, matrixOffset, n * this.stride), this.stride, scores);
    return Float32Array.from(scores);
  }

  /** The `k` rows most similar to `query` among those `accept` lets through, best first. */
  search(query: Float32Array, k: number, accept?: (unit: IndexedUnit) => boolean, options: VectorSearchOptions = {}): VectorMatch[] {
    if (query.length !== this.dims) throw new RangeError(`query has ${query.length} dimensions, the index ${this.dims}`);
    const n = this.units.length;
    if (k <= 0 || n === 0) return [];
    // No more matches than rows: the top-k buffers below are sized by k, and a caller's
    // limit (1e9 once) must not become a multi-gigabyte allocation.
    k = Math.min(k, n);
    const int8 = options.quantized === false ? null : this.quantized();
    if (int8) {
      const units = this.units;
      return searchInt8(int8, this.floatRows, normalizeInPlace(Float32Array.from(query)), k, [[0, n]], null, accept && ((row) => accept(units[row]!)));
    }
    const { buffer, outOffset, matrixOffset, kernel } = this.layout;
    const stride = this.stride;
    const q = new Float32Array(buffer, 0, stride);
    q.fill(0);
    q.set(query);
    normalizeInPlace(q);
    const scores = new Float32Array(buffer, outOffset, n);
    if (kernel) kernel(0, matrixOffset, stride, n, outOffset);
    else scoreAll(q, new Float32Array(buffer, matrixOffset, n * stride), stride, scores);

    // A small sorted buffer beats a heap for the k (≤ a few hundred) used here.
    const topScore = new Float64Array(k).fill(-Infinity);
    const topRow = new Int32Array(k).fill(-1);
    let filled = 0;
    for (let r = 0; r < n; r++) {
      const score = scores[r]!;
      if (filled === k && score <= topScore[k - 1]!) continue;
      if (accept && !accept(this.units[r]!)) continue;
      // Insert, keeping descending score; ties keep the earlier row first.
      let i = filled < k ? filled++ : k - 1;
      while (i > 0 && topScore[i - 1]! < score) {
        topScore[i] = topScore[i - 1]!;
        topRow[i] = topRow[i - 1]!;
        i--;
      }
      topScore[i] = score;
      topRow[i] = r;
    }
    const out: VectorMatch[] = [];
    for (let i = 0; i < filled; i++) out.push({ row: topRow[i]!, score: topScore[i]! });
    return out;
  }
}

/** The JavaScript fallback of the kernel: four rows per pass share each load of q[d]. */
function scoreAll(q: Float32Array, m: Float32Array, stride: number, out: Float32Array): void {
  const n = out.length;
  let r = 0;
  for (; r + 3 < n; r += 4) {
    const b0 = r * stride;
    const b1 = b0 + stride;
    const b2 = b1 + stride;
    const b3 = b2 + stride;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let d = 0; d < stride; d++) {
      const x = q[d]!;
      s0 += x * m[b0 + d]!;
      s1 += x * m[b1 + d]!;
      s2 += x * m[b2 + d]!;
      s3 += x * m[b3 + d]!;
    }
    out[r] = s0;
    out[r + 1] = s1;
    out[r + 2] = s2;
    out[r + 3] = s3;
  }
  for (; r < n; r++) {
    let s = 0;
    for (let d = 0; d < stride; d++) s += q[d]! * m[r * stride + d]!;
    out[r] = s;
  }
}

/** Scales `v` to unit length (an all-zero vector stays zero) and returns it. */
export function normalizeInPlace(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  if (sum > 0) {
    const inv = 1 / Math.sqrt(sum);
    for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
  }
  return v;
}

/** Float32 little-endian bytes of `v`, for a BLOB. */
export function vectorBytes(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** A Float32Array copied out of BLOB bytes. */
export function bytesToVector(bytes: Uint8Array): Float32Array {
  const out = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}
