#!/usr/bin/env node
// How much of a shape's chunking time the records themselves set (issue 15). For each shape of
// bench/scaling.mjs at one size, a child process of its own times, under the scaling table's
// own conditions (a fresh process, a full GC before each pass, the fastest of at least five
// passes in a 1 s window), two things:
//   - chunkDocument's whole pass, as a cell of the scaling table does;
//   - building the same records again and nothing else: one literal per record from field
//     values computed beforehand, with every string chunkDocument must make per record made
//     again (the id, the next id, `originalText` sliced from the source, `embedText` as the
//     breadcrumb joined to it) and every nested object allocated fresh; the arrays the chunker
//     shares between records (header paths, types) shared the same way.
// The second is the least any chunker returning these records could spend here. On this VM a
// first touch of a 4 KB page costs ~20 us and the GC before each pass gives the pages back, so
// records that outlive the young generation (tens of MB of them on tiny headings) are faulted
// in fresh on every pass: the page faults of each are printed too.
//
//   node bench/record-floor.mjs [--size 1m] [--shapes a,b]
//   CHUNKYARD_BENCH_CHUNKING=build.js …   times that build instead of packages/chunking/dist
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SHAPES } from './lib/shapes.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = process.env.CHUNKYARD_BENCH_CHUNKING ? resolve(process.env.CHUNKYARD_BENCH_CHUNKING) : join(root, 'packages/chunking/dist/index.js');


const USAGE = 'usage: node bench/record-floor.mjs [--size 1m] [--shapes a,b]';

/** Passes a case gets at least, and the window it is repeated in: scaling.mjs's (minPasses, WINDOW_MS) up to 1 MB. */
const MIN_PASSES = 5;
const WINDOW_MS = 1000;

/** The fastest of repeated runs of `fn` (gc() before each) and that run's page faults. */
function fastest(fn) {
  if (!globalThis.gc) throw new Error('record-floor: the child needs --expose-gc (it runs gc() before each pass, as the scaling table does)');
  let best = { ms: Infinity, faults: 0 };
  const began = performance.now();
  let passes = 0;
  do {
    globalThis.gc();
    const f0 = process.resourceUsage().minorPageFault;
    const t0 = performance.now();
    const kept = fn();
    const ms = performance.now() - t0;
    const faults = process.resourceUsage().minorPageFault - f0;
    if (ms < best.ms) best = { ms, faults };
    // Read after the clock stops, so that V8 cannot find the result unused.
    if (kept.length < 0) throw new Error('unreachable');
    passes++;
  } while ((performance.now() - began < WINDOW_MS || passes < MIN_PASSES) && passes < 50);
  return best;
}

/** What a record holds beyond the strings and objects made for it, read from chunkDocument's own record. */
function fieldsOf(r, source) {
  const { charStart, charEnd } = r.sourcePosition;
  const exact = source.slice(charStart, charEnd) === r.originalText;
  // The breadcrumb and blank line before the text, one string a record shares with its section's.
  const head = r.embedText.endsWith(r.originalText) ? r.embedText.slice(0, r.embedText.length - r.originalText.length) : null;
  return { r, exact, head, idStem: r.id.slice(0, r.id.lastIndexOf('ch') + 2) };
}

function rebuild(fields, source) {
  const out = new Array(fields.length);
  let prevId = null;
  for (let i = 0; i < fields.length; i++) {
    const { r, exact, head, idStem } = fields[i];
    const { charStart, charEnd, totalChars } = r.sourcePosition;
    const text = exact ? source.slice(charStart, charEnd) : r.originalText;
    const id = i === 0 ? idStem + i : out[i - 1].nextId;
    out[i] = {
      id,
      parentId: r.parentId,
      chunkNumber: i,
      contentType: r.contentType,
      embedText: head === null ? r.embedText : head === '' ? text : head + text,
      originalText: text,
      fileTitle: r.fileTitle,
      sectionTitle: r.sectionTitle,
      headerPath: r.headerPath,
      headerBreadcrumb: r.headerBreadcrumb,
      headerDepths: r.headerDepths,
      headerSlugs: r.headerSlugs,
      sectionSlug: r.sectionSlug,
      sourcePosition: { charStart, charEnd, totalChars },
      tokenStats: { tokens: r.tokenStats.tokens, estimatedTokens: r.tokenStats.estimatedTokens, embedTokens: r.tokenStats.embedTokens },
      prevId,
      nextId: r.nextId === null ? null : idStem + (i + 1),
      nodeTypes: r.nodeTypes,
      contentHints: r.contentHints,
      containsTable: r.containsTable,
      tableColumns: r.tableColumns,
      isCode: r.isCode,
      splitUnit: r.splitUnit,
      overlapChars: r.overlapChars,
      metadata: r.metadata,
      source: { filePath: r.source.filePath, startLine: r.source.startLine, endLine: r.source.endLine },
    };
    prevId = id;
  }
  return out;
}

async function child(shape, bytes) {
  const { chunkDocument } = await import(pathToFileURL(DIST).href);
  const text = SHAPES[shape](bytes);
  const chunk = fastest(() => chunkDocument(text, { docName: 'scaling' }).chunks);
  const records = chunkDocument(text, { docName: 'scaling' }).chunks;
  const fields = records.map((r) => fieldsOf(r, text));
  const floor = fastest(() => rebuild(fields, text));
  const result = { records: records.length, mb: Buffer.byteLength(text) / 1e6, chunk, floor };
  // Run by hand (`node --expose-gc bench/record-floor.mjs --child SHAPE BYTES`) there is no IPC channel.
  if (process.send) process.send(result);
  else console.log(JSON.stringify(result));
}

function runChild(shape, bytes) {
  return new Promise((done, fail) => {
    const proc = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=4096', fileURLToPath(import.meta.url), '--child', shape, String(bytes)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result = null;
    proc.on('message', (m) => (result = m));
    proc.on('error', fail);
    proc.on('exit', (code) => (result ? done(result) : fail(new Error(`record-floor: ${shape} exited ${code} without a result`))));
  });
}

async function main(argv) {
  const arg = (name, dflt) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : dflt;
  };
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const sizeArg = arg('size', '1m');
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(sizeArg ?? '');
  if (!m) {
    console.error(`record-floor: --size ${sizeArg}: expected a size such as 100k or 1m\n${USAGE}`);
    process.exit(2);
  }
  const bytes = Math.round(Number(m[1]) * ({ k: 1e3, m: 1e6 }[m[2].toLowerCase()] ?? 1));
  const shapes = arg('shapes', Object.keys(SHAPES).join(',')).split(',');
  for (const s of shapes) {
    if (!SHAPES[s]) {
      console.error(`record-floor: unknown shape ${s} (have ${Object.keys(SHAPES).join(', ')})\n${USAGE}`);
      process.exit(2);
    }
  }
  if (!shapes.includes('prose')) shapes.unshift('prose');
  const loadBefore = loadavg()[0].toFixed(2);
  const rows = [];
  for (const shape of shapes) rows.push({ shape, ...(await runChild(shape, bytes)) });
  const perMb = (ms, mb) => ms / 1000 / mb;
  const proseRate = perMb(rows[0].chunk.ms, rows[0].mb);
  console.log(`Command: \`node bench/record-floor.mjs ${argv.join(' ')}\`; size ${sizeArg}; load ${loadBefore} → ${loadavg()[0].toFixed(2)}; ${new Date().toISOString()}.`);
  console.log('');
  console.log('| shape | records per MB | chunkDocument s/MB (× prose) | its page faults | building the records alone s/MB (× prose) | its page faults | share of the pass |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const c = perMb(r.chunk.ms, r.mb);
    const f = perMb(r.floor.ms, r.mb);
    const n = (x) => Math.round(x).toLocaleString('en-US');
    console.log(`| ${r.shape} | ${n(r.records / r.mb)} | ${c.toFixed(3)} (${(c / proseRate).toFixed(1)}×) | ${n(r.chunk.faults)} | ${f.toFixed(3)} (${(f / proseRate).toFixed(1)}×) | ${n(r.floor.faults)} | ${((100 * r.floor.ms) / r.chunk.ms).toFixed(0)}% |`);
  }
}

const argv = process.argv.slice(2);
if (argv[0] === '--child') await child(argv[1], Number(argv[2]));
else await main(argv);
