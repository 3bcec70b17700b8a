// A project of the plugin whose name another project of the workspace already has, under real
// Nx: a docs team's site package (site/package.json, an npm workspace) named "docs", beside
// docsRoot "docs", whose root project is "docs" too. Nx stopped every command with "The following
// projects are defined in multiple locations", and nx run-many and nx affected printed only
// "Failed to process project graph. Pass --verbose to see the stacktraces.", naming neither
// folder (found by a probe). The plugin now names both and a way out, and that way works.
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTempWorkspace, runNx, type TempWorkspace } from './temp-workspace.mjs';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
let ws: TempWorkspace;

beforeAll(() => {
  ws = createTempWorkspace({
    prefix: 'chunkyard-nx-name-clash-',
    topics: { 'docs/guides/install': '# Installing\n\nRun the installer, then check the version it prints.\n' },
  });
  mkdirSync(join(ws.root, 'site'));
  writeFileSync(join(ws.root, 'site/package.json'), JSON.stringify({ name: 'docs', version: '1.0.0', private: true }));
  const pkgFile = join(ws.root, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { workspaces?: string[] };
  pkg.workspaces = [...(pkg.workspaces ?? []), 'site'];
  writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));
});
afterAll(() => {
  if (ws && !KEEP) rmSync(ws.root, { recursive: true, force: true });
});

it('a docs root whose project name a workspace package already has: run-many and affected name both files and the fix, which works', () => {
  const expected =
    '@chunkyard/nx: the folder docs would be the project "docs" (a project is named after its path, joined by "-"), which site/package.json already names its project; ' +
    'give the folder another name with a docs/project.json holding { "name": "…" }, or rename the folder or the other project';
  for (const args of [['run-many', '-t', 'index'], ['affected', '-t', 'index', '--base=HEAD'], ['show', 'projects']]) {
    const r = runNx(ws, args);
    expect(r.status, `${args.join(' ')}\n${r.output}`).toBe(1);
    expect(r.output, args.join(' ')).toContain(expected);
    expect(r.output).not.toMatch(/^\s+at /m);
  }

  // The way out it names: the docs root's project gets a name of its own.
  writeFileSync(join(ws.root, 'docs/project.json'), JSON.stringify({ name: 'docs-index' }));
  const built = runNx(ws, ['run-many', '-t', 'index', '--outputStyle=static']);
  expect(built.status, built.output).toBe(0);
  expect(built.output).toContain('nx run docs-index:index-json');
  const index = JSON.parse(readFileSync(join(ws.root, 'docs/index.json'), 'utf8')) as unknown;
  expect(JSON.stringify(index)).toContain('guides');
}, 300_000);
