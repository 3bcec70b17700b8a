// nativeModuleProblem reads the errors better-sqlite3 throws when its native module does not
// load (docs-store's end-to-end test, apps/docs-store/src/native-module.test.ts, runs the CLI
// with the module unbuilt). Both errors here are the real ones, made the way they arise.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { connect, nativeModuleProblem } from './store.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkyard-native-module-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

it('names a module that was never built: bindings finds no build/ (an install whose scripts did not run)', () => {
  // better-sqlite3's own loader, asked to look in a folder without build/.
  const bindings = createRequire(createRequire(import.meta.url).resolve('better-sqlite3'))('bindings') as (opts: { bindings: string; module_root: string }) => unknown;
  const err = thrown(() => bindings({ bindings: 'better_sqlite3.node', module_root: dir }));
  expect((err as Error).message).toMatch(/^Could not locate the bindings file/);
  expect(nativeModuleProblem(err)).toMatch(/^is not built \(its install script did not run\); run "npm rebuild better-sqlite3" where chunkyard is installed \(pnpm: allow its build/);
});

it('names a module that does not load in this Node (ERR_DLOPEN_FAILED), with the loader\'s reason and no path', () => {
  const fake = join(dir, 'fake.node');
  writeFileSync(fake, 'not a shared object');
  const err = thrown(() => new Database(':memory:', { nativeBinding: fake }));
  expect((err as { code?: string }).code).toBe('ERR_DLOPEN_FAILED');
  expect(nativeModuleProblem(err)).toBe(
    `does not load in this Node ${process.version} (file too short); run "npm rebuild better-sqlite3" where chunkyard is installed (pnpm: allow its build with "pnpm": { "onlyBuiltDependencies": ["better-sqlite3"] } in package.json and install again; yarn: "dependenciesMeta": { "better-sqlite3": { "built": true } })`,
  );
});

it('is null for any other error, which the store reports as before', () => {
  expect(nativeModuleProblem(new Error('SQLITE_CANTOPEN: unable to open database file'))).toBeNull();
  expect(nativeModuleProblem(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBeNull();
  expect(nativeModuleProblem(null)).toBeNull();
  expect(nativeModuleProblem('Could not locate the bindings file')).toBeNull();
});

it('connect opens a database as new Database does, and passes its other errors on unchanged', () => {
  const db = connect(':memory:');
  expect(db.prepare('SELECT 1 AS one').get()).toEqual({ one: 1 });
  db.close();
  const err = thrown(() => connect(join(dir, 'no-such-folder', 'x.db')));
  expect(err).toBeInstanceOf(TypeError);
  expect((err as Error).message).toBe('Cannot open database because the directory does not exist');
});
