/**
 * The two retrieval operations a user runs, as named stages over a DocsClient:
 *
 *   discloseTopics  topics -> first n of a stripe order per document -> chunk texts
 *   search          query -> SimHash prompt match -> (none within distance) embedding ranking
 *                   (cosine + BM25 by default, or with ranking 'embedding' cosine alone) -> chunk texts, expanded by ±k neighbours
 *                   With ranking 'hybrid' the routes of routes.ts run by default: window scores (±1, ±2),
 *                   gated small-to-big merge of adjacent hits, edge trimming (issue 17).
 */
import { toHex } from '@chunkyard/simhash';
import type { DocsClient } from './client.js';
import { disclose } from './disclose.js';
import { chunkVectors, queryVector, type EmbeddingBackend } from './embed.js';
import { BOUNDARY_SEPARATOR, expand, expandRange } from './expand.js';
import { bm25DocumentTerms, bm25QueryTerms, cjkCosineWeight } from './cjk-terms.js';
import { rankHybrid } from './hybrid.js';
import { checkMaxDistance, DEFAULT_MAX_HAMMING_DISTANCE, matchQuery, promptCandidates } from './prompt-match.js';
import { DEFAULT_MERGE, DEFAULT_ROUTE_BM25, DEFAULT_WINDOWS, mergeHits, trimSegments, windowScores, type MergeOptions, type WindowScore } from './routes.js';
import { checkCount, rankBySimilarity, shownValue } from './similarity.js';
import { LARGE_BODY_BYTES, SourceTooLargeError } from './source.js';
import type { LoadedTopic } from './walk.js';

export type Score =
  | { kind: 'hamming'; distance: number; hash: string }
  | { kind: 'cosine'; similarity: number }
  /**
   * Hybrid ranking: `score` = similarity and BM25, each divided by its maximum over the chunks
   * searched, summed (0..2); with the routes on, plus each window's same two scores times its
   * weight (0..2 + 2 × the window weights: 0..6 by default). similarity and bm25 are the chunk's own.
   */
  | { kind: 'hybrid'; score: number; similarity: number; bm25: number };

/** How the embedding fallback ranks chunks: by cosine alone, or cosine + BM25 (see hybrid.ts). */
export type Ranking = 'embedding' | 'hybrid';
export const RANKINGS: readonly Ranking[] = ['embedding', 'hybrid'];

export interface RetrievedChunk {
  topic: string;
  doc: string;
  index: number;
  title: string;
  isCode: boolean;
  /** The chunk file's path (folder source) or URL. */
  location: string;
  /**
   * The chunk's text, or with k > 0 the expanded text (neighbours joined with [CHUNK BOUNDARY]).
   * A small-to-big unit of search's routes: its chunks joined the same way, edges trimmed.
   */
  text: string;
  /** The chunk indices `text` spans (from = to = index when k = 0 and no unit merged). */
  span: { from: number; to: number };
  score?: Score;
}

/** The record for chunk `index` of a document, with the text returned for it and the chunks that text spans. */
function retrievedChunk(client: DocsClient, topic: LoadedTopic, doc: string, index: number, text: string, span: { from: number; to: number }, score?: Score): RetrievedChunk {
  const item = client.item(topic, doc, index);
  const out: RetrievedChunk = {
    topic: topic.id,
    doc,
    index,
    title: item.title,
    isCode: item.is_code,
    location: client.source.describe(client.chunkUrl(topic, doc, index)),
    text,
    span,
  };
  if (score) out.score = score;
  return out;
}

async function retrieveChunk(client: DocsClient, topic: LoadedTopic, doc: string, index: number, k: number, score?: Score, maxBytes?: number): Promise<RetrievedChunk> {
  let text: string;
  let span = { from: index, to: index };
  if (k > 0) {
    const e = expand((await client.manifest(topic, doc)).chunks, index, k);
    text = e.text;
    span = { from: e.from, to: e.to };
  } else {
    text = await client.chunkText(topic, doc, index, maxBytes);
  }
  return retrievedChunk(client, topic, doc, index, text, span, score);
}

/**
 * Chunk texts read ahead of the one being consumed: over HTTP each read is a round trip, and
 * a few in flight hide that; more would only hold texts nobody has written out yet.
 */
const READ_AHEAD = 8;

/**
 * `fn` over `items`, yielded in order, with at most `ahead` results pending or unconsumed at
 * once: a caller that writes each result out before asking for the next holds a bounded number
 * of texts, however many items there are (n × k expanded texts were all held at once).
 *
 * `fn` is given a byte cap for a read ahead (an item that is not the next to be yielded):
 * LARGE_BODY_BYTES. One past it fails with a SourceTooLargeError and is read again, uncapped,
 * when its turn comes, so that read-ahead texts held at once are at most `ahead` × 4 MiB plus
 * the one being yielded: 8 chunk files of 100 MB read ahead held 1.6 GB (helper-80's probe),
 * and 512 MiB files would hold 4 GiB.
 */
async function* inOrder<T, R>(items: readonly T[], fn: (item: T, maxBytes: number | undefined) => Promise<R>, ahead: number): AsyncGenerator<R> {
  const pending: { item: T; capped: boolean; result: Promise<R> }[] = [];
  let next = 0;
  const fill = () => {
    while (next < items.length && pending.length < ahead) {
      const item = items[next++]!;
      const capped = pending.length > 0;
      const result = fn(item, capped ? LARGE_BODY_BYTES : undefined);
      // Awaited in its turn below; marked handled now, so one that fails while an earlier one
      // is awaited (or after the caller stopped early) is not an unhandled rejection.
      result.catch(() => {});
      pending.push({ item, capped, result });
    }
  };
  fill();
  while (pending.length > 0) {
    const { item, capped, result } = pending[0]!;
    let value: R;
    try {
      value = await result;
    } catch (err) {
      if (!capped || !(err instanceof SourceTooLargeError)) throw err;
      value = await fn(item, undefined);
    }
    pending.shift();
    fill();
    yield value;
  }
}

/** With k > 0 the texts come from the manifest, already loaded: reading ahead saves nothing and would hold more expanded texts. */
const aheadFor = (k: number) => (k > 0 ? 1 : READ_AHEAD);

const retrieveNothing = (): Promise<RetrievedChunk> => Promise.reject(new Error('no chunk to retrieve'));

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

// ---------------------------------------------------------------------------------------------

export interface DisclosureRequest {
  topic?: string;
  /** Chunks per document, baselines aside: a whole number 0..2^53 − 1 (more than a document has gives all of them). */
  n: number;
  technical?: boolean;
  withBaseline?: boolean;
  /** Neighbours either side of each chunk: a whole number 0..2^53 − 1 (default 0; expansion stops at the document's ends). */
  k?: number;
}

export interface DocumentDisclosure {
  topic: string;
  title: string;
  doc: string;
  order: 'conceptual' | 'technical';
  technicalUnavailable: boolean;
  count: number;
  chunks: RetrievedChunk[];
}

/** A document's disclosure with its chunks yet to be read: `size` of them, yielded in order. */
export interface DocumentDisclosureStream extends Omit<DocumentDisclosure, 'chunks'> {
  /** How many chunks `chunks` yields. */
  size: number;
  /** Read (and expanded) one at a time as they are asked for; consume them before the next document. */
  chunks: AsyncIterable<RetrievedChunk>;
}

export async function discloseTopics(client: DocsClient, req: DisclosureRequest): Promise<DocumentDisclosure[]> {
  const out: DocumentDisclosure[] = [];
  for await (const { size: _size, chunks, ...d } of discloseTopicsStream(client, req)) out.push({ ...d, chunks: await collect(chunks) });
  return out;
}

/**
 * discloseTopics one document and one chunk at a time, for a caller that writes each out as it
 * comes: the first n of every stripe order with ±k neighbours each is up to n × (2k + 1) chunk
 * texts, more than a string (or the heap) holds for a large topic.
 */
export async function* discloseTopicsStream(client: DocsClient, req: DisclosureRequest): AsyncGenerator<DocumentDisclosureStream> {
  checkRequest('discloseTopics', req);
  const k = checkCount('k', req.k ?? 0);
  checkCount('n', req.n);
  // disclose() asks `=== true`: "yes" or 1 from JSON gave the conceptual order without a word.
  for (const name of ['technical', 'withBaseline'] as const) {
    const v: unknown = req[name];
    if (v !== undefined && typeof v !== 'boolean') throw new RangeError(`${name} must be true or false, got ${shownValue(v)}`);
  }
  for (const topic of await client.topics(req.topic)) {
    for (const [doc, group] of Object.entries(topic.index._embedded.chunks)) {
      const d = disclose(group, { n: req.n, technical: req.technical ?? false, withBaseline: req.withBaseline ?? false });
      const chunks = inOrder(d.indices, (i, maxBytes) => retrieveChunk(client, topic, doc, i, k, undefined, maxBytes), aheadFor(k));
      yield { topic: topic.id, title: topic.title, doc, order: d.order, technicalUnavailable: d.technicalUnavailable, count: group.count, size: d.indices.length, chunks };
    }
  }
}

// ---------------------------------------------------------------------------------------------

export interface SearchRequest {
  query: string;
  topic?: string;
  /** Most chunks to return: a whole number 0..2^53 − 1 (default 5); more than there are returns them all. */
  n?: number;
  /** Neighbours either side of each chunk: a whole number 0..2^53 − 1 (default 0). */
  k?: number;
  maxDistance?: number;
  /**
   * The embedding fallback; called only when no prompt hash matches. Null disables the
   * fallback (the result is then `method: 'none'` when nothing matches).
   */
  embeddings: (() => EmbeddingBackend) | null;
  /**
   * The fallback's ranking (default 'hybrid'): each chunk's BM25 score over the chunks searched
   * (their embedText) added to its cosine similarity, both max-normalised; 'embedding' is cosine
   * alone. Hybrid is the default because the evaluation says so: with the local embedder it
   * finds 13.4 recall points more on the Chroma set and 5.5 more on the held-out docs set.
   */
  ranking?: Ranking;
  /**
   * The retrieval routes run after the hybrid ranking (default on; false: off, the n best
   * chunks as ranked by cosine + BM25 with k1 1.2). Not applied with ranking 'embedding'.
   */
  routes?: RouteOptions | false;
}

/** search()'s routes (routes.ts); each part turned off on its own. */
export interface RouteOptions {
  /** Window scores added to each chunk's (default ±1 and ±2, weight 1 each; [] turns off). */
  windows?: readonly WindowScore[];
  /** BM25's k1 in the hybrid ranking with routes (default 0.6). */
  bm25K1?: number;
  /** Small-to-big merge of adjacent hits (default depth 30, gate 0.65, gateOpen, fill; false turns off). */
  merge?: MergeOptions | false;
  /** Edge trimming: sentences sharing fewer than this many terms with the query are cut from a unit's edges (default 1; 0 turns off). Only with k = 0. */
  trim?: number;
}

export interface SearchResult {
  query: string;
  /** SimHash of the query, 16 hex digits. */
  queryHash: string;
  maxDistance: number;
  method: 'prompt' | 'embedding' | 'none';
  /** The embedding model used by the fallback, when it ran. */
  model?: string;
  chunks: RetrievedChunk[];
}

/** A search result with its chunks yet to be read: `size` of them, yielded in rank order. */
export interface SearchStream extends Omit<SearchResult, 'chunks'> {
  size: number;
  chunks: AsyncIterable<RetrievedChunk>;
}

/** A request that is not an object (from JavaScript or JSON) failed as "Cannot read properties of null (reading 'n')". */
function checkRequest(what: string, req: unknown): void {
  if (typeof req !== 'object' || req === null || Array.isArray(req)) {
    throw new TypeError(`${what}: the request must be an object (${what === 'search' ? '{ query, n, k, … }' : '{ n, k, … }'}), got ${req === null ? 'null' : Array.isArray(req) ? 'an array' : typeof req}`);
  }
}

export async function search(client: DocsClient, req: SearchRequest): Promise<SearchResult> {
  const { size: _size, chunks, ...head } = await searchStream(client, req);
  return { ...head, chunks: await collect(chunks) };
}

/** search with the chunk texts read (and expanded) one at a time as they are asked for; see discloseTopicsStream. */
export async function searchStream(client: DocsClient, req: SearchRequest): Promise<SearchStream> {
  checkRequest('search', req);
  const n = checkCount('n', req.n ?? 5);
  const k = checkCount('k', req.k ?? 0);
  const maxDistance = checkMaxDistance(req.maxDistance ?? DEFAULT_MAX_HAMMING_DISTANCE);
  // Checked for a caller outside TypeScript (JSON, an MCP tool's arguments): a query of 5 was
  // "req.query.trim is not a function", and String() of a ranking with no prototype threw.
  if (typeof req.query !== 'string') throw new RangeError(`the query must be a string, got ${shownValue(req.query)}`);
  if (req.query.trim() === '') throw new RangeError('the query is empty');
  const ranking = req.ranking ?? 'hybrid';
  if (!RANKINGS.includes(ranking)) throw new RangeError(`ranking must be ${RANKINGS.join(' or ')}, got ${shownValue(ranking)}`);
  // Before any topic is read: "embeddings" as a string failed as "req.embeddings is not a
  // function" after the walk, and routes: "yes" as "routes.trim … got a function" (String's trim).
  if (req.embeddings != null && typeof req.embeddings !== 'function') throw new RangeError(`embeddings must be a function giving the backend, or null, got ${shownValue(req.embeddings)}`);
  if (req.routes != null && req.routes !== false && typeof req.routes !== 'object') throw new RangeError(`routes must be false or an object of route options, got ${shownValue(req.routes)}`);
  const topics = await client.topics(req.topic);
  const byId = new Map(topics.map((t) => [t.id, t]));
  const { queryHash, matches } = matchQuery(req.query, promptCandidates(topics), maxDistance);
  const base = { query: req.query, queryHash: toHex(queryHash), maxDistance };

  if (matches.length > 0) {
    const shown = matches.slice(0, n);
    const chunks = inOrder(shown, (m, maxBytes) => retrieveChunk(client, byId.get(m.topicId)!, m.doc, m.index, k, { kind: 'hamming', distance: m.distance, hash: m.hash }, maxBytes), aheadFor(k));
    return { ...base, method: 'prompt', size: shown.length, chunks };
  }
  if (!req.embeddings) return { ...base, method: 'none', size: 0, chunks: inOrder([], retrieveNothing, 1) };

  const backend = req.embeddings();
  // Every searched document's manifest is needed here whatever the ranking: its embedTexts give
  // the vectors and BM25's text, and routed search's window BM25 reads every chunk's
  // originalText too. Each is read once (DocsClient keeps it for the units' expansion).
  const items: { ref: { topic: LoadedTopic; doc: string; index: number }; vector: Float32Array; text: string; original: string }[] = [];
  for (const topic of topics) {
    for (const doc of Object.keys(topic.index._embedded.chunks)) {
      const manifest = await client.manifest(topic, doc);
      const vectors = await chunkVectors(backend, manifest);
      vectors.forEach((vector, index) =>
        items.push({ ref: { topic, doc, index }, vector, text: manifest.chunks[index]?.embedText ?? '', original: manifest.chunks[index]?.originalText ?? '' }),
      );
    }
  }
  const qv = await queryVector(backend, req.query);
  const cosineWeight = cjkCosineWeight(req.query, backend.provider.model);
  if (ranking === 'hybrid' && req.routes !== false) {
    const routed = routedSearch(client, req.query, qv, items, n, k, req.routes ?? {}, cosineWeight);
    return { ...base, method: 'embedding', model: backend.provider.model, ...routed };
  }
  // A chunk that scores nothing (no positive similarity, no shared term) is not a result: a
  // query of punctuation or stopwords ("!!!", "the") embeds to a zero vector under the local
  // model, and every chunk tied at 0 came back in file order as if ranked (s55 probe).
  const ranked: { ref: { topic: LoadedTopic; doc: string; index: number }; score: Score }[] =
    ranking === 'hybrid'
      ? rankHybrid(req.query, qv, items, n, { cosineWeight })
          .filter((r) => r.score > 0)
          .map((r) => ({ ref: r.ref, score: { kind: 'hybrid', score: r.score, similarity: r.similarity, bm25: r.bm25 } }))
      : rankBySimilarity(qv, items, n)
          .filter((r) => r.score > 0)
          .map((r) => ({ ref: r.ref, score: { kind: 'cosine', similarity: r.score } }));
  const chunks = inOrder(ranked, (r, maxBytes) => retrieveChunk(client, r.ref.topic, r.ref.doc, r.ref.index, k, r.score, maxBytes), aheadFor(k));
  return { ...base, method: 'embedding', model: backend.provider.model, size: ranked.length, chunks };
}

type Ref = { topic: LoadedTopic; doc: string; index: number };

function routedSearch(
  client: DocsClient,
  query: string,
  qv: Float32Array,
  items: readonly { ref: Ref; vector: Float32Array; text: string; original: string }[],
  n: number,
  k: number,
  routes: RouteOptions,
  cosineWeight: number,
): { size: number; chunks: AsyncIterable<RetrievedChunk> } {
  const trim = checkCount('routes.trim', routes.trim ?? 1);
  const groupOf = (r: Ref) => `${r.topic.id}\0${r.doc}`;
  const scored = windowScores(
    query,
    qv,
    items.map((it) => ({ group: groupOf(it.ref), vector: it.vector, embed: it.text, text: it.original })),
    { windows: routes.windows ?? DEFAULT_WINDOWS, bm25: { ...DEFAULT_ROUTE_BM25, ...(routes.bm25K1 !== undefined ? { k1: routes.bm25K1 } : {}) }, cosineWeight },
  );
  const merge = routes.merge === false ? null : { ...DEFAULT_MERGE, ...routes.merge };
  // Only chunks that score something (see search's ranked): with every score 0, the merge's
  // gate (a share of the best, 0) let all 30 of its depth join into one unit.
  const order = Array.from(items.keys())
    .filter((i) => scored.fused[i]! > 0)
    .sort((a, b) => scored.fused[b]! - scored.fused[a]! || a - b)
    .slice(0, Math.max(n, merge?.depth ?? 0));
  const hits = order.map((i) => ({ group: groupOf(items[i]!.ref), index: items[i]!.ref.index, score: scored.fused[i]! }));
  // Merge off: each of the n best chunks is its own unit.
  const units = merge ? mergeHits(hits, n, merge) : hits.slice(0, n).map((h, rank) => ({ group: h.group, first: h.index, last: h.index, opener: rank, hits: 1 }));
  const chunks = inOrder(
    units,
    async (u, maxBytes) => {
      const opener = order[u.opener]!;
      const { topic, doc, index } = items[opener]!.ref;
      let text: string;
      let span: { from: number; to: number };
      if (k === 0 && u.first === u.last && trim === 0) {
        text = await client.chunkText(topic, doc, index, maxBytes);
        span = { from: index, to: index };
      } else {
        // Only a unit's own document is asked for (DocsClient already holds it from the scoring).
        const e = expandRange((await client.manifest(topic, doc)).chunks, u.first, u.last, k, index);
        const segs = k === 0 && trim > 0 ? trimSegments(e.segments, query, trim, bm25QueryTerms, bm25DocumentTerms) : e.segments;
        text = segs.map((s) => s.text).join(BOUNDARY_SEPARATOR);
        span = { from: segs[0]?.index ?? e.from, to: segs[segs.length - 1]?.index ?? e.to };
      }
      const score: Score = { kind: 'hybrid', score: scored.fused[opener]!, similarity: scored.similarity[opener]!, bm25: scored.bm25[opener]! };
      return retrievedChunk(client, topic, doc, index, text, span, score);
    },
    aheadFor(k),
  );
  return { size: units.length, chunks };
}
