/**
 * chunkyard installed with pnpm, whose node_modules is strict: a package sees only what its own
 * package.json declares, and only the bins of the docs repo's own dependencies are linked. The
 * tarballs come from tools/pack-local.mjs, whose `resolutions` point pnpm at them: without it,
 * pnpm asks the registry for @chunkyard/nx's dependencies and stops at a 404 (session 53).
 *
 * Needs pnpm from the npm registry (`npx pnpm@9.15.9`; its store serves later runs): without
 * it the pnpm tests skip, saying so. Installs nx, @chunkyard/nx and @chunkyard/chunking only,
 * nothing with a native build, so the install takes seconds once the store is warm.
 */
import type { SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMany, runNx, workspaceAt } from '../../packages/nx/e2e/temp-workspace.mjs';
import { npxMissing, NX_VERSION, ROOT, spawnChild, succeeded, workspacePackages } from './workspace.js';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
const PNPM = 'pnpm@9.15.9';
const TOOL = join(ROOT, 'tools', 'pack-local.mjs');
const temp = mkdtempSync(join(realpathSync(tmpdir()), 'chunkyard-pnpm-'));
const tarballs = join(temp, 'tarballs');
const repo = join(temp, 'docs-repo');

const run = (cmd: string, args: string[], cwd: string, timeout = 600_000): SpawnSyncReturns<string> => spawnChild(cmd, args, cwd, { timeout });
const ok = succeeded;
const pnpm = (args: string[]) => ok(run('npx', ['-y', PNPM, ...args], repo), `pnpm ${args.join(' ')}`);

/** Why pnpm cannot run here, or null when it can. */
let pnpmMissing: string | null = null;

beforeAll(() => {
  mkdirSync(repo);
  writeFileSync(join(repo, 'package.json'), '{\n\t"name": "my-docs",\n\t"private": true,\n\t"resolutions": { "left-pad": "1.3.0" }\n}\n');
  ok(run(process.execPath, [TOOL, tarballs, '--into', repo], ROOT), 'pack-local');
  pnpmMissing = npxMissing(PNPM, repo, 180_000);
}, 300_000);

afterAll(() => {
  if (!KEEP) rmSync(temp, { recursive: true, force: true });
  else console.log(`temp folders kept at ${temp}`);
});

describe('tools/pack-local.mjs', () => {
  it('packs every workspace package and points one resolution at each tarball, keeping the repo\'s own entries and indentation', () => {
    const text = readFileSync(join(repo, 'package.json'), 'utf8');
    expect(text.startsWith('{\n\t"name": "my-docs"')).toBe(true);
    const pkg = JSON.parse(text) as { name: string; resolutions: Record<string, string> };
    const { 'left-pad': leftPad, ...ours } = pkg.resolutions;
    expect(leftPad).toBe('1.3.0');
    expect(Object.keys(ours).sort()).toEqual(workspacePackages().map((p) => p.pkg.name).sort());
    for (const [name, spec] of Object.entries(ours)) {
      expect(spec.startsWith(`file:${tarballs}/`), spec).toBe(true);
      const file = spec.slice('file:'.length);
      // The tarball holds that package, not a neighbour with a similar file name.
      const inner = JSON.parse(ok(run('tar', ['-xzOf', file, 'package/package.json'], temp), `tar ${file}`)) as { name: string };
      expect(inner.name).toBe(name);
    }
  });

  it('says what is wrong with its arguments, without a stack trace', () => {
    const cases: [string[], RegExp][] = [
      [[], /no tarball folder given/],
      [['a', 'b'], /one tarball folder, got "a" and "b"/],
      [['a', '--into'], /--into needs a folder/],
      [['a', '--bogus'], /unknown option "--bogus"/],
      [[tarballs, '--into', join(temp, 'nowhere')], /--into: \S+\/nowhere does not exist \(give the docs repo's folder/],
    ];
    const empty = join(temp, 'empty');
    mkdirSync(empty);
    cases.push([[tarballs, '--into', empty], /empty\/package\.json does not exist \(run `npm init -y`/]);
    const bad = join(temp, 'bad');
    mkdirSync(bad);
    writeFileSync(join(bad, 'package.json'), '{ "resolutions": [] }');
    cases.push([[tarballs, '--into', bad], /"resolutions" is \[\], not an object/]);
    writeFileSync(join(bad, 'broken.json'), '{ "name": ');
    cases.push([[tarballs, '--into', join(bad, 'broken.json')], /broken\.json is not valid JSON/]);
    for (const [args, message] of cases) {
      const r = run(process.execPath, [TOOL, ...args], temp);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(readFileSync(join(bad, 'package.json'), 'utf8')).toBe('{ "resolutions": [] }');
  });
});

describe('a docs repo that installs with pnpm', () => {
  it('installs nx and @chunkyard/nx from the tarballs; init, nx run-many -t index, then the same run from the cache', (ctx) => {
    if (pnpmMissing) {
      console.warn(`skipped: ${pnpmMissing}`);
      ctx.skip(pnpmMissing);
    }
    // hoist=false: pnpm's default also hoists every package into node_modules/.pnpm/node_modules,
    // where any installed package can still reach an undeclared one; off, only declared
    // dependencies resolve, as under a strict install of any package manager.
    writeFileSync(join(repo, '.npmrc'), 'hoist=false\n');
    pnpm(['add', '-D', `nx@${NX_VERSION}`, '@chunkyard/nx', '@chunkyard/chunking']);
    // Strict: the pipeline tools are @chunkyard/nx's own dependencies, not the docs repo's.
    expect(readdirSync(join(repo, 'node_modules', '@chunkyard')).sort()).toEqual(['chunking', 'nx']);
    expect(relative(ROOT, realpathSync(join(repo, 'node_modules', '@chunkyard', 'nx'))).startsWith('..')).toBe(true);

    const ws = workspaceAt(repo);
    const init = runNx(ws, ['g', '@chunkyard/nx:init', '--docsRoot', 'docs', '--no-interactive']);
    expect(init.status, init.output).toBe(0);
    const topics: [to: string, from: string][] = [
      ['docs/deployment/native-aot', 'docs/deployment/native-aot'],
      ['docs/json/collections', 'docs/libraries/system-text-json-collections'],
    ];
    for (const [to, from] of topics) {
      mkdirSync(join(repo, to), { recursive: true });
      cpSync(join(ROOT, from, 'golden-reference.md'), join(repo, to, 'golden-reference.md'));
    }
    writeFileSync(join(repo, '.gitignore'), `${readFileSync(join(repo, '.gitignore'), 'utf8')}node_modules\n/.nx\n`);
    const git = (...args: string[]) => ok(run('git', ['-c', 'user.name=chunkyard-test', '-c', 'user.email=test@chunkyard.invalid', '-c', 'commit.gpgsign=false', ...args], repo), `git ${args[0]}`);
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'docs repo');

    const first = runMany(ws, ['-t', 'index']);
    expect(first.ran.size).toBeGreaterThan(8);
    expect(first.output).not.toContain(ROOT);
    const root = JSON.parse(readFileSync(join(repo, 'docs', 'index.json'), 'utf8')) as { _embedded: { topics: { id: string }[] } };
    expect(root._embedded.topics.map((t) => t.id).sort()).toEqual(['deployment', 'json']);
    expect(existsSync(join(repo, 'docs/json/collections/_chunks/golden-reference.json'))).toBe(true);

    const again = runMany(ws, ['-t', 'index']);
    expect([...again.ran]).toEqual([]);
    expect(again.cached).toEqual(first.ran);
  }, 600_000);

  it('a tool missing from a pnpm install is to be reinstalled with pnpm, not npm', (ctx) => {
    if (pnpmMissing) ctx.skip(pnpmMissing);
    if (!existsSync(join(repo, 'node_modules', '@chunkyard', 'nx'))) ctx.skip('the install above did not complete');
    // A broken install: pnpm's link from @chunkyard/nx to its dependency @chunkyard/chunking-tool
    // is gone. `npm i -D @chunkyard/nx`, which the message used to give, would write a
    // package-lock.json beside pnpm-lock.yaml and ask the registry for @chunkyard/nx (404).
    const link = join(realpathSync(join(repo, 'node_modules', '@chunkyard', 'nx')), '..', 'chunking-tool');
    const aside = join(temp, 'chunking-tool-link');
    renameSync(link, aside);
    try {
      const ws = workspaceAt(repo);
      ws.env.NX_CACHE_PROJECT_GRAPH = 'false';
      const r = runNx(ws, ['show', 'projects']);
      expect(r.status, r.output).not.toBe(0);
      expect(r.output).toContain('cannot find the tool package @chunkyard/chunking-tool');
      expect(r.output).toContain('reinstall with `pnpm add -D @chunkyard/nx`');
      expect(r.output).not.toContain('npm i -D');
    } finally {
      renameSync(aside, link);
    }
    expect(existsSync(join(link, 'package.json'))).toBe(true);
  }, 180_000);

  it('parser "remark" finds micromark\'s EditMap through pnpm\'s layout and makes it linear', (ctx) => {
    if (pnpmMissing) ctx.skip(pnpmMissing);
    if (!existsSync(join(repo, 'node_modules', '@chunkyard', 'chunking'))) ctx.skip('the install above did not complete');
    // micromark-linear.ts resolves remark-parse -> mdast-util-from-markdown -> micromark ->
    // micromark-util-edit-map from each one's folder; under pnpm none of the last three is
    // visible from @chunkyard/chunking itself, so a bare resolution would miss and leave the
    // quadratic consume (8,000 quotes: 13 s).
    const script = `
      import { chunkDocument } from '@chunkyard/chunking';
      import { createRequire } from 'node:module';
      import { fileURLToPath } from 'node:url';
      const from = (f) => createRequire(f);
      const parse = from(fileURLToPath(import.meta.resolve('@chunkyard/chunking'))).resolve('remark-parse');
      const mdast = from(parse).resolve('mdast-util-from-markdown');
      const micromark = from(mdast).resolve('micromark');
      const editMap = from(micromark).resolve('micromark-util-edit-map');
      let visible = true;
      try { from(fileURLToPath(import.meta.resolve('@chunkyard/chunking'))).resolve('micromark-util-edit-map'); } catch { visible = false; }
      const started = performance.now();
      const result = await chunkDocument('> q\\n\\n'.repeat(8000), { parser: 'remark' });
      const ms = Math.round(performance.now() - started);
      const { EditMap } = await import(editMap);
      const linear = Boolean(EditMap.prototype.consume[Symbol.for('chunkyard.micromark-linear.replaced')]);
      console.log(JSON.stringify({ editMap, visible, linear, chunks: result.chunks.length, ms }));
    `;
    writeFileSync(join(repo, 'remark-probe.mjs'), script);
    const out = JSON.parse(ok(run(process.execPath, ['remark-probe.mjs'], repo, 120_000), 'remark probe')) as { editMap: string; visible: boolean; linear: boolean; chunks: number; ms: number };
    console.log(`remark, 8,000 one-line quotes under pnpm: ${out.ms} ms`);
    expect(out.editMap).toContain(join('node_modules', '.pnpm'));
    expect(out.visible).toBe(false);
    expect(out.linear).toBe(true);
    expect(out.chunks).toBeGreaterThan(0);
  }, 180_000);
});
