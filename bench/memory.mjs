#!/usr/bin/env node
// Peak memory of chunking one big document (issue 16, goal 4: at most 6 MiB of peak RSS per MB
// of input for a single 64 MB document).
//
//   node bench/memory.mjs [--mb 64] [--corpus DIR] [--strategy semantic]
//
// The document is the corpus's markdown files joined, repeated until it reaches the size
// (without --corpus: generated prose, a heading every 12 paragraphs). A child process with
// nothing else loaded builds the text, then chunks it once; it reports its peak RSS
// (getrusage's maxrss), the RSS before the text was built, and the chunk count. Run
// `node tools/build.mjs packages/chunking` first.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
  const [, bytesArg, corpus, strategy] = argv;
  const bytes = Number(bytesArg);
  const { chunkDocument } = await import(pathToFileURL(join(root, 'packages/chunking/dist/index.js')).href);
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
  } else text = prose(bytes);
  globalThis.gc?.();
  const withText = process.memoryUsage().rss;
  const t0 = performance.now();
  const out = chunkDocument(text, { docName: 'big', strategy });
  const ms = performance.now() - t0;
  const peak = process.resourceUsage().maxRSS * 1024;
  console.log(JSON.stringify({ bytes: Buffer.byteLength(text), chunks: out.chunks.length, ms, baseline, withText, peak }));
} else {
  const mb = Number(arg('mb', '64'));
  const corpus = arg('corpus', '');
  const strategy = arg('strategy', 'semantic');
  const load0 = loadavg();
  const r = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', fileURLToPath(import.meta.url), '--child', String(mb * 1e6), corpus ? resolve(corpus) : '', strategy], { encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(r.stderr.trim().split('\n').slice(-5).join('\n'));
    process.exit(1);
  }
  const res = JSON.parse(r.stdout.trim().split('\n').pop());
  const MiB = 2 ** 20;
  const perMb = (x) => (x / MiB / (res.bytes / 1e6)).toFixed(2);
  console.log(`Command: node bench/memory.mjs ${argv.join(' ')}`);
  console.log(`Load average ${load0.map((x) => x.toFixed(2)).join(' ')} at start, ${loadavg().map((x) => x.toFixed(2)).join(' ')} at end; Node ${process.version}; ${new Date().toISOString()}`);
  console.log(`Document: ${(res.bytes / 1e6).toFixed(1)} MB (${corpus ? `the files of ${corpus}, repeated` : 'generated prose'}), ${res.chunks} chunks in ${(res.ms / 1000).toFixed(1)} s (${strategy})`);
  console.log(`Peak RSS ${(res.peak / MiB).toFixed(0)} MiB = ${perMb(res.peak)} MiB per MB; over the process before the text: ${perMb(res.peak - res.baseline)} MiB per MB; the text alone: ${perMb(res.withText - res.baseline)} MiB per MB`);
}
