#!/usr/bin/env node
// `npm run bench -- --corpus DIR …`: installs the benchmark's peers into bench/ (its own
// package.json and lockfile, kept out of the main install so that `npm ci` never depends
// on them), builds our chunker, then runs bench/run.mjs with the given arguments.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
const PEERS = ['@chonkiejs/core', '@langchain/textsplitters', '@llamaindex/core', '@mastra/rag', 'js-tiktoken'];
if (PEERS.some((p) => !existsSync(join(root, 'bench/node_modules', p, 'package.json')))) {
  console.error('bench: installing the peers into bench/ (once)…');
  run('npm', ['install', '--prefix', 'bench', '--no-audit', '--no-fund', '--loglevel=error']);
}
run('node', ['tools/build.mjs', 'packages/chunking'], { env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' } });
run('node', ['--expose-gc', 'bench/run.mjs', ...process.argv.slice(2)]);
