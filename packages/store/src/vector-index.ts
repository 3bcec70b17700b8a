/**
 * Brute-force cosine similarity over one packed Float32 matrix (rows normalised once, at
 * build time, so a query is a dot product per row). Exact, no index structure to keep in
 * sync with the database. It answers 100,000 × 512-dimension rows well under 100 ms (see
 * the README's benchmark); it is linear in rows × dimensions, so past a few hundred
 * thousand rows an ANN index (sqlite-vec, HNSW) is the next step.
 */

export interface IndexedUnit {
  unitId: string;
  artifactId: string;
  topic: string | null;
  artifactType: string;
  contentHints: string;
}

export interface VectorMatch {
  /** Row in the index. */
  row: number;
  /** Cosine similarity, in [-1, 1]. */
  score: number;
}

export class VectorIndex {
  private constructor(
    readonly dims: number,
    readonly units: IndexedUnit[],
    /** units.length × dims, row-major, each row of unit length (or all zero). */
    readonly matrix: Float32Array,
  ) {}

  get size(): number {
    return this.units.length;
  }

  /**
   * Packs rows whose embedding is Float32 little-endian bytes (as stored). The bytes are
   * copied, not viewed: a Buffer from SQLite need not be 4-byte aligned.
   */
  static fromRows(dims: number, rows: Iterable<{ unit: IndexedUnit; embedding: Uint8Array }>, expectedRows = 0): VectorIndex {
    let capacity = Math.max(expectedRows, 16);
    let matrix = new Float32Array(capacity * dims);
    const units: IndexedUnit[] = [];
    for (const { unit, embedding } of rows) {
      if (embedding.byteLength !== dims * 4) {
        throw new RangeError(`vector of ${unit.unitId} has ${embedding.byteLength / 4} dimensions, the store ${dims}`);
      }
      if (units.length === capacity) {
        capacity *= 2;
        const grown = new Float32Array(capacity * dims);
        grown.set(matrix);
        matrix = grown;
      }
      new Uint8Array(matrix.buffer, units.length * dims * 4, dims * 4).set(embedding);
      normalizeInPlace(matrix.subarray(units.length * dims, (units.length + 1) * dims));
      units.push(unit);
    }
    return new VectorIndex(dims, units, matrix.length === units.length * dims ? matrix : matrix.slice(0, units.length * dims));
  }

  /** The `k` rows most similar to `query` among those `accept` lets through, best first. */
  search(query: Float32Array, k: number, accept?: (unit: IndexedUnit) => boolean): VectorMatch[] {
    if (query.length !== this.dims) throw new RangeError(`query has ${query.length} dimensions, the index ${this.dims}`);
    if (k <= 0 || this.size === 0) return [];
    const q = normalizeInPlace(Float32Array.from(query));
    const dims = this.dims;
    const m = this.matrix;
    // A small sorted buffer beats a heap for the k (≤ a few hundred) used here.
    const topScore = new Float64Array(k).fill(-Infinity);
    const topRow = new Int32Array(k).fill(-1);
    let filled = 0;
    for (let r = 0, base = 0; r < this.units.length; r++, base += dims) {
      if (accept && !accept(this.units[r]!)) continue;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let d = 0;
      for (; d + 3 < dims; d += 4) {
        s0 += q[d]! * m[base + d]!;
        s1 += q[d + 1]! * m[base + d + 1]!;
        s2 += q[d + 2]! * m[base + d + 2]!;
        s3 += q[d + 3]! * m[base + d + 3]!;
      }
      for (; d < dims; d++) s0 += q[d]! * m[base + d]!;
      const score = s0 + s1 + s2 + s3;
      if (filled === k && score <= topScore[k - 1]!) continue;
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

/** Scales `v` to unit length (an all-zero vector stays zero) and returns it. */
export function normalizeInPlace(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  if (sum > 0) {
    const inv = 1 / Math.sqrt(sum);
    for (let i = 0; i < v.length; i++) v[i]! *= inv;
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
