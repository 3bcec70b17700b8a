/**
 * Routed search in the store: the retrieval routes of @chunkyard/retrieval (issue 17) over
 * the stored chunks, so `docs-store search` returns the units `docs-query` returns for the
 * same docs and question.
 *
 *   RouteIndex.load   the chunks in document order, their BM25 terms (stored at ingest;
 *                     a CJK run cut into characters and pairs as read, see routeStoredTerms
 *                     in search.ts and retrieval's cjk-terms.ts), each vector's length;
 *                     postings per term; built once per index version
 *   routeScores       the scores retrieval's windowScores computes (own cosine, own BM25,
 *                     per window the window's cosine and BM25), fused by fuseMaxNormalised
 *   routedUnits       the ranking through retrieval's mergeHits and trimSegments
 *
 * Why not call windowScores itself: it tokenises every chunk and builds three BM25 indexes
 * per query (about 65 µs a chunk: seconds at 100k chunks). The same numbers come from
 * postings: a window's term frequency is the chunk's embed-text frequency plus its
 * neighbours' content frequencies, its length the same sums; a window's cosine is
 * Σ |v_j| (q̂ · v̂_j) / |Σ v_j|, where the window lengths |Σ v_j| do not depend on the query.
 */
import {
  bm25Idf,
  bm25K1Problem,
  bm25Weight,
  BOUNDARY_SEPARATOR,
  DEFAULT_BM25_B,
  DEFAULT_MERGE,
  DEFAULT_ROUTE_BM25,
  DEFAULT_WINDOWS,
  expandRange,
  fuseMaxNormalised,
  mergeHits,
  trimSegments,
  windowProblem,
  type ManifestChunk,
  type RankedHit,
  type RouteOptions,
  type Unit,
} from '@chunkyard/retrieval';
import type Database from 'better-sqlite3';
import { StoreError } from './errors.js';
import { storedModel } from './ingest.js';
import { onlyCjkWords, routeDocumentTerms, routeQueryTerms, routeStoredTerms } from './search.js';
import type { IndexedUnit, VectorIndex } from './vector-index.js';

type DB = Database.Database;

/** How many following chunks each chunk's dot products reach: enough for the default windows (radius ≤ 2). */
const GRAM_SPAN = 4;

/**
 * Postings of every term of one field, compressed rows: term t's postings are entries
 * offsets[t] .. offsets[t + 1] of items (ascending) and tfs. Typed arrays, not a Map of
 * arrays: at 100k chunks that is 8M postings, which as JS arrays cost seconds of GC.
 */
interface Postings {
  offsets: Int32Array;
  items: Int32Array;
  tfs: Int32Array;
}

/** A growable Int32Array. */
class IntBuffer {
  data = new Int32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = v;
  }
}

/** Collects one field's (item, term, tf) triples in item order, then packs them as Postings. */
class PostingsBuilder {
  private readonly items = new IntBuffer();
  private readonly terms = new IntBuffer();
  private readonly tfs = new IntBuffer();
  private scratch = new Int32Array(256);

  /**
   * Adds an item's space-separated stored terms, a CJK run cut into its characters and pairs
   * (routeStoredTerms); returns how many terms it had as stored. That count is the item's
   * BM25 length: the cut pairs would lengthen every item holding CJK text, and with them the
   * average length, so a store holding some would score English queries differently.
   */
  add(item: number, stored: string, termIds: Map<string, number>): number {
    if (stored === '') return 0;
    const text = routeStoredTerms(stored);
    const words = text.split(' ');
    if (words.length > this.scratch.length) this.scratch = new Int32Array(words.length * 2);
    for (let w = 0; w < words.length; w++) {
      let id = termIds.get(words[w]!);
      if (id === undefined) termIds.set(words[w]!, (id = termIds.size));
      this.scratch[w] = id;
    }
    const ids = this.scratch.subarray(0, words.length).sort();
    for (let a = 0; a < ids.length; ) {
      let b = a + 1;
      while (b < ids.length && ids[b] === ids[a]) b++;
      this.items.push(item);
      this.terms.push(ids[a]!);
      this.tfs.push(b - a);
      a = b;
    }
    return text === stored ? words.length : stored.split(' ').length;
  }

  build(termCount: number): Postings {
    const n = this.items.length;
    const offsets = new Int32Array(termCount + 1);
    const terms = this.terms.data;
    for (let x = 0; x < n; x++) offsets[terms[x]! + 1]!++;
    for (let t = 0; t < termCount; t++) offsets[t + 1]! += offsets[t]!;
    const fill = offsets.slice(0, termCount);
    const items = new Int32Array(n);
    const tfs = new Int32Array(n);
    // Triples come in item order, so each term's postings stay ascending.
    for (let x = 0; x < n; x++) {
      const at = fill[terms[x]!]!++;
      items[at] = this.items.data[x]!;
      tfs[at] = this.tfs.data[x]!;
    }
    return { offsets, items, tfs };
  }
}

export class RouteIndex {
  private readonly windowNorms = new Map<number, Float64Array>();
  private readonly windowLengths = new Map<number, Float64Array>();
  private gram: Float64Array | null = null;

  private constructor(
    /** The vector index the rows refer to (a new one means the store changed). */
    readonly vectors: VectorIndex,
    /** Per item, in document order (artifact, then chunk index): its row in `vectors`. */
    readonly rows: Int32Array,
    /** Per item: the chunk index, -1 for a document stored whole. */
    readonly chunkIndex: Int32Array,
    /** Per item: where its document's items start and end (exclusive). */
    readonly groupStart: Int32Array,
    readonly groupEnd: Int32Array,
    readonly embedLength: Float64Array,
    readonly contentLength: Float64Array,
    private readonly termIds: Map<string, number>,
    private readonly embedPostings: Postings,
    private readonly contentPostings: Postings,
    /** The vectors are the local lexical model's (localModelId: `local-lexical-v1-d512`, …). */
    private readonly lexicalVectors: boolean,
    /**
     * Per item: its place in docs-query's order (documents by topic, then source file, then
     * chunk index), which breaks a tie of scores as retrieval's search() breaks it. The items
     * themselves are in artifact id order (8 hex of a hash), which put copy/two before copy/one.
     */
    readonly tieOrder: Int32Array,
  ) {}

  get size(): number {
    return this.rows.length;
  }

  unitOf(item: number): IndexedUnit {
    return this.vectors.units[this.rows[item]!]!;
  }

  /**
   * Reads every unit's terms in document order. A store with rows written before schema 3
   * (no terms) is refused with what to do.
   */
  static load(db: DB, path: string, vectors: VectorIndex): RouteIndex {
    const columns = new Set((db.prepare("SELECT name FROM pragma_table_info('artifact_chunks')").all() as { name: string }[]).map((c) => c.name));
    if (!columns.has('embed_terms')) {
      throw new StoreError(`${path}: written by an older docs-store (schema before 3), which did not keep what routed search needs; run "docs-store ingest" on the same documents (it upgrades the store and rewrites them), or search with --no-routes`);
    }
    const rowOf = new Map<string, number>();
    vectors.units.forEach((u, r) => rowOf.set(u.unitId, r));
    const rows: number[] = [];
    const chunkIndex: number[] = [];
    const groupStart: number[] = [];
    const groupEnd: number[] = [];
    const embedLength: number[] = [];
    const contentLength: number[] = [];
    const termIds = new Map<string, number>();
    const embedPostings = new PostingsBuilder();
    const contentPostings = new PostingsBuilder();
    let stale = 0;
    let tieOrder: Int32Array = new Int32Array(0);
    let start = 0;
    let lastArtifact: string | null = null;
    const closeGroup = (end: number) => {
      for (let i = start; i < end; i++) groupEnd[i] = end;
    };
    // One read transaction: the same snapshot as the vector index was read from, or a newer
    // one (a unit the index lacks is then left out, as the vector search leaves it out).
    db.transaction(() => {
      const iter = db
        .prepare(
          `SELECT c.id, c.artifact_id, c.chunk_index, c.embed_terms, c.content_terms FROM artifact_chunks c
           UNION ALL
           SELECT a.id, a.id, -1, a.route_terms, a.route_terms FROM artifacts a WHERE a.is_chunked = 0
           ORDER BY 2, 3`,
        )
        .raw()
        .iterate() as IterableIterator<[string, string, number, string | null, string | null]>;
      for (const [unitId, artifactId, index, embedTerms, contentTerms] of iter) {
        const row = rowOf.get(unitId);
        if (row === undefined) continue;
        if (embedTerms === null || contentTerms === null) {
          stale++;
          continue;
        }
        const item = rows.length;
        if (artifactId !== lastArtifact) {
          closeGroup(item);
          start = item;
          lastArtifact = artifactId;
        }
        rows.push(row);
        chunkIndex.push(index);
        groupStart.push(start);
        groupEnd.push(0);
        embedLength.push(embedPostings.add(item, embedTerms, termIds));
        contentLength.push(contentPostings.add(item, contentTerms, termIds));
      }
      closeGroup(rows.length);
      tieOrder = docsQueryOrder(db, rows.length, groupEnd, (item) => vectors.units[rows[item]!]!.artifactId);
    })();
    if (stale > 0) {
      throw new StoreError(
        `${path}: ${stale} stored ${stale === 1 ? 'unit was' : 'units were'} written by an older docs-store and lack what routed search needs; ` +
          `run "docs-store ingest" on the same documents again (they are rewritten), or search with --no-routes`,
      );
    }
    return new RouteIndex(
      vectors,
      Int32Array.from(rows),
      Int32Array.from(chunkIndex),
      Int32Array.from(groupStart),
      Int32Array.from(groupEnd),
      Float64Array.from(embedLength),
      Float64Array.from(contentLength),
      termIds,
      embedPostings.build(termIds.size),
      contentPostings.build(termIds.size),
      storedModel(db).model?.startsWith('local-lexical-') === true,
      tieOrder,
    );
  }

  /**
   * Raw dot products of each item with the next GRAM_SPAN items of its document (0 past its
   * end): |Σ v_j|² of a window is Σ |v_j|² + 2 Σ_{j<k} v_j · v_k, so windows up to radius
   * GRAM_SPAN / 2 need no vector summed (4 dot products per item instead of 2r + 1 vector
   * additions per radius).
   */
  private neighbourDots(): Float64Array {
    if (this.gram) return this.gram;
    const { matrix, stride, dims, norms } = this.vectors;
    const out = new Float64Array(this.size * GRAM_SPAN);
    for (let i = 0; i < this.size; i++) {
      const ri = this.rows[i]!;
      const bi = ri * stride;
      for (let d = 1; d <= GRAM_SPAN && i + d < this.groupEnd[i]!; d++) {
        const rj = this.rows[i + d]!;
        const bj = rj * stride;
        let dot = 0;
        for (let x = 0; x < dims; x++) dot += matrix[bi + x]! * matrix[bj + x]!;
        out[i * GRAM_SPAN + d - 1] = dot * norms[ri]! * norms[rj]!;
      }
    }
    return (this.gram = out);
  }

  /** |Σ v_j| over each item's window of radius r (raw vectors: the normalised rows times their lengths). */
  private windowNorm(radius: number): Float64Array {
    let out = this.windowNorms.get(radius);
    if (out) return out;
    out = new Float64Array(this.size);
    const norms = this.vectors.norms;
    if (2 * radius <= GRAM_SPAN) {
      const gram = this.neighbourDots();
      for (let i = 0; i < this.size; i++) {
        const a = Math.max(this.groupStart[i]!, i - radius);
        const b = Math.min(this.groupEnd[i]! - 1, i + radius);
        let s = 0;
        for (let j = a; j <= b; j++) {
          const n = norms[this.rows[j]!]!;
          s += n * n;
          for (let k = j + 1; k <= b; k++) s += 2 * gram[j * GRAM_SPAN + k - j - 1]!;
        }
        out[i] = Math.sqrt(Math.max(0, s));
      }
    } else {
      const { matrix, stride, dims } = this.vectors;
      const sum = new Float64Array(dims);
      for (let i = 0; i < this.size; i++) {
        sum.fill(0);
        const a = Math.max(this.groupStart[i]!, i - radius);
        const b = Math.min(this.groupEnd[i]! - 1, i + radius);
        for (let j = a; j <= b; j++) {
          const row = this.rows[j]!;
          const scale = norms[row]!;
          const base = row * stride;
          for (let d = 0; d < dims; d++) sum[d]! += matrix[base + d]! * scale;
        }
        let s = 0;
        for (let d = 0; d < dims; d++) s += sum[d]! * sum[d]!;
        out[i] = Math.sqrt(s);
      }
    }
    this.windowNorms.set(radius, out);
    return out;
  }

  /** Each item's window length in terms: its embed text plus its neighbours' content. */
  private windowLength(radius: number): Float64Array {
    let out = this.windowLengths.get(radius);
    if (out) return out;
    out = new Float64Array(this.size);
    for (let i = 0; i < this.size; i++) {
      let len = this.embedLength[i]!;
      const a = Math.max(this.groupStart[i]!, i - radius);
      const b = Math.min(this.groupEnd[i]! - 1, i + radius);
      for (let j = a; j <= b; j++) if (j !== i) len += this.contentLength[j]!;
      out[i] = len;
    }
    this.windowLengths.set(radius, out);
    return out;
  }

  /**
   * The route scores of the `active` items (ascending item numbers): the collection is those
   * items, as docs-query's collection is the chunks of the topics searched. A window still
   * reaches the document's other chunks (all of them are the document's context).
   */
  scores(query: string, queryVector: Float32Array, active: Int32Array, routes: RouteOptions): { fused: Float64Array; similarity: Float64Array; bm25: Float64Array } {
    const windows = routes.windows ?? DEFAULT_WINDOWS;
    for (const w of windows) {
      const problem = windowProblem(w);
      if (problem !== null) throw new StoreError(problem);
    }
    const k1 = routes.bm25K1 ?? DEFAULT_ROUTE_BM25.k1 ?? 1.2;
    const k1Problem = bm25K1Problem(k1);
    if (k1Problem !== null) throw new StoreError(k1Problem);
    const n = active.length;
    const size = this.size;
    const rows = this.rows;
    const groupStart = this.groupStart;
    const groupEnd = this.groupEnd;
    const pos = new Int32Array(size).fill(-1);
    for (let p = 0; p < n; p++) pos[active[p]!] = p;
    const all = this.vectors.scoreAll(queryVector);
    const similarity = new Float64Array(n);
    for (let p = 0; p < n; p++) similarity[p] = Math.max(-1, Math.min(1, all[rows[active[p]!]!]!));
    // q̂ · v_j (raw v_j) per item, summed in document order: a window's dot is a difference of two prefix sums.
    const prefix = new Float64Array(size + 1);
    const norms = this.vectors.norms;
    for (let i = 0; i < size; i++) prefix[i + 1] = prefix[i]! + norms[rows[i]!]! * all[rows[i]!]!;
    const terms = [...new Set(routeQueryTerms(query))];

    // Own BM25 over the embed texts of the active items.
    const ownLength = new Float64Array(n);
    for (let p = 0; p < n; p++) ownLength[p] = this.embedLength[active[p]!]!;
    const bm25 = new Float64Array(n);
    this.addBm25(bm25, ownLength, k1, terms.map((t) => this.ownFrequencies(t, pos)));

    // A query of CJK words alone under the local model (onlyCjkWords): its cosine with a text
    // is positive where the text holds the exact run, which the BM25 of the run's pairs scores
    // already, and a hash collision (noise) elsewhere. Max-normalised, the noisiest unit's cosine counted as much
    // as the BM25 of the unit holding the word, and tied with it (配置 inside 如何配置服务器 came
    // second to an English chunk). The cosines are still reported; they are left out of the sum.
    const cosineWeight = this.lexicalVectors && onlyCjkWords(query) ? 0 : 1;
    const lists = [
      { scores: similarity, weight: cosineWeight },
      { scores: bm25, weight: 1 },
    ];
    for (const w of windows) {
      if (w.weight === 0) continue;
      const norm = this.windowNorm(w.radius);
      const wsim = new Float64Array(n);
      for (let p = 0; p < n; p++) {
        const i = active[p]!;
        if (!(norm[i]! > 0)) continue;
        const a = Math.max(groupStart[i]!, i - w.radius);
        const b = Math.min(groupEnd[i]! - 1, i + w.radius);
        wsim[p] = Math.max(-1, Math.min(1, (prefix[b + 1]! - prefix[a]!) / norm[i]!));
      }
      const wlen = this.windowLength(w.radius);
      const length = new Float64Array(n);
      for (let p = 0; p < n; p++) length[p] = wlen[active[p]!]!;
      const wbm25 = new Float64Array(n);
      this.addBm25(wbm25, length, k1, terms.map((t) => this.windowFrequencies(t, pos, w.radius)));
      lists.push({ scores: wsim, weight: w.weight * cosineWeight }, { scores: wbm25, weight: w.weight });
    }
    return { fused: fuseMaxNormalised(lists), similarity, bm25 };
  }

  /** The frequency of `term` in each active item's embed text, as [position, tf] pairs. */
  private ownFrequencies(term: string, pos: Int32Array): Map<number, number> {
    const out = new Map<number, number>();
    const id = this.termIds.get(term);
    if (id === undefined) return out;
    const { offsets, items, tfs } = this.embedPostings;
    for (let x = offsets[id]!; x < offsets[id + 1]!; x++) if (pos[items[x]!]! >= 0) out.set(pos[items[x]!]!, tfs[x]!);
    return out;
  }

  /** The frequency of `term` in each active item's window text (own embed text, neighbours' content). */
  private windowFrequencies(term: string, pos: Int32Array, radius: number): Map<number, number> {
    const out = this.ownFrequencies(term, pos);
    const id = this.termIds.get(term);
    if (id === undefined) return out;
    const { offsets, items, tfs } = this.contentPostings;
    for (let x = offsets[id]!; x < offsets[id + 1]!; x++) {
      const j = items[x]!;
      const a = Math.max(this.groupStart[j]!, j - radius);
      const b = Math.min(this.groupEnd[j]! - 1, j + radius);
      for (let i = a; i <= b; i++) {
        if (i === j || pos[i]! < 0) continue;
        out.set(pos[i]!, (out.get(pos[i]!) ?? 0) + tfs[x]!);
      }
    }
    return out;
  }

  /** Okapi BM25 as retrieval's Bm25Index computes it (its bm25Idf and bm25Weight), from the frequencies of each query term. */
  private addBm25(out: Float64Array, lengths: Float64Array, k1: number, frequencies: Map<number, number>[]): void {
    const n = lengths.length;
    let total = 0;
    for (let p = 0; p < n; p++) total += lengths[p]!;
    const avg = total > 0 ? total / n : 1;
    for (const tf of frequencies) {
      if (tf.size === 0) continue;
      const idf = bm25Idf(n, tf.size);
      // Added in ascending position order, as Bm25Index's postings are, for the same rounding.
      for (const p of [...tf.keys()].sort((a, b) => a - b)) out[p]! += bm25Weight(idf, tf.get(p)!, lengths[p]!, avg, k1, DEFAULT_BM25_B);
    }
  }
}

/** One routed unit: chunks first..last of an artifact (null for a document stored whole), its text and scores. */
export interface RoutedUnit {
  /** The unit id of the hit that opened the unit (its best chunk). */
  unitId: string;
  artifactId: string;
  /** Chunk range the text spans; null for a document stored whole. */
  span: { from: number; to: number } | null;
  text: string;
  /** How many ranked hits the unit took in. */
  hits: number;
  score: number;
  similarity: number;
  bm25: number;
}

/**
 * The n routed units for a query: scores over the active items, the ranking (ties in
 * docs-query's order: RouteIndex.tieOrder), small-to-big merge, then each unit's text (with
 * ±k neighbours when k > 0, else edge-trimmed), as retrieval's search() builds them.
 */
export function routedUnits(
  index: RouteIndex,
  chunkRows: (artifactId: string, from: number, to: number) => { index: number; content: string; startChar: number; endChar: number; overlapChars: number }[],
  wholeContent: (artifactId: string) => string,
  query: string,
  queryVector: Float32Array,
  accept: ((u: IndexedUnit) => boolean) | undefined,
  n: number,
  k: number,
  routes: RouteOptions,
): RoutedUnit[] {
  const trim = routes.trim ?? 1;
  if (!Number.isInteger(trim) || trim < 0) throw new StoreError(`routes.trim must be a non-negative integer, got ${trim}`);
  let active: Int32Array;
  if (accept) {
    const list: number[] = [];
    for (let i = 0; i < index.size; i++) if (accept(index.unitOf(i))) list.push(i);
    active = Int32Array.from(list);
  } else {
    active = new Int32Array(index.size);
    for (let i = 0; i < active.length; i++) active[i] = i;
  }
  if (active.length === 0 || n === 0) return [];
  const scored = index.scores(query, queryVector, active, routes);
  const merge = routes.merge === false ? null : { ...DEFAULT_MERGE, ...routes.merge };
  // Only units that score something, as retrieval's routed search takes them: with every score
  // 0 (a query of stopwords or punctuation under the local model), all 30 of the merge's depth
  // joined into one unit and came back as a result.
  const tie = new Int32Array(active.length);
  for (let p = 0; p < active.length; p++) tie[p] = index.tieOrder[active[p]!]!;
  const order = topPositions(scored.fused, tie, Math.max(n, merge?.depth ?? 0)).filter((p) => scored.fused[p]! > 0);
  const hits: RankedHit[] = order.map((p) => {
    const item = active[p]!;
    return { group: index.unitOf(item).artifactId, index: Math.max(0, index.chunkIndex[item]!), score: scored.fused[p]! };
  });
  const units: Unit[] = merge ? mergeHits(hits, n, merge) : hits.slice(0, n).map((h, rank) => ({ group: h.group, first: h.index, last: h.index, opener: rank, hits: 1 }));
  return units.map((u) => {
    const p = order[u.opener]!;
    const item = active[p]!;
    const unit = index.unitOf(item);
    const base = { unitId: unit.unitId, artifactId: unit.artifactId, hits: u.hits, score: scored.fused[p]!, similarity: scored.similarity[p]!, bm25: scored.bm25[p]! };
    if (index.chunkIndex[item]! < 0) return { ...base, span: null, text: wholeContent(unit.artifactId) };
    const center = index.chunkIndex[item]!;
    // Only the chunks the unit and its ±k neighbours cover are read; expandRange sees them
    // as a document that starts at `from` (its first segment keeps its overlap, as there).
    const rows = chunkRows(unit.artifactId, Math.max(0, u.first - k), u.last + k);
    const from = rows[0]?.index ?? u.first;
    // Another process may have replaced the document since the index was read.
    if (rows.length === 0 || from > u.first || rows[rows.length - 1]!.index < u.last || rows.some((r, i) => r.index !== from + i)) {
      throw new StoreError(`${unit.artifactId} changed during the search; search again`);
    }
    // expandRange reads only originalText, overlapChars and sourcePosition of a manifest chunk.
    const chunks = rows.map((r) => ({ originalText: r.content, overlapChars: r.overlapChars, sourcePosition: { charStart: r.startChar, charEnd: r.endChar } }) as unknown as ManifestChunk);
    const e = expandRange(chunks, u.first - from, u.last - from, k, center - from);
    // A sentence is kept when it holds a query term: the query's terms as the BM25 reads a
    // query, the sentence's as it reads a document (a one-character query is in a run's
    // characters), the two sides retrieval's search() trims with, so the units are docs-query's.
    const segs = (k === 0 && trim > 0 ? trimSegments(e.segments, query, trim, routeQueryTerms, routeDocumentTerms) : e.segments).map((s) => ({ ...s, index: s.index + from }));
    return { ...base, span: { from: segs[0]?.index ?? e.from + from, to: segs[segs.length - 1]?.index ?? e.to + from }, text: segs.map((s) => s.text).join(BOUNDARY_SEPARATOR) };
  });
}

/**
 * Each item's place when the documents are in docs-query's order: its search() reads topics
 * sorted by id (UTF-16 code units), each topic's documents in its index's order (the built
 * manifests' name order, as the store's source files sort), each document's chunks in order.
 * Items are grouped by document (a group ends at groupEnd) in chunk order already; only the
 * documents are sorted, by topic, source file, then artifact id (a document without either
 * sorts first).
 */
function docsQueryOrder(db: DB, size: number, groupEnd: readonly number[], artifactOf: (item: number) => string): Int32Array {
  const keys = new Map<string, { topic: string; file: string }>();
  for (const a of db.prepare('SELECT id, topic, source_file AS file FROM artifacts').all() as { id: string; topic: string | null; file: string | null }[]) {
    keys.set(a.id, { topic: a.topic ?? '', file: a.file ?? '' });
  }
  const groups: { start: number; end: number; id: string; topic: string; file: string }[] = [];
  for (let item = 0; item < size; item = groupEnd[item]!) {
    const id = artifactOf(item);
    groups.push({ start: item, end: groupEnd[item]!, id, ...(keys.get(id) ?? { topic: '', file: '' }) });
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  groups.sort((a, b) => cmp(a.topic, b.topic) || cmp(a.file, b.file) || cmp(a.id, b.id));
  const out = new Int32Array(size);
  let next = 0;
  for (const g of groups) for (let item = g.start; item < g.end; item++) out[item] = next++;
  return out;
}

/**
 * Positions of the `m` highest scores, best first, ties by `tie` (lower first; a bounded
 * insertion, not a sort of every item).
 */
function topPositions(scores: Float64Array, tie: Int32Array, m: number): number[] {
  const k = Math.min(m, scores.length);
  if (k <= 0) return [];
  const top = new Int32Array(k);
  const better = (p: number, q: number) => scores[p]! > scores[q]! || (scores[p] === scores[q] && tie[p]! < tie[q]!);
  let filled = 0;
  for (let p = 0; p < scores.length; p++) {
    if (filled === k && !better(p, top[k - 1]!)) continue;
    let i = filled < k ? filled++ : k - 1;
    while (i > 0 && better(p, top[i - 1]!)) {
      top[i] = top[i - 1]!;
      i--;
    }
    top[i] = p;
  }
  return Array.from(top.subarray(0, filled));
}
