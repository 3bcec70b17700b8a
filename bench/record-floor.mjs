#!/usr/bin/env node
// How much of a shape's chunking time is the records themselves (issue 15). For each shape
// of bench/scaling.mjs at one size, it chunks once, then times only building the same records
// again as object literals from field values computed beforehand (every string already made,
// nested objects and arrays allocated fresh, as chunkDocument must): the least any chunker
// returning these records could spend. Reported next to chunkDocument's own time, both as
// seconds per MB and as a ratio to prose's whole chunkDocument pass.
//
//   node --expose-gc bench/record-floor.mjs [--size 1m] [--shapes a,b]
//   CHUNKYARD_BENCH_CHUNKING=build.js …   times that build instead of packages/chunking/dist
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = process.env.CHUNKYARD_BENCH_CHUNKING ? resolve(process.env.CHUNKYARD_BENCH_CHUNKING) : join(root, 'packages/chunking/dist/index.js');
const { chunkDocument } = await import(pathToFileURL(DIST).href);

// The shapes are scaling.mjs's own generators, read from its source so the two cannot drift.
const scalingSource = readFileSync(join(root, 'bench/scaling.mjs'), 'utf8');
const SHAPES = new Function(scalingSource.slice(scalingSource.indexOf('function rng('), scalingSource.indexOf('const SIZE_UNITS')).replace('const SHAPES =', 'return'))();

const argv = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
if (argv.includes('--help')) {
  console.log('usage: node --expose-gc bench/record-floor.mjs [--size 1m] [--shapes a,b]');
  process.exit(0);
}
const sizeArg = arg('size', '1m');
const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(sizeArg);
if (!m) {
  console.error(`record-floor: --size ${sizeArg}: expected a size such as 100k or 1m`);
  process.exit(2);
}
const bytes = Math.round(Number(m[1]) * ({ k: 1e3, m: 1e6 }[m[2].toLowerCase()] ?? 1));
const shapes = arg('shapes', Object.keys(SHAPES).join(',')).split(',');
for (const s of shapes) {
  if (!SHAPES[s]) {
    console.error(`record-floor: unknown shape ${s} (have ${Object.keys(SHAPES).join(', ')})`);
    process.exit(2);
  }
}
if (!shapes.includes('prose')) shapes.unshift('prose');

/** What each pass returned, kept so that V8 cannot find the records unused and skip building them. */
const sink = [];

/** Fastest of `passes` runs of `fn`, in ms, a full GC before each when --expose-gc is on. */
function best(fn, passes) {
  let min = Infinity;
  for (let i = 0; i < passes; i++) {
    sink.length = 0;
    globalThis.gc?.();
    const t0 = performance.now();
    sink.push(fn());
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

/** A record's primitive fields and the contents of its arrays, kept apart from the record. */
function fieldsOf(r) {
  return [r, [...r.headerPath], [...r.headerDepths], [...r.headerSlugs], [...r.nodeTypes], [...r.tableColumns]];
}

/** The record again, as one literal with fresh nested objects: what chunkDocument must allocate per record. */
function rebuild([r, headerPath, headerDepths, headerSlugs, nodeTypes, tableColumns]) {
  return {
    id: r.id,
    parentId: r.parentId,
    chunkNumber: r.chunkNumber,
    contentType: r.contentType,
    embedText: r.embedText,
    originalText: r.originalText,
    fileTitle: r.fileTitle,
    sectionTitle: r.sectionTitle,
    headerPath: headerPath.slice(),
    headerBreadcrumb: r.headerBreadcrumb,
    headerDepths: headerDepths.slice(),
    headerSlugs: headerSlugs.slice(),
    sectionSlug: r.sectionSlug,
    sourcePosition: { charStart: r.sourcePosition.charStart, charEnd: r.sourcePosition.charEnd, totalChars: r.sourcePosition.totalChars },
    tokenStats: { tokens: r.tokenStats.tokens, estimatedTokens: r.tokenStats.estimatedTokens, embedTokens: r.tokenStats.embedTokens },
    prevId: r.prevId,
    nextId: r.nextId,
    nodeTypes: nodeTypes.slice(),
    contentHints: r.contentHints,
    containsTable: r.containsTable,
    tableColumns: tableColumns.slice(),
    isCode: r.isCode,
    splitUnit: r.splitUnit,
    overlapChars: r.overlapChars,
    metadata: { sourceFile: r.metadata.sourceFile, chunkingOptions: r.metadata.chunkingOptions, pipeline: r.metadata.pipeline },
    source: { filePath: r.source.filePath, startLine: r.source.startLine, endLine: r.source.endLine },
  };
}

const rows = [];
for (const shape of shapes) {
  const text = SHAPES[shape](bytes);
  const records = chunkDocument(text, { docName: 'scaling' }).chunks;
  const chunkMs = best(() => chunkDocument(text, { docName: 'scaling' }), 5);
  const fields = records.map(fieldsOf);
  const floorMs = best(() => fields.map(rebuild), 9);
  rows.push({ shape, mb: Buffer.byteLength(text) / 1e6, records: records.length, chunkMs, floorMs });
}
const prose = rows[0];
const perMb = (ms, mb) => ms / 1000 / mb;
const proseRate = perMb(prose.chunkMs, prose.mb);
const load = loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`Command: \`node --expose-gc bench/record-floor.mjs ${argv.join(' ')}\`; size ${sizeArg}; load ${load}; ${new Date().toISOString()}${globalThis.gc ? '' : ' (without --expose-gc: no GC between passes)'}.`);
console.log('');
console.log('| shape | records per MB | chunkDocument s/MB (× prose) | building the records alone s/MB (× prose) | share of the pass |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  const c = perMb(r.chunkMs, r.mb);
  const f = perMb(r.floorMs, r.mb);
  console.log(`| ${r.shape} | ${Math.round(r.records / r.mb).toLocaleString('en-US')} | ${c.toFixed(3)} (${(c / proseRate).toFixed(1)}×) | ${f.toFixed(3)} (${(f / proseRate).toFixed(1)}×) | ${((100 * r.floorMs) / r.chunkMs).toFixed(0)}% |`);
}
