/**
 * The approximate index: an inverted file (IVF). Rows are clustered by spherical k-means
 * into about √n lists; a query scores the list centroids, then scans only the rows of the
 * `probes` best lists with the int8 kernel and reranks them exactly (`quantized.ts`). Rows
 * are copied in list order, so each probed list is one contiguous scan.
 *
 * Why IVF and not HNSW: building an HNSW graph over 1M × 512 in JavaScript is tens of
 * millions of scattered 512-float distance calls (an hour or more here); IVF's build is
 * dense scans the SIMD kernel already does well (about a minute), its persisted form is
 * small (centroids plus one list number per unit), and an out-of-date index repairs
 * cheaply: a new unit goes into its nearest list. sqlite-vec's vec0 is brute force.
 *
 * Everything here is pure: `train` and `assign` are seeded and deterministic; the store
 * (`store.ts`) persists the centroids and assignments in the `vector_ann` table.
 */
import { Int8Matrix, searchInt8, type VectorMatch } from './quantized.js';
import { normalizeInPlace, type IndexedUnit, type VectorIndex } from './vector-index.js';

export interface IvfModel {
  dims: number;
  /** lists × dims, each row normalised. */
  centroids: Float32Array;
  lists: number;
}

export interface IvfTrainOptions {
  lists?: number;
  /** Rows sampled for k-means (default 32 per list). */
  sample?: number;
  iterations?: number;
  seed?: number;
}

/** The default number of lists for n rows: √n, between 1 and 4096. */
export const listsFor = (n: number): number => Math.max(1, Math.min(4096, Math.round(Math.sqrt(n))));

/** The default probes for a number of lists: 3/8 of them, at least 8 (or all, if fewer): recall@10 0.98 at 1M × 512 on the harder clustered benchmark (0.944 at 1/4). */
export const probesFor = (lists: number): number => Math.min(lists, Math.max(8, Math.ceil((lists * 3) / 8)));

/** 53 bits of two FNV-1a hashes of a unit id: the persisted key of its assignment. */
export function unitKey(id: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 13);
  }
  return (a >>> 0) * 2 ** 21 + ((b >>> 0) & 0x1fffff);
}

/** Nearest centroid of each of `count` rows (by the int8 score), reusing one int8 centroid matrix. */
function nearest(model: IvfModel, index: VectorIndex, rowsToAssign: ArrayLike<number>, out: Int32Array | Uint32Array, outAt: (i: number) => number = (i) => i): void {
  const centroidRows = { data: model.centroids, stride: model.dims, dims: model.dims };
  const c8 = Int8Matrix.fromFloat(centroidRows, model.lists);
  const data = index.matrix;
  const stride = index.stride;
  const dims = model.dims;
  for (let i = 0; i < rowsToAssign.length; i++) {
    const row = rowsToAssign[i]!;
    const q = data.subarray(row * stride, row * stride + dims);
    let best = 0;
    if (c8) {
      c8.setQuery(q, dims);
      const dots = c8.dots(0, model.lists);
      const scale = c8.scale;
      let bestScore = -Infinity;
      for (let c = 0; c < model.lists; c++) {
        const s = dots[c]! * scale[c]!;
        if (s > bestScore) {
          bestScore = s;
          best = c;
        }
      }
    } else {
      let bestScore = -Infinity;
      for (let c = 0; c < model.lists; c++) {
        let s = 0;
        for (let d = 0; d < dims; d++) s += q[d]! * model.centroids[c * dims + d]!;
        if (s > bestScore) {
          bestScore = s;
          best = c;
        }
      }
    }
    out[outAt(i)] = best;
  }
}

/** Spherical k-means on a seeded sample of the index's rows. */
export function train(index: VectorIndex, options: IvfTrainOptions = {}): IvfModel {
  const n = index.size;
  const dims = index.dims;
  const lists = Math.max(1, Math.min(options.lists ?? listsFor(n), n));
  const sampleSize = Math.min(n, options.sample ?? lists * 32);
  let seed = (options.seed ?? 1) >>> 0;
  const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  // A seeded partial Fisher–Yates over row numbers: the sample, in random order.
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  for (let i = 0; i < sampleSize; i++) {
    const j = i + Math.floor(rand() * (n - i));
    const t = perm[i]!;
    perm[i] = perm[j]!;
    perm[j] = t;
  }
  const sample = perm.subarray(0, sampleSize);
  const data = index.matrix;
  const stride = index.stride;
  const centroids = new Float32Array(lists * dims);
  for (let c = 0; c < lists; c++) centroids.set(data.subarray(sample[c]! * stride, sample[c]! * stride + dims), c * dims);
  const model: IvfModel = { dims, centroids, lists };
  const assigned = new Int32Array(sampleSize);
  const sums = new Float64Array(lists * dims);
  const counts = new Int32Array(lists);
  for (let it = 0; it < (options.iterations ?? 8); it++) {
    nearest(model, index, sample, assigned);
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < sampleSize; i++) {
      const c = assigned[i]!;
      counts[c]!++;
      const base = sample[i]! * stride;
      const to = c * dims;
      for (let d = 0; d < dims; d++) sums[to + d]! += data[base + d]!;
    }
    for (let c = 0; c < lists; c++) {
      const centroid = centroids.subarray(c * dims, (c + 1) * dims);
      if (counts[c] === 0) {
        // An empty list takes a random sample row: every list keeps a purpose.
        const r = sample[Math.floor(rand() * sampleSize)]!;
        centroid.set(data.subarray(r * stride, r * stride + dims));
      } else {
        for (let d = 0; d < dims; d++) centroid[d] = sums[c * dims + d]!;
        normalizeInPlace(centroid);
      }
    }
  }
  return model;
}

/** The list of every row of `index`: `known` (from the last build) where it has the unit, else the nearest centroid. */
export function assign(model: IvfModel, index: VectorIndex, known?: ReadonlyMap<number, number>): { lists: Int32Array; reused: number; assigned: number } {
  const n = index.size;
  const lists = new Int32Array(n);
  const missing: number[] = [];
  for (let r = 0; r < n; r++) {
    const l = known?.get(unitKey(index.units[r]!.unitId));
    if (l !== undefined && l < model.lists) lists[r] = l;
    else missing.push(r);
  }
  nearest(model, index, missing, lists, (i) => missing[i]!);
  return { lists, reused: n - missing.length, assigned: missing.length };
}

export class IvfIndex {
  /** Position → row of the index, rows grouped by list. */
  private readonly order: Int32Array;
  /** List l holds positions [offsets[l], offsets[l + 1]). */
  private readonly offsets: Int32Array;
  private readonly int8: Int8Matrix | null;

  constructor(
    readonly model: IvfModel,
    readonly index: VectorIndex,
    /** The list of each row. */
    readonly lists: Int32Array,
  ) {
    const n = index.size;
    const counts = new Int32Array(model.lists + 1);
    for (let r = 0; r < n; r++) counts[lists[r]! + 1]!++;
    for (let l = 0; l < model.lists; l++) counts[l + 1]! += counts[l]!;
    this.offsets = counts;
    const next = counts.slice(0, model.lists);
    this.order = new Int32Array(n);
    for (let r = 0; r < n; r++) this.order[next[lists[r]!]!++] = r;
    this.int8 = Int8Matrix.fromFloat(index.floatRows, n, this.order);
  }

  /** Bytes held beyond the exact index: the int8 rows in list order, the order, the centroids. */
  get bytes(): number {
    return (this.int8?.bytes ?? 0) + this.order.byteLength + this.model.centroids.byteLength;
  }

  /**
   * The approximate top k: exact scores over the rows of the `probes` lists nearest the
   * query. Fewer than k accepted rows there (a narrow filter) falls back to exact search.
   */
  search(query: Float32Array, k: number, acceptUnit?: (unit: IndexedUnit) => boolean, probes = probesFor(this.model.lists)): VectorMatch[] {
    const { dims, centroids, lists } = this.model;
    const n = this.index.size;
    if (k <= 0 || n === 0) return [];
    k = Math.min(k, n);
    if (query.length !== dims) throw new RangeError(`query has ${query.length} dimensions, the index ${dims}`);
    const units = this.index.units;
    const accept = acceptUnit && ((row: number) => acceptUnit(units[row]!));
    const q = normalizeInPlace(Float32Array.from(query));
    probes = Math.max(1, Math.min(lists, probes));
    const best = new Float64Array(probes).fill(-Infinity);
    const bestList = new Int32Array(probes).fill(-1);
    for (let c = 0; c < lists; c++) {
      let s = 0;
      const base = c * dims;
      for (let d = 0; d < dims; d++) s += q[d]! * centroids[base + d]!;
      if (s <= best[probes - 1]!) continue;
      let i = probes - 1;
      while (i > 0 && best[i - 1]! < s) {
        best[i] = best[i - 1]!;
        bestList[i] = bestList[i - 1]!;
        i--;
      }
      best[i] = s;
      bestList[i] = c;
    }
    const ranges: [number, number][] = [];
    for (const l of bestList) if (l >= 0) ranges.push([this.offsets[l]!, this.offsets[l + 1]!]);
    const rows = this.index.floatRows;
    let matches: VectorMatch[];
    if (this.int8) matches = searchInt8(this.int8, rows, q, k, ranges, this.order, accept);
    else {
      matches = [];
      for (const [start, end] of ranges) {
        for (let p = start; p < end; p++) {
          const row = this.order[p]!;
          if (accept && !accept(row)) continue;
          let s = 0;
          for (let d = 0; d < dims; d++) s += q[d]! * rows.data[row * rows.stride + d]!;
          matches.push({ row, score: s });
        }
      }
      matches.sort((a, b) => b.score - a.score || a.row - b.row);
      matches = matches.slice(0, k);
    }
    if (matches.length < k) return this.index.search(query, k, acceptUnit);
    return matches;
  }
}
