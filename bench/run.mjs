#!/usr/bin/env node
// chunkyard benchmark: runs every adapter in bench/adapters/ over a markdown
// corpus and measures speed, peak RSS, size discipline, structure integrity and
// fidelity, all computed by the harness from the returned chunk texts/offsets. Each
// adapter runs in a forked process of its own (lib/adapter-child.mjs), passes interleaved
// across them; --in-process runs them all in this process instead.
//
//   npm run bench -- --corpus DIR [--runs 5] [--warmup 1] [--out DIR] [--max 512] [--target 400]
//                    [--adapters a,b] [--label NAME] [--no-rss] [--in-process]
//
// Markdown report on stdout, progress on stderr, results in <out>/latest.{json,md}.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const SCRIPT = fileURLToPath(import.meta.url);
const BENCH_DIR = dirname(SCRIPT);
const REPO_DIR = resolve(BENCH_DIR, '..');
const REEXEC_ENV = 'CHUNKYARD_BENCH_REEXEC';

const USAGE = `usage: npm run bench -- --corpus DIR [options]
  --corpus DIR     directory searched recursively for *.md / *.markdown (required)
  --runs N         timed passes per adapter, median reported (default 5)
  --warmup N       untimed passes per adapter first (default 1)
  --max N          maxTokens / chunk size given to every adapter (default 512)
  --target N       targetTokens given to adapters that take one (default 400)
  --adapters a,b   only these adapters (names = files in bench/adapters/)
  --label NAME     corpus name for the report (default: the directory name)
  --out DIR        results directory (default bench/results)
  --no-rss         skip the per-adapter child processes that measure peak RSS
  --slow-ms N      an adapter whose warm-up pass takes longer gets only --slow-runs
                   timed passes (default 60000; 0 disables)
  --slow-runs N    timed passes for such slow adapters (default 1)
  --in-process     run every adapter in this one process, as before isolation; their JIT
                   state then affects one another's timings (default: one child process
                   per adapter, passes still interleaved and one at a time)`;

/** @param {string} msg @returns {never} */
function fail(msg) {
  process.stderr.write(`bench: ${msg}\n\n${USAGE}\n`);
  process.exit(2);
}

// ---------------------------------------------------------------- arguments

/** @type {ReturnType<typeof parseArgs>['values'] & Record<string, any>} */
let args;
try {
  ({ values: args } = parseArgs({
    options: {
      corpus: { type: 'string' },
      runs: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '1' },
      max: { type: 'string', default: '512' },
      target: { type: 'string', default: '400' },
      adapters: { type: 'string' },
      label: { type: 'string' },
      out: { type: 'string' },
      'no-rss': { type: 'boolean', default: false },
      'slow-ms': { type: 'string', default: '60000' },
      'slow-runs': { type: 'string', default: '1' },
      'in-process': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (err) {
  fail(/** @type {Error} */ (err).message);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

/** @param {string} name @param {number} min */
function intArg(name, min) {
  const raw = String(args[name]);
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min) fail(`--${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

// npm runs scripts from the package root; resolve user paths against where npm was invoked.
const userCwd = process.env.INIT_CWD ?? process.cwd();
if (!args.corpus) fail('--corpus DIR is required');
const corpusDir = resolve(userCwd, args.corpus);
const runs = intArg('runs', 1);
const warmup = intArg('warmup', 0);
const maxTokens = intArg('max', 1);
const targetTokens = intArg('target', 1);
const outDir = args.out ? resolve(userCwd, args.out) : join(BENCH_DIR, 'results');

const { loadCorpus } = await import('./lib/corpus.mjs');
let files;
try {
  files = loadCorpus(corpusDir);
} catch (err) {
  process.stderr.write(`bench: ${/** @type {Error} */ (err).message}\n`);
  process.exit(2);
}

const { listAdapterNames } = await import('./lib/adapters.mjs');
const known = listAdapterNames();
let names = known;
if (args.adapters) {
  names = String(args.adapters).split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length) fail(`unknown adapter(s): ${unknown.join(', ')} (available: ${known.join(', ')})`);
}

// Forced GC before each pass needs --expose-gc: re-run this script with it when the passes run
// here (adapter children are always started with it).
if (args['in-process'] && typeof globalThis.gc !== 'function' && !process.env[REEXEC_ENV]) {
  const r = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, SCRIPT, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, [REEXEC_ENV]: '1' },
  });
  if (r.error) fail(`could not re-run node with --expose-gc: ${r.error.message}`);
  process.exit(r.status ?? 1);
}

// ---------------------------------------------------------------- setup

const { corpusFingerprint, childRunner, errorText, localRunner } = await import('./lib/runners.mjs');
const { active, closeAll, collectChunks, runRounds, startAll } = await import('./lib/schedule.mjs');
const { analyzeCorpus, evaluate } = await import('./lib/evaluate.mjs');
const { CHONKIE, OURS, renderMarkdown } = await import('./lib/report.mjs');
const { pkgVersion } = await import('./lib/pkg.mjs');

/** @param {string} msg */
const progress = (msg) => process.stderr.write(`[bench] ${msg}\n`);

/** @param {string} s */
const shellQuote = (s) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
const argv = process.argv.slice(2).map(shellQuote).join(' ');
const command =
  process.env.npm_lifecycle_event === 'bench'
    ? `npm run bench -- ${argv}`
    : `node ${relative(userCwd, SCRIPT) || SCRIPT} ${argv}`;

const loadavgStart = os.loadavg();
const startedAt = new Date();
const texts = files.map((f) => f.text);
const ctxs = files.map((f) => ({ docName: f.docName, fileName: f.rel }));

progress(`corpus ${corpusDir}: ${files.length} files; analysing (tokens, code blocks, tables)…`);
const analysis = analyzeCorpus(files, maxTokens);
const totals = analysis.totals;
progress(
  `${(totals.bytes / 1e6).toFixed(2)} MB, ${totals.tokens.toLocaleString('en-US')} cl100k tokens, ` +
    `${totals.codeBlocks} code blocks, ${totals.tables} tables`,
);

const inProcess = Boolean(args['in-process']);
const isolation = inProcess
  ? { mode: 'in-process', schedule: 'one process, interleaved rounds, one pass per adapter per round' }
  : { mode: 'fork', schedule: 'each adapter in its own child process (fork), interleaved rounds, one pass per adapter per round' };
progress(`schedule: ${isolation.schedule}`);
const expect = corpusFingerprint(files);
const runners = names.map((name) =>
  inProcess
    ? localRunner({ name, texts, ctxs, maxTokens, targetTokens })
    : childRunner({ name, corpusDir, expect, maxTokens, targetTokens }),
);
const adapters = await startAll(runners, progress);

// ---------------------------------------------------------------- timed passes

await runRounds(adapters, {
  warmup,
  runs,
  slowMs: intArg('slow-ms', 0),
  slowRuns: intArg('slow-runs', 1),
  progress,
});

// ---------------------------------------------------------------- metrics

const { median } = await import('./lib/metrics.mjs');
for (const a of active(adapters)) {
  const sorted = [...a.passesMs].sort((x, y) => x - y);
  const med = median(a.passesMs);
  a.timing = {
    warmupMs: a.warmupMs,
    passesMs: a.passesMs,
    medianMs: med,
    minMs: sorted[0],
    maxMs: sorted[sorted.length - 1],
    mbPerSec: totals.bytes / 1e6 / (med / 1000),
  };
  const chunksPerFile = await collectChunks(a, progress);
  if (!chunksPerFile) continue;
  try {
    progress(`metrics ${a.name}…`);
    a.metrics = evaluate(files, analysis, chunksPerFile, { max: maxTokens });
  } catch (err) {
    a.status = 'failed';
    a.error = `metrics failed: ${errorText(err)}`;
    progress(`${a.name}: ${a.error}`);
  }
}
await closeAll(adapters);

// ---------------------------------------------------------------- peak RSS (child processes)

const RSS_CHILD = join(BENCH_DIR, 'lib', 'rss-child.mjs');
/** @param {string | null} adapter */
function rssChild(adapter) {
  const cfg = JSON.stringify({ corpus: corpusDir, adapter, maxTokens, targetTokens });
  const r = spawnSync(process.execPath, [RSS_CHILD, cfg], { encoding: 'utf8', maxBuffer: 1 << 24, timeout: 30 * 60_000 });
  const lastLine = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !lastLine.startsWith('{')) {
    const why = r.error ? r.error.message : (r.stderr ?? '').trim().split('\n').slice(-3).join(' | ');
    throw new Error(`RSS child for ${adapter ?? 'baseline'} failed (exit ${r.status}): ${why}`);
  }
  return JSON.parse(lastLine);
}
const KIB_TO_MIB = 1 / 1024;
/** @type {{ peakMiB: number } | null} */
let baselineRss = null;
if (!args['no-rss'] && active(adapters).length > 0) {
  try {
    progress('peak RSS: baseline child…');
    baselineRss = { peakMiB: rssChild(null).maxRssKiB * KIB_TO_MIB };
    for (const a of active(adapters)) {
      progress(`peak RSS: ${a.name} child…`);
      try {
        const r = rssChild(a.name);
        const peak = r.maxRssKiB * KIB_TO_MIB;
        a.rss = { peakMiB: peak, deltaMiB: peak - baselineRss.peakMiB, childPassMs: r.ms };
      } catch (err) {
        a.rss = null;
        progress(errorText(err));
      }
    }
  } catch (err) {
    progress(errorText(err));
  }
}

// ---------------------------------------------------------------- results

function gitInfo() {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_DIR, encoding: 'utf8' });
  if (head.status !== 0) return null;
  const status = spawnSync('git', ['status', '--porcelain'], { cwd: REPO_DIR, encoding: 'utf8' });
  return { head: head.stdout.trim(), dirty: status.status === 0 && status.stdout.trim() !== '' };
}

const cpus = os.cpus();
const ours = adapters.find((a) => a.name === OURS && a.status === 'ok');
const chonkie = adapters.find((a) => a.name === CHONKIE && a.status === 'ok');
/** @type {Record<string, number>} */
const oursRatios = {};
if (ours) for (const a of active(adapters)) if (a !== ours) oursRatios[a.name] = ours.timing.mbPerSec / a.timing.mbPerSec;

const results = {
  schema: 1,
  date: startedAt.toISOString(),
  command,
  machine: {
    cpus: cpus.length,
    cpuModel: (cpus[0]?.model ?? 'unknown').trim(),
    totalMemGiB: os.totalmem() / 2 ** 30,
    platform: os.platform(),
    arch: os.arch(),
    node: process.version,
    exposeGc: !args['in-process'] || typeof globalThis.gc === 'function',
    loadavgStart,
    loadavgEnd: os.loadavg(),
  },
  git: gitInfo(),
  tools: { 'gpt-tokenizer': pkgVersion('gpt-tokenizer') },
  corpus: { label: args.label ?? basename(corpusDir), dir: corpusDir, ...totals },
  settings: { maxTokens, targetTokens, runs, warmup, isolation: isolation.mode, schedule: isolation.schedule },
  comparison:
    ours && chonkie
      ? { ratio: ours.timing.mbPerSec / chonkie.timing.mbPerSec, oursMBps: ours.timing.mbPerSec, chonkieMBps: chonkie.timing.mbPerSec }
      : null,
  oursThroughputRatios: oursRatios,
  baselineRss,
  adapters: adapters.map(({ runner, warmupMs, passesMs, ...rest }) => rest),
};

const markdown = renderMarkdown(results);
mkdirSync(outDir, { recursive: true });
const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
const json = `${JSON.stringify(results, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2)}\n`;
for (const base of ['latest', `bench-${stamp}`]) {
  writeFileSync(join(outDir, `${base}.json`), json);
  writeFileSync(join(outDir, `${base}.md`), markdown);
}
process.stdout.write(markdown);
const shown = relative(userCwd, outDir);
progress(`wrote ${shown && !shown.startsWith('..') ? shown : outDir}/latest.json and latest.md`);
if (active(adapters).length === 0) {
  process.stderr.write('bench: no adapter produced results\n');
  process.exit(1);
}
