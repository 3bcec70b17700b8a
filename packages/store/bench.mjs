#!/usr/bin/env node
// Vector (and hybrid) search over a store of N chunks: median / p95 query time, index load
// time, memory. Not a unit test: timings depend on the machine and its load.
//
//   npm run bench:store                          100,000 chunks × 512 dims (the local provider's size)
//   npm run bench:store -- --units 200000 --dims 1536 --queries 50
//
// Uses the built package (dist/); run `node tools/build.mjs packages/store` first if src changed.
// The database is a temp file, removed afterwards. Vectors are seeded pseudo-random (uniform
// in [-1, 1)): brute force costs the same whatever the values are.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DocStore } from '@chunkyard/store';

const { values } = parseArgs({
  options: {
    units: { type: 'string', default: '100000' },
    dims: { type: 'string', default: '512' },
    queries: { type: 'string', default: '50' },
    limit: { type: 'string', default: '10' },
    json: { type: 'boolean', default: false },
  },
});
const UNITS = Number(values.units);
const DIMS = Number(values.dims);
const QUERIES = Number(values.queries);
const LIMIT = Number(values.limit);
const PER_ARTIFACT = 100;

let seed = 42;
const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
const randomVector = () => {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = rand();
  return v;
};
// 40 words per chunk from a 5,000-word vocabulary: each query word occurs in about 1% of chunks.
const WORDS = [...'serializer options trimming native aot token chunk vector store search index json reflection source generator polymorphism converter'.split(' '),
  ...Array.from({ length: 4983 }, (_, i) => `w${i}`)];
const text = () => Array.from({ length: 40 }, () => WORDS[Math.floor(((rand() + 1) / 2) * WORDS.length)]).join(' ') + '.';

const dir = mkdtempSync(join(tmpdir(), 'chunkyard-store-bench-'));
const dbPath = join(dir, 'bench.db');
const ms = (t0) => performance.now() - t0;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];
const log = (s) => values.json || console.error(s);

try {
  const store = DocStore.open(dbPath);
  let t0 = performance.now();
  const plans = [];
  for (let a = 0; a * PER_ARTIFACT < UNITS; a++) {
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
  const writeMs = ms(t0);
  log(`wrote ${UNITS} chunks × ${DIMS} dims in ${(writeMs / 1000).toFixed(1)} s`);
  store.close();

  // A fresh process-like start: open, then load the index once (what the first query pays).
  const reader = DocStore.open(dbPath, { readonly: true });
  const rssBefore = process.memoryUsage().rss;
  t0 = performance.now();
  const index = reader.vectorIndex();
  const loadMs = ms(t0);
  const mem = process.memoryUsage();
  log(`index: ${index.size} rows loaded in ${loadMs.toFixed(0)} ms; matrix ${(index.matrix.byteLength / 2 ** 20).toFixed(0)} MiB`);

  const timeMode = (mode, filters) => {
    const times = [];
    const cpu = [];
    for (let q = 0; q < QUERIES; q++) {
      const vector = randomVector();
      const t = performance.now();
      const c = process.cpuUsage();
      const hits = reader.searchWith('json serializer options', mode === 'fts' ? null : vector, { mode, limit: LIMIT, filters }, 'bench-random');
      const used = process.cpuUsage(c);
      times.push(ms(t));
      // CPU time of this process: what the query costs when the machine is shared (wall time
      // then also counts waiting for a core).
      cpu.push((used.user + used.system) / 1000);
      if (hits.length === 0) throw new Error(`${mode}: no hits`);
    }
    return { median: +median(times).toFixed(2), p95: +p95(times).toFixed(2), cpuMedian: +median(cpu).toFixed(2) };
  };
  timeMode('vector'); // warm-up (JIT)
  const results = {
    units: UNITS,
    dims: DIMS,
    queries: QUERIES,
    limit: LIMIT,
    node: process.version,
    loadAverage: (await import('node:os')).loadavg().map((l) => +l.toFixed(1)),
    writeSeconds: +(writeMs / 1000).toFixed(1),
    indexLoadMs: +loadMs.toFixed(0),
    matrixMiB: +(index.matrix.byteLength / 2 ** 20).toFixed(1),
    rssMiB: +(mem.rss / 2 ** 20).toFixed(0),
    rssIndexMiB: +((mem.rss - rssBefore) / 2 ** 20).toFixed(0),
    vectorMs: timeMode('vector'),
    vectorFilteredMs: timeMode('vector', { topic: 't3', contentHints: ['prose'] }),
    ftsMs: timeMode('fts'),
    hybridMs: timeMode('hybrid'),
  };
  reader.close();
  if (values.json) console.log(JSON.stringify(results, null, 2));
  else {
    console.log(`vector search over ${UNITS} × ${DIMS}: median ${results.vectorMs.median} ms, p95 ${results.vectorMs.p95} ms, CPU median ${results.vectorMs.cpuMedian} ms (limit ${LIMIT}, ${QUERIES} queries)`);
    console.log(`  with topic + hint filter: median ${results.vectorFilteredMs.median} ms; fts: median ${results.ftsMs.median} ms; hybrid: median ${results.hybridMs.median} ms`);
    console.log(`  index load ${results.indexLoadMs} ms, matrix ${results.matrixMiB} MiB, RSS ${results.rssMiB} MiB (+${results.rssIndexMiB} MiB for the index)`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
