#!/usr/bin/env node
// `npm run eval -- …`: installs LangChain's splitters into bench/ (the peers' own
// package.json and lockfile, kept out of the main install so `npm ci` stays lean),
// builds the packages the eval imports, then runs eval/retrieval.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
if (!existsSync(join(root, 'bench/node_modules/@langchain/textsplitters'))) {
  console.error('eval: installing the peers into bench/ (once)…');
  run('npm', ['install', '--prefix', 'bench', '--no-audit', '--no-fund', '--loglevel=error']);
}
const packages = ['chunking', 'embeddings', 'quality', 'config', 'retrieval'].map((p) => `packages/${p}`);
run('node', ['tools/build.mjs', ...packages], { env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' } });
run('node', ['eval/retrieval.mjs', ...process.argv.slice(2)]);
