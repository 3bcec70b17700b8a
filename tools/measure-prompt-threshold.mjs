#!/usr/bin/env node
// Measures spec.promptThreshold: how well "store a question's hash on every chunk whose
// similarity to it is >= t" finds the chunks that answer it. Ground truth: the chunks whose
// source range overlaps one of the question's reference excerpts in qa-pairs.md.
//
//   node tools/measure-prompt-threshold.mjs [docs-dir] [--config chunkyard.config.yaml]
//
// Chunks with the workspace's chunking settings, embeds with the configured provider (local by
// default), and prints precision / recall / F1 of (question, chunk) pairs for t = 0.05 … 0.8.
// Needs the built packages (npm ci builds them).
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { chunkDocument } from '../packages/chunking/dist/index.js';
import { parseConfig } from '../packages/config/dist/index.js';
import { createProvider } from '../packages/embeddings/dist/index.js';
import { parseQaPairs, locateExcerpts } from '../packages/qa-pairs/dist/index.js';
import { cosine } from '../packages/spec/dist/index.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { config: { type: 'string', default: 'chunkyard.config.yaml' } } });
const docsDir = positionals[0] ?? 'docs';
const config = existsSync(values.config) ? parseConfig(readFileSync(values.config, 'utf8'), values.config) : { chunking: {} };
const provider = createProvider({ provider: 'local', ...config.embeddings });

function* topics(dir) {
  if (existsSync(join(dir, 'golden-reference.md'))) yield dir;
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory() && !e.name.startsWith('_')) yield* topics(join(dir, e.name));
}

const pairs = []; // { sims: number[], truth: Set<number> }
let questionsWithout = 0;
for (const dir of topics(docsDir)) {
  const qaFile = join(dir, 'qa-pairs.md');
  if (!existsSync(qaFile)) continue;
  const source = readFileSync(join(dir, 'golden-reference.md'), 'utf8').replace(/^\uFEFF/, '');
  const { chunks } = chunkDocument(source, { ...config.chunking, docName: 'golden-reference' });
  const qa = parseQaPairs(readFileSync(qaFile, 'utf8'), qaFile);
  const located = locateExcerpts(qa, source, qaFile, 'golden-reference.md');
  const [chunkVectors, questionVectors] = [await provider.embed(chunks.map((c) => c.embedText)), await provider.embed(qa.map((q) => q.question))];
  qa.forEach((q, qi) => {
    const truth = new Set();
    for (const e of located[qi]) {
      chunks.forEach((c, ci) => {
        if (c.sourcePosition.charStart < e.end && e.start < c.sourcePosition.charEnd) truth.add(ci);
      });
    }
    if (truth.size === 0) return void questionsWithout++;
    pairs.push({ topic: relative(docsDir, dir), sims: chunkVectors.map((v) => cosine(questionVectors[qi], v)), truth });
  });
}

console.log(`${pairs.length} questions with excerpts (${questionsWithout} without), ${provider.model}\n`);
console.log('| threshold | precision | recall | F1 | questions with >= 1 correct chunk | share of (question, chunk) pairs stored |');
console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
const chunkCount = pairs.reduce((n, p) => n + p.sims.length, 0) / Math.max(1, pairs.length);
let best = null;
for (let t = 0.05; t <= 0.801; t += 0.05) {
  let tp = 0, fp = 0, fn = 0, hit = 0, stored = 0;
  for (const p of pairs) {
    let any = false;
    p.sims.forEach((s, ci) => {
      const predicted = s >= t;
      if (predicted) stored++;
      if (predicted && p.truth.has(ci)) (tp++, (any = true));
      else if (predicted) fp++;
      else if (p.truth.has(ci)) fn++;
    });
    if (any) hit++;
  }
  const precision = tp / Math.max(1, tp + fp), recall = tp / Math.max(1, tp + fn);
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  if (!best || f1 > best.f1) best = { t, f1 };
  console.log(`| ${t.toFixed(2)} | ${precision.toFixed(3)} | ${recall.toFixed(3)} | ${f1.toFixed(3)} | ${((100 * hit) / pairs.length).toFixed(1)}% | ${(stored / (pairs.length * chunkCount)).toFixed(3)} |`);
}
console.log(`\nbest F1 at threshold ${best.t.toFixed(2)} (${best.f1.toFixed(3)})`);
