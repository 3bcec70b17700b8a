#!/usr/bin/env node
// A queries.yaml for `docs-score --queries` from the sample topics' qa-pairs.md: each question,
// its written answer as the reference, and the words of its verbatim excerpts as `required`
// (what Context Recall measures). Not published; the README's recall figures come from it.
//
//   node apps/docs-score/scripts/qa-queries.mjs docs > /tmp/qa.yaml
//   npx docs-score docs --queries /tmp/qa.yaml --metrics recall,pis --k 3
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseQaPairs } from '@chunkyard/qa-pairs';
import { stringify } from 'yaml';

const root = process.argv[2] ?? 'docs';
const queries = [];
const walk = (dir) => {
  const qa = join(dir, 'qa-pairs.md');
  if (existsSync(join(dir, 'golden-reference.md')) && existsSync(qa)) {
    const topic = relative(root, dir).split('\\').join('/');
    for (const p of parseQaPairs(readFileSync(qa, 'utf8'), qa)) {
      queries.push({ topic, question: p.question, answer: p.answer, required: p.excerpts.flatMap((e) => e.text.split(/\s+/)).filter(Boolean) });
    }
  }
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.isDirectory() && !e.name.startsWith('_') && !e.name.startsWith('.')) walk(join(dir, e.name));
  }
};
walk(root);
process.stdout.write(stringify({ queries }));
