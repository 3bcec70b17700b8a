#!/usr/bin/env node
// Peak memory of chunking one big document (issue 16, goal 4: at most 6 MiB of peak RSS per MB
// of input for a single 64 MB document), and what the chunker still holds once the call has
// returned and its result is dropped (a long-running host, such as the MCP server, chunks one
// document after another).
//
//   node bench/memory.mjs [--mb 64] [--corpus DIR | --shape NAME] [--strategy semantic] [--parser fast|remark] [--path both|whole|stream]
//   CHUNKYARD_BENCH_CHUNKING=build.js node bench/memory.mjs …   measures that build instead of packages/chunking/dist
//
// The document is the corpus's markdown files joined, repeated until it reaches the size
// (--shape: one of bench/scaling.mjs's adversarial shapes; neither: generated prose, a heading
// every 12 paragraphs). A child process with
// nothing else loaded builds the text, then chunks it once; it reports its peak RSS
// (getrusage's maxrss), the RSS before the text was built, and the chunk count. Then it drops
// the records, collects garbage and reports the heap and off-heap (ArrayBuffer) memory still
// in use beyond what it used with the text alone: what the call keeps. Run
// `node tools/build.mjs packages/chunking` first.
//
// --path: `whole` is chunkDocument (all records returned at once); `stream` is
// chunkDocumentStream with each record serialized (JSON.stringify, as chunking-tool writes it)
// and dropped as it comes, so nothing holds the records; `both` (default) runs one child each.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SHAPES } from './lib/shapes.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};

function markdownFiles(dir) {
  const out = [];
  for (const f of readdirSync(dir).sort()) {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) out.push(...markdownFiles(p));
    else if (/\.(md|markdown)$/.test(f)) out.push(p);
  }
  return out;
}

function prose(bytes) {
  let s = 42;
  const r = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const W = 'the of and to in a is that for it as was with be by on not this are or from at which but have an they you chunk token serializer options document heading table value parser output configuration install request response buffer stream'.split(' ');
  const parts = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const para = Array.from({ length: 5 }, () => {
      const w = Array.from({ length: 6 + Math.floor(r() * 14) }, () => W[Math.floor(r() * W.length)]);
      return `${w.join(' ')}.`;
    }).join(' ');
    const p = (i % 12 === 0 ? `## Section ${i}\n\n` : '') + para + '\n\n';
    parts.push(p);
    n += p.length;
  }
  return parts.join('');
}

if (argv[0] === '--child') {
  const [, bytesArg, corpus, strategy, path, shape, parser] = argv;
  const bytes = Number(bytesArg);
  // CHUNKYARD_BENCH_CHUNKING=<file.js>: another build (a standalone one of a git state), as scaling.mjs takes.
  const dist = process.env.CHUNKYARD_BENCH_CHUNKING ? resolve(process.env.CHUNKYARD_BENCH_CHUNKING) : join(root, 'packages/chunking/dist/index.js');
  const { chunkDocument, chunkDocumentStream } = await import(pathToFileURL(dist).href);
  // Warm the module's lazy tables on a small text, so the baseline holds them.
  chunkDocument('# Warm\n\nSome text.\n', { docName: 'warm', strategy });
  globalThis.gc?.();
  const baseline = process.memoryUsage().rss;
  let text;
  if (corpus) {
    const files = markdownFiles(corpus).map((f) => readFileSync(f, 'utf8'));
    const parts = [];
    let n = 0;
    for (let i = 0; n < bytes; i++) {
      const f = files[i % files.length];
      parts.push(f, '\n\n');
      n += Buffer.byteLength(f) + 2;
    }
    text = parts.join('');
  } else text = shape ? SHAPES[shape](bytes) : prose(bytes);
  globalThis.gc?.();
  const inUse = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const withText = process.memoryUsage().rss;
  const usedWithText = inUse();
  const t0 = performance.now();
  let chunks = 0;
  let sectioned = false;
  if (path === 'stream') {
    // BENCH_WINDOW_CHARS: try another window size (chunkDocumentStream's extras.windowChars).
    const out = chunkDocumentStream(text, { docName: 'big', strategy, parser }, process.env.BENCH_WINDOW_CHARS ? { windowChars: Number(process.env.BENCH_WINDOW_CHARS) } : {});
    sectioned = out.sectioned;
    let json = 0;
    for (const record of out.chunks) {
      json += JSON.stringify(record).length;
      chunks++;
    }
    if (json === 0) throw new Error('no records');
  } else {
    chunks = chunkDocument(text, { docName: 'big', strategy, parser }).chunks.length;
  }
  const ms = performance.now() - t0;
  const peak = process.resourceUsage().maxRSS * 1024;
  // The records are gone (only their count was kept): what is still in use was kept by the call.
  // Collected a turn of the event loop later, as a host's collector would: within the call's own
  // turn a WeakRef's target stays (ECMA-262 KeepDuringJob), and block-pool.ts's pool, held
  // weakly, was counted as kept.
  await new Promise((resolve) => setImmediate(resolve));
  globalThis.gc?.();
  globalThis.gc?.();
  const kept = inUse() - usedWithText;
  console.log(JSON.stringify({ bytes: Buffer.byteLength(text), chunks, sectioned, ms, baseline, withText, peak, kept }));
} else {
  const usage = `usage: node bench/memory.mjs [--mb 64] [--corpus DIR | --shape NAME] [--strategy semantic] [--parser fast|remark] [--path both|whole|stream]\nshapes: ${Object.keys(SHAPES).join(', ')}`;
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(`${usage}\n\nPeak RSS per MB of chunking one big document (issue 16, goal 4); see the comment at the top of this file.`);
    process.exit(0);
  }
  const known = new Set(['--mb', '--corpus', '--shape', '--strategy', '--parser', '--path']);
  for (let i = 0; i < argv.length; i += 2) {
    if (!known.has(argv[i]) || argv[i + 1] === undefined) {
      console.error(`bench/memory.mjs: ${known.has(argv[i]) ? `${argv[i]} needs a value` : `unknown argument ${argv[i]}`}\n${usage}`);
      process.exit(2);
    }
  }
  const mb = Number(arg('mb', '64'));
  if (!(mb > 0)) {
    console.error(`bench/memory.mjs: --mb must be a positive number of MB, got ${arg('mb')}`);
    process.exit(2);
  }
  if (!['both', 'whole', 'stream'].includes(arg('path', 'both'))) {
    console.error(`bench/memory.mjs: --path must be both, whole or stream, got ${arg('path')}`);
    process.exit(2);
  }
  const corpus = arg('corpus', '');
  const shape = arg('shape', '');
  if ((shape && !SHAPES[shape]) || (shape && corpus)) {
    console.error(`bench/memory.mjs: ${shape && corpus ? '--shape and --corpus are two sources of text: give one' : `unknown shape ${shape}`}\n${usage}`);
    process.exit(2);
  }
  const strategy = arg('strategy', 'semantic');
  // The remark route (`parser: 'remark'`): until session 55 it held micromark's events for the
  // whole document, 2.5 GB at 1 MB of short paragraphs (remark-windows.ts).
  const parser = arg('parser', 'fast');
  if (!['fast', 'remark'].includes(parser)) {
    console.error(`bench/memory.mjs: --parser must be fast or remark, got ${parser}`);
    process.exit(2);
  }
  const paths = arg('path', 'both') === 'both' ? ['whole', 'stream'] : [arg('path', 'both')];
  const load0 = loadavg();
  const results = [];
  for (const path of paths) {
    const r = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', fileURLToPath(import.meta.url), '--child', String(mb * 1e6), corpus ? resolve(corpus) : '', strategy, path, shape, parser], { encoding: 'utf8' });
    if (r.status !== 0) {
      console.error(r.stderr.trim().split('\n').slice(-5).join('\n'));
      process.exit(1);
    }
    results.push([path, JSON.parse(r.stdout.trim().split('\n').pop())]);
  }
  const MiB = 2 ** 20;
  console.log(`Command: node bench/memory.mjs ${argv.join(' ')}`);
  console.log(`Load average ${load0.map((x) => x.toFixed(2)).join(' ')} at start, ${loadavg().map((x) => x.toFixed(2)).join(' ')} at end; Node ${process.version}; ${new Date().toISOString()}`);
  for (const [path, res] of results) {
    const perMb = (x) => (x / MiB / (res.bytes / 1e6)).toFixed(2);
    const how = path === 'stream' ? `chunkDocumentStream, records serialized and dropped${res.sectioned ? '' : ' (fell back to the whole document)'}` : 'chunkDocument';
    console.log(`${how}: ${(res.bytes / 1e6).toFixed(1)} MB (${corpus ? `the files of ${corpus}, repeated` : shape ? `the ${shape} shape` : 'generated prose'}), ${res.chunks} chunks in ${(res.ms / 1000).toFixed(1)} s (${strategy}, parser ${parser})`);
    console.log(`  Peak RSS ${(res.peak / MiB).toFixed(0)} MiB = ${perMb(res.peak)} MiB per MB; over the process before the text: ${perMb(res.peak - res.baseline)} MiB per MB; the text alone: ${perMb(res.withText - res.baseline)} MiB per MB`);
    console.log(`  Kept after the call, its records dropped: ${(res.kept / MiB).toFixed(1)} MiB = ${perMb(res.kept)} MiB per MB (heap and ArrayBuffers in use beyond the text's)`);
  }
}
