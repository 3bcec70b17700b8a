/**
 * Static checks that every workspace package can be published and installed on its own: the
 * package.json fields npm and users need, `exports`/`bin` targets that are really in the
 * tarball, and every package a published file imports declared in that package's own
 * dependencies. Reads the built dist (`npm test` builds first) and npm's own list of the files
 * each tarball would hold (`npm pack --dry-run`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { bareImports, isBuiltin, packageNameOf, packedFiles, readJson, ROOT, workspacePackages, type PackageJson } from './workspace.js';

const rootPkg = readJson<PackageJson & { engines: { node: string } }>(join(ROOT, 'package.json'));
const packages = workspacePackages();
const workspaceVersions = new Map(packages.map((p) => [p.pkg.name, p.pkg.version]));

let packed: Map<string, string[]>;
beforeAll(() => {
  packed = packedFiles();
});

/** `./dist/index.js` -> `dist/index.js`, as npm lists packed paths. */
const norm = (target: string) => target.replace(/^\.\//, '');

const RUNTIME_FILE = /\.(?:js|cjs|mjs)$/;
const DECLARATION_FILE = /\.d\.(?:ts|cts|mts)$/;

/** The @types package that types `name`: `mdast` -> `@types/mdast`, `@a/b` -> `@types/a__b`. */
const typesPackageOf = (name: string) => `@types/${name.replace(/^@/, '').replace('/', '__')}`;

/** Whether an installed package carries its own declarations (so no @types package is needed). */
function shipsTypes(name: string): boolean {
  const ws = packages.find((p) => p.pkg.name === name);
  const dir = ws?.dir ?? join(ROOT, 'node_modules', name);
  if (!existsSync(join(dir, 'package.json'))) return false;
  const pkg = readJson<PackageJson & { typings?: string }>(join(dir, 'package.json'));
  return Boolean(pkg.types ?? pkg.typings) || JSON.stringify(pkg.exports ?? {}).includes('"types"') || existsSync(join(dir, 'index.d.ts'));
}

describe.each(packages)('$folder', ({ folder, dir, pkg, kind }) => {
  const files = () => packed.get(pkg.name) ?? [];
  const declared = new Set(Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies }));
  const hasTsEntry = ['index', 'main'].some((e) => existsSync(join(dir, 'src', `${e}.ts`)));

  it('has the package.json fields a published package needs', () => {
    const problems: string[] = [];
    if (pkg.private) problems.push('"private": true (npm refuses to publish it)');
    if (!pkg.name.startsWith('@chunkyard/')) problems.push(`name ${pkg.name} is not under @chunkyard/`);
    if (pkg.version !== rootPkg.version) problems.push(`version ${pkg.version} is not the workspace's ${rootPkg.version}`);
    if (!pkg.description) problems.push('no description');
    if (pkg.license !== 'MIT') problems.push(`license is ${JSON.stringify(pkg.license)}, not "MIT"`);
    const repo = pkg.repository;
    if (repo?.type !== 'git' || repo.url !== 'git+https://github.com/chunkyard/chunkyard.git' || repo.directory !== folder) {
      problems.push(`repository is ${JSON.stringify(repo)}, not { type: git, url: git+https://github.com/chunkyard/chunkyard.git, directory: ${folder} }`);
    }
    if (pkg.engines?.node !== rootPkg.engines.node) problems.push(`engines.node is ${JSON.stringify(pkg.engines?.node)}, not the workspace's ${rootPkg.engines.node}`);
    if (!Array.isArray(pkg.files)) problems.push('no "files" (npm would fall back to .gitignore, which ignores dist/)');
    if (!existsSync(join(dir, 'README.md'))) problems.push('no README.md');
    expect(problems).toEqual([]);
  });

  it('exports a typed entry, with the source condition first for in-repo resolution', () => {
    const problems: string[] = [];
    const dot = pkg.exports?.['.'];
    if (typeof dot !== 'object') {
      problems.push(`exports["."] is ${JSON.stringify(dot)}, not a conditions object`);
    } else {
      const keys = Object.keys(dot);
      if (hasTsEntry) {
        if (keys[0] !== 'source') problems.push(`exports["."] conditions are ${keys.join(', ')}: "source" must come first`);
        else if (!existsSync(join(dir, dot.source!))) problems.push(`exports["."].source ${dot.source} does not exist`);
      }
      if (!('types' in dot)) problems.push('exports["."] has no "types" condition');
      // Conditions match in order: "types" after "default" would never be reached.
      const firstRuntime = keys.findIndex((k) => k === 'default' || k === 'import' || k === 'require');
      if ('types' in dot && firstRuntime !== -1 && keys.indexOf('types') > firstRuntime) problems.push('"types" comes after a runtime condition');
      if (!('default' in dot)) problems.push('exports["."] has no "default" condition');
    }
    if (pkg.exports?.['./package.json'] !== './package.json') problems.push('exports has no "./package.json" (tools read the installed version through it)');
    expect(problems).toEqual([]);
  });

  it('publishes every file its exports and bins point at', () => {
    const list = new Set(files());
    const targets: string[] = [];
    for (const [sub, value] of Object.entries(pkg.exports ?? {})) {
      for (const [cond, target] of typeof value === 'string' ? [['default', value] as const] : Object.entries(value)) {
        // `source` is for this workspace only: it points at TypeScript sources that are not published.
        if (cond !== 'source') targets.push(`exports["${sub}"].${cond} ${target}`);
      }
    }
    const bins = typeof pkg.bin === 'string' ? { [pkg.name]: pkg.bin } : (pkg.bin ?? {});
    for (const [name, target] of Object.entries(bins)) targets.push(`bin ${name} ${target}`);
    if (pkg.types) targets.push(`types ${pkg.types}`);
    if (pkg.main) targets.push(`main ${pkg.main}`);
    const missing = targets.filter((t) => !list.has(norm(t.split(' ').at(-1)!)));
    expect(missing, `packed: ${[...list].join(', ')}`).toEqual([]);
    const noShebang = Object.values(bins).filter((b) => !readFileSync(join(dir, b), 'utf8').startsWith('#!/usr/bin/env node\n'));
    expect(noShebang).toEqual([]);
    expect(list.has('README.md')).toBe(true);
  });

  it('declares every package its published code and declarations import', () => {
    const undeclared: string[] = [];
    for (const file of files()) {
      const isDts = DECLARATION_FILE.test(file);
      if (!isDts && !RUNTIME_FILE.test(file)) continue;
      for (const spec of bareImports(readFileSync(join(dir, file), 'utf8'), file)) {
        const name = packageNameOf(spec);
        if (isBuiltin(spec) || name === pkg.name) continue;
        if (!isDts && !declared.has(name)) undeclared.push(`${file} imports ${spec}`);
        // A declaration import needs a package that carries the types: the package itself, or its @types.
        if (isDts && !(declared.has(name) && shipsTypes(name)) && !declared.has(typesPackageOf(name))) {
          undeclared.push(`${file} imports types from ${spec}: declare ${shipsTypes(name) ? name : typesPackageOf(name)}`);
        }
      }
    }
    expect(undeclared).toEqual([]);
  });

  it('declares no dependency that nothing published uses', () => {
    const published = files().filter((f) => RUNTIME_FILE.test(f) || DECLARATION_FILE.test(f));
    const text = published.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    const typeImports = new Set(
      published.filter((f) => DECLARATION_FILE.test(f)).flatMap((f) => bareImports(readFileSync(join(dir, f), 'utf8'), f).map((s) => typesPackageOf(packageNameOf(s)))),
    );
    // Quoted anywhere counts (an import, a require, a resolve, a name a plugin resolves later).
    const quoted = (name: string) => new RegExp(`["']${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?:/[^"']*)?["']`).test(text);
    const unused = [...declared].filter((name) => (name.startsWith('@types/') ? !typeImports.has(name) : !quoted(name)));
    expect(unused).toEqual([]);
  });

  // A published entry point is the package's API: @chunkyard/embedding-cache exported
  // siblingNameForTests, a hook its own tests used, to every user.
  it.skipIf(kind === 'app')('exports no test hook from an entry point', async () => {
    const hooks: string[] = [];
    for (const [sub, value] of Object.entries(pkg.exports ?? {})) {
      const target = typeof value === 'string' ? value : value.default;
      if (target === undefined || !RUNTIME_FILE.test(target)) continue;
      const names = Object.keys(await import(pathToFileURL(join(dir, target)).href));
      hooks.push(...names.filter((n) => /For_?Test(?:s|ing)?$|^__test/i.test(n)).map((n) => `exports["${sub}"] ${n}`));
    }
    expect(hooks).toEqual([]);
  });

  it('depends on other @chunkyard packages at their exact workspace version', () => {
    const all = { ...pkg.dependencies, ...pkg.devDependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies };
    const wrong = Object.entries(all)
      .filter(([name]) => name.startsWith('@chunkyard/'))
      .filter(([name, range]) => range !== workspaceVersions.get(name))
      .map(([name, range]) => `${name}@${range} (workspace: ${workspaceVersions.get(name) ?? 'no such package'})`);
    expect(wrong).toEqual([]);
  });
});
