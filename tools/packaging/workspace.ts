/**
 * The workspace's packages as npm sees them, shared by the packaging tests: which folders are
 * packages, what their package.json says, which files `npm pack` would publish, and which
 * packages a published file imports.
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
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
 * Whether a `createRequire(arg)` resolves from the file itself (so from its package):
 * `import.meta.url` or `__filename`. Any other argument is another folder, e.g. micromark's own
 * (chunking's micromark-linear.ts walks remark-parse -> mdast-util-from-markdown -> micromark
 * from each one's folder, as Node resolves their imports): what resolves there is that
 * package's dependency, not this one's.
 */
function isOwnLocation(arg: ts.Expression | undefined): boolean {
  if (!arg) return false;
  if (ts.isIdentifier(arg)) return arg.text === '__filename';
  return (
    ts.isPropertyAccessExpression(arg) &&
    arg.name.text === 'url' &&
    ts.isMetaProperty(arg.expression) &&
    arg.expression.keywordToken === ts.SyntaxKind.ImportKeyword
  );
}

/**
 * The bare specifiers a JavaScript or declaration file imports: static imports and re-exports,
 * `import()`, `import("x").T` type references, and what `require`, a `createRequire` function
 * of the file's own location (esbuild renames a local `require` to `require2`, and an imported
 * `createRequire` to `createRequire2`) or their `.resolve` load. The file is parsed, so strings
 * and comments that merely look like imports do not count.
 */
export function bareImports(text: string, fileName = 'file.js'): string[] {
  const specs: string[] = [];
  const literal = (n: ts.Node | undefined) => {
    if (n && ts.isStringLiteralLike(n)) specs.push(n.text);
  };
  const requireLike = (callee: ts.Expression): boolean => {
    const fn = ts.isPropertyAccessExpression(callee) && callee.name.text === 'resolve' ? callee.expression : callee;
    if (ts.isIdentifier(fn)) return /^require\d*$/.test(fn.text);
    return ts.isCallExpression(fn) && ts.isIdentifier(fn.expression) && /^createRequire\d*$/.test(fn.expression.text) && isOwnLocation(fn.arguments[0]);
  };
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) literal(n.moduleSpecifier);
    else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) literal(n.argument.literal);
    else if (ts.isCallExpression(n) && (n.expression.kind === ts.SyntaxKind.ImportKeyword || requireLike(n.expression))) literal(n.arguments[0]);
    ts.forEachChild(n, visit);
  };
  visit(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false));
  return [...new Set(specs.filter((s) => !s.startsWith('.') && !s.startsWith('/')))];
}

/**
 * process.env without the npm_* variables (and INIT_CWD) an enclosing `npm test` exports: npm,
 * pnpm and Yarn read npm_config_* as their own config (npm_config_local_prefix and the like would
 * point an install in a temp folder at this repo).
 */
export const CHILD_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'INIT_CWD'));

/** The nx version this repo tests against: its own devDependency. */
export const NX_VERSION: string = readJson<PackageJson>(join(ROOT, 'package.json')).devDependencies!.nx!;

/** `cmd` run in `cwd` with CHILD_ENV (and `extraEnv`), its output as text; not checked. */
export function spawnChild(cmd: string, args: string[], cwd: string, options: { timeout?: number; extraEnv?: NodeJS.ProcessEnv } = {}): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, env: { ...CHILD_ENV, ...options.extraEnv }, encoding: 'utf8', timeout: options.timeout, maxBuffer: 64 * 1024 * 1024 });
}

/**
 * Why `npx -y <pkg> --version` cannot run in `cwd`, or null when it can: the pnpm and Yarn tests
 * fetch their package manager from the npm registry and skip with this reason without it.
 */
export function npxMissing(pkg: string, cwd: string, timeout: number): string | null {
  const probe = spawnChild('npx', ['-y', pkg, '--version'], cwd, { timeout });
  if (probe.status === 0 && !probe.error) return null;
  return `npx ${pkg} could not run (${probe.error?.message ?? probe.stderr.split('\n').find((l) => l.trim() !== '')})`;
}

/** `r`'s stdout; an error naming `what`, its status and output when it could not run or failed. */
export function succeeded(r: SpawnSyncReturns<string>, what: string): string {
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${what} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** spawnChild that throws, naming the command and folder, unless it exits 0. */
export function runChecked(cmd: string, args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  const r = spawnChild(cmd, args, cwd, { extraEnv });
  succeeded(r, `${cmd} ${args.join(' ')} (in ${cwd})`);
  return r;
}
