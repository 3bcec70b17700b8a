/**
 * DocStore: one better-sqlite3 connection in WAL mode (readers in other processes see the
 * last committed state while an ingest writes), plus the in-memory vector index, rebuilt
 * lazily whenever the database changed (our own writes, or another connection's, which
 * `PRAGMA data_version` reveals).
 */
import { createHash } from 'node:crypto';
import { accessSync, closeSync, constants, existsSync, lstatSync, openSync, readlinkSync, readSync, statfsSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { firstNonFolder, mkdirp, refuseSymlink, SymlinkOutputError } from '@chunkyard/fs-atomic';
import { quoteId, roomFailure, StoreError, UnknownFilterError } from './errors.js';
import type { RouteOptions } from '@chunkyard/retrieval';
import { assertModel, deleteArtifactRows, embedPlans, findArtifact, lacksRouteData, storedModel, writeArtifacts, type OnProgress, type StoreEmbedder } from './ingest.js';
import { planArtifact, type PlanOptions } from './plan.js';
import { migrate, refuseForeign, SCHEMA_VERSION } from './schema.js';
import { RouteIndex, routedUnits } from './routes.js';
import { acceptsUnit, fuseRrf, onlyCjkWords, searchFts, topicMatches, type RankedId } from './search.js';
import type { ArtifactInput, ArtifactPlan, EmbeddedArtifact, Expansion, IngestOutcome, PlanRef, SearchFilters, SearchHit, SearchMode, StoreStats } from './types.js';
import { assign, IvfIndex, listsFor, train, unitKey, type IvfModel } from './ivf.js';
import { VectorIndex, type IndexedUnit } from './vector-index.js';

/** Which vector index answers: exact search, the IVF index, or `auto` (IVF from AUTO_ANN_CELLS on). */
export type VectorIndexKind = 'exact' | 'ivf' | 'auto';

/**
 * `auto` switches to the IVF index when rows × dimensions reach this: 500,000 × 512 or
 * about 167,000 × 1536. Below it exact search (int8 scan + exact rerank) costs under about
 * 40 ms of CPU per query here (7.4 ms at 100k × 512, linear in rows × dimensions).
 */
export const AUTO_ANN_CELLS = 256_000_000;

/** What loading the IVF index found and did. */
export interface AnnStatus {
  kind: 'ivf';
  lists: number;
  rows: number;
  /** Null when the persisted index was used (possibly repaired); else why it was rebuilt. */
  rebuilt: string | null;
  /** Units whose list came from the persisted index / that were placed now / persisted units that are gone. */
  reused: number;
  assigned: number;
  removed: number;
  /** Whether the index (new or repaired) was written back to the database. */
  persisted: boolean;
  /** Bytes in memory beyond the exact index. */
  bytes: number;
}

export const CHUNK_BOUNDARY = '[CHUNK BOUNDARY]';

/** Write transactions an ingest tries when other ingests keep changing documents it skipped. */
const MAX_INGEST_ATTEMPTS = 5;

export interface OpenOptions {
  /** Open an existing database for reading only (no migration, no writes). */
  readonly?: boolean;
  /**
   * A symlink at the store or at the folder holding it: `follow` (the default) for a path the
   * user named (`--db`); `refuse` for one the caller derived (docs-store's
   * `<workspace>/.chunkyard/store.db`), a StoreError before anything is opened (see refuseLinks).
   */
  links?: 'follow' | 'refuse';
  /** The default vector index of this connection's searches (default `auto`). */
  vectorIndex?: VectorIndexKind;
}

export interface SearchOptions {
  mode?: SearchMode;
  limit?: number;
  filters?: SearchFilters;
  /** Attach each hit's ±k neighbours joined by `[CHUNK BOUNDARY]` (0 = off). */
  expand?: number;
  /** Needed for `vector` and `hybrid`. */
  embedder?: StoreEmbedder;
  /** Overrides the connection's vector index for this search. */
  index?: VectorIndexKind;
  /** IVF lists to scan (default: 3/8 of them, at least 8); more is slower and closer to exact. */
  probes?: number;
  /**
   * Hybrid mode only: the retrieval routes of @chunkyard/retrieval (default on: window
   * scores ±1 and ±2 over cosine + BM25 with k1 0.6, gated small-to-big merge, edge
   * trimming), so a search returns the units docs-query returns; each part can be turned
   * off as in retrieval's search(). false: the reciprocal-rank fusion of FTS5 BM25 and
   * vector ranks, as before. Routes score every unit exactly, whatever `index` says.
   */
  routes?: RouteOptions | false;
  /**
   * Aborting it stops the search before it does more work: it is checked before the query is
   * embedded, passed to the embedder (a remote provider's request is cancelled), and checked
   * again before the store is searched. The search then rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

/** One unit as listed by `listUnits` (no content). */
export interface UnitSummary {
  unitId: string;
  artifactId: string;
  /** Null for a document stored whole. */
  chunkIndex: number | null;
  sourceFile: string | null;
  title: string;
  sectionTitle: string;
  topic: string | null;
  tokenCount: number;
}

export interface IngestOptions {
  onProgress?: OnProgress;
  /**
   * Given, the write waits for another process's write to the store to end, and this is called
   * once when it starts waiting; without it, that write is an error (SQLITE_BUSY after busy_timeout).
   */
  onWait?: () => void;
}

/** Produces the vectors of the plans that need writing (phase 1). */
export type VectorSource = (plans: ArtifactPlan[], onProgress?: OnProgress) => Promise<EmbeddedArtifact[]>;

/** Vectors in two steps, so a stage need not hold them all (ingest --built keeps them in the embedding cache). */
export interface StagedVectors {
  /**
   * Phase 1, outside the write transaction: makes each document's vectors ready for `vectorsOf`,
   * embedding what is missing. It may trust a cheap look (a cache entry's folder is there) unless
   * `thorough`: when `vectorsOf` then finds nothing, the write is dropped and the document staged thoroughly.
   */
  stage(refs: readonly PlanRef[], onProgress?: OnProgress, thorough?: boolean): Promise<void>;
  /** Phase 2, inside the write transaction (so synchronous): a staged document's vectors, or null when they are gone. */
  vectorsOf(plan: ArtifactPlan): Float32Array[] | null;
}

/** A document whose vectors `vectorsOf` did not find after a cheap stage. */
class Unstaged extends Error {
  constructor(readonly ref: PlanRef) {
    super(`unstaged ${ref.head.id}`);
  }
}

/** A VectorSource's vectors held in memory from phase 1 to phase 2: documents given whole, which are in memory already. */
function heldVectors(source: VectorSource): StagedVectors {
  const held = new Map<string, Float32Array[]>();
  return {
    async stage(refs, onProgress) {
      for (const { plan, vectors } of await source(refs.map((ref) => ref.load()), onProgress)) held.set(plan.id, vectors);
    },
    vectorsOf: (plan) => held.get(plan.id) ?? null,
  };
}

interface UnitRow {
  unitId: string;
  artifactId: string;
  chunkIndex: number | null;
  numChunks: number;
  sourceFile: string | null;
  title: string;
  sectionTitle: string;
  topic: string | null;
  contentType: string;
  contentHints: SearchHit['contentHints'];
  content: string;
  startChar: number;
  endChar: number;
  tokenCount: number;
}

/** The longest file name, in bytes, of the usual file systems (ext4, xfs, btrfs, tmpfs, APFS). */
const NAME_MAX = 255;

const UNIT_COLUMNS_CHUNK = `c.id AS unitId, c.artifact_id AS artifactId, c.chunk_index AS chunkIndex, a.num_chunks AS numChunks,
  a.source_file AS sourceFile, a.title AS title, c.section_title AS sectionTitle, a.topic AS topic, a.artifact_type AS contentType,
  c.content_hints AS contentHints, c.content AS content, c.start_char AS startChar, c.end_char AS endChar, c.token_count AS tokenCount`;
const UNIT_COLUMNS_WHOLE = `a.id AS unitId, a.id AS artifactId, NULL AS chunkIndex, 0 AS numChunks, a.source_file AS sourceFile,
  a.title AS title, '' AS sectionTitle, a.topic AS topic, a.artifact_type AS contentType, a.content_hints AS contentHints,
  a.content AS content, 0 AS startChar, 0 AS endChar, a.token_count AS tokenCount`;

export class DocStore {
  private index: VectorIndex | null = null;
  private indexVersion = -1;
  /** Full index loads from the database so far (a diagnostic; patches after our writes do not count). */
  indexLoads = 0;
  private ivf: IvfIndex | null = null;
  private routeIndex: RouteIndex | null = null;
  /** What the last load of the IVF index found (null until one is loaded). */
  annStatus: AnnStatus | null = null;
  /** False only for a version 1 store opened read-only. */
  private readonly hasAnnTable: boolean;

  /** The file this store opened (device and inode), or null for `:memory:`: see assertStillAtPath. */
  private readonly opened: { dev: number; ino: number } | null;

  private constructor(
    readonly db: Database.Database,
    readonly path: string,
    readonly defaultIndex: VectorIndexKind = 'auto',
  ) {
    this.hasAnnTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vector_ann'").get() !== undefined;
    const at = path === ':memory:' ? undefined : statSync(path, { throwIfNoEntry: false });
    this.opened = at ? { dev: at.dev, ino: at.ino } : null;
  }

  /**
   * Refuses to go on when the file at `path` is no longer the one this store opened: deleted
   * (`rm store.db` to rebuild it) or replaced (a new store moved there). A long-running reader,
   * the MCP server, otherwise kept serving the old file's documents, and wrote what
   * ingest_artifact was given into a file no one can open again, reporting it stored.
   * One stat: cheap next to any request.
   */
  assertStillAtPath(): void {
    if (this.opened === null) return;
    const now = statSync(this.path, { throwIfNoEntry: false });
    if (now !== undefined && now.dev === this.opened.dev && now.ino === this.opened.ino) return;
    throw new StoreError(
      `${this.path}: the store file was ${now === undefined ? 'deleted' : 'replaced by another file'} after this process opened it, so what it serves or stores would go to the old one; restart docs-store mcp to open the store now at that path`,
    );
  }

  /**
   * Opens (or, for writing, creates) the store at `path`. Every failure the environment can
   * cause (a missing or unwritable folder, a file that is not a SQLite database, a locked or
   * read-only file) is a StoreError naming the path and what to do, never a raw SqliteError.
   */
  static open(path: string, options: OpenOptions = {}): DocStore {
    const refusing = options.links === 'refuse' && path !== ':memory:';
    if (refusing) refuseLinks(path);
    if (path !== ':memory:') {
      refuseNonRegular(path);
      refuseCompanionOfStore(path);
      refuseOddCompanions(path);
      refuseOrphanWal(path);
    }
    if (options.readonly) {
      let db: Database.Database;
      try {
        db = connect(path, { readonly: true, fileMustExist: true });
      } catch (err) {
        if (err instanceof StoreError) throw err;
        throw new StoreError(`${path}: cannot open the store (${(err as Error).message}); run "docs-store ingest" first`);
      }
      if (refusing) stillNoLinks(db, path);
      let version: number;
      try {
        db.pragma('busy_timeout = 5000');
        // The first read of the header: a file that is not a database fails here, not in the constructor.
        version = db.pragma('user_version', { simple: true }) as number;
        db.prepare('SELECT count(*) FROM sqlite_master').get();
        // The version seen with the tables: another process may have created the store since.
        version = refuseForeign(db, path);
      } catch (err) {
        db.close();
        throw openError(path, err, 'read');
      }
      // Version 1 lacks only vector_ann (added in 2), which a reader can do without: it
      // builds the approximate index in memory when asked. Older or newer is refused.
      if (version > SCHEMA_VERSION) {
        db.close();
        // Writing cannot migrate a newer schema down: the same advice as a write-open gives.
        throw new StoreError(`${path}: schema version ${version} is newer than this docs-store knows (${SCHEMA_VERSION}); upgrade chunkyard`);
      }
      // Versions 1 and 2 lack vector_ann and what routed search needs: both are asked for only when used (and then named).
      // Versions 1 to 3 lack units_cjk: their full-text search is the one they had (search.ts, searchFts).
      if (version !== SCHEMA_VERSION && version !== 1 && version !== 2 && version !== 3) {
        db.close();
        // Version 0 with no foreign tables (refuseForeign passed) is a store nothing was ever
        // written to: a touched file, or one a read-only command was pointed at first. "Schema
        // version 0 … open it once for writing to migrate" told the user neither.
        if (version === 0) throw new StoreError(`${path}: an empty database, no documents stored in it yet; store some first (docs-store ingest … --db ${path})`);
        throw new StoreError(`${path}: schema version ${version}, this docs-store reads ${SCHEMA_VERSION}; open it once for writing to migrate`);
      }
      return new DocStore(db, path, options.vectorIndex);
    }
    if (path !== ':memory:') {
      // SQLite opens <name>-journal (and -wal, -shm) beside the store; with a name of 248..255
      // bytes that fails as SQLITE_CANTOPEN, which said to check the folder's permissions.
      const bytes = Buffer.byteLength(basename(path));
      if (bytes > NAME_MAX - '-journal'.length) {
        throw new StoreError(
          `${path}: a file name of ${bytes} bytes is too long for a store: SQLite keeps files named with -journal, -wal and -shm added beside it, and a file name has at most ${NAME_MAX} bytes; use a name of at most ${NAME_MAX - '-journal'.length} bytes`,
        );
      }
      const dir = dirname(path);
      try {
        // Not mkdirSync({ recursive }): it loops forever under /proc (see mkdirp).
        mkdirp(dir);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
        throw new StoreError(`${path}: cannot create the folder ${dir} for the store (${code}); choose another --db or fix the folder's permissions`);
      }
    }
    let db: Database.Database | undefined;
    try {
      db = connect(path);
      if (refusing) stillNoLinks(db, path);
      db.pragma('busy_timeout = 5000');
      // Before the journal mode, which is itself a write to the file.
      if (path !== ':memory:') refuseForeign(db, path);
      // Also before it: a newer docs-store's file is refused (migrate says so), and was switched
      // to WAL first, its header changed and -wal and -shm made beside it.
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) throw new StoreError(`${path}: schema version ${version} is newer than this docs-store knows (${SCHEMA_VERSION}); upgrade chunkyard`);
      // WAL: readers never block the writer nor see a half-written transaction.
      // synchronous=NORMAL keeps every commit atomic; only the last commits can be lost on power failure.
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      db.pragma('foreign_keys = ON');
      migrate(db);
    } catch (err) {
      db?.close();
      throw openError(path, err, 'write');
    }
    return new DocStore(db, path, options.vectorIndex);
  }

  close(): void {
    this.db.close();
  }

  /** Plans, embeds and writes `inputs` as one all-or-nothing ingest. */
  async ingest(inputs: readonly ArtifactInput[], embedder: StoreEmbedder, options: IngestOptions & PlanOptions = {}): Promise<IngestOutcome[]> {
    const plans = inputs.map((input) => planArtifact(input, options));
    return this.ingestPlans(plans, embedder.model, (pending, onProgress) => embedPlans(pending, embedder, onProgress), options);
  }

  /**
   * The two-phase write for ready plans: artifacts whose content, strategy and model are
   * already stored are skipped (no embedding, no write); the rest are embedded by
   * `vectors`, then written in one transaction.
   */
  async ingestPlans(plans: readonly ArtifactPlan[], model: string, vectors: VectorSource, options: IngestOptions = {}): Promise<IngestOutcome[]> {
    const refs = plans.map((plan): PlanRef => ({ head: plan, unitIds: plan.units.map((u) => u.id), load: () => plan }));
    return this.ingestRefs(refs, model, heldVectors(vectors), options);
  }

  /**
   * `ingestPlans` for documents read when needed: each pending one is loaded to be embedded
   * (`vectors.stage`) and loaded again, with its vectors read again, when the write transaction
   * reaches it, so one document's chunks and vectors are in memory at a time.
   */
  async ingestRefs(refs: readonly PlanRef[], model: string, vectors: StagedVectors, options: IngestOptions = {}): Promise<IngestOutcome[]> {
    const byId = new Map<string, PlanRef>();
    for (const ref of refs) {
      const other = byId.get(ref.head.id);
      if (other && other.head.contentHash !== ref.head.contentHash) {
        throw new StoreError(`${describe(other.head)} and ${describe(ref.head)} both map to artifact ${ref.head.id} with different content`);
      }
      byId.set(ref.head.id, ref);
    }
    assertModel(this.db, model, null);
    const outcomes = new Map<string, IngestOutcome>();
    let pending: PlanRef[] = [];
    for (const ref of byId.values()) {
      if (this.isStored(ref.head)) outcomes.set(ref.head.id, { ...outcomeOf(ref), status: 'unchanged' });
      else pending.push(ref);
    }
    // The skips above were decided before embedding, outside the write transaction: another
    // ingest (a second process, the MCP server's ingest_artifact) may commit in between. Two
    // ingests at once then left a store neither order of them gives (issue 15 probe: B
    // changed one topic, C another; B's run skipped C's topic as unchanged, and the store
    // ended with both changes). So the write transaction checks them again and, when one is
    // no longer stored as planned, writes nothing, embeds it too and tries again.
    let staged: PlanRef[] = [];
    const thorough = new Set<PlanRef>();
    for (let attempt = 1; pending.length > 0; attempt++) {
      await vectors.stage(pending, options.onProgress);
      staged = [...staged, ...pending];
      const skipped = [...byId.values()].filter((ref) => outcomes.get(ref.head.id)?.status === 'unchanged');
      let stale: PlanRef[] = [];
      // Kept only to patch a loaded vector index, which holds every vector anyway.
      const forIndex: EmbeddedArtifact[] | null = this.index ? [] : null;
      const store = this.path;
      function* items(): Generator<EmbeddedArtifact> {
        for (const ref of staged) {
          const plan = ref.load();
          const got = vectors.vectorsOf(plan);
          if (got === null) {
            if (thorough.has(ref)) throw new StoreError(`${store}: the vectors of ${describe(plan)} left the embedding cache while this ingest ran; nothing was written: run the ingest again`);
            throw new Unstaged(ref);
          }
          const item = { plan, vectors: got };
          forIndex?.push(item);
          yield item;
        }
      }
      const total = staged.reduce((n, ref) => n + ref.unitIds.length, 0);
      const write = () =>
        writeArtifacts(
          this.db,
          items(),
          model,
          options.onProgress,
          () => {
            for (const ref of staged) this.assertOwnId(ref.head);
            stale = skipped.filter((ref) => !this.isStored(ref.head));
            return stale.length === 0;
          },
          total,
        );
      let written: IngestOutcome[] | null;
      // Another ingest's write lasts as long as its tree takes to write (a minute for 16 9 MB
      // documents), far past busy_timeout's 5 s: a second ingest (CI and a local run) failed
      // with "locked" (exit 1) though it only had to wait. SQLite releases a dead process's
      // lock, so the wait ends when that write does; a busy write wrote nothing, so it is retried whole.
      for (let waited = false; ; ) {
        try {
          written = write();
          break;
        } catch (err) {
          forIndex?.splice(0);
          if (err instanceof Unstaged) {
            // Staged by a look at the cache alone, and its entry did not hold: nothing was written; stage it in full and write again.
            thorough.add(err.ref);
            await vectors.stage([err.ref], undefined, true);
            continue;
          }
          // Only a caller that can say it waits does (the CLI): an MCP tool call answers with the lock as an error, as before.
          if (!String((err as { code?: unknown }).code).startsWith('SQLITE_BUSY') || !options.onWait) throw err;
          if (!waited) options.onWait();
          waited = true;
        }
      }
      if (written !== null) {
        for (const outcome of written) outcomes.set(outcome.artifactId, outcome);
        this.updateIndex(forIndex ?? []);
        break;
      }
      if (attempt === MAX_INGEST_ATTEMPTS) {
        throw new StoreError(
          `${this.path}: ${stale.map((ref) => describe(ref.head)).join(', ')} changed in the store ${attempt} times while this ingest embedded, as other ingests wrote at the same time; nothing was written: run the ingest again`,
        );
      }
      for (const ref of stale) outcomes.delete(ref.head.id);
      pending = stale;
    }
    return [...byId.keys()].map((id) => outcomes.get(id)!);
  }

  /**
   * Whether `plan` is stored as it is (same content, strategy, topic, content type, and what
   * routed search needs); throws when its id is another document's.
   */
  private isStored(plan: ArtifactPlan): boolean {
    const existing = this.assertOwnId(plan);
    // A document written before schema 3 is rewritten even when unchanged: that is how a store gains what routed search needs.
    // The topic and content type are what search filters by: `ingest <topic> --topic guides/x` of
    // a stored document was "unchanged" and kept the old topic, so `search --topic guides/x` then
    // found no such topic (s57 probe), and a new --content-type kept the old chunk ids.
    return (
      existing !== undefined &&
      existing.contentHash === plan.contentHash &&
      existing.strategyKey === plan.strategyKey &&
      existing.topic === plan.topic &&
      existing.artifactType === plan.artifactType &&
      !lacksRouteData(this.db, plan.id)
    );
  }

  /** The stored artifact of `plan`'s id, refused when another source's document holds that id. */
  private assertOwnId(plan: ArtifactPlan): ReturnType<typeof findArtifact> {
    const existing = findArtifact(this.db, plan.id);
    if (existing && (existing.sourceSystem !== plan.sourceSystem || existing.sourceId !== plan.sourceId)) {
      // 8 hex digits of an id collide eventually (seed 004's length); refuse rather than overwrite another document.
      throw new StoreError(`${describe(plan)}: artifact id ${plan.id} is already used by ${existing.sourceSystem}:${existing.sourceId ?? '(content id)'}`);
    }
    return existing;
  }

  /** Deletes an artifact and its chunks; false if there was none. */
  remove(artifactId: string): boolean {
    return this.db
      .transaction(() => {
        const existing = findArtifact(this.db, artifactId);
        if (!existing) return false;
        deleteArtifactRows(this.db, artifactId, existing.seq);
        this.index = null;
        return true;
      })
      .immediate();
  }

  /**
   * After our own write: patch the loaded index with what we wrote, unless another
   * connection also committed since it was loaded (`data_version` does not move for our own
   * commits), in which case it is dropped and reloaded on the next search.
   */
  private updateIndex(written: readonly EmbeddedArtifact[]): void {
    const index = this.index;
    if (!index) return;
    const version = this.db.pragma('data_version', { simple: true }) as number;
    const dims = written.find((w) => w.vectors.length > 0)?.vectors[0]?.length;
    if (version !== this.indexVersion || index.dims !== dims) {
      this.index = null;
      return;
    }
    const added = written.flatMap(({ plan, vectors }) =>
      plan.units.map((u, i) => ({
        unit: { unitId: u.id, artifactId: plan.id, topic: plan.topic, artifactType: plan.artifactType, contentHints: u.contentHints },
        vector: vectors[i]!,
      })),
    );
    this.index = index.withChanges(new Set(written.map((w) => w.plan.id)), added);
  }

  /** Whether any document is stored (one row looked at, whatever the store's size). */
  hasDocuments(): boolean {
    return this.db.prepare('SELECT 1 FROM artifacts LIMIT 1').get() !== undefined;
  }

  private unitCount(): number {
    return (this.db.prepare('SELECT (SELECT count(*) FROM artifact_chunks) + (SELECT count(*) FROM artifacts WHERE is_chunked = 0) AS n').get() as { n: number }).n;
  }

  /** The packed vectors of every unit, rebuilt when the database changed since the last call. */
  vectorIndex(): VectorIndex {
    const version = this.db.pragma('data_version', { simple: true }) as number;
    if (this.index && version === this.indexVersion) return this.index;
    const { dimensions } = storedModel(this.db);
    // One read transaction, so the index is one consistent snapshot even while another process writes.
    this.index = this.db.transaction(() => {
      const count = this.unitCount();
      const rows = this.db
        .prepare(
          `SELECT a.id, a.id, a.topic, a.artifact_type, a.content_hints, a.embedding FROM artifacts a WHERE a.is_chunked = 0
           UNION ALL
           SELECT c.id, c.artifact_id, a.topic, a.artifact_type, c.content_hints, c.embedding FROM artifact_chunks c JOIN artifacts a ON a.id = c.artifact_id`,
        )
        .raw()
        .iterate() as IterableIterator<[string, string, string | null, string, string, Buffer | null]>;
      return VectorIndex.fromRows(dimensions ?? 0, mapRows(rows, dimensions ?? 0, this.path), count);
    })();
    this.indexVersion = version;
    this.indexLoads++;
    return this.index;
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const mode = options.mode ?? 'hybrid';
    const { signal } = options;
    signal?.throwIfAborted();
    let vector: Float32Array | null = null;
    if (mode !== 'fts') {
      if (!options.embedder) throw new StoreError(`${mode} search needs an embedding provider`);
      [vector] = (await options.embedder.embed([query], signal ? { signal } : undefined)) as [Float32Array];
      // A remote provider's answer can come after the caller gave up.
      signal?.throwIfAborted();
    }
    return this.searchWith(query, vector, { ...options, mode }, options.embedder?.model);
  }

  /** Throws UnknownFilterError when no stored document has the topic (see topicMatches) or content type asked for. */
  private assertFilters(filters: SearchFilters): void {
    if (filters.topic !== undefined) {
      const wanted = filters.topic;
      const topics = (this.db.prepare('SELECT DISTINCT topic FROM artifacts WHERE topic IS NOT NULL ORDER BY topic').all() as { topic: string }[]).map((r) => r.topic);
      if (!topics.some((t) => topicMatches(t, wanted))) throw new UnknownFilterError('topic', wanted, topics);
    }
    if (filters.contentType !== undefined) {
      const types = (this.db.prepare('SELECT DISTINCT artifact_type AS type FROM artifacts ORDER BY artifact_type').all() as { type: string }[]).map((r) => r.type);
      if (!types.includes(filters.contentType)) throw new UnknownFilterError('content type', filters.contentType, types);
    }
  }

  /** Search with a query vector already computed (null for `fts`). */
  searchWith(query: string, vector: Float32Array | null, options: Omit<SearchOptions, 'embedder'> = {}, model?: string): SearchHit[] {
    const mode = options.mode ?? 'hybrid';
    const limit = options.limit ?? 10;
    const filters = options.filters ?? {};
    if (!Number.isInteger(limit) || limit < 1) throw new StoreError(`limit must be a positive integer, got ${limit}`);
    // One read transaction: every statement of the search reads one snapshot. Without it an
    // ingest committed by another process between them (the MCP server searching while
    // docs-store ingest writes) failed the search ("unit … vanished during the search") or
    // mixed the old ranking with the new text.
    return this.db.transaction(() => this.searchSnapshot(query, vector, mode, limit, filters, options, model))();
  }

  private searchSnapshot(query: string, vector: Float32Array | null, mode: SearchMode, limit: number, filters: SearchFilters, options: Omit<SearchOptions, 'embedder'>, model: string | undefined): SearchHit[] {
    if (filters.topic !== undefined || filters.contentType !== undefined) this.assertFilters(filters);
    if (mode === 'hybrid' && options.routes !== false) {
      if (!vector) throw new StoreError(`${mode} search needs a query vector`);
      return this.routedSearch(query, vector, limit, options.expand ?? 0, filters, options.routes ?? {}, model);
    }
    // Fusion works on the heads of both lists; a deeper pool lets a unit ranked
    // moderately by both beat one ranked first by only one.
    const pool = mode === 'hybrid' ? Math.max(limit * 4, 50) : limit;
    const lists: { kind: 'fts' | 'vector'; hits: RankedId[] }[] = [];
    if (mode !== 'vector') lists.push({ kind: 'fts', hits: searchFts(this.db, query, filters, pool) });
    if (mode !== 'fts') {
      if (!vector) throw new StoreError(`${mode} search needs a query vector`);
      // As the routes weigh it (routes.ts): under the local model a query of CJK words alone
      // has a cosine with another text only through a hash collision (the exact run aside,
      // which the full-text list finds), and the collision's vector rank 1 tied the word's
      // document's fts rank 1, the English chunk first by id. The vector is still checked
      // against the store, so a query of the wrong model fails here as it does for English.
      if (mode === 'hybrid' && onlyCjkWords(query) && storedModel(this.db).model?.startsWith('local-lexical-') === true) this.checkQueryVector(vector, model);
      else lists.push({ kind: 'vector', hits: this.searchVector(vector, filters, pool, model, options) });
    }
    const fused =
      mode !== 'hybrid'
        ? lists[0]!.hits.map((h, i) => ({ unitId: h.unitId, score: h.score, ranks: [i + 1] }))
        : fuseRrf(lists.map((l) => l.hits));
    return fused.slice(0, limit).map(({ unitId, score, ranks }) => {
      const unit = this.unit(unitId);
      if (!unit) throw new StoreError(`unit ${unitId} vanished during the search`);
      const hit: SearchHit = { ...unit, score, ranks: {} };
      lists.forEach((l, i) => {
        if (ranks[i]) hit.ranks[l.kind] = ranks[i];
      });
      if (options.expand) hit.expanded = this.expand(unitId, options.expand).text;
      return hit;
    });
  }

  /** False when the store holds no vectors yet; throws when `vector` is not of the store's model. */
  private checkQueryVector(vector: Float32Array, model: string | undefined): boolean {
    const stored = storedModel(this.db);
    if (stored.model === null) {
      // The first ingest records the model with the first vectors: documents without it mean
      // the rows were lost, and answering [] read as "the docs do not cover it".
      if (!this.hasDocuments()) return false;
      throw new StoreError(
        `${this.path}: the store holds documents but records no embedding model (its store_meta table lost its rows), so their vectors cannot be searched; rebuild it with "docs-store ingest" into a new --db, or use full-text search`,
      );
    }
    if (vector.length !== stored.dimensions || (model !== undefined && model !== stored.model)) {
      throw new StoreError(
        `the query embedding has ${vector.length} dimensions${model ? ` (model ${model})` : ''}, but ${this.path} holds ` +
          `${stored.dimensions}-dimension vectors of model ${stored.model}; search with the model the store was built with ` +
          `(embeddings: in chunkyard.config.yaml), or use full-text search`,
      );
    }
    return true;
  }

  /** The route index over the current vectors, loaded when the store changed since the last one. */
  routes(): RouteIndex {
    const vectors = this.vectorIndex();
    if (this.routeIndex?.vectors !== vectors) {
      this.routeIndex = null; // the old one's memory can go before the new one is built
      this.routeIndex = RouteIndex.load(this.db, this.path, vectors);
    }
    return this.routeIndex;
  }

  /** Routed search (routes.ts): the units retrieval's search() returns over the same chunks. */
  private routedSearch(query: string, vector: Float32Array, limit: number, k: number, filters: SearchFilters, routes: RouteOptions, model: string | undefined): SearchHit[] {
    if (!Number.isInteger(k) || k < 0) throw new StoreError(`k must be a non-negative integer, got ${k}`);
    if (!this.checkQueryVector(vector, model)) return [];
    const index = this.routes();
    const chunkRows = this.db.prepare(
      `SELECT chunk_index AS "index", content, start_char AS startChar, end_char AS endChar, coalesce(overlap_chars, 0) AS overlapChars
       FROM artifact_chunks WHERE artifact_id = ? AND chunk_index BETWEEN ? AND ? ORDER BY chunk_index`,
    );
    const whole = this.db.prepare('SELECT content FROM artifacts WHERE id = ?');
    const units = routedUnits(
      index,
      (artifactId, from, to) => chunkRows.all(artifactId, from, to) as { index: number; content: string; startChar: number; endChar: number; overlapChars: number }[],
      (artifactId) => (whole.get(artifactId) as { content: string } | undefined)?.content ?? '',
      query,
      vector,
      acceptsUnit(filters),
      limit,
      k,
      routes,
    );
    return units.map((u) => {
      const unit = this.unit(u.unitId);
      if (!unit) throw new StoreError(`unit ${u.unitId} vanished during the search; search again`);
      return { ...unit, score: u.score, ranks: {}, unit: { chunks: u.span, text: u.text, hits: u.hits, similarity: u.similarity, bm25: u.bm25 } };
    });
  }

  private searchVector(vector: Float32Array, filters: SearchFilters, limit: number, model: string | undefined, options: { index?: VectorIndexKind; probes?: number }): RankedId[] {
    if (!this.checkQueryVector(vector, model)) return [];
    const index = this.vectorIndex();
    const matches =
      this.resolveIndexKind(options.index) === 'ivf'
        ? this.annIndex().search(vector, limit, acceptsUnit(filters), options.probes)
        : index.search(vector, limit, acceptsUnit(filters));
    // A unit with no positive similarity is not a match (retrieval's search drops it too): a
    // zero query vector (stopwords or punctuation under the local model) tied every unit at 0.
    return matches.filter((m) => m.score > 0).map((m) => ({ unitId: index.units[m.row]!.unitId, score: m.score }));
  }

  /** `exact` or `ivf`: what `kind` (default: this connection's) means at the store's current size. */
  resolveIndexKind(kind: VectorIndexKind = this.defaultIndex): 'exact' | 'ivf' {
    if (kind !== 'auto') return kind;
    // Counted, not loaded: an ingest that ends in exact search must not read every vector to learn that.
    const { dimensions } = storedModel(this.db);
    return this.unitCount() * (dimensions ?? 0) >= AUTO_ANN_CELLS ? 'ivf' : 'exact';
  }

  /**
   * The IVF index over the current vectors. The persisted one (table `vector_ann`) is used
   * when its checksum, model and dimensions match and its list count still suits the number
   * of rows; units it does not know (written since) go into their nearest list, and units it
   * knows that are gone are dropped. It is rebuilt when missing, damaged, for another model,
   * or when more than a quarter of the units are new. A new or repaired index is written back
   * unless the connection is read-only. `annStatus` says what happened.
   */
  annIndex(): IvfIndex {
    const index = this.vectorIndex();
    if (this.ivf && this.ivf.index === index) return this.ivf;
    const { model: storeModel } = storedModel(this.db);
    const row = this.hasAnnTable ? (this.db.prepare('SELECT * FROM vector_ann WHERE kind = ?').get('ivf') as AnnRow | undefined) : undefined;
    let rebuilt: string | null = null;
    let model: IvfModel | null = null;
    let known: Map<number, number> | undefined;
    if (!row) rebuilt = 'no persisted index';
    else if (annChecksum(row) !== row.checksum) rebuilt = 'the persisted index is damaged (checksum mismatch)';
    else if (row.model !== storeModel || row.dims !== index.dims) rebuilt = `the persisted index is for model ${row.model} (${row.dims} dimensions)`;
    else if (row.lists < listsFor(index.size) / 2 || row.lists > listsFor(index.size) * 2) rebuilt = `the store grew or shrank from ${row.rows} to ${index.size} rows`;
    else {
      model = { dims: row.dims, lists: row.lists, centroids: blobAs(row.centroids, Float32Array) };
      const keys = blobAs(row.keys, Float64Array);
      const lists = blobAs(row.assignments, Uint16Array);
      known = new Map();
      for (let i = 0; i < keys.length; i++) known.set(keys[i]!, lists[i]!);
    }
    let result = model && known ? assign(model, index, known) : null;
    if (result && result.assigned > index.size / 4) {
      rebuilt = `${result.assigned} of ${index.size} units are newer than the persisted index`;
      result = null;
    }
    if (!result || !model) {
      model = train(index);
      result = assign(model, index);
    }
    const removed = row && !rebuilt ? row.rows - result.reused : 0;
    const ivf = new IvfIndex(model, index, result.lists);
    const changed = rebuilt !== null || result.assigned > 0 || removed > 0;
    let persisted = false;
    if (changed && !this.db.readonly && this.hasAnnTable && storeModel !== null) {
      try {
        this.persistAnn(ivf, storeModel);
        persisted = true;
      } catch (err) {
        // A search reads in one snapshot (searchWith); when another process committed since
        // it began, SQLite refuses that snapshot a write (SQLITE_BUSY_SNAPSHOT). The index
        // serves from memory, and the next search or ingest that finds it out of date writes it.
        if (!this.db.inTransaction || !/^SQLITE_BUSY/.test(String((err as { code?: unknown }).code))) throw err;
      }
    }
    this.ivf = ivf;
    this.annStatus = { kind: 'ivf', lists: model.lists, rows: index.size, rebuilt, reused: rebuilt ? 0 : result.reused, assigned: result.assigned, removed, persisted, bytes: ivf.bytes };
    return ivf;
  }

  private persistAnn(ivf: IvfIndex, model: string): void {
    const units = ivf.index.units;
    const keys = new Float64Array(units.length);
    units.forEach((u, r) => (keys[r] = unitKey(u.unitId)));
    const row: AnnRow = {
      kind: 'ivf',
      model,
      dims: ivf.model.dims,
      lists: ivf.model.lists,
      rows: units.length,
      centroids: bufferOf(ivf.model.centroids),
      keys: bufferOf(keys),
      assignments: bufferOf(Uint16Array.from(ivf.lists)),
      checksum: '',
      built_at: new Date().toISOString(),
    };
    row.checksum = annChecksum(row);
    this.db
      .prepare(
        `INSERT OR REPLACE INTO vector_ann (kind, model, dims, lists, rows, centroids, keys, assignments, checksum, built_at)
         VALUES (@kind, @model, @dims, @lists, @rows, @centroids, @keys, @assignments, @checksum, @built_at)`,
      )
      .run(row);
  }

  /**
   * Makes the index `kind` (default: this connection's) resolves to ready: for `ivf`, loads,
   * repairs or builds it and persists it (what `docs-store ingest` does after writing, so
   * that searches in later processes find it ready). Null when exact search is the answer.
   */
  prepareVectorIndex(kind?: VectorIndexKind): AnnStatus | null {
    if (storedModel(this.db).model === null || this.resolveIndexKind(kind) === 'exact') return null;
    this.annIndex();
    return this.annStatus;
  }

  /** A chunk (by chunk id) or a whole artifact (by artifact id), with its artifact's metadata. */
  unit(unitId: string): Omit<SearchHit, 'score' | 'ranks'> | undefined {
    const chunk = this.db.prepare(`SELECT ${UNIT_COLUMNS_CHUNK} FROM artifact_chunks c JOIN artifacts a ON a.id = c.artifact_id WHERE c.id = ?`).get(unitId) as UnitRow | undefined;
    if (chunk) return chunk;
    const whole = this.db.prepare(`SELECT ${UNIT_COLUMNS_WHOLE} FROM artifacts a WHERE a.id = ? AND a.is_chunked = 0`).get(unitId) as UnitRow | undefined;
    // Offsets are UTF-16 code units; SQLite's length() counts code points, so measure here.
    return whole && { ...whole, endChar: whole.content.length };
  }

  /**
   * Every searchable unit in a stable order (source file, then chunk index), `limit` at a
   * time from `offset`: what an MCP client lists as resources. Content is left out; read a
   * unit with `unit()`.
   */
  listUnits(options: { limit?: number; offset?: number } = {}): UnitSummary[] {
    const limit = options.limit ?? 1000;
    const offset = options.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 0 || !Number.isInteger(offset) || offset < 0) throw new StoreError(`limit and offset must be non-negative integers, got ${limit} and ${offset}`);
    return this.db
      .prepare(
        `SELECT unitId, artifactId, chunkIndex, sourceFile, title, sectionTitle, topic, tokenCount FROM (
           SELECT c.id AS unitId, c.artifact_id AS artifactId, c.chunk_index AS chunkIndex, a.source_file AS sourceFile, a.title AS title,
                  c.section_title AS sectionTitle, a.topic AS topic, c.token_count AS tokenCount
             FROM artifact_chunks c JOIN artifacts a ON a.id = c.artifact_id
           UNION ALL
           SELECT a.id, a.id, NULL, a.source_file, a.title, '', a.topic, a.token_count FROM artifacts a WHERE a.is_chunked = 0
         ) ORDER BY coalesce(sourceFile, ''), artifactId, coalesce(chunkIndex, -1) LIMIT ? OFFSET ?`,
      )
      .all(limit, offset) as UnitSummary[];
  }

  /** The chunk at `chunkIndex` of an artifact, or (null) a document stored whole; undefined if there is none. */
  unitAt(artifactId: string, chunkIndex: number | null): Omit<SearchHit, 'score' | 'ranks'> | undefined {
    if (chunkIndex === null) {
      const whole = this.db.prepare('SELECT id FROM artifacts WHERE id = ? AND is_chunked = 0').get(artifactId) as { id: string } | undefined;
      return whole && this.unit(whole.id);
    }
    const chunk = this.db.prepare('SELECT id FROM artifact_chunks WHERE artifact_id = ? AND chunk_index = ?').get(artifactId, chunkIndex) as { id: string } | undefined;
    return chunk && this.unit(chunk.id);
  }

  /**
   * Seed 004's neighbour expansion, generalised to ±k: the chunk and up to k chunks on each
   * side, in order, joined by `\n[CHUNK BOUNDARY]\n`. A whole artifact expands to itself.
   */
  expand(unitId: string, k = 1): Expansion {
    if (!Number.isInteger(k) || k < 0) throw new StoreError(`k must be a non-negative integer, got ${k}`);
    return this.db.transaction((): Expansion => {
      const target = this.db.prepare('SELECT artifact_id AS artifactId, chunk_index AS chunkIndex FROM artifact_chunks WHERE id = ?').get(unitId) as
        | { artifactId: string; chunkIndex: number }
        | undefined;
      if (!target) {
        const whole = this.db.prepare('SELECT content, is_chunked AS isChunked FROM artifacts WHERE id = ?').get(unitId) as { content: string; isChunked: number } | undefined;
        if (!whole) throw new StoreError(`no chunk or artifact with id ${quoteId(unitId)}`);
        if (whole.isChunked) throw new StoreError(`${quoteId(unitId)} is a chunked artifact; expand one of its chunk ids (${quoteId(unitId)}::chunk::NNN::…)`);
        return { unitId, artifactId: unitId, chunkIndices: [], text: whole.content };
      }
      const rows = this.db
        .prepare('SELECT chunk_index AS i, content FROM artifact_chunks WHERE artifact_id = ? AND chunk_index BETWEEN ? AND ? ORDER BY chunk_index')
        .all(target.artifactId, target.chunkIndex - k, target.chunkIndex + k) as { i: number; content: string }[];
      return { unitId, artifactId: target.artifactId, chunkIndices: rows.map((r) => r.i), text: rows.map((r) => r.content).join(`\n${CHUNK_BOUNDARY}\n`) };
    })();
  }

  stats(): StoreStats {
    return this.db.transaction((): StoreStats => {
      const one = <T>(sql: string) => this.db.prepare(sql).get() as T;
      const a = one<{ n: number; chunked: number; tokens: number | null }>('SELECT count(*) AS n, coalesce(sum(is_chunked), 0) AS chunked, sum(token_count) AS tokens FROM artifacts');
      const chunks = one<{ n: number }>('SELECT count(*) AS n FROM artifact_chunks').n;
      const { model, dimensions } = storedModel(this.db);
      const topics = this.db.prepare('SELECT topic, count(*) AS artifacts FROM artifacts GROUP BY topic ORDER BY topic').all() as StoreStats['topics'];
      let fileBytes = 0;
      for (const suffix of ['', '-wal']) {
        try {
          fileBytes += statSync(this.path + suffix).size;
        } catch {
          // No WAL file (or an in-memory database): nothing to add.
        }
      }
      const ann = !this.hasAnnTable
        ? undefined
        : this.db.prepare("SELECT lists, rows, length(centroids) + length(keys) + length(assignments) AS bytes, built_at AS builtAt FROM vector_ann WHERE kind = 'ivf'")
            .get() as { lists: number; rows: number; bytes: number; builtAt: string } | undefined;
      return {
        path: this.path,
        schemaVersion: this.db.pragma('user_version', { simple: true }) as number,
        artifacts: a.n,
        chunkedArtifacts: a.chunked,
        chunks,
        units: chunks + a.n - a.chunked,
        tokens: a.tokens ?? 0,
        embeddingModel: model,
        dimensions,
        topics,
        fileBytes,
        ann: ann ? { kind: 'ivf', ...ann } : null,
      };
    })();
  }
}

interface AnnRow {
  kind: string;
  model: string;
  dims: number;
  lists: number;
  rows: number;
  centroids: Buffer;
  keys: Buffer;
  assignments: Buffer;
  checksum: string;
  built_at: string;
}

function annChecksum(row: AnnRow): string {
  return createHash('sha256')
    .update(JSON.stringify([row.kind, row.model, row.dims, row.lists, row.rows]))
    .update(row.centroids)
    .update(row.keys)
    .update(row.assignments)
    .digest('hex');
}

const bufferOf = (a: Float32Array | Float64Array | Uint16Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** A typed array copied out of BLOB bytes (which need not be aligned). */
function blobAs<T extends Float32Array | Float64Array | Uint16Array>(bytes: Buffer, Type: { new (n: number): T; BYTES_PER_ELEMENT: number }): T {
  const out = new Type(Math.floor(bytes.byteLength / Type.BYTES_PER_ELEMENT));
  new Uint8Array(out.buffer).set(bytes.subarray(0, out.byteLength));
  return out;
}

/**
 * The stored vectors as VectorIndex.fromRows takes them, each checked against the store's
 * dimensions first: one of another size (a row another program wrote, a damaged page SQLite
 * still reads) reached fromRows's RangeError, or a NULL one a TypeError, and the CLI died with
 * a stack trace; MCP's tool error named no store.
 */
function* mapRows(rows: Iterable<[string, string, string | null, string, string, Buffer | null]>, dims: number, path: string): Generator<{ unit: IndexedUnit; embedding: Uint8Array }> {
  for (const [unitId, artifactId, topic, artifactType, contentHints, embedding] of rows) {
    if (!(embedding instanceof Uint8Array) || embedding.byteLength !== dims * 4) {
      const what = embedding instanceof Uint8Array ? `is ${embedding.byteLength} bytes` : 'is missing';
      const wanted = dims > 0 ? `where the store's ${dims} dimensions take ${dims * 4}` : 'and the store records no vector dimensions';
      throw new StoreError(`${path}: the stored vector of ${quoteId(unitId)} ${what}, ${wanted}; the store is damaged: rebuild it with "docs-store ingest" into a new --db`);
    }
    yield { unit: { unitId, artifactId, topic, artifactType, contentHints }, embedding };
  }
}

/** A SQLite or file-system failure while opening, as a StoreError that says what to do. */
/**
 * `new Database(path, options)`, with better-sqlite3's native module failing to load named as
 * what it is. A package manager that skips install scripts (pnpm 10, yarn 4 by default) leaves
 * the module unbuilt: ingest printed bindings' "Could not locate the bindings file. Tried: …"
 * with a stack trace, and search the same list as one line of \u000a escapes, told to run
 * "docs-store ingest" first (helper-43's pnpm probe). A module built for another Node fails in
 * dlopen (ERR_DLOPEN_FAILED: "compiled against a different Node.js version").
 */
export function connect(path: string, options?: Database.Options): Database.Database {
  try {
    return new Database(path, options);
  } catch (err) {
    const problem = nativeModuleProblem(err);
    if (problem !== null) throw new StoreError(`${path}: cannot open the store: better-sqlite3's native module ${problem}`);
    throw err;
  }
}

/** What is wrong with better-sqlite3's native module, when `err` says it failed to load (else null). */
export function nativeModuleProblem(err: unknown): string | null {
  const message = err instanceof Error ? err.message : '';
  const code = (err as { code?: unknown } | null)?.code;
  const rebuild = 'run "npm rebuild better-sqlite3" where chunkyard is installed (pnpm: allow its build with "pnpm": { "onlyBuiltDependencies": ["better-sqlite3"] } in package.json and install again; yarn: "dependenciesMeta": { "better-sqlite3": { "built": true } })';
  if (message.startsWith('Could not locate the bindings file')) return `is not built (its install script did not run); ${rebuild}`;
  if (code === 'ERR_DLOPEN_FAILED') {
    const first = message.split('\n', 1)[0]!.replace(/^.*?: /s, '');
    return `does not load in this Node ${process.version} (${first.length > 200 ? `${first.slice(0, 197)}...` : first}); ${rebuild}`;
  }
  return null;
}

function openError(path: string, err: unknown, purpose: 'read' | 'write'): StoreError | unknown {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'SQLITE_NOTADB') return new StoreError(`${path}: not a docs-store database (${message}); pass --db with the store's path, or move this file away`);
  // SQLite says "disk I/O error" when it cannot grow <store>-shm (SQLITE_IOERR_SHMSIZE) or write
  // a page on a full disk or past a file size limit: that said "check that the folder exists and
  // is writable". The SqliteError is kept as the cause: an ingest that created the store removes
  // it on such a failure (storageFailed).
  const room = typeof code === 'string' ? roomFailure(path, code, message) : null;
  if (room !== null) return new StoreError(room, { cause: err });
  // SQLITE_READONLY_DIRECTORY (a folder this user cannot write, where -wal and -shm go) came out
  // as "cannot open the store (SQLITE_READONLY_DIRECTORY: attempt to write a readonly database)",
  // naming neither the folder nor what to do.
  if (code === 'SQLITE_CANTOPEN' || String(code).startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM' || code === 'SQLITE_IOERR' || String(code).startsWith('SQLITE_IOERR')) {
    // A store is in WAL mode, and SQLite makes <store>-shm beside it even to read it: in a
    // folder nothing can be written to, every command failed with "check its permissions",
    // though the file's own permissions were fine.
    const dir = dirname(resolve(path));
    const unwritable = unwritableReason(dir);
    if (unwritable !== null && existsSync(path)) {
      if (purpose === 'write') return new StoreError(`${path}: cannot open the store for writing: ${dir} ${unwritable}; choose another --db`);
      return new StoreError(
        `${path}: cannot open the store for reading: ${dir} ${unwritable}, and SQLite must make ${basename(path)}-shm beside a store (WAL mode) even to read it; copy the store to a writable folder and pass --db with the copy`,
      );
    }
    const what = purpose === 'write' ? 'check that the folder exists and is writable, or choose another --db' : 'check its permissions';
    return new StoreError(`${path}: cannot open the store for ${purpose === 'write' ? 'writing' : 'reading'} (${String(code)}: ${message}); ${what}`, { cause: err });
  }
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return new StoreError(`${path}: the store is locked by another process (${message}); try again when it finishes`);
  if (code === 'SQLITE_CORRUPT') return new StoreError(`${path}: the database is corrupt (${message}); rebuild it with "docs-store ingest" into a new --db`);
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return new StoreError(`${path}: cannot open the store (${code}: ${message})`);
  return err;
}


/** Why nothing can be written in `dir` ("is on a read-only file system (EROFS)"), or null. */
function unwritableReason(dir: string): string | null {
  try {
    accessSync(dir, constants.W_OK);
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return 'is on a read-only file system (EROFS)';
    if (code === 'EACCES' || code === 'EPERM') return `is not writable (${code})`;
    return null;
  }
}

function describe(plan: ArtifactPlan): string {
  return plan.sourceFile ?? (plan.sourceId ? `${plan.sourceSystem}:${plan.sourceId}` : plan.id);
}

function outcomeOf({ head: plan, unitIds }: PlanRef): IngestOutcome {
  return {
    artifactId: plan.id,
    sourceFile: plan.sourceFile,
    status: 'created',
    isChunked: plan.isChunked,
    numChunks: plan.isChunked ? unitIds.length : 0,
    tokenCount: plan.tokenCount,
    storedIds: plan.isChunked ? [plan.id, ...unitIds] : [plan.id],
  };
}

/** A user's word for what a path is, in the store's messages about --db. */
function kindOf(stat: Stats): string {
  if (stat.isFile()) return 'a file';
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'a special file';
}

/**
 * A store path the caller derived (docs-store's `<workspace>/.chunkyard/store.db`) lies in a
 * docs repo that may be someone else's (a pull request run in CI): a link committed at the
 * store, or at `.chunkyard` itself, made SQLite (which resolves links in the path it opens)
 * create the file it led to, or write a store's schema into an empty one, or read another
 * application's database. Such a link is refused, naming it. SQLite opens the store's -wal, -shm
 * and -journal files with O_NOFOLLOW; a link there (any path) is refused by refuseOddCompanions.
 */
function refuseLinks(path: string): void {
  for (const p of [dirname(path), path]) {
    try {
      refuseSymlink(p);
    } catch (err) {
      if (!(err instanceof SymlinkOutputError)) throw err;
      throw new StoreError(
        `${p}: is a symlink${err.target === null ? '' : ` (it points to ${err.target})`}; a store path not given with --db is never opened through a link, so nothing was read or written; remove the link, or pass --db with the store you mean`,
      );
    }
  }
}

/**
 * refuseLinks again once SQLite has opened the file, before anything is read or written: a
 * link swapped in between the first look and the open is caught here, unless it was swapped
 * back in time. better-sqlite3 cannot pass SQLITE_OPEN_NOFOLLOW, so the open itself follows one.
 */
function stillNoLinks(db: Database.Database, path: string): void {
  try {
    refuseLinks(path);
  } catch (err) {
    db.close();
    throw err;
  }
}

/** The files SQLite keeps beside a store, by suffix: what each holds. */
const COMPANIONS = { '-journal': 'rollback journal', '-wal': 'write-ahead log', '-shm': 'shared-memory index' } as const;

/**
 * A path that is a store's -wal, -shm or -journal (`--db store.db-wal`, a tab completion away,
 * s60 probe): SQLite read a 0-byte or absent -wal as a new database, an ingest wrote a store
 * into it and said so, and the next open of the store removed it with its WAL (a -journal
 * likewise); with the store open elsewhere, two connections wrote the one file as two things.
 * Refused before anything is made. A store is a regular file that is empty or starts with
 * SQLite's header; a name that ends so beside anything else is a store of its own.
 */
function refuseCompanionOfStore(path: string): void {
  for (const [suffix, role] of Object.entries(COMPANIONS)) {
    if (!path.endsWith(suffix) || basename(path) === suffix) continue;
    const store = path.slice(0, -suffix.length);
    if (!isStoreFile(store)) continue;
    throw new StoreError(`${path}: the ${role} SQLite keeps beside the store ${store}, not a store of its own (a store written there is lost when ${basename(store)} is next opened); nothing was read or written: pass --db ${store}`);
  }
}

/** Whether `path` is a regular file (links followed) that is empty or starts with SQLite's header. */
function isStoreFile(path: string): boolean {
  let fd: number;
  try {
    if (!statSync(path).isFile()) return false;
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  try {
    const head = Buffer.alloc(16);
    const read = readSync(fd, head, 0, 16, 0);
    return read === 0 || (read === 16 && head.equals(SQLITE_HEADER));
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * SQLite's files beside the store are regular files it makes and removes itself. Another kind
 * there failed every open with "unable to open database file; check its permissions" or
 * "disk I/O error" (a link, a folder), naming neither the file nor the fix, and a FIFO at
 * -journal blocked every command for good: SQLite reads a journal it finds, to see whether it
 * must roll it back. Refused before the open, naming it; SQLite makes it again when it needs one.
 */
function refuseOddCompanions(path: string): void {
  for (const [suffix, role] of Object.entries(COMPANIONS)) {
    const companion = `${path}${suffix}`;
    let stat: Stats;
    try {
      stat = lstatSync(companion);
    } catch {
      continue;
    }
    if (stat.isFile()) continue;
    const what = stat.isSymbolicLink() ? `a symlink${linkTarget(companion)}` : kindOf(stat);
    throw new StoreError(`${companion}: ${what} where SQLite keeps the store's ${role}, which is a regular file or absent; nothing was read or written: remove it`);
  }
}

/**
 * A store file that is missing or empty beside a -wal that holds something: never SQLite's own
 * state (WAL mode writes the file's header before any -wal exists), but what a store deleted
 * while a process had it open leaves (`rm store.db` to rebuild it while an agent's docs-store mcp
 * runs: the server keeps the old file, its -wal and -shm keep the name). Opened, SQLite failed
 * with "disk I/O error" ("check that the folder exists and is writable"), or read the other
 * store's pages from that -wal as this one's.
 */
function refuseOrphanWal(path: string): void {
  const wal = statSync(`${path}-wal`, { throwIfNoEntry: false });
  if (!wal || wal.size === 0) return;
  const store = statSync(path, { throwIfNoEntry: false });
  if (store && store.size > 0) return;
  const name = basename(path);
  throw new StoreError(
    `${path}: ${store ? 'an empty store file' : 'no store file'}, but ${path}-wal beside it holds ${wal.size} bytes of a store's changes: the store was deleted while a process still had it open (a docs-store mcp?), and SQLite would read that store's pages as this one's; stop that process, then remove ${name}-wal and ${name}-shm (SQLite leaves them behind for a deleted store)`,
  );
}

const linkTarget = (link: string): string => {
  try {
    return ` (it points to ${readlinkSync(link)})`;
  } catch {
    return '';
  }
};

/**
 * A store path that exists must be a regular file (symlinks followed): SQLite would block on
 * a FIFO until a writer appears, read a device as an empty database of schema 0, and call a
 * folder a "disk I/O error". A path that does not exist yet is for `open` to create.
 */
function refuseNonRegular(path: string): void {
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (err) {
    // A file where a folder of the path belongs: creating the folder said "(EEXIST) … fix the
    // folder's permissions" and a read said "run docs-store ingest first", neither of which helps.
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') {
      const culprit = firstNonFolder(path);
      if (culprit !== null) throw new StoreError(`${path}: ${culprit} is ${kindOf(statSync(culprit))}, not a folder, so no store can be there; choose another --db, or move ${culprit} away`);
    }
    // SQLite's own words for it were "unable to open database file; check that the folder
    // exists and is writable" (or "run docs-store ingest first"), which no folder fix mends.
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new StoreError(`${path}: a symlink loop (it never reaches a file); fix or remove the link, or choose another --db`);
    return;
  }
  if (stat.isFile()) {
    const pseudo = pseudoFileSystem(path);
    if (pseudo !== null) throw new StoreError(`${path}: a file of ${pseudo}, which the kernel makes up as it is read, not a database file; pass --db with the path of a store file (one that does not exist yet is created)`);
    // SQLite writes whole pages (512 bytes at least), yet it reads a file of one byte (`echo >
    // notes`) as an empty database, and an ingest overwrote it with the store (s57 probe).
    if (stat.size > 0 && stat.size < 512) throw new StoreError(`${path}: not a docs-store database (${stat.size} byte${stat.size === 1 ? '' : 's'}, shorter than any SQLite database); it was left as it was: pass --db with the store's path, or move this file away`);
    return;
  }
  throw new StoreError(`${path}: ${kindOf(stat)}, not a database file; pass --db with the path of a store file (one that does not exist yet is created)`);
}

/**
 * Linux's kernel file systems (statfs f_type): their files are regular to stat, with a size of 0
 * or 4096 whatever they hold, and no free blocks. A --db there was misread (s55 probe):
 * /proc/self/status "an empty database … store some first (docs-store ingest … --db
 * /proc/self/status)", and an ingest into /proc/self/mem "the disk is full".
 */
const PSEUDO_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'procfs (/proc)'],
  [0x62656572, 'sysfs (/sys)'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x27e0eb, 'cgroupfs'],
  [0x63677270, 'cgroup2fs'],
  [0x62656570, 'configfs'],
  [0xcafe4a11, 'bpffs'],
]);

/** The name of the kernel file system `path` lies on, or null (an ordinary one, or unknown). */
function pseudoFileSystem(path: string): string | null {
  try {
    return PSEUDO_FILE_SYSTEMS.get(Number(statfsSync(path).type)) ?? null;
  } catch {
    return null;
  }
}

