#!/usr/bin/env node
// @ts-check
// Wall time of a fully cached `nx run-many -t index` (or another target) over N generated topics, in a temp copy
// of this workspace (real plugin, real chunking-tool). Prints the cold run, then the median of
// the cached runs (after one warm-up run that is not counted).
//
//   node packages/nx/e2e/bench-cached.mjs [--topics 200] [--runs 5] [--target index] [--keep]
//
// Each timed run is exactly
//   CI=true NX_DAEMON=false NX_NO_CLOUD=true NX_ISOLATE_PLUGINS=false \
//     node_modules/.bin/nx run-many -t <target> --outputStyle=static  </dev/null
// in the temp workspace, timed from spawn to exit.
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { syntheticTopics } from './synthetic-docs.mjs';
import { createTempWorkspace, runMany } from './temp-workspace.mjs';

const { values } = parseArgs({
  options: {
    topics: { type: 'string', default: '200' },
    runs: { type: 'string', default: '5' },
    target: { type: 'string', default: 'index' },
    keep: { type: 'boolean', default: false },
  },
});
const nTopics = Number(values.topics);
const nRuns = Number(values.runs);
const target = values.target;

const topics = syntheticTopics(nTopics);

const ws = createTempWorkspace({ prefix: 'chunkyard-bench-', topics });
try {
  // The cold run executes every task (4 per topic for index): allow it an hour.
  const cold = runMany(ws, ['-t', target], 3_600_000);
  console.log(`workspace: ${ws.root}`);
  console.log(`cold run: ${cold.ran.size} tasks ran, ${(cold.ms / 1000).toFixed(2)} s`);
  runMany(ws, ['-t', target]); // warm-up, not counted
  const times = [];
  for (let r = 0; r < nRuns; r++) {
    const run = runMany(ws, ['-t', target]);
    if (run.ran.size !== 0) throw new Error(`cached run ${r + 1}: ${run.ran.size} tasks ran`);
    times.push(run.ms);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  const fmt = (/** @type {number} */ ms) => (ms / 1000).toFixed(2);
  console.log(
    `fully cached run-many -t ${target}, ${nTopics} topics (${cold.ran.size} tasks): median ${fmt(median)} s ` +
      `over ${nRuns} runs (min ${fmt(sorted[0] ?? NaN)}, max ${fmt(sorted.at(-1) ?? NaN)}; ` +
      `all: ${times.map(fmt).join(', ')})`,
  );
} finally {
  if (!values.keep) rmSync(ws.root, { recursive: true, force: true });
}
