#!/usr/bin/env node
// Packs every workspace package into one folder, for a docs repo to install chunkyard from
// before it is on the npm registry, with any package manager.
//
//   node tools/pack-local.mjs /tmp/chunkyard                      pack, print the resolutions
//   node tools/pack-local.mjs /tmp/chunkyard --into ../my-docs    pack, and write them into
//                                                                 ../my-docs/package.json
//
// npm needs nothing more: given every tarball at once (`npm i -D nx /tmp/chunkyard/*.tgz`), it
// takes @chunkyard/nx's dependency `@chunkyard/index-tool@0.1.0` from the tarball beside it.
// pnpm and yarn resolve each dependency on its own, so they ask the registry for
// @chunkyard/index-tool and fail with a 404 (pnpm: ERR_PNPM_FETCH_404). A `resolutions` entry
// per package, `file:` the tarball, sends every such request to the tarball instead; both
// read that field (pnpm as an alias of `pnpm.overrides`), and npm ignores it. Yarn 1 (classic)
// applies it only below the packages added, not to them: there the docs repo adds @chunkyard/nx
// by its tarball's path (`yarn add -D nx /tmp/chunkyard/chunkyard-nx-0.1.0.tgz`, see README).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'usage: node tools/pack-local.mjs <tarball-folder> [--into <docs-repo folder or its package.json>]';

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  console.error(`pack-local: ${message}`);
  process.exit(2);
}

/** @param {string[]} argv */
function parseArgs(argv) {
  /** @type {string | undefined} */ let dest;
  /** @type {string | undefined} */ let into;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    if (a === '--into') {
      into = argv[++i];
      if (into === undefined || into === '') fail(`--into needs a folder (the docs repo) or its package.json\n${USAGE}`);
    } else if (a?.startsWith('-')) fail(`unknown option ${JSON.stringify(a)}\n${USAGE}`);
    else if (dest !== undefined) fail(`one tarball folder, got ${JSON.stringify(dest)} and ${JSON.stringify(a)}\n${USAGE}`);
    else dest = a;
  }
  if (dest === undefined || dest === '') fail(`no tarball folder given\n${USAGE}`);
  return { dest: resolve(/** @type {string} */ (dest)), into: into === undefined ? undefined : resolve(into) };
}

/**
 * The docs repo's package.json, read before packing so a wrong path costs nothing.
 * @param {string} into
 */
function readTarget(into) {
  if (!existsSync(into)) fail(`--into: ${into} does not exist (give the docs repo's folder or its package.json)`);
  const file = statSync(into).isDirectory() ? join(into, 'package.json') : into;
  if (!existsSync(file)) fail(`--into: ${file} does not exist (run \`npm init -y\` or \`pnpm init\` in the docs repo first)`);
  const text = readFileSync(file, 'utf8');
  /** @type {unknown} */ let pkg;
  try {
    pkg = JSON.parse(text);
  } catch (error) {
    fail(`--into: ${file} is not valid JSON (${/** @type {Error} */ (error).message})`);
  }
  if (typeof pkg !== 'object' || pkg === null || Array.isArray(pkg)) fail(`--into: ${file} holds no JSON object`);
  const resolutions = /** @type {Record<string, unknown>} */ (pkg).resolutions;
  if (resolutions !== undefined && (typeof resolutions !== 'object' || resolutions === null || Array.isArray(resolutions))) {
    fail(`--into: ${file}: "resolutions" is ${JSON.stringify(resolutions)}, not an object`);
  }
  // Keep the file's own indentation, so the diff is the resolutions alone.
  const indent = /^\{\r?\n([ \t]+)"/.exec(text)?.[1] ?? 2;
  return { file, pkg: /** @type {Record<string, unknown>} */ (pkg), indent, newline: text.endsWith('\n') ? '\n' : '' };
}

const { dest, into } = parseArgs(process.argv.slice(2));
const target = into === undefined ? undefined : readTarget(into);
if (existsSync(dest) && !statSync(dest).isDirectory()) fail(`${dest} is not a folder`);
mkdirSync(dest, { recursive: true });

/** @type {{ name: string, filename: string }[]} */
let packs;
try {
  const out = execFileSync('npm', ['pack', '--workspaces', '--pack-destination', dest, '--json', '--loglevel=error'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  packs = JSON.parse(out);
} catch (error) {
  fail(`npm pack --workspaces failed in ${ROOT}: ${/** @type {Error} */ (error).message.split('\n')[0]}`);
}

/** @type {Record<string, string>} */
const resolutions = {};
for (const { name, filename } of /** @type {{ name: string, filename: string }[]} */ (packs)) {
  // npm names a scoped tarball `chunkyard-nx-0.1.0.tgz`: the file, not the name, is what to point at.
  resolutions[name] = `file:${join(dest, filename)}`;
}

if (target === undefined) {
  console.log(JSON.stringify({ resolutions }, null, 2));
} else {
  const own = /** @type {Record<string, string>} */ (target.pkg.resolutions ?? {});
  // Entries for other packages stay; chunkyard's own are replaced with this pack's.
  target.pkg.resolutions = { ...Object.fromEntries(Object.entries(own).filter(([k]) => !k.startsWith('@chunkyard/'))), ...resolutions };
  writeFileSync(target.file, JSON.stringify(target.pkg, null, target.indent) + target.newline);
  console.log(`pack-local: ${packs.length} tarballs in ${dest}; "resolutions" for them written to ${target.file} (pnpm and yarn read it, npm needs none)`);
}
