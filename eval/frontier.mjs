#!/usr/bin/env node
// The README's frontier table from `npm run eval` results: for each configuration of each
// run, recall / precision / IoU on the Chroma set and on the held-out dotnet-docs set, with
// 95% paired bootstrap CIs of the two differences the goal of issue 17 names: recall minus
// Recursive 400/200's and IoU minus 1.2 × Recursive 200/0's (per question, same run).
//
//   node eval/frontier.mjs RUN_LABEL=CHROMA_DIR/latest.json,DOCS_DIR/latest.json ...
import { readFileSync } from 'node:fs';
import { pairedBootstrap } from '../tools/eval/stats.mjs';

const f1 = (x) => (100 * x).toFixed(1);
const ci = (p) => `${(100 * p.mean).toFixed(1)} [${(100 * p.lo).toFixed(1)}, ${(100 * p.hi).toFixed(1)}]`;

function cells(record, name) {
  const r = record.results.find((x) => x.name === name);
  if (!r) return null;
  const base = (n) => record.results.find((x) => x.name === n);
  const r400 = base('Recursive-400-o200');
  const r200 = base('Recursive-200-o0');
  const a = r.summary.all;
  const out = { rpi: `${f1(a.recall.mean)} / ${f1(a.precision.mean)} / ${f1(a.iou.mean)}`, dr: '', di: '' };
  if (r400 && r !== r400) out.dr = ci(pairedBootstrap(r.perQuestion.map((q) => q.recall), r400.perQuestion.map((q) => q.recall)));
  if (r200 && r !== r200) out.di = ci(pairedBootstrap(r.perQuestion.map((q) => q.iou), r200.perQuestion.map((q) => 1.2 * q.iou)));
  return out;
}

const rows = [];
const seen = new Set();
for (const arg of process.argv.slice(2)) {
  const [label, files] = arg.split('=');
  const [chroma, docs] = files.split(',').map((f) => JSON.parse(readFileSync(f, 'utf8')));
  for (const r of chroma.results) {
    // The same configuration and route in two runs gives the same scores: print it once.
    if (seen.has(`${label}\0${r.name}`)) continue;
    seen.add(`${label}\0${r.name}`);
    const c = cells(chroma, r.name);
    const d = docs ? cells(docs, r.name) : null;
    rows.push(`| ${r.name} | ${label} | ${c.rpi} | ${c.dr} | ${c.di} | ${d?.rpi ?? ''} | ${d?.dr ?? ''} | ${d?.di ?? ''} |`);
  }
}
console.log('| configuration | embedder, route | Chroma R / P / IoU | Δ recall vs R400/200 | Δ IoU vs 1.2×R200 | docs R / P / IoU | Δ recall vs R400/200 | Δ IoU vs 1.2×R200 |');
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
console.log(rows.join('\n'));
