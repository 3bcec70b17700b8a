/**
 * Stages 2 and 3 of ingest. Embedding (the slow, fallible part) finishes for every artifact
 * before the write transaction starts; the write is one IMMEDIATE transaction, so a provider
 * error, a bad vector, a constraint violation or a killed process all leave the database
 * exactly as it was.
 */
import type Database from 'better-sqlite3';
import { bm25Terms } from '@chunkyard/retrieval';
import { StoreError } from './errors.js';
import { insertCjkRow } from './schema.js';
import type { ArtifactPlan, EmbeddedArtifact, IngestOutcome } from './types.js';
import { vectorBytes } from './vector-index.js';

type DB = Database.Database;

/** What the store needs of an embedding provider (@chunkyard/embeddings' providers fit). */
export interface StoreEmbedder {
  readonly model: string;
  /** `signal`: the caller gave up; a provider that can cancels its work and rejects. */
  embed(texts: string[], options?: { onProgress?: (done: number, total: number) => void; signal?: AbortSignal }): Promise<Float32Array[]>;
}

export interface ProgressEvent {
  stage: 'embed' | 'write';
  done: number;
  total: number;
}

export type OnProgress = (event: ProgressEvent) => void;

/** Phase 1: one vector per unit of every plan; each distinct text is sent once. */
export async function embedPlans(plans: readonly ArtifactPlan[], embedder: StoreEmbedder, onProgress?: OnProgress): Promise<EmbeddedArtifact[]> {
  const texts = [...new Set(plans.flatMap((p) => p.units.map((u) => u.embedText)))];
  if (texts.length === 0) return [];
  const vectors = await embedder.embed(texts, { onProgress: (done, total) => onProgress?.({ stage: 'embed', done, total }) });
  checkVectors(vectors, texts.length, embedder.model);
  const byText = new Map(texts.map((t, i) => [t, vectors[i]!]));
  return plans.map((plan) => ({ plan, vectors: plan.units.map((u) => byText.get(u.embedText)!) }));
}

/** Throws unless `vectors` is `count` finite Float32Arrays of one non-zero length. */
export function checkVectors(vectors: unknown, count: number, model: string): asserts vectors is Float32Array[] {
  if (!Array.isArray(vectors) || vectors.length !== count) {
    throw new StoreError(`embedding model ${model} returned ${Array.isArray(vectors) ? vectors.length : typeof vectors} vectors for ${count} texts`);
  }
  const dims = (vectors[0] as Float32Array | undefined)?.length ?? 0;
  vectors.forEach((v: unknown, i) => {
    if (!(v instanceof Float32Array) || v.length !== dims || dims === 0) {
      throw new StoreError(`embedding model ${model} returned a malformed vector for text #${i} (expected ${dims} Float32 values)`);
    }
    for (const x of v) if (!Number.isFinite(x)) throw new StoreError(`embedding model ${model} returned a non-finite value for text #${i}`);
  });
}

export interface ExistingArtifact {
  seq: number;
  contentHash: string;
  strategyKey: string;
  sourceSystem: string;
  sourceId: string | null;
  topic: string | null;
  artifactType: string;
}

export function findArtifact(db: DB, id: string): ExistingArtifact | undefined {
  return db
    .prepare(
      `SELECT seq, content_hash AS contentHash, strategy_key AS strategyKey, source_system AS sourceSystem, source_id AS sourceId,
              topic, artifact_type AS artifactType
       FROM artifacts WHERE id = ?`,
    )
    .get(id) as ExistingArtifact | undefined;
}

/** Whether a stored artifact was written before schema 3 and lacks what routed search needs (ingest rewrites it). */
export function lacksRouteData(db: DB, id: string): boolean {
  const row = db
    .prepare(
      `SELECT EXISTS (SELECT 1 FROM artifact_chunks WHERE artifact_id = ? AND (embed_terms IS NULL OR content_terms IS NULL OR overlap_chars IS NULL))
           OR EXISTS (SELECT 1 FROM artifacts WHERE id = ? AND is_chunked = 0 AND route_terms IS NULL) AS stale`,
    )
    .get(id, id) as { stale: number };
  return row.stale === 1;
}

/** The embedding model and dimension the store was built with, or nulls while it is empty of vectors. */
export function storedModel(db: DB): { model: string | null; dimensions: number | null } {
  const get = (key: string) => (db.prepare('SELECT value FROM store_meta WHERE key = ?').get(key) as { value: string } | undefined)?.value ?? null;
  const dims = get('dimensions');
  return { model: get('embedding_model'), dimensions: dims === null ? null : parseDimensions(dims, db.name) };
}

/**
 * store_meta's `dimensions`, which ingest writes as a whole number: any other value is damage
 * (another program's edit), and Number() of it went on as NaN, 0 or a fraction into every
 * search, stats and ingest check ("holds NaN-dimension vectors").
 */
function parseDimensions(value: string, store: string): number {
  const n = /^[1-9][0-9]{0,8}$/.test(value) ? Number(value) : NaN;
  if (Number.isInteger(n)) return n;
  throw new StoreError(
    `${store}: store_meta records ${JSON.stringify(value)} as the vectors' dimensions, not a whole number from 1; the store is damaged: rebuild it with "docs-store ingest" into a new --db`,
  );
}

/**
 * A store holds vectors of one model: vectors of two models are not comparable, so a second
 * model is refused rather than silently mixed in.
 */
export function assertModel(db: DB, model: string, dimensions: number | null): void {
  const stored = storedModel(db);
  if (stored.model === null) return;
  if (stored.model !== model || (dimensions !== null && stored.dimensions !== dimensions)) {
    throw new StoreError(
      `${db.name} holds embeddings of model ${stored.model} (${stored.dimensions} dimensions); this run uses ${model}` +
        `${dimensions !== null ? ` (${dimensions} dimensions)` : ''}. Use the embeddings settings the store was built with, or another database`,
    );
  }
}

/**
 * Phase 2: every row of every artifact in one transaction. Replaced artifacts lose all old rows.
 * `precondition` runs first inside the transaction; when it returns false nothing is written
 * and the result is null (the caller's view of the store is out of date).
 */
export function writeArtifacts(db: DB, items: readonly EmbeddedArtifact[], model: string, onProgress?: OnProgress): IngestOutcome[];
export function writeArtifacts(db: DB, items: Iterable<EmbeddedArtifact>, model: string, onProgress: OnProgress | undefined, precondition: () => boolean, total?: number): IngestOutcome[] | null;
/**
 * `items` may be a generator that reads each artifact as the transaction reaches it (ingest
 * --built), so only one is in memory; `total` (its units, for progress) is then given.
 */
export function writeArtifacts(db: DB, items: Iterable<EmbeddedArtifact>, model: string, onProgress?: OnProgress, precondition?: () => boolean, total?: number): IngestOutcome[] | null {
  const units = total ?? (Array.isArray(items) ? (items as readonly EmbeddedArtifact[]).reduce((n, i) => n + i.plan.units.length, 0) : 0);
  const insertArtifact = db.prepare(
    `INSERT INTO artifacts (id, artifact_type, source_system, source_id, source_file, topic, title, content, token_count,
       is_chunked, num_chunks, content_hash, strategy_key, content_hints, embedding, ingested_at, route_terms)
     VALUES (@id, @artifactType, @sourceSystem, @sourceId, @sourceFile, @topic, @title, @content, @tokenCount,
       @isChunked, @numChunks, @contentHash, @strategyKey, @contentHints, @embedding, @ingestedAt, @routeTerms)`,
  );
  const insertChunk = db.prepare(
    `INSERT INTO artifact_chunks (id, artifact_id, chunk_index, record_id, content, embed_text, start_char, end_char,
       token_count, content_hash, section_title, header_breadcrumb, content_hints, is_code, embedding, overlap_chars, embed_terms, content_terms)
     VALUES (@id, @artifactId, @chunkIndex, @recordId, @content, @embedText, @startChar, @endChar,
       @tokenCount, @contentHash, @sectionTitle, @headerBreadcrumb, @contentHints, @isCode, @embedding, @overlapChars, @embedTerms, @contentTerms)`,
  );
  const insertFts = db.prepare(
    `INSERT INTO units_fts (rowid, title, headings, body, unit_id, artifact_id, topic, artifact_type, content_hints)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertCjk = db.prepare('INSERT INTO units_cjk (rowid, title, headings, body) VALUES (?, ?, ?, ?)');
  const setMeta = db.prepare('INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');

  const run = db.transaction((): IngestOutcome[] | null => {
    if (precondition && !precondition()) return null;
    const now = new Date().toISOString();
    const outcomes: IngestOutcome[] = [];
    let written = 0;
    // The model is recorded at the first artifact with vectors: a generator's artifacts are not all known up front.
    let dims: number | null = null;
    for (const { plan, vectors } of items) {
      if (vectors.length !== plan.units.length) throw new StoreError(`${plan.id}: ${vectors.length} vectors for ${plan.units.length} units`);
      if (dims === null && vectors.length > 0) {
        dims = vectors[0]!.length;
        assertModel(db, model, dims);
        setMeta.run('embedding_model', model);
        setMeta.run('dimensions', String(dims));
      }
      const existing = findArtifact(db, plan.id);
      if (existing) deleteArtifactRows(db, plan.id, existing.seq);
      const info = insertArtifact.run({
        ...plan,
        isChunked: plan.isChunked ? 1 : 0,
        numChunks: plan.isChunked ? plan.units.length : 0,
        embedding: plan.isChunked ? null : vectorBytes(vectors[0]!),
        ingestedAt: now,
        routeTerms: plan.isChunked ? null : routeTerms(plan.units[0]!.embedText),
      });
      const seq = Number(info.lastInsertRowid);
      if (!plan.isChunked) {
        const unit = plan.units[0]!;
        insertFts.run(-seq, plan.title, '', unit.embedText, plan.id, plan.id, plan.topic, plan.artifactType, unit.contentHints);
        insertCjkRow(insertCjk, -seq, plan.title, '', unit.embedText);
        onProgress?.({ stage: 'write', done: ++written, total: units });
      } else {
        plan.units.forEach((unit, i) => {
          const row = insertChunk.run({
            ...unit,
            artifactId: plan.id,
            isCode: unit.isCode ? 1 : 0,
            embedding: vectorBytes(vectors[i]!),
            overlapChars: unit.overlapChars ?? 0,
            ...termsOf(unit.embedText, unit.content),
          });
          // FTS indexes the exact text plus headings; the breadcrumb in embedText would count twice.
          const rowid = Number(row.lastInsertRowid);
          insertFts.run(rowid, plan.title, unit.headerBreadcrumb, unit.content, unit.id, plan.id, plan.topic, plan.artifactType, unit.contentHints);
          insertCjkRow(insertCjk, rowid, plan.title, unit.headerBreadcrumb, unit.content);
          onProgress?.({ stage: 'write', done: ++written, total: units });
        });
      }
      outcomes.push({
        artifactId: plan.id,
        sourceFile: plan.sourceFile,
        status: existing ? 'replaced' : 'created',
        isChunked: plan.isChunked,
        numChunks: plan.isChunked ? plan.units.length : 0,
        tokenCount: plan.tokenCount,
        storedIds: plan.isChunked ? [plan.id, ...plan.units.map((u) => u.id)] : [plan.id],
      });
    }
    return outcomes;
  });
  return run.immediate();
}

/** A text's BM25 terms as stored for routed search: space-separated (a term never holds whitespace). */
export function routeTerms(text: string): string {
  return bm25Terms(text).join(' ');
}

/** Both term columns of a chunk; tokenised once when the embed text is the content (about 65 µs a text). */
function termsOf(embedText: string, content: string): { embedTerms: string; contentTerms: string } {
  const embedTerms = routeTerms(embedText);
  return { embedTerms, contentTerms: embedText === content ? embedTerms : routeTerms(content) };
}

/** Removes an artifact with its chunks and full-text rows (inside the caller's transaction). */
export function deleteArtifactRows(db: DB, id: string, seq: number): void {
  db.prepare('DELETE FROM units_fts WHERE rowid IN (SELECT seq FROM artifact_chunks WHERE artifact_id = ?)').run(id);
  db.prepare('DELETE FROM units_fts WHERE rowid = ?').run(-seq);
  db.prepare('DELETE FROM units_cjk WHERE rowid IN (SELECT seq FROM artifact_chunks WHERE artifact_id = ?)').run(id);
  db.prepare('DELETE FROM units_cjk WHERE rowid = ?').run(-seq);
  db.prepare('DELETE FROM artifact_chunks WHERE artifact_id = ?').run(id);
  db.prepare('DELETE FROM artifacts WHERE id = ?').run(id);
}
