#!/usr/bin/env node
// Throughput of the local lexical provider, in MB/s of UTF-8 text on one core.
//
//   node packages/embeddings/bench.mjs [DIR] [--runs N] [--dimensions D] [--version v1|v2]
//
// DIR defaults to /work/corpus/nodejs-api-md (the Node.js API docs, 3.24 MB; see the root
// README's Benchmarks section for how to get them). Every .md file under DIR is cut into
// ~2 KB paragraph-aligned pieces (about the size of a chunk, which is what the provider
// embeds in practice) and the whole set is embedded once cold, then N times (default 5).
// Prints the median and best warm pass, and the cold one. src/local.ts is bundled with esbuild in memory, so
// this needs no build step and measures the current source.
import { build } from 'esbuild';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { runs: { type: 'string', default: '5' }, dimensions: { type: 'string' }, version: { type: 'string', default: 'v1' } },
});
const dir = resolve(positionals[0] ?? '/work/corpus/nodejs-api-md');
const runs = Number(values.runs);
const version = values.version;
const dimensions = values.dimensions === undefined ? undefined : Number(values.dimensions);

function markdownFiles(d) {
  return readdirSync(d).flatMap((name) => {
    const p = join(d, name);
    if (statSync(p).isDirectory()) return markdownFiles(p);
    return /\.(md|markdown)$/i.test(name) ? [p] : [];
  });
}

/** ~2 KB pieces cut at blank lines (or anywhere, for a paragraph longer than that). */
function pieces(text, size = 2048) {
  const out = [];
  let cur = '';
  for (const para of text.split(/\n{2,}/)) {
    if (cur && cur.length + para.length > size) {
      out.push(cur);
      cur = '';
    }
    cur = cur ? `${cur}\n\n${para}` : para;
    while (cur.length > 2 * size) {
      out.push(cur.slice(0, size));
      cur = cur.slice(size);
    }
  }
  if (cur) out.push(cur);
  return out;
}

const files = markdownFiles(dir).sort();
if (files.length === 0) {
  console.error(`no .md files under ${dir}`);
  process.exit(2);
}
const texts = files.flatMap((f) => pieces(readFileSync(f, 'utf8')));
const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0);
const mb = bytes / 1e6;

const bundle = await build({
  entryPoints: [join(here, 'src/local.ts')],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
const code = bundle.outputFiles[0].text;
const { LocalLexicalProvider } = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);

const provider = new LocalLexicalProvider({ version, dimensions });
// The first pass is also reported: it pays for JIT, the stem cache and the character-class
// cache, which is what a one-off CLI run over a fresh corpus sees.
const c0 = process.hrtime.bigint();
provider.embedSync(texts);
const cold = Number(process.hrtime.bigint() - c0) / 1e6;
const times = [];
for (let r = 0; r < runs; r++) {
  const t0 = process.hrtime.bigint();
  provider.embedSync(texts);
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const best = times[0];
console.log(`corpus: ${dir} (${files.length} files, ${texts.length} pieces, ${mb.toFixed(2)} MB UTF-8)`);
console.log(`model: ${provider.model}, Node ${process.version}, ${runs} runs after 1 warm-up`);
console.log(`median: ${(mb / (median / 1000)).toFixed(1)} MB/s (${median.toFixed(0)} ms)`);
console.log(`best:   ${(mb / (best / 1000)).toFixed(1)} MB/s (${best.toFixed(0)} ms)`);
console.log(`cold:   ${(mb / (cold / 1000)).toFixed(1)} MB/s (${cold.toFixed(0)} ms, first pass in a fresh process)`);
