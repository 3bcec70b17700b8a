/**
 * @chunkyard/store — the SQLite artifact store of seed 004.
 *
 *   const store = DocStore.open('.chunkyard/store.db');
 *   await store.ingest([{ content, sourceSystem: 'file', sourceId: 'docs/x.md' }], provider);
 *   const hits = await store.search('source generation', { mode: 'hybrid', embedder: provider, expand: 1 });
 */
export { DocStore, CHUNK_BOUNDARY, AUTO_ANN_CELLS, type OpenOptions, type SearchOptions, type IngestOptions, type VectorSource, type StagedVectors, type UnitSummary, type VectorIndexKind, type AnnStatus } from './store.js';
export { IvfIndex, train as trainIvf, assign as assignIvf, listsFor, probesFor, unitKey, type IvfModel, type IvfTrainOptions } from './ivf.js';
export { Int8Matrix, searchInt8, type FloatRows } from './quantized.js';
export { planArtifact, artifactId, chunkId, unitsOf, sha256Hex, SINGLE_PIECE_MAX, WHOLE_STRATEGY_KEY, type PlanOptions } from './plan.js';
export { decodeDocument, checkText, DEFAULT_LIMITS, type InputLimits } from './input.js';
export { embedPlans, writeArtifacts, checkVectors, storedModel, routeTerms, type StoreEmbedder, type ProgressEvent, type OnProgress } from './ingest.js';
export { readBuiltTopic, builtRefs, cachedVectors, stagedCachedVectors, type BuiltDocument, type BuiltSource, type CachedVectorsOptions, type ChunkManifest, type CacheStats } from './built.js';
export { FTS_MAX_WORDS, ftsQuery, fuseRrf, queryWithoutWords, searchFts, RRF_K } from './search.js';
export { RouteIndex, routedUnits, type RoutedUnit } from './routes.js';
export { VectorIndex, type VectorSearchOptions, normalizeInPlace, vectorBytes, bytesToVector, type IndexedUnit, type VectorMatch } from './vector-index.js';
export { MIGRATIONS, SCHEMA_VERSION, migrate } from './schema.js';
export { EmptyStoreError, InputError, sqliteFailure, storageFailed, StoreError, UnknownFilterError } from './errors.js';
export type * from './types.js';
