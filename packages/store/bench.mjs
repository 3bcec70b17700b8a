#!/usr/bin/env node
// Vector, hybrid and routed hybrid search over a store of N chunks: median / p95 query time, index load
// time, memory; with --ann, the IVF index too (build time, size, p95, recall@10 against exact
// search on the same queries). Not a unit test: timings depend on the machine and its load.
//
//   npm run bench:store                          100,000 chunks × 512 dims (the local provider's size)
//   npm run bench:store -- --units 100000 --dims 1536
//   npm run bench:store -- --units 1000000 --ann --data clustered --words 4
//   npm run bench:store -- --suite               the README's table: the three runs below, one child process each
//
// Uses the built package (dist/); `npm run bench:store` builds it first. The database is a
// temp file, removed afterwards. Vectors are seeded pseudo-random: `uniform` in [-1, 1)^dims
// (brute force costs the same whatever the values are), or `clustered`: a centre (one of
// --clusters, uniform) plus uniform noise scaled by --spread, which is how embeddings of
// related texts group. An approximate index can only beat brute force on data with such
// structure; on uniform data every list is as close as any other.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DocStore } from '@chunkyard/store';

const { values } = parseArgs({
  options: {
    units: { type: 'string', default: '100000' },
    dims: { type: 'string', default: '512' },
    queries: { type: 'string', default: '50' },
    limit: { type: 'string', default: '10' },
    words: { type: 'string', default: '40' },
    data: { type: 'string', default: 'uniform' },
    clusters: { type: 'string', default: '2000' },
    spread: { type: 'string', default: '1' },
    ann: { type: 'boolean', default: false },
    probes: { type: 'string' },
    'skip-modes': { type: 'boolean', default: false },
    suite: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
// --suite: each configuration in a process of its own (a 1M-row index must not share a heap with the others).
const SUITE = [
  ['--units', '100000', '--dims', '512', '--ann'],
  ['--units', '100000', '--dims', '1536'],
  ['--units', '1000000', '--dims', '512', '--ann', '--data', 'clustered', '--clusters', '20000', '--words', '4', '--skip-modes', '--probes', '250,375,500'],
];
if (values.suite) {
  const self = new URL(import.meta.url).pathname;
  const rows = [];
  for (const args of SUITE) {
    console.error(`bench:store ${args.join(' ')}`);
    const r = JSON.parse(execFileSync(process.execPath, [self, ...args, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 }));
    rows.push(r);
    const head = `| ${r.units.toLocaleString('en')} × ${r.dims}, ${r.data}, load ${r.loadAverageStart[0]}→${r.loadAverageEnd[0]} |`;
    console.log(`${head} exact ${r.vectorMs.median} / ${r.vectorMs.p95} ms (CPU ${r.vectorMs.cpuMedian}) | Float32 peer ${r.vectorF32Ms.median} / ${r.vectorF32Ms.p95} ms (CPU ${r.vectorF32Ms.cpuMedian}) |`);
    for (const a of r.ann ?? []) console.log(`${head} ivf ${r.annLists} lists, probes ${a.probes}: ${a.median} / ${a.p95} ms (CPU ${a.cpuMedian}), recall@10 ${a.recallAt10}; build ${r.annBuildSeconds} s, ${r.annPersistedMiB} MiB persisted |`);
  }
  if (values.json) console.log(JSON.stringify(rows, null, 2));
  process.exit(0);
}
const UNITS = Number(values.units);
const DIMS = Number(values.dims);
const QUERIES = Number(values.queries);
const LIMIT = Number(values.limit);
const WORDS_PER_CHUNK = Number(values.words);
const CLUSTERED = values.data === 'clustered';
const PER_ARTIFACT = 100;
const BATCH = 100; // artifacts per ingest call: bounds the memory the plans and vectors take

let seed = 42;
const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
const centres = CLUSTERED ? Array.from({ length: Number(values.clusters) }, () => Float32Array.from({ length: DIMS }, rand)) : [];
const SPREAD = Number(values.spread);
const randomVector = () => {
  const v = new Float32Array(DIMS);
  if (CLUSTERED) {
    const c = centres[Math.floor(((rand() + 1) / 2) * centres.length)];
    for (let i = 0; i < DIMS; i++) v[i] = c[i] + SPREAD * rand();
  } else for (let i = 0; i < DIMS; i++) v[i] = rand();
  return v;
};
// 40 words per chunk from a 5,000-word vocabulary: each query word occurs in about 1% of chunks.
const WORDS = [...'serializer options trimming native aot token chunk vector store search index json reflection source generator polymorphism converter'.split(' '),
  ...Array.from({ length: 4983 }, (_, i) => `w${i}`)];
const text = () => Array.from({ length: WORDS_PER_CHUNK }, () => WORDS[Math.floor(((rand() + 1) / 2) * WORDS.length)]).join(' ') + '.';

const dir = mkdtempSync(join(tmpdir(), 'chunkyard-store-bench-'));
const dbPath = join(dir, 'bench.db');
const ms = (t0) => performance.now() - t0;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];
const log = (s) => values.json || console.error(s);
const load = () => loadavg().map((l) => +l.toFixed(1));

/** Times `fn(vector)` over QUERIES fresh query vectors: wall median / p95 and CPU median. */
function timeQueries(fn, queries) {
  const times = [];
  const cpu = [];
  for (const vector of queries) {
    const t = performance.now();
    const c = process.cpuUsage();
    const n = fn(vector);
    const used = process.cpuUsage(c);
    times.push(ms(t));
    // CPU time of this process: what the query costs when the machine is shared (wall time
    // then also counts waiting for a core).
    cpu.push((used.user + used.system) / 1000);
    if (n === 0) throw new Error('no hits');
  }
  return { median: +median(times).toFixed(2), p95: +p95(times).toFixed(2), cpuMedian: +median(cpu).toFixed(2) };
}

try {
  const results = { units: UNITS, dims: DIMS, data: CLUSTERED ? `clustered (${centres.length} centres, spread ${SPREAD})` : 'uniform', queries: QUERIES, limit: LIMIT, node: process.version, loadAverageStart: load() };
  let store = DocStore.open(dbPath);
  let t0 = performance.now();
  for (let first = 0; first * PER_ARTIFACT < UNITS; first += BATCH) {
    const plans = [];
    for (let a = first; a < first + BATCH && a * PER_ARTIFACT < UNITS; a++) {
      const id = `art_${a.toString(16).padStart(8, '0')}`;
      const count = Math.min(PER_ARTIFACT, UNITS - a * PER_ARTIFACT);
      const units = Array.from({ length: count }, (_, k) => {
        const content = text();
        return { id: `${id}::chunk::${String(k).padStart(3, '0')}::00000000`, chunkIndex: k, recordId: null, content, embedText: content, startChar: 0, endChar: content.length,
          tokenCount: 41, contentHash: '0'.repeat(64), sectionTitle: '', headerBreadcrumb: '', contentHints: k % 5 ? 'prose' : 'code', isCode: false };
      });
      plans.push({ id, artifactType: 'doc', sourceSystem: 'bench', sourceId: String(a), sourceFile: `bench/${a}.md`, topic: `bench/t${a % 10}`, title: `Doc ${a}`,
        content: '', tokenCount: 41 * count, contentHash: String(a).padStart(64, '0'), isChunked: true, strategyKey: 'bench', contentHints: 'mixed', units });
    }
    await store.ingestPlans(plans, 'bench-random', async (pending) => pending.map((plan) => ({ plan, vectors: plan.units.map(randomVector) })));
  }
  const writeMs = ms(t0);
  results.writeSeconds = +(writeMs / 1000).toFixed(1);
  log(`wrote ${UNITS} chunks × ${DIMS} dims in ${(writeMs / 1000).toFixed(1)} s`);

  if (values.ann) {
    // Build and persist the IVF index, as `docs-store ingest --index ivf` does after writing.
    t0 = performance.now();
    const status = store.prepareVectorIndex('ivf');
    results.annBuildSeconds = +(ms(t0) / 1000).toFixed(1);
    const sizes = store.db.prepare("SELECT length(centroids) + length(keys) + length(assignments) AS bytes FROM vector_ann WHERE kind = 'ivf'").get();
    results.annPersistedMiB = +(sizes.bytes / 2 ** 20).toFixed(1);
    results.annLists = status.lists;
    log(`ivf: ${status.lists} lists built and persisted in ${results.annBuildSeconds} s (incl. the exact index load), ${results.annPersistedMiB} MiB in the file`);
  }
  store.close();
  store = null; // its index (rows × dims × 4 bytes) can go before the reader loads its own

  // A fresh process-like start: open, then load the index once (what the first query pays).
  const reader = DocStore.open(dbPath, { readonly: true, vectorIndex: 'exact' });
  const rssBefore = process.memoryUsage().rss;
  t0 = performance.now();
  const index = reader.vectorIndex();
  const loadMs = ms(t0);
  t0 = performance.now();
  const int8 = index.quantized();
  const quantizeMs = ms(t0);
  const mem = process.memoryUsage();
  log(`index: ${index.size} rows loaded in ${loadMs.toFixed(0)} ms; matrix ${(index.matrix.byteLength / 2 ** 20).toFixed(0)} MiB; int8 rows ${int8 ? (int8.bytes / 2 ** 20).toFixed(0) + ' MiB' : 'unavailable'}, quantised in ${quantizeMs.toFixed(0)} ms`);
  Object.assign(results, {
    indexLoadMs: +loadMs.toFixed(0),
    quantizeMs: +quantizeMs.toFixed(0),
    matrixMiB: +(index.matrix.byteLength / 2 ** 20).toFixed(1),
    int8MiB: int8 ? +(int8.bytes / 2 ** 20).toFixed(1) : null,
    rssMiB: +(mem.rss / 2 ** 20).toFixed(0),
    rssIndexMiB: +((mem.rss - rssBefore) / 2 ** 20).toFixed(0),
  });

  const queries = Array.from({ length: QUERIES }, randomVector);
  const search = (mode, filters, extra = {}) => (vector) => reader.searchWith('json serializer options', mode === 'fts' ? null : vector, { mode, limit: LIMIT, filters, ...extra }, 'bench-random').length;
  timeQueries(search('vector'), queries.slice(0, 5)); // warm-up (JIT)
  results.vectorMs = timeQueries(search('vector'), queries);
  // The peer in the same run: the Float32 kernel over every row (no hydration of hits).
  timeQueries((v) => index.search(v, LIMIT, undefined, { quantized: false }).length, queries.slice(0, 5));
  results.vectorF32Ms = timeQueries((v) => index.search(v, LIMIT, undefined, { quantized: false }).length, queries);
  if (!values['skip-modes']) {
    results.vectorFilteredMs = timeQueries(search('vector', { topic: 't3', contentHints: ['prose'] }), queries);
    results.ftsMs = timeQueries(search('fts'), queries);
    // Hybrid without routes: the reciprocal-rank fusion (the default before issue 17's routes).
    results.hybridMs = timeQueries(search('hybrid', undefined, { routes: false }), queries);
    // Routed hybrid (the default): the first query also loads the route index (postings,
    // window norms), as the first search of a process does.
    t0 = performance.now();
    search('hybrid')(queries[0]);
    results.routeIndexLoadMs = +ms(t0).toFixed(0);
    results.rssRoutesMiB = +(process.memoryUsage().rss / 2 ** 20).toFixed(0);
    timeQueries(search('hybrid'), queries.slice(0, 5));
    results.routedMs = timeQueries(search('hybrid'), queries);
    results.routedFilteredMs = timeQueries(search('hybrid', { topic: 't3', contentHints: ['prose'] }), queries);
  }

  if (values.ann) {
    // --probes 20,40,80: each setting timed and scored on the same queries.
    const settings = values.probes === undefined ? [undefined] : values.probes.split(',').map(Number);
    t0 = performance.now();
    reader.searchWith('', queries[0], { mode: 'vector', limit: LIMIT, index: 'ivf' }, 'bench-random');
    results.annLoadMs = +ms(t0).toFixed(0);
    results.annStatus = reader.annStatus;
    const truths = queries.map((q) => new Set(reader.searchWith('', q, { mode: 'vector', limit: LIMIT, index: 'exact' }, 'bench-random').map((h) => h.unitId)));
    results.ann = settings.map((probes) => {
      const ivf = search('vector', undefined, { index: 'ivf', probes });
      timeQueries(ivf, queries.slice(0, 5));
      const timing = timeQueries(ivf, queries);
      const filtered = timeQueries(search('vector', { topic: 't3', contentHints: ['prose'] }, { index: 'ivf', probes }), queries);
      let found = 0;
      let total = 0;
      queries.forEach((q, i) => {
        for (const h of reader.searchWith('', q, { mode: 'vector', limit: LIMIT, index: 'ivf', probes }, 'bench-random')) if (truths[i].has(h.unitId)) found++;
        total += truths[i].size;
      });
      return { probes: probes ?? 'default', ...timing, filteredMedian: filtered.median, recallAt10: +(found / total).toFixed(4) };
    });
  }
  results.loadAverageEnd = load();
  reader.close();
  if (values.json) console.log(JSON.stringify(results, null, 2));
  else {
    const r = results;
    console.log(`${UNITS} × ${DIMS}, ${r.data}, load ${r.loadAverageStart.join(' ')} → ${r.loadAverageEnd.join(' ')}`);
    console.log(`  exact (int8 scan + exact rerank): median ${r.vectorMs.median} ms, p95 ${r.vectorMs.p95} ms, CPU median ${r.vectorMs.cpuMedian} ms (limit ${LIMIT}, ${QUERIES} queries)`);
    console.log(`  peer, Float32 kernel over every row: median ${r.vectorF32Ms.median} ms, p95 ${r.vectorF32Ms.p95} ms, CPU ${r.vectorF32Ms.cpuMedian} ms`);
    if (r.ftsMs) console.log(`  with topic + hint filter: median ${r.vectorFilteredMs.median} ms; fts: median ${r.ftsMs.median} ms; hybrid (no routes): median ${r.hybridMs.median} ms, p95 ${r.hybridMs.p95} ms`);
    if (r.routedMs) console.log(`  routed hybrid (the default): median ${r.routedMs.median} ms, p95 ${r.routedMs.p95} ms, CPU ${r.routedMs.cpuMedian} ms; filtered median ${r.routedFilteredMs.median} ms; route index load ${r.routeIndexLoadMs} ms (RSS ${r.rssRoutesMiB} MiB after)`);
    console.log(`  index load ${r.indexLoadMs} ms + quantise ${r.quantizeMs} ms, matrix ${r.matrixMiB} MiB + int8 ${r.int8MiB} MiB, RSS ${r.rssMiB} MiB (+${r.rssIndexMiB} MiB for the index)`);
    if (values.ann) {
      for (const a of r.ann) console.log(`  ivf (${r.annLists} lists, probes ${a.probes}): median ${a.median} ms, p95 ${a.p95} ms, CPU ${a.cpuMedian} ms; filtered median ${a.filteredMedian} ms; recall@${LIMIT} ${a.recallAt10}`);
      console.log(`  ivf build ${r.annBuildSeconds} s, persisted ${r.annPersistedMiB} MiB, load of the persisted index ${r.annLoadMs} ms (${r.annStatus.bytes / 2 ** 20 | 0} MiB in memory)`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
