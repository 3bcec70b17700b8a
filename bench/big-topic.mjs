#!/usr/bin/env node
// How the four pipeline tools scale with one big topic: each size is a generated document of
// about one chunk per section (the inspector's big-doc.mjs), chunked with small chunks, then
// keyword-extractor, topic-spec and index-tool run on it as a user runs them; wall time and peak
// memory of each. Session 52 found index-tool at 3.4 GB on 40,000 chunks this way.
//
//   node bench/big-topic.mjs [SECTIONS…]      default 5000 10000 20000
//
// Needs GNU time at /usr/bin/time (Debian's package `time`) for the peak memory.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bigMarkdown } from '../apps/inspector/scripts/big-doc.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sizes = process.argv.slice(2).map(Number);
if (sizes.some((n) => !Number.isInteger(n) || n < 3)) {
  console.error('usage: node bench/big-topic.mjs [SECTIONS…] (whole numbers of at least 3)');
  process.exit(2);
}
if (spawnSync('/usr/bin/time', ['-f', '', 'true']).status !== 0) {
  console.error('bench/big-topic.mjs: needs GNU time at /usr/bin/time (apt-get install time)');
  process.exit(2);
}
for (const n of sizes.length ? sizes : [5000, 10000, 20000]) {
  const dir = mkdtempSync(join(tmpdir(), 'chunkyard-big-topic-'));
  try {
    const docs = join(dir, 'docs');
    const topic = join(docs, 'g', 'big');
    mkdirSync(topic, { recursive: true });
    writeFileSync(join(topic, 'golden-reference.md'), bigMarkdown(n));
    const config = join(dir, 'big.yaml');
    writeFileSync(config, 'chunking:\n  minTokens: 16\n  targetTokens: 86\n  maxTokens: 128\n');
    const steps = [
      ['chunking-tool', [topic, '--config', config]],
      ['keyword-extractor', [topic]],
      ['topic-spec', [topic, '--config', config]],
      ['index-tool', [topic, '--root', docs]],
    ];
    const out = [];
    for (const [name, args] of steps) {
      // GNU time's %M: the peak resident set of the tool's process.
      const run = spawnSync('/usr/bin/time', ['-f', '%e %M', process.execPath, join(REPO, `apps/${name}/bin/${name}.js`), ...args], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
      if (run.status !== 0) throw new Error(`${name} failed (exit ${run.status}): ${run.stderr.trim()}`);
      const [seconds, kb] = run.stderr.trim().split('\n').at(-1).split(' ').map(Number);
      out.push(`${name} ${seconds.toFixed(1)} s ${Math.round(kb / 1024)} MB`);
    }
    console.log(`${n} sections (${(statSync(join(topic, 'golden-reference.md')).size / 1e6).toFixed(1)} MB): ${out.join(', ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
