#!/usr/bin/env node
// A/B of two builds of @chunkyard/chunking on one corpus, each pass in a fresh process:
//
//   node bench/ab.mjs --corpus DIR A.js B.js [--strategy semantic] [--rounds 4] [--passes 8] [--warmup 3]
//
// A.js / B.js are self-contained builds, one per git state
// (`node tools/build.mjs --standalone scratch/A.js packages/chunking`). Rounds alternate A, B, A, B …, each
// build in a new `node --expose-gc` process that runs --warmup untimed passes and then
// --passes timed ones (a full GC before each). It prints each process's min and median.
//
// Why not one process, or per-stage timings: on a shared 2-core VM single passes vary by up to
// 40%, and a stage that gets faster on its own can make the whole pipeline slower (V8 compiles
// the bigger loop worse, or it costs the stages after it their caches). Two such changes were
// backed out on 2026-11-22 after this comparison showed them slower. Compare the min column
// first: it is what the machine's noise disturbs least.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadCorpus } from './lib/corpus.mjs';

const USAGE = `usage: node bench/ab.mjs --corpus DIR A.js B.js [--strategy NAME] [--rounds N] [--passes N] [--warmup N]`;

/** @param {string} msg @returns {never} */
function fail(msg) {
  process.stderr.write(`ab: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

/** @type {any} */
let parsed;
try {
  parsed = parseArgs({
    options: {
      corpus: { type: 'string' },
      strategy: { type: 'string', default: 'semantic' },
      rounds: { type: 'string', default: '4' },
      passes: { type: 'string', default: '8' },
      warmup: { type: 'string', default: '3' },
      child: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
  });
} catch (err) {
  fail(/** @type {Error} */ (err).message);
}
const { values: args, positionals } = parsed;
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

/** @param {string} name */
function count(name) {
  const n = Number(args[name]);
  const min = name === 'warmup' ? 0 : 1;
  if (!/^\d+$/.test(String(args[name])) || n < min) fail(`--${name} must be an integer >= ${min}`);
  return n;
}

if (!args.corpus) fail('--corpus DIR is required');
const corpus = resolve(process.env.INIT_CWD ?? process.cwd(), args.corpus);
/** @type {import('./lib/corpus.mjs').CorpusFile[]} */
let files = [];
try {
  files = loadCorpus(corpus);
} catch (err) {
  fail(/** @type {Error} */ (err).message);
}

if (args.child) {
  // One build, one process: warm-up passes, then timed passes; one JSON line out.
  const [build] = positionals;
  const { chunkDocument } = await import(pathToFileURL(resolve(build)).href);
  const texts = files.map((f) => f.text);
  const gc = /** @type {() => void} */ (globalThis.gc);
  const times = [];
  for (let i = 0; i < count('warmup') + count('passes'); i++) {
    gc();
    const t0 = performance.now();
    for (const [k, text] of texts.entries()) chunkDocument(text, { docName: `doc${k}`, strategy: args.strategy });
    if (i >= count('warmup')) times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  process.stdout.write(`${JSON.stringify({ min: times[0], median: times[times.length >> 1] })}\n`);
  process.exit(0);
}

if (positionals.length !== 2) fail('give exactly two builds, A.js and B.js');
for (const p of positionals) if (!existsSync(resolve(process.env.INIT_CWD ?? process.cwd(), p))) fail(`${p}: no such build`);
const builds = positionals.map((p) => resolve(process.env.INIT_CWD ?? process.cwd(), p));
const self = fileURLToPath(import.meta.url);
/** @type {{ min: number, median: number }[][]} */
const results = [[], []];
for (let round = 1; round <= count('rounds'); round++) {
  for (const [b, build] of builds.entries()) {
    const childArgs = ['--corpus', corpus, '--strategy', args.strategy, '--passes', args.passes, '--warmup', args.warmup];
    const r = spawnSync(process.execPath, ['--expose-gc', self, '--child', ...childArgs, build], { encoding: 'utf8' });
    if (r.status !== 0) {
      const lines = (r.stderr || '').trim().split('\n');
      fail(`${build} failed in round ${round}: ${lines.find((l) => /^\w*Error\b/.test(l)) ?? lines.slice(-3).join(' | ')}`);
    }
    const line = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}');
    results[b]?.push(line);
    process.stderr.write(`round ${round} ${'AB'[b]}: min ${line.min.toFixed(0)} ms, median ${line.median.toFixed(0)} ms\n`);
  }
}
for (const [b, build] of builds.entries()) {
  const rows = results[b] ?? [];
  const mins = rows.map((r) => r.min.toFixed(0)).join(' ');
  const meds = rows.map((r) => r.median.toFixed(0)).join(' ');
  process.stdout.write(`${'AB'[b]} ${build}\n  min per process:    ${mins}\n  median per process: ${meds}\n`);
}
