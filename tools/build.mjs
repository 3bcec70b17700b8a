#!/usr/bin/env node
// Builds workspace projects with esbuild: every `src/index.ts` becomes `dist/index.js`
// and every `src/main.ts` becomes `dist/main.js`. Workspace packages (@chunkyard/*) are
// bundled from source so an app's dist is the whole of its own code (which is what
// the Nx topic targets hash); npm dependencies stay external and are hashed as
// externalDependencies instead.
//
//   node tools/build.mjs                 build every project under packages/ and apps/
//   node tools/build.mjs apps/chunking-tool packages/chunking
//
// Runs from `npm ci` (the root `prepare` script), so `npx chunking-tool` works on a
// fresh clone. Writes are atomic per file: esbuild writes to a temp dir first.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

function workspaceProjects() {
  return ['packages', 'apps'].flatMap((group) => {
    const dir = join(root, group);
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'package.json')))
      .map((e) => join(dir, e.name));
  });
}

function externalsOf(projectDir) {
  const pkg = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8'));
  const names = new Set([
    ...Object.keys(rootPkg.dependencies ?? {}),
    ...Object.keys(rootPkg.devDependencies ?? {}),
    ...Object.keys(pkg.dependencies ?? {}),
  ]);
  return [...names].filter((n) => !n.startsWith('@chunkyard/'));
}

async function buildProject(projectDir) {
  const entries = ['index', 'main'].filter((n) => existsSync(join(projectDir, 'src', `${n}.ts`)));
  if (entries.length === 0) return [];
  const tmp = join(projectDir, `dist.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    await build({
      entryPoints: entries.map((n) => join(projectDir, 'src', `${n}.ts`)),
      outdir: tmp,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      conditions: ['source'],
      external: externalsOf(projectDir).flatMap((n) => [n, `${n}/*`]),
      // Deterministic output: no absolute paths, no timestamps, no source maps.
      legalComments: 'none',
      logLevel: 'warning',
      banner: { js: '// Built by tools/build.mjs from src/ — do not edit.' },
    });
    const dist = join(projectDir, 'dist');
    rmSync(dist, { recursive: true, force: true });
    renameSync(tmp, dist);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return entries.map((n) => relative(root, join(projectDir, 'dist', `${n}.js`)));
}

const args = process.argv.slice(2);
const projects = args.length > 0 ? args.map((a) => resolve(root, a)) : workspaceProjects();
const started = performance.now();
const built = (await Promise.all(projects.map(buildProject))).flat();
if (!process.env.CHUNKYARD_BUILD_QUIET) {
  console.error(`built ${built.length} bundle(s) in ${Math.round(performance.now() - started)} ms`);
}
