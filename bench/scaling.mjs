#!/usr/bin/env node
// `npm run bench:scaling`: how chunking time grows with the input on adversarial shapes
// (issue 15). Each shape is generated at 10 KB, 100 KB, 1 MB and 10 MB and chunked with the
// default semantic options; the report gives seconds per MB and the ratio to ordinary prose at
// the same size. A linear stage keeps the ratio flat across sizes; a quadratic one makes it
// grow tenfold per step.
//
// Every case runs in a child process of its own with a timeout, so one slow case cannot hang
// the run, and each case starts from the same cold JIT state rather than from whatever ran
// before it. Inside the child only `chunkDocument` is timed (not generating the text). Each
// input is chunked repeatedly until 1 s has passed, at least ten times up to 1 MB and three times
// at 10 MB, and the fastest pass is reported: it is the one the shared machine's noise
// disturbed least, and a warm pass, not the cold first one (see minPasses).
//
//   node bench/scaling.mjs [--sizes 10k,100k,1m,10m] [--shapes a,b] [--timeout 60] [--strategy semantic] [--repeat N]
//   CHUNKYARD_BENCH_CHUNKING=build.js node bench/scaling.mjs …   times that build instead of packages/chunking/dist
//                          [--stage chunk|stream|remark|sentences|keywords|simhash]
//
// `--stage stream` times chunkDocumentStream, read to its end (chunking-tool's path for big
// documents). `--stage` times one other stage on the same shapes instead of the whole chunker: sentence
// segmentation (`sentenceStarts` of @chunkyard/chunking, ICU's segmenter a line at a time), keyword extraction
// (`extractKeywords` of @chunkyard/keywords on the shape as one source) or SimHash
// (`simhash64` of @chunkyard/simhash on the whole shape). Build those packages first.
//
// `--repeat N` runs the whole table N times in turn and reports each cell's median, with the
// range of its ratio to prose over the rounds: one run of this shared VM can be off by 3× in a
// cell.
//
// `--gc none` runs each case's passes back to back, with no full collection forced before each:
// a host's regime (the MCP server, the Nx batch executor), where what one document left is
// collected while the next is chunked. The table's default (`--gc between`) starts every pass
// from a collected heap, which rewards a chunker that keeps its last document's objects: V8 then
// keeps committed the old-generation pages the next pass promotes into (session 38).
//
// A shape that fails or times out at one size is not run at the larger ones.
import { spawn } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SHAPES } from './lib/shapes.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// CHUNKYARD_BENCH_CHUNKING=<file.js> times another build (a standalone one of a git state), as the peer bench's adapters do.
const DIST = process.env.CHUNKYARD_BENCH_CHUNKING ? resolve(process.env.CHUNKYARD_BENCH_CHUNKING) : join(root, 'packages/chunking/dist/index.js');

/** What a case times: `(text) => a count to report`, loaded in the child. */
const STAGES = {
  chunk: async (strategy) => {
    const { chunkDocument } = await import(pathToFileURL(DIST).href);
    return (text) => chunkDocument(text, { docName: 'scaling', strategy }).chunks.length;
  },
  // What chunking-tool runs on a document of two windows (128 Ki characters) or more: the same
  // records made a window at a time. Until session 41 the table timed chunkDocument alone, and
  // the stream was twice as slow on three shapes with no table to show it.
  stream: async (strategy) => {
    const { chunkDocumentStream } = await import(pathToFileURL(DIST).href);
    return (text) => {
      let n = 0;
      for (const _ of chunkDocumentStream(text, { docName: 'scaling', strategy }).chunks) n++;
      return n;
    };
  },
  // chunkDocument with `parser: 'remark'`, the reference parser (an option users can set):
  // about 1 s per MB of prose and 4–9 s on the block-dense shapes, linear since session 53
  // (micromark-linear.ts) but for deep-list (nesting as deep as the text allows, which remark
  // walks once per enclosing list); run it with --sizes up to 1m.
  remark: async (strategy) => {
    const { chunkDocument } = await import(pathToFileURL(DIST).href);
    return (text) => chunkDocument(text, { docName: 'scaling', strategy, parser: 'remark' }).chunks.length;
  },
  sentences: async () => {
    const { sentenceStarts } = await import(pathToFileURL(DIST).href);
    return (text) => sentenceStarts(text).length;
  },
  keywords: async () => {
    // CHUNKYARD_BENCH_KEYWORDS=<file.js>: another build of @chunkyard/keywords, as for chunking.
    const keywords = process.env.CHUNKYARD_BENCH_KEYWORDS ? resolve(process.env.CHUNKYARD_BENCH_KEYWORDS) : join(root, 'packages/keywords/dist/index.js');
    const { extractKeywords } = await import(pathToFileURL(keywords).href);
    return (text) => extractKeywords([{ name: 'scaling.md', text }]).length;
  },
  simhash: async () => {
    const { simhash64 } = await import(pathToFileURL(join(root, 'packages/simhash/dist/index.js')).href);
    return (text) => Number(simhash64(text) & 0xffn);
  },
};

const SIZE_UNITS = { k: 1e3, m: 1e6 };
function parseSize(s) {
  const m = /^(\d+(?:\.\d+)?)([km]?)b?$/i.exec(s.trim());
  if (!m) throw new Error(`bad size ${s}`);
  return Math.round(Number(m[1]) * (SIZE_UNITS[m[2].toLowerCase()] ?? 1));
}
const label = (bytes) => (bytes >= 1e6 ? `${bytes / 1e6} MB` : `${bytes / 1e3} KB`);

/** Whether the child collects garbage before every pass (`--gc between`, the default) or not (`--gc none`); the parent passes it on. */
const GC_BETWEEN = process.env.CHUNKYARD_SCALING_GC !== 'none';

async function child(shape, bytes, strategy, stage = 'chunk') {
  const run = await STAGES[stage](strategy);
  const text = SHAPES[shape](bytes);
  const times = [];
  const faults = [];
  let chunks = 0;
  const began = performance.now();
  do {
    // --gc between (the table's default): each pass starts from a collected heap. --gc none: passes
    // back to back, as a host chunking one document after another runs them (each pass then pays
    // for collecting what the passes before it left).
    if (GC_BETWEEN) globalThis.gc?.();
    const f0 = process.resourceUsage().minorPageFault;
    const t0 = performance.now();
    chunks = run(text);
    times.push(performance.now() - t0);
    faults.push(process.resourceUsage().minorPageFault - f0);
  } while ((performance.now() - began < WINDOW_MS || times.length < minPasses(bytes)) && times.length < 50);
  const fastest = times.indexOf(Math.min(...times));
  // The fastest pass's page faults: fresh memory it touched (4 KB each), what an
  // allocation-heavy shape pays for on a machine where a fault is dear (see firstTouchCost).
  const result = { ms: times[fastest], faults: faults[fastest], passes: times.length, chunks, bytes: Buffer.byteLength(text), tokens: stage === 'chunk' || stage === 'stream' ? await inputTokens(text) : 0 };
  // Run by hand (`node --cpu-prof bench/scaling.mjs --child SHAPE BYTES semantic`) there is no
  // IPC channel: print the result instead.
  if (process.send) process.send(result);
  else console.log(JSON.stringify(result));
}

/** The input's cl100k tokens (after the passes, untimed): what the chunker counts, the most of its work on prose. */
async function inputTokens(text) {
  const { countTokens } = await import(pathToFileURL(DIST).href);
  return countTokens(text);
}

/** How long a case is chunked again and again (with at least minPasses passes). */
const WINDOW_MS = 1000;

/**
 * Passes a case gets at least, so that every shape is timed as the best of about as many
 * passes as prose is (prose fits ten or more in the window up to 1 MB, three or four at
 * 10 MB), not cold (JIT warm-up included) against prose timed warm. Deep-quote at 100 KB takes
 * about 0.33 s, then 0.13 s, then 0.05 s and 0.02 s per pass, and with 0.5 s and no minimum
 * its cell was 0.12 or 1.1 s per MB depending on the machine's load. Until session 40 the
 * minimum was five up to 1 MB and one at 10 MB, so a slow shape's 10 MB cell was its one cold
 * pass against prose's fastest of three or four.
 */
function minPasses(bytes) {
  return bytes <= 1e6 ? 10 : 3;
}

/** The parent's --gc, passed to every child. */
let gcMode = 'between';

function runCase(shape, bytes, strategy, timeoutMs, stage) {
  return new Promise((resolveCase) => {
    const proc = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=4096', fileURLToPath(import.meta.url), '--child', shape, String(bytes), strategy, stage], {
      env: { ...process.env, CHUNKYARD_SCALING_GC: gcMode },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let result = null;
    let stderr = '';
    proc.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
    proc.on('message', (m) => (result = m));
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (result) resolveCase({ ok: true, ...result });
      else resolveCase({ ok: false, why: signal === 'SIGKILL' ? `> ${timeoutMs / 1000} s` : `failed (${code ?? signal}): ${stderr.trim().split('\n').pop()}` });
    });
  });
}

async function main(argv) {
  // An unknown option was ignored, and the whole benchmark ran without it.
  const known = new Set(['--sizes', '--shapes', '--timeout', '--strategy', '--stage', '--repeat', '--gc']);
  for (let i = 0; i < argv.length; i += 2) {
    if (!known.has(argv[i]) || argv[i + 1] === undefined) {
      console.error(`${known.has(argv[i]) ? `${argv[i]} needs a value` : `unknown argument ${argv[i]}`}\n${USAGE}`);
      process.exit(2);
    }
  }
  const arg = (name, dflt) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : dflt;
  };
  const sizes = arg('sizes', '10k,100k,1m,10m').split(',').map(parseSize);
  const shapes = arg('shapes', Object.keys(SHAPES).join(',')).split(',');
  for (const s of shapes) if (!SHAPES[s]) throw new Error(`unknown shape ${s} (have ${Object.keys(SHAPES).join(', ')})`);
  // The bases of the ratios: prose (the goal's) and the sample docs (real documentation).
  if (!shapes.includes('sample-docs')) shapes.unshift('sample-docs');
  if (!shapes.includes('prose')) shapes.unshift('prose');
  const timeoutMs = Number(arg('timeout', '60')) * 1000;
  const strategy = arg('strategy', 'semantic');
  const stage = arg('stage', 'chunk');
  gcMode = arg('gc', 'between');
  if (gcMode !== 'between' && gcMode !== 'none') {
    console.error(`--gc takes between or none, got ${gcMode}\n${USAGE}`);
    process.exit(2);
  }
  if (!STAGES[stage]) throw new Error(`unknown stage ${stage} (have ${Object.keys(STAGES).join(', ')})`);
  const repeat = Number(arg('repeat', '1'));
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 20) {
    console.error(`--repeat takes a whole number from 1 to 20, got ${arg('repeat')}\n${USAGE}`);
    process.exit(2);
  }
  const loadStart = loadavg();
  const touch = firstTouchCost();
  // results[shape][bytes]: one result per round. Rounds run the whole table in turn, so a
  // spell of load on the shared machine lands on every shape of a round, not on one shape's
  // repeats; the ratio is taken within a round (a shape against that round's prose).
  const results = {};
  for (let round = 1; round <= repeat; round++) {
    for (const bytes of sizes) {
      for (const shape of shapes) {
        // A shape that already failed or timed out at a smaller size would only do worse.
        const failedBefore = Object.entries(results[shape] ?? {}).filter(([smaller]) => Number(smaller) < bytes).flatMap(([, runs]) => runs).find((r) => !r.ok);
        const r = failedBefore ? { ok: false, why: `not run (${failedBefore.why.startsWith('not run') ? failedBefore.why.slice(9, -1) : failedBefore.why} at a smaller size)` } : await runCase(shape, bytes, strategy, timeoutMs, stage);
        ((results[shape] ??= {})[bytes] ??= []).push(r);
        process.stderr.write(`${repeat > 1 ? `[${round}/${repeat}] ` : ''}${shape} ${label(bytes)}: ${r.ok ? `${(r.ms / 1000).toFixed(3)} s (${r.passes} pass(es), ${r.chunks} chunks)` : r.why}\n`);
      }
    }
  }
  const loadEnd = loadavg();
  const fmtLoad = (l) => l.map((x) => x.toFixed(2)).join(' ');
  const perMb = (r, value) => value / (r.bytes / 1e6);
  /** A cell over the rounds: the median of `value`, and each round's ratio to that round's `baseShape`. */
  const cell = (shape, bytes, value, baseShape = 'prose') => {
    const runs = results[shape][bytes];
    const failed = runs.find((r) => !r.ok);
    if (failed) return { why: failed.why };
    const ratios = runs.map((r, i) => {
      const base = results[baseShape][bytes][i];
      return base?.ok ? perMb(r, value(r)) / perMb(base, value(base)) : NaN;
    });
    return { perMb: median(runs.map((r) => perMb(r, value(r)))), ratio: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
  };
  const fmtRatio = (c) => (Number.isNaN(c.ratio) ? '–' : `${c.ratio.toFixed(1)}×${repeat > 1 && c.low !== c.high ? `; ${c.low.toFixed(1)}–${c.high.toFixed(1)}` : ''}`);
  const out = [];
  out.push(`Command: \`${['node bench/scaling.mjs', ...argv].join(' ')}\` (${stage === 'chunk' ? `chunkDocument, strategy ${strategy}, default options` : stage === 'stream' ? `chunkDocumentStream, strategy ${strategy}, default options` : `stage ${stage}`}; ${gcMode === 'none' ? 'passes back to back, no collection forced between them' : 'a full collection before every pass'})`);
  out.push('');
  out.push(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}; load average (1/5/15 min) ${fmtLoad(loadStart)} at start, ${fmtLoad(loadEnd)} at end; ${new Date().toISOString()}.`);
  out.push(`Fresh memory: first touch ${touch.fresh.toFixed(1)} ms per MB, touching it again ${touch.again.toFixed(2)} ms per MB.`);
  out.push('');
  out.push(`Seconds per MB of input (fastest pass${repeat > 1 ? `; median of ${repeat} rounds` : ''}), and in brackets the ratio to prose of the same size${repeat > 1 ? ' (median, then the range over the rounds)' : ''}.`);
  out.push('');
  const table = (rowOf) => {
    out.push(`| shape | ${sizes.map(label).join(' | ')} |`);
    out.push(`| --- | ${sizes.map(() => '---:').join(' | ')} |`);
    for (const shape of shapes) out.push(`| ${shape} | ${sizes.map((bytes) => rowOf(shape, bytes)).join(' | ')} |`);
  };
  table((shape, bytes) => {
    const c = cell(shape, bytes, (r) => r.ms / 1000);
    return c.why ?? `${c.perMb.toFixed(2)} s (${fmtRatio(c)})`;
  });
  // The same seconds against real documentation: `prose` is a 62-word vocabulary in one
  // paragraph shape, faster per MB than any real document (session 56: the Chroma corpora and
  // .NET docs took 1.5–3 times its time per MB, the sample docs 1.6–2.1 times).
  out.push('');
  out.push(`The same seconds per MB, and in brackets the ratio to sample-docs (the repository's docs/**/golden-reference.md repeated to the size: real documentation) of the same size${repeat > 1 ? ' (median, then the range over the rounds)' : ''}. Context for the goal, not its measure: the first table is.`);
  out.push('');
  table((shape, bytes) => {
    const c = cell(shape, bytes, (r) => r.ms / 1000, 'sample-docs');
    return c.why ?? `${c.perMb.toFixed(2)} s (${fmtRatio(c)})`;
  });
  /** A table of `unitsOf(result)` per MB, with the time per unit as a ratio to prose's. */
  const perUnitTable = (title, unitsOf) => {
    out.push('');
    out.push(title);
    out.push('');
    table((shape, bytes) => {
      const c = cell(shape, bytes, (r) => (r.ms / Math.max(1, unitsOf(r))) * (r.bytes / 1e6));
      return c.why ? '–' : `${Math.round(median(results[shape][bytes].map((r) => unitsOf(r) / (r.bytes / 1e6)))).toLocaleString('en-US')} (${fmtRatio(c)})`;
    });
  };
  if (stage === 'chunk' || stage === 'stream') {
    // Records per MB differ elevenfold between shapes (prose ~3,100, tiny headings ~34,000),
    // and every record costs about the same to build: this table separates "more output per
    // byte" from "more work per record", which is what a super-linear stage would show.
    perUnitTable('Records per MB, and in brackets the time per record as a ratio to prose of the same size.', (r) => r.chunks);
    // A chunker's work grows with the tokens it counts and packs, and the shapes hold from a
    // tenth of prose's tokens per byte (a rule of dashes) to nearly five times them (tiny lines):
    // this table separates "more tokens per byte" from "more work per token".
    perUnitTable('cl100k tokens per MB of input, and in brackets the time per token as a ratio to prose of the same size.', (r) => r.tokens);
  }
  // Where a first touch costs what it does on a VM, the fresh memory a pass touches is much of
  // its time: this table shows which shapes pay it.
  out.push('');
  out.push(`Fresh memory the fastest pass touched (page faults × 4 KB), MB per MB of input${repeat > 1 ? ' (median)' : ''}. Prose's fastest pass is often one that touched none.`);
  out.push('');
  table((shape, bytes) => {
    const c = cell(shape, bytes, (r) => (r.faults * 4096) / 1e6);
    return c.why ? '–' : c.perMb.toFixed(1);
  });
  // The same seconds less what those faults cost here (first touch less touching again, per
  // MB touched): an estimate of the table on a machine whose fresh memory is cheap, which tells
  // how much of a shape's ratio is this machine's page faults and how much is work. Not the
  // goal's measure: the first table is.
  const faultMs = (r) => ((r.faults * 4096) / 1e6) * Math.max(0, touch.fresh - touch.again);
  out.push('');
  out.push(
    `Seconds per MB less the fastest pass's fresh memory at this machine's first-touch cost (${(touch.fresh - touch.again).toFixed(1)} ms per MB beyond a second touch), and the ratio to prose's, adjusted alike: an estimate for a machine where fresh memory is cheap, not the goal's measure.`,
  );
  out.push('');
  table((shape, bytes) => {
    const c = cell(shape, bytes, (r) => Math.max(0, r.ms - faultMs(r)) / 1000);
    return c.why ? '–' : `${c.perMb.toFixed(2)} s (${fmtRatio(c)})`;
  });
  console.log(out.join('\n'));
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * What this machine charges for memory: milliseconds per MB to fill 64 MB never touched before,
 * and to fill it again. On an ordinary machine the first is ~0.3 ms; on a VM that backs guest
 * pages lazily it can be twenty times that, and a shape that allocates much pays it per pass
 * (the collector gives pages back between passes).
 */
function firstTouchCost() {
  const bytes = 64 << 20;
  let t = performance.now();
  const buffer = new Uint8Array(bytes);
  buffer.fill(1);
  const fresh = performance.now() - t;
  t = performance.now();
  buffer.fill(2);
  const again = performance.now() - t;
  return { fresh: fresh / (bytes / 1e6), again: again / (bytes / 1e6) };
}

const USAGE = `usage: node bench/scaling.mjs [--sizes 10k,100k,1m,10m] [--shapes a,b] [--timeout 60] [--strategy semantic]
                              [--stage chunk|stream|remark|sentences|keywords|simhash] [--repeat N] [--gc between|none]
       node bench/scaling.mjs --child SHAPE BYTES [STRATEGY] [STAGE]   one case in the foreground (for node --cpu-prof)
shapes: ${Object.keys(SHAPES).join(', ')}
CHUNKYARD_BENCH_CHUNKING=build.js times that build instead of packages/chunking/dist
(CHUNKYARD_BENCH_KEYWORDS=build.js the same for packages/keywords/dist, with --stage keywords).
Prose is always run: every other cell is a ratio to it.`;

const argv = process.argv.slice(2);
// --help printed nothing and ran the whole benchmark (minutes, on a shared machine).
if (argv.includes('--help') || argv.includes('-h')) console.log(USAGE);
else if (argv[0] === '--child') await child(argv[1], Number(argv[2]), argv[3], argv[4]);
else await main(argv);
