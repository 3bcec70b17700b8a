/**
 * The workspace's packages as npm sees them, shared by the packaging tests: which folders are
 * packages, what their package.json says, which files `npm pack` would publish, and which
 * packages a published file imports.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import ts from 'typescript';

export const ROOT = resolve(import.meta.dirname, '../..');

/** The package.json fields the packaging checks read. */
export interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  type?: string;
  description?: string;
  license?: string;
  repository?: { type?: string; url?: string; directory?: string };
  engines?: { node?: string };
  files?: string[];
  main?: string;
  types?: string;
  bin?: string | Record<string, string>;
  exports?: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

export interface WorkspacePackage {
  /** Workspace-relative posix folder, e.g. `packages/chunking`. */
  folder: string;
  dir: string;
  pkg: PackageJson;
  /** apps/* bundle the @chunkyard libraries into their dist; packages/* are libraries. */
  kind: 'app' | 'lib';
}

export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** Every folder under packages/ and apps/ with a package.json: the npm workspaces. */
export function workspacePackages(): WorkspacePackage[] {
  return (['packages', 'apps'] as const).flatMap((group) =>
    readdirSync(join(ROOT, group), { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(join(ROOT, group, e.name, 'package.json')))
      .map((e) => ({
        folder: `${group}/${e.name}`,
        dir: join(ROOT, group, e.name),
        pkg: readJson<PackageJson>(join(ROOT, group, e.name, 'package.json')),
        kind: group === 'apps' ? ('app' as const) : ('lib' as const),
      })),
  );
}

/** What `npm pack` would put in each tarball, by package name (npm's own reading of `files`). */
export function packedFiles(): Map<string, string[]> {
  const out = execFileSync('npm', ['pack', '--workspaces', '--dry-run', '--json', '--loglevel=error'], { cwd: ROOT, encoding: 'utf8' });
  const packs = JSON.parse(out) as { name: string; files: { path: string }[] }[];
  return new Map(packs.map((p) => [p.name, p.files.map((f) => f.path)]));
}

/** `@scope/name/sub/path` -> `@scope/name`; `name/sub` -> `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const BUILTINS = new Set(builtinModules);

export function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || BUILTINS.has(packageNameOf(specifier));
}

/**
 * The bare specifiers a JavaScript or declaration file imports: static imports and re-exports,
 * `import()`, `require()` and `import("x").T` type references. TypeScript's own pre-processor
 * reads them, so strings and comments that merely look like imports do not count.
 */
export function bareImports(text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  const specs = [...info.importedFiles, ...info.typeReferenceDirectives].map((f) => f.fileName);
  return [...new Set(specs.filter((s) => !s.startsWith('.') && !s.startsWith('/')))];
}
