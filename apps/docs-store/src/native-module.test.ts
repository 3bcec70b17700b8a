// better-sqlite3's native module not built: pnpm 10 and yarn 4 skip install scripts unless
// allowed, and then `docs-store ingest` printed bindings' "Could not locate the bindings file"
// list with a stack trace, and `search` the same list as one line of \u000a escapes, told to run
// "docs-store ingest" first (helper-43's pnpm probe). The real package runs here, copied
// without its build/ folder, as such an install leaves it: an ESM resolve hook points the
// bundle's `import Database from "better-sqlite3"` at the copy.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, REPO } from './test-build.js';

let ws: string;
let hook: string;

beforeAll(async () => {
  await ensureBuilt();
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-unbuilt-'));
  const modules = join(ws, 'node_modules');
  const unbuilt = join(modules, 'better-sqlite3');
  mkdirSync(unbuilt, { recursive: true });
  cpSync(join(REPO, 'node_modules/better-sqlite3/package.json'), join(unbuilt, 'package.json'));
  cpSync(join(REPO, 'node_modules/better-sqlite3/lib'), join(unbuilt, 'lib'), { recursive: true });
  for (const dep of ['bindings', 'file-uri-to-path']) symlinkSync(join(REPO, 'node_modules', dep), join(modules, dep));
  const entry = pathToFileURL(join(unbuilt, 'lib/index.js')).href;
  const hooks = join(ws, 'hooks.mjs');
  writeFileSync(hooks, `export async function resolve(specifier, context, next) {\n  return specifier === 'better-sqlite3' ? { url: ${JSON.stringify(entry)}, shortCircuit: true } : next(specifier, context);\n}\n`);
  hook = join(ws, 'register.mjs');
  writeFileSync(hook, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  mkdirSync(join(ws, 'docs', 't'), { recursive: true });
  writeFileSync(join(ws, 'docs', 't', 'golden-reference.md'), '# Native AOT\n\nNative AOT apps cannot load code at run time.\n');
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const unbuiltRun = (args: string[]) =>
  spawnSync(process.execPath, ['--import', hook, BIN, ...args], { cwd: ws, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '', CI: '1' } });

describe('docs-store with better-sqlite3 not built', () => {
  it.each([
    ['ingest', ['ingest', 'docs/t', '--db', 'store.db']],
    ['search', ['search', 'native', '--db', 'store.db']],
    ['stats', ['stats', '--db', 'store.db']],
  ])('%s: one line naming the store and what to do; no stack trace, no escaped line breaks', (_name, args) => {
    // The store exists for the reading commands, as it would after an ingest elsewhere.
    writeFileSync(join(ws, 'store.db'), '');
    const r = unbuiltRun(args);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.startsWith(`docs-store: ${join(ws, 'store.db')}: cannot open the store: better-sqlite3's native module is not built (its install script did not run); run "npm rebuild better-sqlite3"`)).toBe(true);
    expect(r.stderr).toContain('onlyBuiltDependencies');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\\u000a|\n\s+at |Could not locate/);
  });
});
