// A docs folder that is already an Nx project of its own, under real Nx: a topic with a
// project.json (a lint target, a name of its own), a docs root that is an app (project.json
// "docs-site"), a topic whose package.json is in the npm workspaces. Nx merges those files
// after the plugin, so their name wins, and it rewrites no implicitDependencies: the parent
// pointed at "topic-proj", which no longer existed, and every Nx command failed with
// "implicitDependencies point to non-existent project(s)" (found by a probe).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTempWorkspace, nextMtimeSecond, runMany, runNx, type TempWorkspace } from './temp-workspace.mjs';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
let ws: TempWorkspace;

/** The JSON an `nx show … --json` printed (its one line that is JSON), after checking it exited 0. */
function shownJson(args: string[]): unknown {
  const r = runNx(ws, ['show', ...args, '--json']);
  expect(r.output).not.toMatch(/non-existent project/);
  expect(r.status, r.output).toBe(0);
  const line = r.output.split('\n').find((l) => l.startsWith('[') || l.startsWith('{'));
  return JSON.parse(line ?? 'null');
}

beforeAll(() => {
  ws = createTempWorkspace({
    prefix: 'chunkyard-nx-own-name-',
    topics: {
      'docs/proj': '# Proj\n\nThe proj topic has a project.json of its own, with a lint target.\n',
      'docs/bare': '# Bare\n\nThe bare topic has a project.json without a name.\n',
      'docs/pkg': '# Pkg\n\nThe pkg topic is an npm workspace package.\n',
      'docs/plain': '# Plain\n\nThe plain topic is only a folder.\n',
      'docs/holder': '# Holder\n\nThe holder topic lists a page inside an example app of its own.\n',
    },
  });
  writeFileSync(join(ws.root, 'docs/holder/topic.yaml'), 'sources:\n  - golden-reference.md\n  - example/extra.md\n');
  mkdirSync(join(ws.root, 'docs/holder/example'));
  writeFileSync(join(ws.root, 'docs/holder/example/extra.md'), '# Extra\n\nThe first wording of the example page.\n');
  writeFileSync(join(ws.root, 'docs/holder/example/project.json'), JSON.stringify({ name: 'example-app', targets: {} }));
  writeFileSync(join(ws.root, 'docs/proj/project.json'), JSON.stringify({ name: 'my-proj', targets: { lint: { command: 'echo linted' } } }));
  writeFileSync(join(ws.root, 'docs/bare/project.json'), JSON.stringify({ targets: {} }));
  writeFileSync(join(ws.root, 'docs/pkg/package.json'), JSON.stringify({ name: '@acme/pkg-docs', version: '1.0.0' }));
  writeFileSync(join(ws.root, 'docs/project.json'), JSON.stringify({ name: 'docs-site', targets: {} }));
  const pkgFile = join(ws.root, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { workspaces?: string[] };
  pkg.workspaces = [...(pkg.workspaces ?? []), 'docs/pkg'];
  writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));
});
afterAll(() => {
  if (ws && !KEEP) rmSync(ws.root, { recursive: true, force: true });
});

it("a folder with its own project.json or workspace package.json keeps Nx's name for it, and the graph and the pipeline work", () => {
  const names = shownJson(['projects']) as string[];
  // project.json's name; a project.json without one: its folder's name (Nx's rule); the
  // package's name; the path name where no file names it.
  expect(names).toEqual(expect.arrayContaining(['my-proj', 'bare', '@acme/pkg-docs', 'topic-plain', 'docs-site']));
  expect(names).not.toContain('topic-proj');

  const proj = shownJson(['project', 'my-proj']) as {
    targets: Record<string, { options?: { packDir?: string } }>;
    implicitDependencies?: string[];
  };
  expect(Object.keys(proj.targets)).toEqual(expect.arrayContaining(['chunk', 'keywords', 'spec', 'index-json', 'index', 'lint']));
  // The vectors stay in the folder named after the path: adding a project.json re-embeds nothing.
  expect(proj.targets.spec?.options?.packDir).toBe('.embedding-cache/topic-proj');
  const root = shownJson(['project', 'docs-site']) as { implicitDependencies?: string[] };
  expect(root.implicitDependencies).toEqual(expect.arrayContaining(['my-proj', 'bare', '@acme/pkg-docs', 'topic-plain']));

  const run = runMany(ws, ['-t', 'index'], 240_000);
  expect(run.ran.has('my-proj:spec')).toBe(true);
  expect(run.ran.has('docs-site:llms-txt')).toBe(true);
  const index = JSON.parse(readFileSync(join(ws.root, 'docs/index.json'), 'utf8')) as { _embedded: { topics: { id: string }[] } };
  expect(index._embedded.topics.map((t) => t.id).sort()).toEqual(['bare', 'holder', 'pkg', 'plain', 'proj']);
}, 300_000);

const chunkText = (folder: string) =>
  readdirSync(join(ws.root, folder, '_chunks'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => readFileSync(join(ws.root, folder, '_chunks', f), 'utf8'))
    .join('\n');

it('editing a source a topic lists inside an Nx project below it (an example app) reruns the topic, which writes the new text', async () => {
  // Nx gives the example app's files to that project, so `{projectRoot}/**` missed them.
  runMany(ws, ['-t', 'chunk'], 240_000);
  expect(chunkText('docs/holder')).toContain('first wording');
  expect(runMany(ws, ['-t', 'chunk']).ran.has('topic-holder:chunk')).toBe(false);
  await nextMtimeSecond(ws);
  writeFileSync(join(ws.root, 'docs/holder/example/extra.md'), '# Extra\n\nThe second wording of the example page.\n');
  expect(runMany(ws, ['-t', 'chunk']).ran.has('topic-holder:chunk')).toBe(true);
  expect(chunkText('docs/holder')).toContain('second wording');
  expect(runMany(ws, ['-t', 'chunk']).ran.has('topic-holder:chunk')).toBe(false);
}, 300_000);
