// The inferred configuration, read straight from the plugin (no Nx run): which inputs,
// command, outputs and dependencies each target gets, in both tool locations. The e2e tests
// prove what Nx does with them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';

interface Target {
  command?: string;
  executor?: string;
  options?: { tool: string; args: string[]; env?: Record<string, string>; packDir?: string; staleOutputs?: string };
  cache: boolean;
  inputs: unknown[];
  outputs: string[];
  dependsOn: unknown[];
}
interface Project {
  name: string;
  root: string;
  tags: string[];
  implicitDependencies: string[];
  targets: Record<string, Target>;
}
type ToolLocation = { kind: 'installed'; packageName: string } | { kind: 'workspace'; packageName: string; project: string; buildInputs?: unknown[] };
interface PluginCore {
  TOOL_PACKAGES: readonly string[];
  normalizeOptions(o: unknown): { docsRoots: string[]; topicMarker: string; configFile: string; embeddingCacheDir: string };
  createProjects(
    files: string[],
    ctx: { options: ReturnType<PluginCore['normalizeOptions']>; tools: Record<string, ToolLocation>; executor?: ExecutorLocation; ownNames?: Map<string, { name: string; file: string }> },
  ): [string, { projects: Record<string, Project> }][];
  mirrorBuildInputs(inputs: unknown, toolRoot: string, lockfile?: string): unknown[] | undefined;
  mergeInputs(lists: unknown[][]): unknown[];
  upstreamSteps(target: string): { target: string }[];
}
interface PluginEdge {
  name: string;
  createNodesV2: [string, (files: string[], options: unknown, context: { workspaceRoot: string; nxJsonConfiguration?: unknown }) => [string, { projects: Record<string, Project> }][]];
  locateTool(packageName: string, workspaceRoot: string): ToolLocation;
  ownProjectNames(files: string[], options: ReturnType<PluginCore['normalizeOptions']>, workspaceRoot: string): Map<string, { name: string; file: string }>;
}
type ExecutorLocation = { kind: 'installed' } | { kind: 'workspace'; file: string; packageDir?: string };
const require = createRequire(import.meta.url);
const core = require('./plugin.cjs') as PluginCore;
const edge = require('./index.cjs') as PluginEdge;

const installed = Object.fromEntries(core.TOOL_PACKAGES.map((p) => [p, { kind: 'installed', packageName: p } as ToolLocation]));
const workspace = Object.fromEntries(core.TOOL_PACKAGES.map((p) => [p, { kind: 'workspace', packageName: p, project: p.replace('@chunkyard/', '') } as ToolLocation]));


function projects(files: string[], options: unknown = {}, tools = installed, executor?: ExecutorLocation): Record<string, Project> {
  const results = core.createProjects(files, { options: core.normalizeOptions(options), tools, ...(executor ? { executor } : {}) });
  const all: Record<string, Project> = {};
  for (const [, r] of results) {
    for (const [root, p] of Object.entries(r.projects)) {
      // Nx requires each project to be described by exactly one result.
      expect(all[root], root).toBeUndefined();
      all[root] = p;
    }
  }
  return all;
}

describe('@chunkyard/nx: inferred targets', () => {
  const topic = () => projects(['docs/libraries/foo/golden-reference.md'])['docs/libraries/foo']!;

  it('a topic has chunk, keywords, spec, index-json and index', () => {
    expect(Object.keys(topic().targets)).toEqual(['chunk', 'keywords', 'spec', 'index-json', 'index']);
    expect(topic().tags).toContain('type:topic');
  });

  it('installed tools: each step runs its tool through the batchable executor and hashes exactly its own package (and so its dependency closure) and the executor\'s', () => {
    const t = topic().targets;
    expect(t.chunk!.executor).toBe('@chunkyard/nx:tool');
    expect(t.chunk!.options).toEqual({ tool: '@chunkyard/chunking-tool', args: ['docs/libraries/foo', '--config', 'chunkyard.config.yaml'] });
    expect(t.chunk!.inputs).toContainEqual({ externalDependencies: ['@chunkyard/chunking-tool', '@chunkyard/nx'] });
    expect(t.chunk!.inputs).toContain('{workspaceRoot}/chunkyard.config.yaml');
    expect(t.keywords!.options).toEqual({ tool: '@chunkyard/keyword-extractor', args: ['docs/libraries/foo'] });
    expect(t.keywords!.inputs).toContainEqual({ externalDependencies: ['@chunkyard/keyword-extractor', '@chunkyard/nx'] });
    // Keywords depend on the topic's text only: a chunking setting must not rerun them.
    expect(t.keywords!.inputs).not.toContain('{workspaceRoot}/chunkyard.config.yaml');
    expect(t.spec!.dependsOn).toEqual(['chunk', 'keywords']);
    expect(t['index-json']!.options).toEqual({ tool: '@chunkyard/index-tool', args: ['docs/libraries/foo', '--root', 'docs'] });
    // One executor for every step, so that Nx runs the whole pipeline as one batch (plugin.cjs, runTool).
    expect([t.chunk, t.keywords, t.spec, t['index-json']].map((x) => x!.executor)).toEqual(['@chunkyard/nx:tool', '@chunkyard/nx:tool', '@chunkyard/nx:tool', '@chunkyard/nx:tool']);
    expect(t['index-json']!.dependsOn).toEqual(['spec']);
    // Installed tools are not projects: no build to wait for, no graph edge to a tool.
    expect(topic().implicitDependencies).toEqual([]);
  });

  it("a step hashes its own and every earlier step's sources, config and tools, never an earlier step's outputs", () => {
    const t = topic().targets;
    const sources = ['{projectRoot}/**/*.{md,markdown,txt}', '!{projectRoot}/topic-spec.md', '!{projectRoot}/_chunks/**', '!{projectRoot}/_keywords/**', '{projectRoot}/topic.yaml'];
    const config = '{workspaceRoot}/chunkyard.config.yaml';
    const ext = (...tools: string[]) => ({ externalDependencies: [...tools.map((x) => `@chunkyard/${x}`), '@chunkyard/nx'].sort() });
    // The model servers' addresses (chunk's lead lines, spec's vectors) and the default marker, from the environment.
    const env = (...names: string[]) => names.map((n) => ({ env: n }));
    const servers = env('OLLAMA_HOST', 'OPENAI_BASE_URL', 'CHUNKYARD_TOPIC_MARKER');
    expect(t.chunk!.inputs).toEqual([...sources, config, ...servers, ext('chunking-tool')]);
    expect(t.keywords!.inputs).toEqual([...sources, ...env('CHUNKYARD_TOPIC_MARKER'), ext('keyword-extractor')]);
    expect(t.chunk!.outputs).toEqual(['{projectRoot}/_chunks']);
    expect(t.keywords!.outputs).toEqual(['{projectRoot}/_keywords/words.md']);
    // spec reads _chunks/ and _keywords/: functions of exactly what chunk and keywords hash.
    expect(t.spec!.inputs).toEqual([...sources, config, ...servers, ext('chunking-tool', 'keyword-extractor', 'topic-spec')]);
    expect(t['index-json']!.inputs).toEqual([...sources, config, ...servers, ext('chunking-tool', 'keyword-extractor', 'topic-spec', 'index-tool')]);
    // Nx hashes a task with no dependentTasksOutputFiles input up front, from its file index:
    // no git-ignored output is read to hash any topic step.
    for (const target of ['chunk', 'keywords', 'spec', 'index-json']) {
      expect(JSON.stringify(t[target]!.inputs), target).not.toContain('dependentTasksOutputFiles');
    }
  });

  it('the environment that changes an output is an input of every task whose output it changes', () => {
    const all = projects(['docs/a/t/golden-reference.md']);
    const t = all['docs/a/t']!.targets;
    const hasEnv = (target: { inputs: unknown[] }, name: string) => target.inputs.some((i) => JSON.stringify(i) === JSON.stringify({ env: name }));
    // OLLAMA_HOST / OPENAI_BASE_URL pick the server of chunk's LLM lead lines and spec's vectors:
    // a changed address must not serve the other server's output from the cache.
    for (const name of ['OLLAMA_HOST', 'OPENAI_BASE_URL']) {
      for (const target of ['chunk', 'spec', 'index-json']) expect(hasEnv(t[target]!, name), `${target} ${name}`).toBe(true);
      expect(hasEnv(t.keywords!, name), `keywords ${name}`).toBe(false);
      expect(hasEnv(all.docs!.targets['llms-txt']!, name), `llms-txt ${name}`).toBe(true);
    }
    // An API key changes who pays, not what is written: never an input (a rotated key reruns nothing).
    for (const target of ['chunk', 'keywords', 'spec', 'index-json']) {
      expect(JSON.stringify(t[target]!.inputs), target).not.toMatch(/OPENAI_API_KEY|OPENAI_ORG_ID|OPENAI_PROJECT_ID/);
    }
    // The default marker is read from Nx's environment by every tool, sections' index-json too;
    // a topicMarker option is set in the task's options instead, so then it is no env input.
    for (const target of ['chunk', 'keywords', 'spec', 'index-json']) expect(hasEnv(t[target]!, 'CHUNKYARD_TOPIC_MARKER'), target).toBe(true);
    expect(hasEnv(all['docs/a']!.targets['index-json']!, 'CHUNKYARD_TOPIC_MARKER')).toBe(true);
    const readme = projects(['docs/a/t/README.md'], { topicMarker: 'README.md' })['docs/a/t']!.targets;
    expect(hasEnv(readme.chunk!, 'CHUNKYARD_TOPIC_MARKER')).toBe(false);
    expect(readme.chunk!.options).toMatchObject({ env: { CHUNKYARD_TOPIC_MARKER: 'README.md' } });
  });

  it('upstreamSteps: a step and every step before it, in pipeline order', () => {
    expect(core.upstreamSteps('chunk').map((s) => s.target)).toEqual(['chunk']);
    expect(core.upstreamSteps('keywords').map((s) => s.target)).toEqual(['keywords']);
    expect(core.upstreamSteps('spec').map((s) => s.target)).toEqual(['chunk', 'keywords', 'spec']);
  });

  it('mergeInputs keeps each input once, in first-seen order, and merges every externalDependencies entry into one, last', () => {
    expect(core.mergeInputs([['a', { env: 'X' }, { externalDependencies: ['z'] }], ['a', 'b', { env: 'X' }, { externalDependencies: ['y', 'z'] }]])).toEqual(['a', { env: 'X' }, 'b', { externalDependencies: ['y', 'z'] }]);
    expect(core.mergeInputs([['a'], ['b']])).toEqual(['a', 'b']);
  });

  it("mirrorBuildInputs: a workspace tool's build inputs, as a topic task hashes them, or undefined where that would not be exact", () => {
    const build = ['{projectRoot}/src/**/*.ts', '!{projectRoot}/src/**/*.test.ts', '{workspaceRoot}/packages/*/src/**/*.ts', { fileset: '{projectRoot}/assets/*' }, { externalDependencies: ['esbuild'] }, { env: 'MODE' }];
    expect(core.mirrorBuildInputs(build, 'apps/chunking-tool')).toEqual([
      '{workspaceRoot}/apps/chunking-tool/src/**/*.ts',
      '!{workspaceRoot}/apps/chunking-tool/src/**/*.test.ts',
      '{workspaceRoot}/packages/*/src/**/*.ts',
      '{workspaceRoot}/apps/chunking-tool/assets/*',
      { externalDependencies: ['esbuild'] },
      { env: 'MODE' },
      '{workspaceRoot}/apps/chunking-tool/package.json',
    ]);
    // With a lockfile, one tracked file stands for the build's external packages (and their closure).
    expect(core.mirrorBuildInputs(['{projectRoot}/src/**/*.ts', { externalDependencies: ['esbuild', 'typescript'] }], 'apps/x', 'package-lock.json')).toEqual([
      '{workspaceRoot}/apps/x/src/**/*.ts',
      '{workspaceRoot}/package-lock.json',
      { externalDependencies: [] },
      '{workspaceRoot}/apps/x/package.json',
    ]);
    // No externalDependencies entry: an empty one, or Nx would hash every external package.
    expect(core.mirrorBuildInputs(['{projectRoot}/src/**/*.ts'], 'apps/x')).toEqual(['{workspaceRoot}/apps/x/src/**/*.ts', '{workspaceRoot}/apps/x/package.json', { externalDependencies: [] }]);
    // Nx's defaults, a named input (it would resolve against the topic), another project's or task's files: not mirrored.
    for (const inputs of [undefined, [], ['production'], ['^production'], [{ input: 'production', projects: ['x'] }], [{ dependentTasksOutputFiles: '**/*' }], [{ fileset: 'src/**' }]]) {
      expect(core.mirrorBuildInputs(inputs, 'apps/x'), JSON.stringify(inputs)).toBeUndefined();
    }
  });

  it('spec writes its vectors into a per-topic cache folder that is one of its outputs', () => {
    const spec = topic().targets.spec!;
    expect(spec.options!.args).toEqual(['docs/libraries/foo', '--config', 'chunkyard.config.yaml', '--cache-dir', '.embedding-cache/topic-libraries-foo', '--prune-cache']);
    expect(spec.options!.packDir).toBe('.embedding-cache/topic-libraries-foo');
    // One file for the folder: a restore copies it, not the folder's tree (executor.cjs, packDir).
    expect(spec.outputs).toEqual(['{projectRoot}/topic-spec.md', '{workspaceRoot}/.embedding-cache/topic-libraries-foo.pack']);
  });

  it('workspace tools (chunkyard\'s own repo) without mirrorable build inputs: each step waits for its tool build and hashes the built bundle and the executor\'s source', () => {
    const p = projects(['docs/libraries/foo/golden-reference.md'], {}, workspace, { kind: 'workspace', file: 'packages/nx/src/executor.cjs' })['docs/libraries/foo']!;
    expect(p.targets.chunk!.inputs).toContain('{workspaceRoot}/packages/nx/src/executor.cjs');
    expect(p.targets.chunk!.inputs).toContain('{workspaceRoot}/packages/nx/src/executor-worker.cjs');
    expect(p.targets.chunk!.inputs).not.toContainEqual({ externalDependencies: ['@chunkyard/nx'] });
    expect(p.targets.chunk!.dependsOn).toEqual([{ projects: ['chunking-tool'], target: 'build' }]);
    expect(p.targets.chunk!.inputs).toContainEqual({ dependentTasksOutputFiles: '**/*', transitive: true });
    expect(p.targets.chunk!.inputs).toContainEqual({ externalDependencies: [] });
    expect(p.implicitDependencies).toEqual(['chunking-tool', 'keyword-extractor', 'topic-spec', 'index-tool']);
    // Without a package folder the executor keeps its package name.
    expect(p.targets.chunk!.executor).toBe('@chunkyard/nx:tool');
  });

  it("workspace tools with build inputs: each step hashes its own and earlier tools' build inputs, not their bundles; executors are named by the package folder", () => {
    const withBuild = Object.fromEntries(
      core.TOOL_PACKAGES.map((p) => {
        const dir = p.replace('@chunkyard/', '');
        return [p, { kind: 'workspace', packageName: p, project: dir, buildInputs: [`{workspaceRoot}/apps/${dir}/src/**/*.ts`, { externalDependencies: ['esbuild'] }] } as ToolLocation];
      }),
    );
    const p = projects(['docs/libraries/foo/golden-reference.md'], {}, withBuild, { kind: 'workspace', file: 'packages/nx/src/executor.cjs', packageDir: 'packages/nx' })['docs/libraries/foo']!;
    expect(p.targets.keywords!.inputs).toContain('{workspaceRoot}/apps/keyword-extractor/src/**/*.ts');
    expect(p.targets.keywords!.inputs).not.toContain('{workspaceRoot}/apps/chunking-tool/src/**/*.ts');
    expect(p.targets.spec!.inputs).toEqual(expect.arrayContaining(['{workspaceRoot}/apps/chunking-tool/src/**/*.ts', '{workspaceRoot}/apps/keyword-extractor/src/**/*.ts', '{workspaceRoot}/apps/topic-spec/src/**/*.ts']));
    expect(p.targets['index-json']!.inputs).toContain('{workspaceRoot}/apps/index-tool/src/**/*.ts');
    expect(p.targets.spec!.inputs.at(-1)).toEqual({ externalDependencies: ['esbuild'] });
    for (const target of ['chunk', 'keywords', 'spec', 'index-json']) {
      expect(JSON.stringify(p.targets[target]!.inputs), target).not.toContain('dependentTasksOutputFiles');
    }
    // Every step waits for every tool's build, so Nx schedules the whole pipeline as one batch
    // once the builds are done (a batch per build left a failed topic's later steps with no
    // result, and run-many exited 130).
    const everyBuild = [{ projects: ['chunking-tool', 'keyword-extractor', 'topic-spec', 'index-tool'], target: 'build' }];
    expect(p.targets.chunk!.dependsOn).toEqual(everyBuild);
    expect(p.targets.keywords!.dependsOn).toEqual(everyBuild);
    expect(p.targets.spec!.dependsOn).toEqual(['chunk', 'keywords', ...everyBuild]);
    expect(p.targets['index-json']!.dependsOn).toEqual(['spec', ...everyBuild]);
    expect([p.targets.chunk, p.targets.spec, p.targets['index-json']].map((x) => x!.executor)).toEqual(['./packages/nx:tool', './packages/nx:tool', './packages/nx:tool']);
  });

  it('outputs never feed back into inputs', () => {
    for (const target of ['chunk', 'keywords', 'spec']) {
      const inputs = topic().targets[target]!.inputs;
      expect(inputs).toEqual(expect.arrayContaining(['!{projectRoot}/topic-spec.md', '!{projectRoot}/_chunks/**', '!{projectRoot}/_keywords/**']));
    }
  });

  it('every folder above a topic is a section; index waits for this folder and every ancestor', () => {
    const all = projects(['docs/a/b/t2/golden-reference.md', 'docs/a/t1/golden-reference.md', 'docs/a/t1/sub/golden-reference.md', 'docs/t0/golden-reference.md']);
    expect(Object.fromEntries(Object.entries(all).map(([root, p]) => [root, p.name]))).toEqual({
      docs: 'docs',
      'docs/a': 'section-a',
      'docs/a/b': 'section-a-b',
      'docs/a/b/t2': 'topic-a-b-t2',
      'docs/a/t1': 'topic-a-t1',
      'docs/a/t1/sub': 'topic-a-t1-sub',
      'docs/t0': 'topic-t0',
    });
    expect(Object.keys(all.docs!.targets)).toEqual(['index-json', 'llms-txt', 'index']);
    expect(Object.keys(all['docs/a']!.targets)).toEqual(['index-json', 'index']);
    expect(all.docs!.targets['index-json']!.dependsOn).toEqual([{ projects: ['section-a', 'topic-t0'], target: 'index-json' }]);
    // Every ancestor's index.json through the parent's index, which waits for its own and its
    // parent's (plugin.deep-nesting.test.ts: listing every ancestor was D^3 for D nested topics).
    expect(all['docs/a/b/t2']!.targets.index!.dependsOn).toEqual([
      'index-json',
      { projects: ['section-a-b'], target: 'index' },
      { projects: ['docs'], target: 'llms-txt' },
    ]);
    expect(all['docs/a/b']!.targets.index!.dependsOn).toEqual(['index-json', { projects: ['section-a'], target: 'index' }, { projects: ['docs'], target: 'llms-txt' }]);
    expect(all.docs!.targets.index!.dependsOn).toEqual(['index-json', { projects: ['docs'], target: 'llms-txt' }]);
    // Every index.json, and llms.txt, runs through the same executor as the topic steps, so one
    // batch holds the whole pipeline (plugin.cjs, runTool).
    const run = (t: Target) => ({ executor: t.executor, options: t.options, command: t.command });
    // It runs nothing, through the same executor: in the batch, a failure below it gives it a
    // result, where nx:noop was left with none and Nx exited 130 (executor.cjs, batchExecutor).
    expect(run(all['docs/a/b/t2']!.targets.index!)).toEqual({ executor: '@chunkyard/nx:tool', options: { noop: true } });
    expect(run(all['docs/a/b/t2']!.targets['index-json']!)).toEqual({ executor: '@chunkyard/nx:tool', options: { tool: '@chunkyard/index-tool', args: ['docs/a/b/t2', '--root', 'docs'] } });
    expect(run(all['docs/a']!.targets['index-json']!)).toEqual({ executor: '@chunkyard/nx:tool', options: { tool: '@chunkyard/index-tool', args: ['docs/a', '--root', 'docs'] } });
    expect(all['docs/a/t1']!.targets['index-json']!.options!.args).toEqual(['docs/a/t1', '--root', 'docs']);
    expect(all.docs!.targets['index-json']!.options!.args).toEqual(['docs', '--root', 'docs', '--prune']);
    expect(run(all.docs!.targets['llms-txt']!)).toEqual({ executor: '@chunkyard/nx:tool', options: { tool: '@chunkyard/index-tool', args: ['docs', '--root', 'docs', '--llms-txt'] } });
    // No index.json hashes its children's outputs (a batch hashes every task before any runs):
    // a folder's hashes every source below it, the config and every tool instead.
    // Workspace-root globs: a section's own project holds none of its topics' files.
    for (const dir of ['docs', 'docs/a', 'docs/a/b', 'docs/a/t1']) {
      const inputs = all[dir]!.targets['index-json']!.inputs;
      expect(JSON.stringify(inputs), dir).not.toContain('dependentTasksOutputFiles');
      expect(JSON.stringify(inputs), dir).not.toContain('{projectRoot}');
      expect(inputs, dir).toEqual(expect.arrayContaining([`{workspaceRoot}/${dir}/**/*.{md,markdown,txt}`, `{workspaceRoot}/${dir}/**/golden-reference.md`, `!{workspaceRoot}/${dir}/**/_chunks/**`, '{workspaceRoot}/chunkyard.config.yaml']));
      expect(inputs.at(-1), dir).toEqual({ externalDependencies: ['@chunkyard/chunking-tool', '@chunkyard/index-tool', '@chunkyard/keyword-extractor', '@chunkyard/nx', '@chunkyard/topic-spec'] });
    }
    // The root's llms.txt is written after its index.json, so it is no input of it.
    expect(all.docs!.targets['index-json']!.inputs).toEqual(expect.arrayContaining(['!{workspaceRoot}/docs/llms.txt', '!{workspaceRoot}/docs/llms-full.txt']));
    expect(JSON.stringify(all['docs/a']!.targets['index-json']!.inputs)).not.toContain('llms.txt');
    // A topic with a topic below it lists it too.
    expect(all['docs/a/t1']!.targets['index-json']!.dependsOn).toEqual(['spec', { projects: ['topic-a-t1-sub'], target: 'index-json' }]);
    expect(all['docs/a']!.implicitDependencies).toEqual(['section-a-b', 'topic-a-t1']);
  });

  it('the root writes llms.txt from every index.json below it; llmsTxt sets its title and summary, or turns it off', () => {
    const root = projects(['docs/a/t/golden-reference.md'], { llmsTxt: { title: "Bob's docs", summary: 'All of them.' } }).docs!;
    const llms = root.targets['llms-txt']!;
    // Arguments, not a shell line: a title with quotes or spaces reaches the tool as written.
    expect(llms.options!.args).toEqual(['docs', '--root', 'docs', '--llms-txt', '--llms-title', "Bob's docs", '--llms-summary', 'All of them.']);
    // Every source under the root (what every index.json below is a function of), not the
    // index.json files themselves: no walk of every task's outputs on every run.
    expect(llms.inputs.slice(0, 8)).toEqual([
      '{workspaceRoot}/docs/**/*.{md,markdown,txt}',
      '{workspaceRoot}/docs/**/topic.yaml',
      '{workspaceRoot}/docs/**/golden-reference.md',
      '!{workspaceRoot}/docs/**/topic-spec.md',
      '!{workspaceRoot}/docs/**/_chunks/**',
      '!{workspaceRoot}/docs/**/_keywords/**',
      '!{workspaceRoot}/docs/llms.txt',
      '!{workspaceRoot}/docs/llms-full.txt',
    ]);
    expect(llms.inputs).toContain('{workspaceRoot}/chunkyard.config.yaml');
    expect(llms.inputs.at(-1)).toEqual({ externalDependencies: ['@chunkyard/chunking-tool', '@chunkyard/index-tool', '@chunkyard/keyword-extractor', '@chunkyard/nx', '@chunkyard/topic-spec'] });
    expect(JSON.stringify(llms.inputs)).not.toContain('dependentTasksOutputFiles');
    expect(llms.outputs).toEqual(['{projectRoot}/llms.txt']);
    expect(llms.dependsOn).toEqual(['index-json']);
    const off = projects(['docs/a/t/golden-reference.md'], { llmsTxt: false });
    expect(Object.keys(off.docs!.targets)).toEqual(['index-json', 'index']);
    expect(off['docs/a/t']!.targets.index!.dependsOn).toEqual(['index-json', { projects: ['section-a'], target: 'index' }]);
    expect(() => core.normalizeOptions({ llmsTxt: { title: 3 } })).toThrow(/llmsTxt/);
    expect(() => core.normalizeOptions({ llmsTxt: { colour: 'x' } })).toThrow(/llmsTxt/);
    expect(() => core.normalizeOptions({ llmsTxt: { full: 'yes' } })).toThrow(/llmsTxt/);
  });

  it('llmsTxt.full also writes llms-full.txt, hashing the chunk files it reads', () => {
    const llms = projects(['docs/a/t/golden-reference.md'], { llmsTxt: { full: true } }).docs!.targets['llms-txt']!;
    expect(llms.options!.args).toEqual(['docs', '--root', 'docs', '--llms-txt', '--llms-full']);
    expect(llms.outputs).toEqual(['{projectRoot}/llms.txt', '{projectRoot}/llms-full.txt']);
    // The chunk files are functions of the same sources, config and tools.
    expect(llms.inputs).toContain('{workspaceRoot}/docs/**/*.{md,markdown,txt}');
    expect(JSON.stringify(llms.inputs)).not.toContain('dependentTasksOutputFiles');
  });

  it('docsRoot, topicMarker and configFile are options; several roots get root-qualified names', () => {
    const all = projects(['content/x/README.md', 'content/x/golden-reference.md', 'site/docs/y/README.md', 'other/z/README.md'], {
      docsRoot: ['content', 'site/docs/'],
      topicMarker: 'README.md',
      configFile: 'config/chunkyard.yaml',
    });
    expect(Object.fromEntries(Object.entries(all).map(([root, p]) => [root, p.name]))).toEqual({
      content: 'content',
      'content/x': 'topic-content-x',
      'site/docs': 'site-docs',
      'site/docs/y': 'topic-site-docs-y',
    });
    expect(all['content/x']!.targets.chunk!.options!.args).toEqual(['content/x', '--config', 'config/chunkyard.yaml']);
    expect(all['site/docs/y']!.targets['index-json']!.options!.args).toEqual(['site/docs/y', '--root', 'site/docs']);
    expect(all.content!.targets['index-json']!.options).toEqual({ tool: '@chunkyard/index-tool', args: ['content', '--root', 'content', '--prune'], env: { CHUNKYARD_TOPIC_MARKER: 'README.md' } });
    // A set marker is hashed as a task option and globbed as a source of every folder index.
    expect(all.content!.targets['index-json']!.inputs).toContain('{workspaceRoot}/content/**/README.md');
    // The tools learn the marker from the task's environment, which Nx hashes with the target.
    expect(all['content/x']!.targets.spec!.options!.env).toEqual({ CHUNKYARD_TOPIC_MARKER: 'README.md' });
    expect('env' in projects(['docs/t/golden-reference.md'])['docs/t']!.targets.chunk!.options!).toBe(false);
  });

  it('a folder named with glob characters gets patterns that match it: [ ] { } * ? escaped, ( ) ! as ?', () => {
    const all = projects(['docs/v[2] {x} (beta)!/t*/golden-reference.md']);
    const t = all['docs/v[2] {x} (beta)!/t*']!.targets;
    const root = '{workspaceRoot}/docs/v\\[2\\] \\{x\\} ?beta??/t\\*';
    expect(t.chunk!.outputs).toEqual([`${root}/_chunks`]);
    expect(t.chunk!.inputs.slice(0, 3)).toEqual([`${root}/**/*.{md,markdown,txt}`, `!${root}/topic-spec.md`, `!${root}/_chunks/**`]);
    expect(t.spec!.outputs).toEqual([`${root}/topic-spec.md`, '{workspaceRoot}/.embedding-cache/topic-v\\[2\\] \\{x\\} ?beta??-t\\*.pack']);
    expect(t['index-json']!.outputs).toEqual([`${root}/index.json`]);
    // The tools get the path itself, not a pattern.
    expect(t.chunk!.options!.args[0]).toBe('docs/v[2] {x} (beta)!/t*');
    expect(t.spec!.options!.packDir).toBe('.embedding-cache/topic-v[2] {x} (beta)!-t*');
    const section = all['docs/v[2] {x} (beta)!']!.targets['index-json']!;
    expect(section.inputs[0]).toBe('{workspaceRoot}/docs/v\\[2\\] \\{x\\} ?beta??/**/*.{md,markdown,txt}');
    // A plain folder keeps {projectRoot}: its hashes do not change.
    expect(topic().targets.chunk!.outputs).toEqual(['{projectRoot}/_chunks']);
  });

  it('a folder whose name holds a backslash (legal on Linux and macOS) is that folder, not a path of two (probe)', () => {
    // docs/g/back\slash became the topic docs/g/back/slash under a section docs/g/back, neither of
    // which exists, and `nx run-many -t index` failed for every topic: "project ... not found".
    const all = projects(['docs/g/back\\slash/golden-reference.md']);
    expect(Object.keys(all).sort()).toEqual(['docs', 'docs/g', 'docs/g/back\\slash']);
    const t = all['docs/g/back\\slash']!;
    expect(t.root).toBe('docs/g/back\\slash');
    expect(t.targets.chunk!.options!.args[0]).toBe('docs/g/back\\slash');
    expect(t.targets.chunk!.outputs).toEqual(['{workspaceRoot}/docs/g/back?slash/_chunks']);
  });

  it('a project name too long for one file name gets a shortened, distinct embedding-cache folder (probe)', () => {
    // A 255-byte folder name is legal, but `.embedding-cache/topic-g-<255 bytes>` is not, and spec
    // failed with ENAMETOOLONG; nested long folders join into such a name too.
    const long = 'a'.repeat(255);
    const all = projects([`docs/g/${long}/golden-reference.md`, `docs/g/${long.slice(0, 250)}b/golden-reference.md`, 'docs/g/ok/golden-reference.md']);
    const packDir = (dir: string) => all[dir]!.targets.spec!.options!.packDir!;
    const first = packDir(`docs/g/${long}`);
    const second = packDir(`docs/g/${long.slice(0, 250)}b`);
    for (const dir of [first, second]) {
      const base = dir.slice('.embedding-cache/'.length);
      expect(Buffer.byteLength(`${base}.pack`)).toBeLessThanOrEqual(255);
      expect(base).toMatch(/^topic-g-a+~[0-9a-f]{16}$/);
    }
    expect(first).not.toBe(second);
    expect(all[`docs/g/${long}`]!.targets.spec!.options!.args).toContain(first);
    expect(all[`docs/g/${long}`]!.targets.spec!.outputs[1]).toBe(`{workspaceRoot}/${first}.pack`);
    // Names that fit keep their folder, so existing caches stay valid.
    expect(packDir('docs/g/ok')).toBe('.embedding-cache/topic-g-ok');
    // A multi-byte name is cut on a character boundary.
    const wide = projects([`docs/${'é'.repeat(127)}/golden-reference.md`])[`docs/${'é'.repeat(127)}`]!.targets.spec!.options!.packDir!;
    expect(Buffer.byteLength(`${wide.slice('.embedding-cache/'.length)}.pack`)).toBeLessThanOrEqual(255);
    expect(wide).not.toContain('\ufffd');
  });

  it('two folders whose project names collide are an error naming both, before Nx sees them', () => {
    // docs/a-b and docs/a/b were both `topic-a-b`: Nx's own message advised a project.json
    // name, which left both topics sharing one .embedding-cache folder (each pruning the
    // other's vectors) and the section's implicit dependency on the wrong project.
    expect(() => projects(['docs/a-b/golden-reference.md', 'docs/a/b/golden-reference.md'])).toThrow(
      /^@chunkyard\/nx: the folders docs\/a-b and docs\/a\/b would both be the project "topic-a-b".*rename one of them/,
    );
    expect(() => projects(['docs/a-b/x/golden-reference.md', 'docs/a/b/y/golden-reference.md'])).toThrow(/"section-a-b"/);
    // Several roots: the root `docs-x` is topic-docs-x, and so is docs/x.
    expect(() => projects(['docs/x/golden-reference.md', 'docs-x/golden-reference.md'], { docsRoot: ['docs', 'docs-x'] })).toThrow(/"topic-docs-x"/);
    expect(Object.keys(projects(['docs/a-b/golden-reference.md', 'docs/a/c/golden-reference.md']))).toHaveLength(4);
  });

  it("a folder that is an Nx project of its own keeps that project's name everywhere; its embedding cache keeps the path name (probe)", () => {
    const files = ['docs/proj/golden-reference.md', 'docs/g/other/golden-reference.md'];
    const ownNames = new Map([
      ['docs/proj', { name: 'my-proj', file: 'docs/proj/project.json' }],
      ['docs/g', { name: 'guides', file: 'docs/g/project.json' }],
      ['docs', { name: 'docs-site', file: 'docs/project.json' }],
    ]);
    const all: Record<string, Project> = {};
    for (const [, r] of core.createProjects(files, { options: core.normalizeOptions({}), tools: installed, ownNames })) Object.assign(all, r.projects);
    expect(Object.fromEntries(Object.entries(all).map(([d, p]) => [d, p.name]))).toEqual({
      'docs/proj': 'my-proj',
      'docs/g/other': 'topic-g-other',
      'docs/g': 'guides',
      docs: 'docs-site',
    });
    // Every reference names the project by the name Nx ends up with (Nx rewrites no implicitDependencies).
    expect(all.docs?.implicitDependencies).toEqual(expect.arrayContaining(['my-proj', 'guides']));
    expect(all['docs/g']?.implicitDependencies).toContain('topic-g-other');
    expect(all['docs/g/other']?.targets.index?.dependsOn).toContainEqual({ projects: ['guides'], target: 'index' });
    expect(all['docs/proj']?.targets.index?.dependsOn).toContainEqual({ projects: ['docs-site'], target: 'llms-txt' });
    expect(all['docs/proj']?.targets.spec?.options?.packDir).toBe('.embedding-cache/topic-proj');

    // A topic with an Nx project below it that is no topic hashes its whole folder from the
    // workspace root (Nx gives that project's files to it); a topic without one keeps {projectRoot}.
    const withApp = new Map([['docs/t/example', { name: 'example-app', file: 'docs/t/example/project.json' }]]);
    const held: Record<string, Project> = {};
    for (const [, r] of core.createProjects(['docs/t/golden-reference.md', 'docs/u/golden-reference.md'], { options: core.normalizeOptions({}), tools: installed, ownNames: withApp })) Object.assign(held, r.projects);
    for (const target of ['chunk', 'keywords', 'spec', 'index-json']) {
      expect(held['docs/t']?.targets[target]?.inputs, target).toContain('{workspaceRoot}/docs/t/**/*.{md,markdown,txt}');
      expect(held['docs/u']?.targets[target]?.inputs, target).toContain('{projectRoot}/**/*.{md,markdown,txt}');
    }

    // A given name that another folder's path name already is: both folders and the file are named.
    const clash = new Map([['docs/a', { name: 'topic-b', file: 'docs/a/project.json' }]]);
    expect(() => core.createProjects(['docs/a/golden-reference.md', 'docs/b/golden-reference.md'], { options: core.normalizeOptions({}), tools: installed, ownNames: clash })).toThrow(
      /^@chunkyard\/nx: the folders docs\/a and docs\/b would both be the project "topic-b" \(docs\/a\/project\.json names docs\/a "topic-b";.*rename one of them$/,
    );
    // docs/a-b named by its project.json and docs/a/b would still share one embedding-cache folder.
    const renamed = new Map([['docs/a-b', { name: 'ab', file: 'docs/a-b/project.json' }]]);
    expect(() => core.createProjects(['docs/a-b/golden-reference.md', 'docs/a/b/golden-reference.md'], { options: core.normalizeOptions({}), tools: installed, ownNames: renamed })).toThrow(
      /^@chunkyard\/nx: the folders docs\/a-b and docs\/a\/b would share the embedding cache folder "topic-a-b"/,
    );
  });

  it('a folder named with control or bidi characters is an error naming it escaped (Nx prints project names raw)', () => {
    // A folder `ctl\u0001x` or one holding ESC became a project name that Nx wrote to the
    // terminal as it is, escape sequences and all (found by a probe); a newline split Nx's list.
    for (const [dir, shown] of [
      ['docs/ctl\u0001x', 'docs/ctl\\u0001x'],
      ['docs/sec\u001b[2J/t', 'docs/sec\\u001b[2J'],
      ['docs/nl\nx', 'docs/nl\\u000ax'],
      ['docs/rtl\u202eevil', 'docs/rtl\\u202eevil'],
    ]) {
      let message = '';
      try {
        projects([`${dir}/golden-reference.md`]);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, dir).toBe(`@chunkyard/nx: the folder "${shown}" has control or bidirectional characters in its name, which would reach the terminal in its project name; rename it`);
    }
  });

  it('Nx leaves every option of every target as the plugin wrote it, or the folder is refused naming the Nx token in its name (probe)', () => {
    // Nx replaces {projectRoot} and {projectName} in every string of a target's options and
    // throws on {workspaceRoot} past the start, with no escape: a folder docs/{projectName} gave
    // its tools docs/topic-{projectName} ("no such file"), and docs/{workspaceRoot} stopped every
    // nx command. Nx's own function, as it applies it to each target (target-normalization.js).
    const { resolveNxTokensInOptions } = require('nx/src/project-graph/utils/project-configuration/target-merging') as {
      resolveNxTokensInOptions(o: unknown, project: { root: string; name: string }, key: string): unknown;
    };
    const part = fc.oneof(
      fc.constantFrom('a', 'b c', '{projectName}', '{projectRoot}', '{workspaceRoot}', 'x{projectRoot}y', '{', '}', 'projectName', '{projectname}', '{{projectName}}'),
      fc.stringMatching(/^[a-z{}]{1,6}$/),
    );
    const tree = fc.uniqueArray(fc.array(part, { minLength: 1, maxLength: 3 }).map((ps) => ['docs', ...ps].join('/')), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(tree, fc.boolean(), (dirs, twoRoots) => {
        const files = dirs.map((d) => `${d}/golden-reference.md`);
        if (twoRoots) files.push('content/t/golden-reference.md');
        const options = core.normalizeOptions({ docsRoot: twoRoots ? ['docs', 'content'] : 'docs', llmsTxt: { full: true } });
        const token = dirs.flatMap((d) => d.split('/').slice(1).map((p, i) => ({ p, folder: d.split('/').slice(0, i + 2).join('/') }))).filter(({ p }) => /\{(workspaceRoot|projectRoot|projectName)\}/.test(p));
        let results;
        try {
          results = core.createProjects(files, { options, tools: installed });
        } catch (err) {
          const message = (err as Error).message;
          expect(token.length, message).toBeGreaterThan(0);
          expect(message).toMatch(/^@chunkyard\/nx: the folder "docs\/[^"]*" has \{(workspaceRoot|projectRoot|projectName)\} in its name, a token Nx replaces in a target's options \(with no way to escape it\), so its tools would be given another path; rename it$/);
          const named = /the folder "([^"]*)"/.exec(message)![1]!;
          expect(token.map((t) => t.folder)).toContain(named);
          return;
        }
        expect(token, 'a folder named with an Nx token was accepted').toEqual([]);
        for (const [, { projects: ps }] of results) {
          for (const p of Object.values(ps)) {
            for (const [name, t] of Object.entries(p.targets)) {
              expect(resolveNxTokensInOptions(t.options, p, `${p.root}:${name}`), `${p.root}:${name}`).toEqual(t.options);
            }
          }
        }
      }),
    );
    expect(() => core.normalizeOptions({ llmsTxt: { title: 'Docs of {projectName}' } })).toThrow(
      '@chunkyard/nx: option llmsTxt.title of @chunkyard/nx in nx.json holds {projectName}, a token Nx replaces',
    );
  });

  it('a marker that is not a .md, .markdown or .txt file is an input of every step (its edits rerun the topic); a marker chunkyard writes is refused (probe)', () => {
    // The topic's sources are hashed as **/*.{md,markdown,txt}: a README.rst marker was no
    // input at all, so editing it reran nothing.
    const rst = projects(['docs/t/README.rst'], { topicMarker: 'README.rst' })['docs/t']!.targets;
    for (const t of ['chunk', 'keywords', 'spec', 'index-json']) expect(rst[t]!.inputs, t).toContain('{projectRoot}/README.rst');
    // The folders above hash every marker below them: a marker name with ( ) ! is escaped there
    // as in the topic's own inputs, since Nx reads inputs as globs (see globLiteral).
    const paren = projects(['docs/s/t/README (v2).rst'], { topicMarker: 'README (v2).rst' });
    expect(paren['docs/s/t']!.targets.chunk!.inputs).toContain('{projectRoot}/README ?v2?.rst');
    expect(paren['docs/s']!.targets['index-json']!.inputs).toContain('{workspaceRoot}/docs/s/**/README ?v2?.rst');
    expect(paren['docs/s']!.targets['index-json']!.inputs).not.toContain('{workspaceRoot}/docs/s/**/README (v2).rst');
    const md = projects(['docs/t/golden-reference.md'])['docs/t']!.targets;
    expect(md.chunk!.inputs).not.toContain('{projectRoot}/golden-reference.md');
    // index.json as the marker made every folder with an index.json a topic whose source
    // index-tool then overwrote; a chunk manifest (*.json) made every _chunks/ folder a topic.
    for (const name of ['index.json', 'topic-spec.md', 'llms.txt', 'llms-full.txt', 'words.md', 'golden-reference.json']) {
      expect(() => core.normalizeOptions({ topicMarker: name }), name).toThrow(
        `@chunkyard/nx: option topicMarker of @chunkyard/nx in nx.json, ${JSON.stringify(name)}, is a name of a file chunkyard writes (index.json, topic-spec.md, llms.txt, llms-full.txt, _keywords/words.md, _chunks/*.json); give the name of the hand-written document`,
      );
    }
  });

  it('a marker the tools read with a meaning of its own (keywords.md, qa-pairs.md, topic.yaml) is refused, naming the option (probe)', () => {
    // With keywords.md, keyword-extractor read each topic's document as its hand-written keyword
    // table, and every keywords task failed with "no keyword table".
    for (const name of ['keywords.md', 'qa-pairs.md', 'topic.yaml']) {
      expect(() => core.normalizeOptions({ topicMarker: name }), name).toThrow(
        new RegExp(`^@chunkyard/nx: option topicMarker of @chunkyard/nx in nx\\.json, "${name.replace('.', '\\.')}", is a file the tools read from every topic with a meaning of its own`),
      );
    }
    expect(core.normalizeOptions({ topicMarker: 'my-keywords.md' }).topicMarker).toBe('my-keywords.md');
  });

  it('rejects options that cannot work, naming the option', () => {
    expect(() => core.normalizeOptions({ docsRoot: '../elsewhere' })).toThrow(/docsRoot/);
    expect(() => core.normalizeOptions({ docsRoot: '/abs' })).toThrow(/docsRoot/);
    expect(() => core.normalizeOptions({ docsRoot: [] })).toThrow(/docsRoot/);
    expect(() => core.normalizeOptions({ docsRoot: ['docs', 'docs/inner'] })).toThrow(/inside/);
    expect(() => core.normalizeOptions({ topicMarker: 'a/b.md' })).toThrow(/topicMarker/);
    // s34 probe: "." and ".." passed as plain file names, and control characters went into
    // CHUNKYARD_TOPIC_MARKER, which the tools refuse (topic-io's topicMarkerFrom).
    for (const bad of ['.', '..', 'x\n.md', 'x\u001b[31m.md']) expect(() => core.normalizeOptions({ topicMarker: bad }), JSON.stringify(bad)).toThrow(/topicMarker of @chunkyard\/nx in nx\.json must be a plain file name/);
    expect(() => core.normalizeOptions({ configFile: '' })).toThrow(/configFile/);
    // A misspelt option was ignored, so `topicMaker: "README.md"` silently used the default
    // marker; options that are not an object were read as none (probe).
    expect(() => core.normalizeOptions({ topicMaker: 'README.md' })).toThrow(
      '@chunkyard/nx: unknown option "topicMaker" in the options of @chunkyard/nx in nx.json (known: docsRoot, topicMarker, configFile, embeddingCacheDir, llmsTxt)',
    );
    for (const bad of ['docs', 5, ['docs']]) {
      expect(() => core.normalizeOptions(bad), JSON.stringify(bad)).toThrow(`@chunkyard/nx: the options of @chunkyard/nx in nx.json must be an object, got ${JSON.stringify(bad)}`);
    }
    expect(core.normalizeOptions(null)).toEqual(core.normalizeOptions({}));
    // The docs root's name is a project name, which Nx prints raw; the others reach the tools' messages.
    for (const option of ['docsRoot', 'configFile', 'embeddingCacheDir']) {
      for (const [bad, shown] of [['do\u001bcs', '"do\\u001bcs"'], ['do\u202ecs', '"do\\u202ecs"'], ['do\ncs', '"do\\ncs"']]) {
        expect(() => core.normalizeOptions({ [option]: bad }), option).toThrow(
          `@chunkyard/nx: option ${option} of @chunkyard/nx in nx.json must be ${option === 'configFile' ? 'a file' : 'a folder'} inside the workspace (no "..", no absolute path, no glob, no control characters), got ${shown}`,
        );
      }
    }
  });

  it('index: one inputs list per docs root, made once and copied to every folder under it', () => {
    const files = ['docs/a/t/golden-reference.md', 'docs/a/t/sub/golden-reference.md', 'docs/u/golden-reference.md', 'guide (v2)/x/golden-reference.md', 'guide (v2)/golden-reference.md', 'guide (v2)/s/y/golden-reference.md'];
    const ext = { externalDependencies: ['@chunkyard/chunking-tool', '@chunkyard/index-tool', '@chunkyard/keyword-extractor', '@chunkyard/nx', '@chunkyard/topic-spec'] };
    // What every `index` hashed when each project made its own list: every source under its
    // docs root, the config, the model servers, every tool.
    const expected = (root: string, config = 'chunkyard.config.yaml') => [
      `{workspaceRoot}/${root}/**/*.{md,markdown,txt}`,
      `{workspaceRoot}/${root}/**/topic.yaml`,
      `{workspaceRoot}/${root}/**/golden-reference.md`,
      `!{workspaceRoot}/${root}/**/topic-spec.md`,
      `!{workspaceRoot}/${root}/**/_chunks/**`,
      `!{workspaceRoot}/${root}/**/_keywords/**`,
      `!{workspaceRoot}/${root}/llms.txt`,
      `!{workspaceRoot}/${root}/llms-full.txt`,
      `{workspaceRoot}/${config}`,
      { env: 'OLLAMA_HOST' },
      { env: 'OPENAI_BASE_URL' },
      { env: 'CHUNKYARD_TOPIC_MARKER' },
      ext,
    ];
    const built = { ...workspace, ...Object.fromEntries(core.TOOL_PACKAGES.map((p) => [p, { ...workspace[p]!, buildInputs: [`{workspaceRoot}/apps/${p.slice('@chunkyard/'.length)}/src/**/*.ts`, { externalDependencies: ['esbuild'] }] }])) };
    for (const [tools, config] of [[installed, 'chunkyard.config.yaml'], [built, 'conf/other.yaml']] as const) {
      const all = projects(files, { docsRoot: ['docs', 'guide (v2)'], configFile: config }, tools);
      for (const [root, glob] of [['docs', 'docs'], ['guide (v2)', 'guide ?v2?']] as const) {
        const lists = Object.values(all)
          .filter((p) => p.root === root || p.root.startsWith(`${root}/`))
          .map((p) => p.targets.index!.inputs);
        expect(lists.length).toBeGreaterThanOrEqual(3);
        const first = lists[0]!;
        if (tools === installed) expect(first).toEqual(expected(glob));
        else {
          expect(first).toContain(`{workspaceRoot}/${config}`);
          expect(first).toContain('{workspaceRoot}/apps/index-tool/src/**/*.ts');
          expect(first.at(-1)).toEqual({ externalDependencies: ['@chunkyard/nx', 'esbuild'] });
        }
        // A copy per project (no project's list is another's), of one list made once: its
        // objects are the same objects.
        expect(new Set(lists).size).toBe(lists.length);
        for (const list of lists) {
          expect(list).toEqual(first);
          list.forEach((input, i) => {
            if (typeof input === 'object') expect(input, root).toBe(first[i]);
          });
        }
      }
      // Per call: the other root's list, and another call's, are made afresh (its options may differ).
      const docs = all.docs!.targets.index!.inputs;
      expect(all['guide (v2)']!.targets.index!.inputs.at(-1)).not.toBe(docs.at(-1));
      expect(projects(files, { docsRoot: ['docs', 'guide (v2)'], configFile: config }, tools).docs!.targets.index!.inputs.at(-1)).not.toBe(docs.at(-1));
    }
  });
});

describe('@chunkyard/nx: the file-system edge', () => {
  const temp = mkdtempSync(join(tmpdir(), 'chunkyard-nx-edge-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('in this repo the tools are workspace projects, named by their project.json, with their build inputs mirrored', () => {
    const repo = join(import.meta.dirname, '..', '..', '..');
    const found = edge.locateTool('@chunkyard/chunking-tool', repo);
    expect(found).toMatchObject({ kind: 'workspace', packageName: '@chunkyard/chunking-tool', project: 'chunking-tool' });
    expect(found.kind === 'workspace' && found.buildInputs).toEqual(expect.arrayContaining(['{workspaceRoot}/apps/chunking-tool/src/**/*.ts', '{workspaceRoot}/apps/chunking-tool/package.json', '{workspaceRoot}/package-lock.json']));
  });

  it("ownProjectNames: Nx's name for each folder under a docs root that has a project.json, or a package.json in the workspaces (probe)", () => {
    const ws = join(temp, 'own-names');
    const write = (rel: string, text: string) => {
      mkdirSync(join(ws, rel, '..'), { recursive: true });
      writeFileSync(join(ws, rel), text);
    };
    write('package.json', JSON.stringify({ name: 'root', workspaces: ['docs/ws-*'] }));
    write('docs/project.json', JSON.stringify({ name: 'docs-site' }));
    write('docs/Named/project.json', JSON.stringify({ name: 'my-proj' }));
    write('docs/Nameless/project.json', JSON.stringify({ targets: {} }));
    write('docs/both/project.json', JSON.stringify({ name: 'from-project-json' }));
    write('docs/both/package.json', JSON.stringify({ name: 'from-package-json' }));
    write('docs/broken/project.json', '{ not json');
    write('docs/ws-pkg/package.json', JSON.stringify({ name: '@acme/pkg' }));
    write('docs/ws-nx/package.json', JSON.stringify({ name: '@acme/x', nx: { name: 'x-docs' } }));
    write('docs/ws-Bare/package.json', JSON.stringify({ version: '1.0.0' }));
    write('docs/not-ws/package.json', JSON.stringify({ name: 'ignored-by-nx' }));
    write('other/project.json', JSON.stringify({ name: 'outside' }));
    const files = [
      'package.json',
      'docs/project.json',
      'docs/Named/project.json',
      'docs/Nameless/project.json',
      'docs/both/project.json',
      'docs/both/package.json',
      'docs/broken/project.json',
      'docs/ws-pkg/package.json',
      'docs/ws-nx/package.json',
      'docs/ws-Bare/package.json',
      'docs/not-ws/package.json',
      'other/project.json',
    ];
    const names = edge.ownProjectNames(files, core.normalizeOptions({}), ws);
    expect(Object.fromEntries([...names].map(([dir, v]) => [dir, v]))).toEqual({
      docs: { name: 'docs-site', file: 'docs/project.json' },
      'docs/Named': { name: 'my-proj', file: 'docs/Named/project.json' },
      // Nx's toProjectName: the folder's name in lower case.
      'docs/Nameless': { name: 'nameless', file: 'docs/Nameless/project.json' },
      'docs/both': { name: 'from-project-json', file: 'docs/both/project.json' },
      'docs/ws-pkg': { name: '@acme/pkg', file: 'docs/ws-pkg/package.json' },
      'docs/ws-nx': { name: 'x-docs', file: 'docs/ws-nx/package.json' },
      'docs/ws-Bare': { name: 'ws-bare', file: 'docs/ws-Bare/package.json' },
    });
  });

  it('a project name a project.json or workspace package.json outside the docs roots already has is an error naming the folder and the file (probe)', () => {
    const ws = join(temp, 'clash');
    const write = (rel: string, text: string) => {
      mkdirSync(join(ws, rel, '..'), { recursive: true });
      writeFileSync(join(ws, rel), text);
    };
    write('package.json', JSON.stringify({ name: 'root', workspaces: ['packages/*'] }));
    write('docs/guides/golden-reference.md', '# Guides\n');
    write('packages/site/package.json', JSON.stringify({ name: 'section-x' }));
    write('other/unlisted/package.json', JSON.stringify({ name: 'topic-guides' }));
    write('tools/topic-guides/project.json', JSON.stringify({ targets: {} }));
    const files = ['package.json', 'docs/guides/golden-reference.md', 'packages/site/package.json', 'other/unlisted/package.json', 'tools/topic-guides/project.json', 'nx.json'];
    // A project.json without a name is the project of its folder's name (Nx's rule).
    expect(() => edge.createNodesV2[1](files, {}, { workspaceRoot: ws })).toThrow(
      '@chunkyard/nx: the folder docs/guides would be the project "topic-guides" (a project is named after its path, joined by "-"), which tools/topic-guides/project.json already names its project; give the folder another name with a docs/guides/project.json holding { "name": "…" }, or rename the folder or the other project',
    );
    // Its way out, a project.json naming the topic, clears it; a package.json outside the
    // workspaces is no project (Nx ignores it), so its name clashes with nothing.
    write('docs/guides/project.json', JSON.stringify({ name: 'guides' }));
    const named = edge.createNodesV2[1]([...files, 'docs/guides/project.json'], {}, { workspaceRoot: ws });
    expect(named.flatMap(([, r]) => Object.values(r.projects).map((p) => p.name)).sort()).toEqual(['docs', 'guides']);
    // A name given by a project.json under the docs root that another project has.
    write('docs/guides/project.json', JSON.stringify({ name: 'section-x' }));
    expect(() => edge.createNodesV2[1]([...files, 'docs/guides/project.json'], {}, { workspaceRoot: ws })).toThrow(
      '@chunkyard/nx: the folder docs/guides is the project "section-x" (named by docs/guides/project.json), which packages/site/package.json also names its project; change one of the two names',
    );
  });

  it('two @chunkyard/nx entries whose folders would be one project name are an error naming both, in each entry (probe)', () => {
    const ws = join(temp, 'two-entries');
    const files = ['a/b/t/golden-reference.md', 'a-b/t/golden-reference.md', 'docs/x/golden-reference.md', 'nx.json'];
    for (const f of files) {
      mkdirSync(join(ws, f, '..'), { recursive: true });
      writeFileSync(join(ws, f), '# T\n');
    }
    const entries = (one: unknown, two: unknown) => ({ plugins: [{ plugin: '@chunkyard/nx', options: one }, { plugin: '@chunkyard/nx', options: two }] });
    const run = (options: unknown, nxJson: unknown) => edge.createNodesV2[1](files, options, { workspaceRoot: ws, nxJsonConfiguration: nxJson });
    // a/b/t and a-b/t are both topic-a-b-t: Nx hands each entry only its own projects, and
    // stopped with "defined in multiple locations", which nx run-many hides.
    const nxJson = entries({ docsRoot: ['docs', 'a/b'] }, { docsRoot: 'a-b' });
    const message =
      '@chunkyard/nx: the folders a-b/t and a/b/t, under the docs roots of two @chunkyard/nx entries in nx.json, would both be the project "topic-a-b-t" (a project is named after its docs root and its path below it, joined by "-"); rename one of them';
    expect(() => run({ docsRoot: ['docs', 'a/b'] }, nxJson)).toThrow(message);
    expect(() => run({ docsRoot: 'a-b' }, nxJson)).toThrow(message);
    // Apart, both entries make their projects; a project.json naming one of them clears it.
    const apart = entries({ docsRoot: 'docs' }, { docsRoot: 'a-b' });
    expect(run({ docsRoot: 'docs' }, apart).flatMap(([, r]) => Object.values(r.projects).map((p) => p.name)).sort()).toEqual(['docs', 'topic-docs-x']);
    expect(run({ docsRoot: 'a-b' }, apart).flatMap(([, r]) => Object.values(r.projects).map((p) => p.name)).sort()).toEqual(['a-b', 'topic-a-b-t']);
    // The roots a/b and a-b are both "a-b" too.
    writeFileSync(join(ws, 'a/b/t/project.json'), JSON.stringify({ name: 'ab-t' }));
    const named = [...files, 'a/b/t/project.json'];
    expect(() => edge.createNodesV2[1](named, { docsRoot: 'a-b' }, { workspaceRoot: ws, nxJsonConfiguration: nxJson })).toThrow(
      '@chunkyard/nx: the folders a-b and a/b, under the docs roots of two @chunkyard/nx entries in nx.json, would both be the project "a-b"',
    );
    writeFileSync(join(ws, 'a/b/project.json'), JSON.stringify({ name: 'ab' }));
    const bothNamed = [...named, 'a/b/project.json'];
    expect(edge.createNodesV2[1](bothNamed, { docsRoot: 'a-b' }, { workspaceRoot: ws, nxJsonConfiguration: nxJson }).flatMap(([, r]) => Object.values(r.projects).map((p) => p.name)).sort()).toEqual(['a-b', 'topic-a-b-t']);
    expect(edge.createNodesV2[1](bothNamed, { docsRoot: ['docs', 'a/b'] }, { workspaceRoot: ws, nxJsonConfiguration: nxJson }).flatMap(([, r]) => Object.values(r.projects).map((p) => p.name)).sort()).toEqual(['ab', 'ab-t', 'docs', 'topic-docs-x']);
  });

  it('a tool under node_modules is an installed package', () => {
    const ws = join(temp, 'user');
    mkdirSync(join(ws, 'node_modules/@chunkyard/index-tool'), { recursive: true });
    writeFileSync(join(ws, 'node_modules/@chunkyard/index-tool/package.json'), '{"name":"@chunkyard/index-tool","version":"9.9.9"}');
    expect(edge.locateTool('@chunkyard/index-tool', ws)).toEqual({ kind: 'installed', packageName: '@chunkyard/index-tool' });
  });

  it('a symlinked docs root is an error that says why, not a silent "No tasks were run"', () => {
    const ws = join(temp, 'linked');
    mkdirSync(join(temp, 'elsewhere/t'), { recursive: true });
    writeFileSync(join(temp, 'elsewhere/t/golden-reference.md'), '# T\n');
    mkdirSync(ws);
    symlinkSync(join(temp, 'elsewhere'), join(ws, 'docs'));
    expect(() => edge.createNodesV2[1](['nx.json'], {}, { workspaceRoot: ws })).toThrow(/symlink.*Nx does not follow symlinks/);
  });

  it('an embeddingCacheDir that is a file, or under one, is an error naming the option, not every spec failing with "give a --cache-dir" (probe)', () => {
    const ws = join(temp, 'cache-file');
    mkdirSync(join(ws, 'docs/t'), { recursive: true });
    writeFileSync(join(ws, 'docs/t/golden-reference.md'), '# T\n');
    writeFileSync(join(ws, 'notes.md'), 'a file\n');
    const files = ['nx.json', 'notes.md', 'docs/t/golden-reference.md'];
    const run = (embeddingCacheDir: string) => () => edge.createNodesV2[1](files, { embeddingCacheDir }, { workspaceRoot: ws });
    expect(run('notes.md')).toThrow(
      /^@chunkyard\/nx: the embedding cache folder "notes\.md" \(option embeddingCacheDir of @chunkyard\/nx in nx\.json\) cannot be a folder: notes\.md is a file; move it away or set embeddingCacheDir to another folder\.$/,
    );
    expect(run('notes.md/cache')).toThrow(/the embedding cache folder "notes\.md\/cache" .*: notes\.md is a file;/);
    // A folder, or one that does not exist yet (topic-spec creates it), is fine.
    expect(run('missing/cache')).not.toThrow();
    mkdirSync(join(ws, 'cache'));
    expect(Object.keys(run('cache')()[0]![1].projects)).toContain('docs/t');
  });

  it('a dangling or looping marker symlink is an error naming the file, not a silently missing topic (issue 15)', () => {
    // Nx leaves such a file out of `files`, so the plugin sees only the good topic's marker.
    const ws = join(temp, 'broken-marker');
    mkdirSync(join(ws, 'docs/good'), { recursive: true });
    writeFileSync(join(ws, 'docs/good/golden-reference.md'), '# Good\n');
    const files = ['nx.json', 'docs/good/golden-reference.md'];
    expect(Object.keys(edge.createNodesV2[1](files, {}, { workspaceRoot: ws })[0]![1].projects)).toContain('docs/good');
    mkdirSync(join(ws, 'docs/sec/dangling'), { recursive: true });
    symlinkSync('missing.md', join(ws, 'docs/sec/dangling/golden-reference.md'));
    expect(() => edge.createNodesV2[1](files, {}, { workspaceRoot: ws })).toThrow(
      /^@chunkyard\/nx: docs\/sec\/dangling\/golden-reference\.md is a symlink to a missing file/,
    );
    rmSync(join(ws, 'docs/sec'), { recursive: true });
    mkdirSync(join(ws, 'docs/loop'));
    symlinkSync('golden-reference.md', join(ws, 'docs/loop/golden-reference.md'));
    expect(() => edge.createNodesV2[1](files, {}, { workspaceRoot: ws })).toThrow(/docs\/loop\/golden-reference\.md is a symlink loop/);
    // A symlink to a real file is a topic like any other (Nx lists it); no error.
    rmSync(join(ws, 'docs/loop'), { recursive: true });
    mkdirSync(join(ws, 'docs/linked'));
    writeFileSync(join(ws, 'docs/linked/real.md'), '# Linked\n');
    symlinkSync('real.md', join(ws, 'docs/linked/golden-reference.md'));
    expect(() => edge.createNodesV2[1]([...files, 'docs/linked/golden-reference.md'], {}, { workspaceRoot: ws })).not.toThrow();
  });

  it('a topic.yaml, qa-pairs.md or keywords.md that is a folder, a FIFO or a dangling symlink is an error naming it: the tools fail on it, and Nx would serve the cached build (probe)', () => {
    const ws = join(temp, 'odd-read-file');
    mkdirSync(join(ws, 'docs/t/sub'), { recursive: true });
    writeFileSync(join(ws, 'docs/t/golden-reference.md'), '# T\n');
    const files = ['nx.json', 'docs/t/golden-reference.md'];
    const run = () => edge.createNodesV2[1](files, {}, { workspaceRoot: ws });
    mkdirSync(join(ws, 'docs/t/topic.yaml'));
    expect(run).toThrow(
      /^@chunkyard\/nx: docs\/t\/topic\.yaml is a folder, not a file\. The tools read topic\.yaml in every topic and fail on it, while Nx, which lists no such entry, would serve the topic's cached build\. Make it a file or remove it\.$/,
    );
    rmSync(join(ws, 'docs/t/topic.yaml'), { recursive: true });
    execFileSync('mkfifo', [join(ws, 'docs/t/qa-pairs.md')]);
    expect(run).toThrow(/^@chunkyard\/nx: docs\/t\/qa-pairs\.md is a FIFO, not a file/);
    rmSync(join(ws, 'docs/t/qa-pairs.md'));
    symlinkSync('missing.md', join(ws, 'docs/t/keywords.md'));
    expect(run).toThrow(/^@chunkyard\/nx: docs\/t\/keywords\.md is a symlink that cannot be followed, not a file/);
    rmSync(join(ws, 'docs/t/keywords.md'));
    // Real files, a symlink to one in the folder, and such a name in a plain subfolder are fine.
    writeFileSync(join(ws, 'docs/t/topic.yaml'), 'chunking:\n  maxTokens: 256\n');
    writeFileSync(join(ws, 'docs/t/words.md'), '| keyword | score |\n| --- | --- |\n');
    symlinkSync('words.md', join(ws, 'docs/t/keywords.md'));
    mkdirSync(join(ws, 'docs/t/sub/qa-pairs.md'));
    expect(Object.keys(run()[0]![1].projects)).toContain('docs/t');
  });

  it('a marker that is a folder, a FIFO, or a symlink to a folder or a device is an error naming it, not a silently missing topic', () => {
    // Nx lists none of these files, so the plugin sees only the good topic's marker.
    const ws = join(temp, 'odd-marker');
    mkdirSync(join(ws, 'docs/good'), { recursive: true });
    writeFileSync(join(ws, 'docs/good/golden-reference.md'), '# Good\n');
    const files = ['nx.json', 'docs/good/golden-reference.md'];
    const run = () => edge.createNodesV2[1](files, {}, { workspaceRoot: ws });
    mkdirSync(join(ws, 'docs/dir/golden-reference.md'), { recursive: true });
    expect(run).toThrow(/^@chunkyard\/nx: docs\/dir\/golden-reference\.md is a folder, not a file/);
    rmSync(join(ws, 'docs/dir'), { recursive: true });
    mkdirSync(join(ws, 'docs/fifo'));
    execFileSync('mkfifo', [join(ws, 'docs/fifo/golden-reference.md')]);
    expect(run).toThrow(/^@chunkyard\/nx: docs\/fifo\/golden-reference\.md is a FIFO, not a regular file/);
    rmSync(join(ws, 'docs/fifo'), { recursive: true });
    mkdirSync(join(ws, 'docs/zero'));
    symlinkSync('/dev/zero', join(ws, 'docs/zero/golden-reference.md'));
    expect(run).toThrow(/^@chunkyard\/nx: docs\/zero\/golden-reference\.md is a symlink to a device, not a regular file/);
    rmSync(join(ws, 'docs/zero'), { recursive: true });
    mkdirSync(join(ws, 'docs/todir'));
    symlinkSync('..', join(ws, 'docs/todir/golden-reference.md'));
    expect(run).toThrow(/^@chunkyard\/nx: docs\/todir\/golden-reference\.md is a symlink to a folder, not a regular file/);
    rmSync(join(ws, 'docs/todir'), { recursive: true });
    expect(run).not.toThrow();
  });

  it('any source of a topic symlinked to a file outside its topic folder (keywords.md, a sources entry) is an error naming it (Nx would cache it stale; probe)', () => {
    // Measured with Nx 22.7.12: a docs/t/keywords.md -> ../../shared/kw.md edited behind the
    // link left topic-t:keywords a [local cache] hit with the old keyword table.
    const ws = join(temp, 'outside-source');
    mkdirSync(join(ws, 'shared'), { recursive: true });
    writeFileSync(join(ws, 'shared/kw.md'), '| keyword | score |\n| --- | --- |\n| zebra | 5 |\n');
    for (const t of ['docs/t', 'docs/t/parts', 'docs/u']) mkdirSync(join(ws, t), { recursive: true });
    for (const t of ['docs/t', 'docs/u']) writeFileSync(join(ws, t, 'golden-reference.md'), '# T\n');
    const run = () => edge.createNodesV2[1](['nx.json', 'docs/t/golden-reference.md', 'docs/u/golden-reference.md'], {}, { workspaceRoot: ws });
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      for (const [link, target] of [
        ['docs/t/keywords.md', '../../shared/kw.md'],
        ['docs/t/parts/intro.md', '../../../shared/kw.md'],
        ['docs/t/topic.yaml', join(ws, 'shared/kw.md')],
        ['docs/t/notes.txt', '../u/golden-reference.md'], // another topic's file is outside too
      ] as const) {
        symlinkSync(target, join(ws, link));
        expect(() => run(), link).toThrow(
          new RegExp(`^@chunkyard/nx: ${link.replace(/\./g, '\\.')} is a symlink to a file outside its topic folder docs/t \\(.*Nx does not see edits`),
        );
        rmSync(join(ws, link));
      }
      // Inside the topic folder (both files hashed), a dangling link (the tool names it), a
      // file that is no source (an image), a link above every topic: all fine.
      writeFileSync(join(ws, 'docs/t/..shared.md'), '# S\n');
      symlinkSync('..shared.md', join(ws, 'docs/t/qa-pairs.md'));
      symlinkSync('parts/../missing.md', join(ws, 'docs/t/gone.md'));
      symlinkSync('../../shared/kw.md', join(ws, 'docs/t/logo.png'));
      symlinkSync('../shared/kw.md', join(ws, 'docs/readme.md'));
      expect(() => run()).not.toThrow();
    } finally {
      spy.mockRestore();
    }
  });

  it('a marker symlinked to a file inside its topic folder whose name starts with ".." is fine (probe)', () => {
    // relative() gives "..draft.md" for it, which a startsWith("..") test took for outside.
    const ws = join(temp, 'dotdot-marker');
    mkdirSync(join(ws, 'docs/t'), { recursive: true });
    writeFileSync(join(ws, 'docs/t/..draft.md'), '# T\n');
    symlinkSync('..draft.md', join(ws, 'docs/t/golden-reference.md'));
    const result = edge.createNodesV2[1](['nx.json', 'docs/t/golden-reference.md', 'docs/t/..draft.md'], {}, { workspaceRoot: ws });
    expect(result.flatMap(([, r]) => Object.keys(r.projects))).toContain('docs/t');
  });

  it('a marker symlinked to a file outside its topic folder, or a symlinked folder holding a topic, is an error (Nx would cache it stale)', () => {
    // Nx hashes a symlinked file by the link's own mtime, so an edit of the file behind it
    // reran nothing (found by a probe); and it does not enter a symlinked folder at all.
    const ws = join(temp, 'outside-marker');
    const outside = join(temp, 'outside-topic');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'golden-reference.md'), '# Outside\n');
    mkdirSync(join(ws, 'docs/good'), { recursive: true });
    writeFileSync(join(ws, 'docs/good/golden-reference.md'), '# Good\n');
    const files = ['nx.json', 'docs/good/golden-reference.md'];
    const run = (extra: string[] = []) => edge.createNodesV2[1]([...files, ...extra], {}, { workspaceRoot: ws });
    mkdirSync(join(ws, 'docs/linked'));
    symlinkSync(join(outside, 'golden-reference.md'), join(ws, 'docs/linked/golden-reference.md'));
    expect(() => run(['docs/linked/golden-reference.md'])).toThrow(
      /^@chunkyard\/nx: docs\/linked\/golden-reference\.md is a symlink to a file outside its topic folder .*Nx does not see edits/,
    );
    rmSync(join(ws, 'docs/linked'), { recursive: true });
    symlinkSync(outside, join(ws, 'docs/ext'));
    expect(() => run()).toThrow(/^@chunkyard\/nx: docs\/ext is a symlink to a folder holding golden-reference\.md.*Nx does not follow symlinks/);
    rmSync(join(ws, 'docs/ext'));
    // A symlinked folder without a topic (images, say) is nobody's business.
    mkdirSync(join(temp, 'images'), { recursive: true });
    symlinkSync(join(temp, 'images'), join(ws, 'docs/img'));
    expect(() => run()).not.toThrow();
  });

  it('two @chunkyard/nx entries (init run twice) name projects by their roots; one root in two entries, or nested, is an error (probe)', () => {
    // Each entry named docs/plain and handbook/plain topic-plain, and Nx advised a project.json
    // name, which would leave both topics one embedding-cache folder.
    const ws = join(temp, 'two-entries');
    for (const t of ['docs/plain', 'handbook/plain']) {
      mkdirSync(join(ws, t), { recursive: true });
      writeFileSync(join(ws, t, 'golden-reference.md'), '# T\n');
    }
    const files = ['nx.json', 'docs/plain/golden-reference.md', 'handbook/plain/golden-reference.md'];
    const nxJson = (...roots: unknown[]) => ({ plugins: ['@nx/js', ...roots.map((docsRoot) => ({ plugin: '@chunkyard/nx', options: { docsRoot } }))] });
    const names = (options: unknown, nxJsonConfiguration: unknown) =>
      edge.createNodesV2[1](files, options, { workspaceRoot: ws, nxJsonConfiguration }).flatMap(([, r]) => Object.values(r.projects).map((p) => p.name)).sort();
    const both = nxJson('docs', 'handbook');
    const all = [...names({ docsRoot: 'docs' }, both), ...names({ docsRoot: 'handbook' }, both)];
    expect(all).toEqual(['docs', 'topic-docs-plain', 'handbook', 'topic-handbook-plain']);
    expect(new Set(all).size).toBe(all.length);
    // One entry alone keeps its short names.
    expect(names({ docsRoot: 'docs' }, nxJson('docs'))).toEqual(['docs', 'topic-plain']);
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(() => names({ docsRoot: 'docs' }, nxJson('docs', 'docs'))).toThrow(/^@chunkyard\/nx: docsRoot "docs" is in 2 entries of @chunkyard\/nx in nx.json/);
      expect(() => names({ docsRoot: 'docs' }, nxJson('docs', 'docs/plain'))).toThrow(/^@chunkyard\/nx: docsRoot "docs\/plain" lies inside docsRoot "docs"/);
    } finally {
      spy.mockRestore();
    }
  });

  it('a docs root whose last topic was deleted stays a project, uncached, whose index-json prunes what its topics left; once pruned it is no project (probe)', () => {
    // Measured: after git rm -r of every topic, nx run-many said "No tasks were run" and exit 0,
    // and docs/index.json still listed the deleted topics (no root project, so no --prune ran).
    // A warning naming them and a git clean command followed, but with the daemon (a developer's
    // machine) no warning is printed, so the root now stays a project that removes them.
    const ws = join(temp, 'last-topic-gone');
    mkdirSync(join(ws, 'docs/a'), { recursive: true });
    writeFileSync(join(ws, 'docs/a/golden-reference.md'), '# A\n\nAlpha is a topic about the first letter.\n');
    const bin = (tool: string, args: string[]) => execFileSync(process.execPath, [join(import.meta.dirname, `../../../apps/${tool}/bin/${tool}.js`), ...args], { cwd: ws, stdio: 'pipe' });
    bin('chunking-tool', ['docs/a']);
    bin('keyword-extractor', ['docs/a']);
    bin('topic-spec', ['docs/a', '--cache-dir', '.embedding-cache/topic-a']);
    bin('index-tool', ['docs/a', 'docs', '--root', 'docs']);
    rmSync(join(ws, 'docs/a/golden-reference.md'));
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((str: string | Uint8Array) => (written.push(String(str)), true));
    let results: ReturnType<typeof edge.createNodesV2[1]>;
    try {
      results = edge.createNodesV2[1](['nx.json'], {}, { workspaceRoot: ws });
    } finally {
      spy.mockRestore();
    }
    expect(results.map(([file]) => file)).toEqual(['nx.json']);
    const root = results[0]![1].projects.docs as { name: string; tags: string[]; targets: Record<string, { options: { args?: string[]; noop?: boolean }; cache: boolean; dependsOn: unknown[] }> };
    expect(root.name).toBe('docs');
    expect(Object.keys(root.targets).sort()).toEqual(['index', 'index-json']);
    // Removes what Nx does not hash: a cache hit would replay a removal that never happened.
    expect(root.targets['index-json']!.cache).toBe(false);
    expect(root.targets.index!.cache).toBe(false);
    expect(root.targets['index-json']!.options.args).toEqual(['docs', '--root', 'docs', '--prune', '--prune-embedding-cache', '.embedding-cache/topic-a']);
    expect(root.targets.index!.dependsOn).toEqual(['index-json']);
    expect(written.join('')).toMatch(
      /^@chunkyard\/nx: warning: the docs root "docs" \(option docsRoot of @chunkyard\/nx in nx\.json\) holds no golden-reference\.md, .*\. Outputs of its deleted topics are left \(docs\/a\/_chunks and 4 more; .*\): npx nx run-many -t index removes them \(.*\)\n$/,
    );
    // What that task runs, run by hand: then nothing is left, and the root is no project.
    const pruned = bin('index-tool', ['docs', '--root', 'docs', '--prune', '--prune-embedding-cache', '.embedding-cache/topic-a']).toString();
    expect(pruned).toContain('docs/index.json: removed');
    written.length = 0;
    const gone = vi.spyOn(process.stderr, 'write').mockImplementation((str: string | Uint8Array) => (written.push(String(str)), true));
    try {
      expect(edge.createNodesV2[1](['nx.json'], {}, { workspaceRoot: ws })).toEqual([]);
    } finally {
      gone.mockRestore();
    }
    expect(written.join('')).toMatch(/holds no golden-reference\.md/);
    expect(written.join('')).not.toMatch(/Outputs of its deleted topics/);
    // An empty root (right after init) gets the plain warning.
    rmSync(join(ws, 'docs'), { recursive: true });
    mkdirSync(join(ws, 'docs'));
    written.length = 0;
    const again = vi.spyOn(process.stderr, 'write').mockImplementation((str: string | Uint8Array) => (written.push(String(str)), true));
    try {
      edge.createNodesV2[1](['nx.json'], {}, { workspaceRoot: ws });
    } finally {
      again.mockRestore();
    }
    expect(written.join('')).not.toMatch(/Outputs of its deleted topics/);
  });

  it('a source in a topic folder that Nx does not list (.gitignore) is a warning naming it, since Nx hashes no such file (probe)', () => {
    // Measured: with notes.txt in .gitignore and listed in topic.yaml sources, its edit left
    // the topic's chunk task a cache hit with the old chunks.
    const ws = join(temp, 'ignored-source');
    for (const d of ['docs/t/parts', 'docs/hidden']) mkdirSync(join(ws, d), { recursive: true });
    for (const f of ['docs/t/golden-reference.md', 'docs/t/notes.txt', 'docs/t/parts/a.md', 'docs/t/topic-spec.md', 'docs/t/topic.yaml', 'docs/hidden/golden-reference.md', 'docs/hidden/x.md', 'docs/readme.md']) {
      writeFileSync(join(ws, f), '# T\n');
    }
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (written.push(String(s)), true));
    try {
      const listed = ['nx.json', 'docs/t/golden-reference.md', 'docs/t/parts/a.md', 'docs/t/topic.yaml'];
      edge.createNodesV2[1](listed, {}, { workspaceRoot: ws });
      // topic-spec.md is an output (ignored as it should be), docs/readme.md is in no topic, and
      // the hidden topic has its own warning.
      expect(written.filter((w) => !w.includes('docs/hidden/golden-reference.md'))).toEqual([
        '@chunkyard/nx: warning: docs/t/notes.txt is in a topic folder but not among the files Nx hands the plugin (.gitignore, .nxignore), so Nx does not hash it: if the topic reads it (a sources entry of topic.yaml, qa-pairs.md, keywords.md), its edits rerun nothing and the cache serves the old output; un-ignore it\n',
      ]);
      written.length = 0;
      // A FIFO is not "ignored": Nx lists none, and the tool reading it names it.
      execFileSync('mkfifo', [join(ws, 'docs/t/pipe.md')], { stdio: 'ignore' });
      edge.createNodesV2[1]([...listed, 'docs/t/notes.txt'], {}, { workspaceRoot: ws });
      expect(written.filter((w) => !w.includes('docs/hidden/golden-reference.md'))).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });

  it('a topic that Nx does not list (.gitignore, .nxignore) is a warning naming it; a docs root all of whose topics are hidden is an error (probe)', () => {
    const ws = join(temp, 'ignored');
    for (const t of ['docs/seen', 'docs/hidden/a', 'docs/hidden/b']) {
      mkdirSync(join(ws, t), { recursive: true });
      writeFileSync(join(ws, t, 'golden-reference.md'), '# T\n');
    }
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (written.push(String(s)), true));
    try {
      const result = edge.createNodesV2[1](['nx.json', 'docs/seen/golden-reference.md'], {}, { workspaceRoot: ws });
      expect(result.flatMap(([, r]) => Object.keys(r.projects))).toContain('docs/seen');
      expect(written.join('')).toBe(
        '@chunkyard/nx: warning: docs/hidden/a/golden-reference.md (and 1 more) is not among the files Nx hands the plugin (.gitignore, .nxignore, or the include/exclude of @chunkyard/nx in nx.json), so its folder is not built as a topic; un-ignore it to build it\n',
      );
      // Everything hidden: Nx printed "No tasks were run" and exited 0.
      expect(() => edge.createNodesV2[1](['nx.json'], {}, { workspaceRoot: ws })).toThrow(
        /^@chunkyard\/nx: Nx sees none of the topics under the docs root "docs" \(docs\/hidden\/a\/golden-reference\.md \(and 2 more\)\): they are not among the files Nx hands the plugin \(\.gitignore, \.nxignore/,
      );
    } finally {
      spy.mockRestore();
    }
  });

  it('a topic inside a folder index-tool lists in no index.json (_drafts, .hidden) is no project, and a warning names it (probe)', () => {
    const ws = join(temp, 'unlisted');
    const dirs = ['docs/seen', 'docs/_drafts/a', 'docs/sec/.hidden', 'docs/sec/ok', 'docs/sec/ok/_old/b'];
    for (const d of dirs) {
      mkdirSync(join(ws, d), { recursive: true });
      writeFileSync(join(ws, d, 'golden-reference.md'), '# T\n');
    }
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (written.push(String(s)), true));
    try {
      const result = edge.createNodesV2[1](['nx.json', ...dirs.map((d) => `${d}/golden-reference.md`)], {}, { workspaceRoot: ws });
      // index-tool (apps/index-tool `subfolders`) links none of them: they were built and reachable from nothing.
      expect(result.flatMap(([, r]) => Object.keys(r.projects)).sort()).toEqual(['docs', 'docs/sec', 'docs/sec/ok', 'docs/seen']);
      expect(written.join('')).toBe(
        '@chunkyard/nx: warning: docs/_drafts/a/golden-reference.md (and 2 more) is inside docs/_drafts, a folder index-tool lists in no index.json (its name starts with "_" or ".", or is node_modules), so its folder is not built as a topic; rename the folder to build it\n',
      );
      // Not taken for topics hidden by .gitignore (an error when a root has no other topic).
      expect(written.join('')).not.toMatch(/not among the files Nx hands/);
    } finally {
      spy.mockRestore();
    }
  });

  it('a marker named in another case (Golden-Reference.md) is a warning naming it, not a silently missing topic (probe)', () => {
    const ws = join(temp, 'case');
    for (const [dir, file] of [['docs/seen', 'golden-reference.md'], ['docs/upper', 'Golden-Reference.md'], ['docs/shout', 'GOLDEN-REFERENCE.MD'], ['docs/both', 'golden-reference.md'], ['docs/both', 'Golden-Reference.md']]) {
      mkdirSync(join(ws, dir!), { recursive: true });
      writeFileSync(join(ws, dir!, file!), '# T\n');
    }
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (written.push(String(s)), true));
    try {
      const files = ['nx.json', 'docs/seen/golden-reference.md', 'docs/upper/Golden-Reference.md', 'docs/shout/GOLDEN-REFERENCE.MD', 'docs/both/golden-reference.md', 'docs/both/Golden-Reference.md'];
      const result = edge.createNodesV2[1](files, {}, { workspaceRoot: ws });
      expect(result.flatMap(([, r]) => Object.keys(r.projects)).sort()).toEqual(['docs', 'docs/both', 'docs/seen']);
      // A folder that has the marker too is a topic; its other file is just another document.
      expect(written.join('')).toBe(
        '@chunkyard/nx: warning: docs/shout/GOLDEN-REFERENCE.MD (and 1 more) is not named golden-reference.md (names are case-sensitive), so its folder is not built as a topic; rename it to build it\n',
      );
    } finally {
      spy.mockRestore();
    }
  });

  it('an error of the plugin is also written to stderr, since `nx run-many` prints only "Failed to process project graph"', () => {
    const ws = join(temp, 'stderr');
    mkdirSync(join(ws, 'docs/dangling'), { recursive: true });
    symlinkSync('missing.md', join(ws, 'docs/dangling/golden-reference.md'));
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (written.push(String(s)), true));
    try {
      expect(() => edge.createNodesV2[1](['nx.json'], {}, { workspaceRoot: ws })).toThrow(/symlink to a missing file/);
      expect(() => edge.createNodesV2[1](['nx.json'], { topicMarker: 'a/b' }, { workspaceRoot: ws })).toThrow(/topicMarker/);
    } finally {
      spy.mockRestore();
    }
    expect(written.join('')).toMatch(/^@chunkyard\/nx: docs\/dangling\/golden-reference\.md is a symlink to a missing file.*\n@chunkyard\/nx: option topicMarker .*\n$/s);
  });

  it('a path in a message of the plugin has its control characters escaped, in the error and on stderr', () => {
    // badMarker runs before the check of folder names, so a dangling marker in a folder named
    // with ESC put the raw escape sequence on the terminal.
    const ws = join(temp, 'escaped');
    mkdirSync(join(ws, 'docs/x\u001b[2Jy'), { recursive: true });
    symlinkSync('missing.md', join(ws, 'docs/x\u001b[2Jy/golden-reference.md'));
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (written.push(String(s)), true));
    let message = '';
    try {
      edge.createNodesV2[1](['nx.json'], {}, { workspaceRoot: ws });
    } catch (err) {
      message = (err as Error).message;
    } finally {
      spy.mockRestore();
    }
    expect(message).toMatch(/^@chunkyard\/nx: docs\/x\\u001b\[2Jy\/golden-reference\.md is a symlink to a missing file/);
    expect(written.join('')).toBe(`${message}\n`);
  });

  it('a missing docs root names the option; an existing empty one is just nothing to build', () => {
    const ws = join(temp, 'empty');
    mkdirSync(ws);
    expect(() => edge.createNodesV2[1](['nx.json'], { docsRoot: 'content' }, { workspaceRoot: ws })).toThrow(/"content" does not exist.*docsRoot/);
    mkdirSync(join(ws, 'content'));
    expect(edge.createNodesV2[1](['nx.json'], { docsRoot: 'content' }, { workspaceRoot: ws })).toEqual([]);
  });
});

describe('@chunkyard/nx: the outputs a deleted topic left behind', () => {
  const ctxWith = (stale: boolean, asked: [string, string][] = []) => ({
    options: core.normalizeOptions({ topicMarker: 'it\'s.md' }),
    tools: installed,
    staleIn: (root: string, marker: string) => {
      asked.push([root, marker]);
      return stale;
    },
  });
  const targetsOf = (ctx: ReturnType<typeof ctxWith>) => Object.assign({}, ...core.createProjects(['docs/a/t1/it\'s.md', 'docs/it\'s.md'], ctx).map(([, r]) => r.projects)) as Record<string, Project>;

  it('only the docs root\'s index-json runs index-tool with --prune; none runs a runtime input (a process per Nx command)', () => {
    const all = targetsOf(ctxWith(false));
    expect(all.docs!.targets['index-json']!.options!.args).toContain('--prune');
    for (const p of ['docs', 'docs/a', 'docs/a/t1']) {
      expect((all[p]!.targets['index-json']!.inputs as unknown[]).filter((i) => typeof i === 'object' && i !== null && 'runtime' in i)).toEqual([]);
      if (p !== 'docs') expect(all[p]!.targets['index-json']!.options!.args).not.toContain('--prune');
    }
  });

  it('while stale outputs are there, the root\'s index-json has an option of a fresh value on each look (its hash is new, so it runs); else none', () => {
    const asked: [string, string][] = [];
    const first = targetsOf(ctxWith(true, asked)).docs!.targets['index-json']!.options!;
    const second = targetsOf(ctxWith(true)).docs!.targets['index-json']!.options!;
    expect(asked).toEqual([['docs', 'it\'s.md']]);
    expect(first.staleOutputs).toEqual(expect.any(String));
    expect(second.staleOutputs).toEqual(expect.any(String));
    expect(first.staleOutputs).not.toBe(second.staleOutputs);
    const clean = targetsOf(ctxWith(false));
    expect(clean.docs!.targets['index-json']!.options!).not.toHaveProperty('staleOutputs');
    for (const p of ['docs/a', 'docs/a/t1']) expect(targetsOf(ctxWith(true))[p]!.targets['index-json']!.options!).not.toHaveProperty('staleOutputs');
  });
});
