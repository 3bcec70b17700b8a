#!/usr/bin/env node
// Builds workspace projects: esbuild turns every `src/index.ts` into `dist/index.js` and every
// `src/main.ts` into `dist/main.js`, and TypeScript writes the `.d.ts` files beside them
// (`src/x.ts` -> `dist/x.d.ts`; see declarations() for which programs).
//
// - Libraries (packages/*) keep every package import external, other @chunkyard/* libraries
//   included: those are real dependencies of the published package, so one copy of each
//   class exists however many libraries a user installs.
// - Apps (apps/*) bundle the @chunkyard libraries from source into `dist/main.js`, so an
//   app's dist is the whole of its own code (what the Nx topic targets hash); npm packages and
//   other @chunkyard apps (the tools `chunkyard` dispatches to) stay external.
//
//   node tools/build.mjs                      build every project under packages/ and apps/
//   node tools/build.mjs apps/chunking-tool packages/chunking
//   node tools/build.mjs --standalone OUT.js packages/chunking
//
// Naming a library also builds the libraries it imports (its dist imports theirs). Naming an
// app builds that app alone: the apps it imports (the tools `chunkyard` dispatches to) have
// their own Nx build targets, and rebuilding their dist/ here could pull it from under a topic
// task running one. `--standalone` writes one self-contained ESM file of a library with its
// @chunkyard dependencies bundled in, as bench/ab.mjs compares builds.
//
// Runs from `npm ci` (the root `prepare` script), so `npx chunking-tool` works on a fresh
// clone. Writes are atomic per project: everything goes to a temp dir first.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// require, not import: importing the 9 MB CommonJS file from ESM makes Node scan it for
// named exports first, which costs about half a second of every build.
/** @type {typeof import('typescript')} */
const ts = createRequire(import.meta.url)('typescript');

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BANNER = '// Built by tools/build.mjs from src/ — do not edit.';

/**
 * @typedef {object} Project
 * @property {string} dir       absolute folder
 * @property {string} name      package name
 * @property {'app' | 'lib'} kind
 * @property {string[]} entries `index` and/or `main`, and the subpath entries: the src/<entry>.ts files (sourceEntries)
 * @property {Record<string, string>} deps dependencies and peerDependencies
 */

/**
 * `index` and `main` when they exist, and every other `src/<name>.ts` an `exports` entry names
 * as its `source` (subpath exports such as `@chunkyard/chunking/langchain`): each is its own
 * `dist/<name>.js` and `.d.ts`.
 * @param {string} dir @param {{ exports?: Record<string, unknown> }} pkg
 */
function sourceEntries(dir, pkg) {
  const names = ['index', 'main'].filter((n) => existsSync(join(dir, 'src', `${n}.ts`)));
  for (const value of Object.values(pkg.exports ?? {})) {
    const source = typeof value === 'object' && value !== null ? /** @type {{ source?: unknown }} */ (value).source : undefined;
    const m = typeof source === 'string' ? /^\.\/src\/([\w-]+)\.ts$/.exec(source) : null;
    if (m && !names.includes(m[1])) names.push(m[1]);
  }
  return names;
}

/** @param {string} dir @returns {Project} */
function loadProject(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return {
    dir,
    name: pkg.name,
    kind: relative(root, dir).split(sep)[0] === 'apps' ? 'app' : 'lib',
    entries: sourceEntries(dir, pkg),
    deps: { ...pkg.peerDependencies, ...pkg.dependencies },
  };
}

/** @returns {Project[]} */
function workspaceProjects() {
  return ['packages', 'apps'].flatMap((group) => {
    const dir = join(root, group);
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'package.json')))
      .map((e) => e.name)
      .sort()
      .map((name) => loadProject(join(dir, name)));
  });
}

const all = workspaceProjects();
const byName = new Map(all.map((p) => [p.name, p]));

/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`. @param {string} spec */
const packageNameOf = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

/**
 * Whether `project`'s bundle inlines the workspace package `dep` (true) or imports it at run
 * time (false). Only apps inline, and only libraries; `standalone` inlines every library.
 * @param {Project} project @param {Project | undefined} dep @param {boolean} standalone
 */
const inlines = (project, dep, standalone) => dep?.kind === 'lib' && (standalone || project.kind === 'app');

/**
 * Everything that is not inlined stays an import: npm packages (declared in the package's
 * dependencies; tools/packaging checks that) and the @chunkyard packages it depends on.
 * @param {Project} project @param {boolean} standalone @returns {import('esbuild').Plugin}
 */
function externals(project, standalone) {
  return {
    name: 'chunkyard-externals',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) =>
        inlines(project, byName.get(packageNameOf(args.path)), standalone) ? undefined : { path: args.path, external: true },
      );
    },
  };
}

/** @param {Project} project @param {string} outdir @param {boolean} standalone */
function bundle(project, outdir, standalone = false) {
  return build({
    entryPoints: project.entries.map((n) => join(project.dir, 'src', `${n}.ts`)),
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    // Inlined workspace libraries are read from their TypeScript sources.
    conditions: ['source'],
    plugins: [externals(project, standalone)],
    // Deterministic output: no absolute paths, no timestamps, no source maps.
    legalComments: 'none',
    logLevel: 'warning',
    banner: { js: BANNER },
  });
}

/**
 * `projects` and the libraries the named libraries import, transitively: a library's dist is
 * only usable when the dists it imports are built too.
 * @param {Project[]} projects
 */
function withLibraryDependencies(projects) {
  const out = new Map(projects.map((p) => [p.dir, p]));
  const queue = [...projects];
  for (let p = queue.shift(); p; p = queue.shift()) {
    if (p.kind !== 'lib') continue;
    for (const name of Object.keys(p.deps)) {
      const dep = byName.get(name);
      if (dep?.kind === 'lib' && !out.has(dep.dir)) {
        out.set(dep.dir, dep);
        queue.push(dep);
      }
    }
  }
  return [...out.values()];
}

/**
 * Declarations for `projects`, by project dir: Map<dir, Map<path under dist, text>>.
 *
 * The order TypeScript meets types in decides how it prints unions, so a project's
 * declarations depend on which files share its program. Each app gets a program of its own,
 * rooted at its entries, so its declarations depend only on its own sources and the
 * libraries it imports: the inputs its Nx build target lists (the topic targets hash an app's
 * whole dist/). The libraries share one program rooted at every library's entry, in a fixed
 * order, so a library's declarations are the same whichever projects a run builds. The
 * programs share parsed files and module resolutions; `noCheck` skips type checking
 * (`npm run typecheck` does that) and roughly halves the cost. Only files reachable from the
 * entry declarations by relative imports are kept, so dist/ holds no declarations a user
 * cannot reach.
 * @param {Project[]} projects
 */
function declarations(projects) {
  const { config } = ts.readConfigFile(join(root, 'tsconfig.base.json'), ts.sys.readFile);
  const outDir = join(root, '.declarations');
  const parsed = ts.parseJsonConfigFileContent({ ...config, files: [] }, ts.sys, root, {
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
    noCheck: true,
    rootDir: root,
    // Never written: every file goes through the writeFile callback below.
    outDir,
  });
  const options = parsed.options;
  const host = ts.createCompilerHost(options);
  /** @type {Map<string, ts.SourceFile>} */
  const parsedFiles = new Map();
  const readSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, ...rest) => {
    let sf = parsedFiles.get(file);
    if (!sf) {
      sf = readSourceFile(file, ...rest);
      if (sf) parsedFiles.set(file, sf);
    }
    return sf;
  };
  const resolutions = ts.createModuleResolutionCache(root, (f) => f, options);
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, opts, sf) =>
    literals.map((lit) => ts.resolveModuleName(lit.text, containingFile, opts, host, resolutions, redirected, ts.getModeForUsageLocation(sf, lit, opts)));

  const entriesOf = (/** @type {Project[]} */ ps) => ps.flatMap((p) => p.entries.map((n) => join(p.dir, 'src', `${n}.ts`)));
  const libs = projects.filter((p) => p.kind === 'lib');
  const groups = [
    ...(libs.length > 0 ? [{ roots: entriesOf(all.filter((p) => p.kind === 'lib' && p.entries.length > 0)), emitFor: libs }] : []),
    ...projects.filter((p) => p.kind === 'app').map((p) => ({ roots: entriesOf([p]), emitFor: [p] })),
  ];
  const toPosix = (/** @type {string} */ f) => f.split(sep).join('/');

  /** @type {Map<string, Map<string, string>>} */
  const out = new Map();
  for (const group of groups) {
    const program = ts.createProgram({ rootNames: group.roots, options, host });
    for (const p of group.emitFor) {
      const srcDir = toPosix(join(p.dir, 'src'));
      const emittedDir = posix.join(toPosix(outDir), toPosix(relative(root, p.dir)), 'src');
      /** @type {Map<string, string>} path under src/ (posix, .d.ts) -> text */
      const emitted = new Map();
      /** @type {ts.Diagnostic[]} */
      const diagnostics = [];
      for (const sf of program.getSourceFiles()) {
        if (!sf.fileName.startsWith(`${srcDir}/`)) continue;
        const result = program.emit(sf, (file, text) => emitted.set(posix.relative(emittedDir, file), text), undefined, true);
        diagnostics.push(...result.diagnostics);
      }
      if (diagnostics.length > 0) throw new Error(ts.formatDiagnostics(diagnostics, formatHost));
      /** @type {Map<string, string>} */
      const files = new Map();
      const queue = p.entries.map((n) => `${n}.d.ts`);
      for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
        const text = emitted.get(f);
        if (text === undefined || files.has(f)) continue;
        files.set(f, text);
        for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)\.js['"]/g)) {
          queue.push(posix.normalize(posix.join(posix.dirname(f), `${m[1]}.d.ts`)));
        }
      }
      out.set(p.dir, files);
    }
  }
  return out;
}

/**
 * declarations(), remembered in node_modules/.cache under a hash of everything they can
 * depend on: every file under packages/*\/src and apps/*\/src, the package.json files, the
 * lockfile (the npm packages' types), tsconfig.base.json, this script and TypeScript's version.
 * Parsing the programs costs seconds (the types of openai and @types/node alone are 4 MB);
 * a build whose inputs did not change since the last one (`npm test` right after `npm ci`, a
 * test building one app) reads the cache instead. Any change recomputes every project.
 * @param {Project[]} projects
 */
function cachedDeclarations(projects) {
  const hash = createHash('sha256').update(ts.version).update('\0');
  const files = [join(root, 'tsconfig.base.json'), join(root, 'package-lock.json'), fileURLToPath(import.meta.url)];
  for (const p of all) {
    files.push(join(p.dir, 'package.json'));
    if (existsSync(join(p.dir, 'src'))) {
      files.push(...readdirSync(join(p.dir, 'src'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)).sort());
    }
  }
  for (const f of files) hash.update(relative(root, f)).update('\0').update(existsSync(f) ? readFileSync(f) : '').update('\0');
  const key = hash.digest('hex').slice(0, 32);
  const dir = join(root, 'node_modules/.cache/chunkyard-declarations');
  const file = join(dir, `${key}.json`);
  /** @type {Record<string, Record<string, string>>} project dir (workspace-relative) -> file -> text */
  let cached = {};
  try {
    cached = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // No cache for these inputs yet (or an unreadable one): compute.
  }
  const missing = projects.filter((p) => !(relative(root, p.dir) in cached));
  if (missing.length > 0) {
    for (const [d, m] of declarations(missing)) cached[relative(root, d)] = Object.fromEntries(m);
    // Best effort: a cache that cannot be written costs the next build time, never this one.
    try {
      mkdirSync(dir, { recursive: true });
      // Only the current inputs' entry is kept; written atomically, as parallel builds share it.
      for (const old of readdirSync(dir)) if (old.endsWith('.json') && old !== `${key}.json`) rmSync(join(dir, old), { force: true });
      writeFileSync(`${file}.tmp-${process.pid}`, JSON.stringify(cached));
      renameSync(`${file}.tmp-${process.pid}`, file);
    } catch {
      rmSync(`${file}.tmp-${process.pid}`, { force: true });
    }
  }
  return new Map(projects.map((p) => [p.dir, new Map(Object.entries(cached[relative(root, p.dir)] ?? {}))]));
}

/** @type {ts.FormatDiagnosticsHost} */
const formatHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };

/** @param {Project[]} projects */
async function buildProjects(projects) {
  const todo = projects.filter((p) => p.entries.length > 0);
  const tmpOf = (/** @type {Project} */ p) => join(p.dir, `dist.tmp-${process.pid}`);
  for (const p of todo) {
    rmSync(tmpOf(p), { recursive: true, force: true });
    mkdirSync(tmpOf(p), { recursive: true });
  }
  try {
    // esbuild works in its own process while this one builds the TypeScript programs.
    const bundles = Promise.all(todo.map((p) => bundle(p, tmpOf(p))));
    const dts = cachedDeclarations(todo);
    await bundles;
    let dtsCount = 0;
    for (const p of todo) {
      for (const [file, text] of dts.get(p.dir) ?? []) {
        mkdirSync(dirname(join(tmpOf(p), file)), { recursive: true });
        writeFileSync(join(tmpOf(p), file), text);
        dtsCount++;
      }
      const dist = join(p.dir, 'dist');
      rmSync(dist, { recursive: true, force: true });
      renameSync(tmpOf(p), dist);
    }
    return { bundles: todo.reduce((n, p) => n + p.entries.length, 0), declarations: dtsCount };
  } finally {
    for (const p of todo) rmSync(tmpOf(p), { recursive: true, force: true });
  }
}

/** @param {string} out @param {Project} project */
async function buildStandalone(out, project) {
  const tmp = join(dirname(out), `.standalone.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  try {
    await bundle({ ...project, entries: project.entries.slice(0, 1) }, tmp, true);
    renameSync(join(tmp, `${project.entries[0]}.js`), out);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
const started = performance.now();
const USAGE = `usage: node tools/build.mjs [PROJECT…]                     build these projects (default: all of packages/ and apps/)
       node tools/build.mjs --standalone OUT.js packages/<lib>   one self-contained ESM file of a library`;
/** A usage error: the message and the usage, no stack trace, exit 2. @param {string} message @returns {never} */
const usageError = (message) => {
  console.error(`build: ${message}\n${USAGE}`);
  process.exit(2);
};
if (args[0] === '--help' || args[0] === '-h') {
  console.log(USAGE);
  process.exit(0);
}
/** @param {string} arg */
const projectAt = (arg) => {
  const p = all.find((q) => q.dir === resolve(root, arg));
  if (!p) usageError(`${arg} is not a workspace project (packages/* or apps/* with a package.json)`);
  return p;
};
if (args[0] === '--standalone') {
  const [, out, project] = args;
  if (!out || !project || args.length !== 3) usageError('--standalone takes an output file and one library');
  await buildStandalone(resolve(process.env.INIT_CWD ?? process.cwd(), out), projectAt(project));
  if (!process.env.CHUNKYARD_BUILD_QUIET) console.error(`built ${out} (${project} with its @chunkyard dependencies inlined) in ${Math.round(performance.now() - started)} ms`);
} else {
  const projects = args.length > 0 ? withLibraryDependencies(args.map(projectAt)) : all;
  const built = await buildProjects(projects);
  if (!process.env.CHUNKYARD_BUILD_QUIET) {
    console.error(`built ${built.bundles} bundle(s) and ${built.declarations} declaration file(s) in ${Math.round(performance.now() - started)} ms`);
  }
}
