// The inferred configuration, read straight from the plugin (no Nx run): which inputs,
// command, outputs and dependencies each pipeline target gets. cache.test.ts proves what
// Nx does with them.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

interface Target {
  command: string;
  cache: boolean;
  inputs: unknown[];
  outputs: string[];
  dependsOn: unknown[];
}
interface Plugin {
  createNodes: [string, (files: string[], options: unknown) => [string, { projects: Record<string, { name: string; implicitDependencies: string[]; targets: Record<string, Target> }> }][]];
  STEPS: readonly { target: string; tool: string }[];
  DEFAULT_EXTERNAL_DEPENDENCIES: readonly string[];
}
const plugin = createRequire(import.meta.url)('./index.cjs') as Plugin;

function inferred(marker = 'docs/libraries/foo/golden-reference.md') {
  const [[file, result]] = plugin.createNodes[1]([marker], {}) as [[string, ReturnType<Plugin['createNodes'][1]>[number][1]]];
  expect(file).toBe(marker);
  return result.projects['docs/libraries/foo']!;
}

describe('topic plugin: inferred targets', () => {
  it('has chunk, keywords, spec and index targets, in STEPS order', () => {
    expect(plugin.STEPS.map((s) => s.target)).toEqual(['chunk', 'keywords', 'spec', 'index']);
    expect(Object.keys(inferred().targets)).toEqual(['chunk', 'keywords', 'spec', 'index']);
  });

  it('spec: waits for chunk and keywords, hashes the topic and the config (provider and model)', () => {
    const t = inferred().targets.spec!;
    expect(t.command).toBe('node apps/topic-spec/dist/main.js {projectRoot} --config chunkyard.config.yaml');
    expect(t.inputs.slice(0, 2)).toEqual(['topicSources', 'chunkyardConfig']);
    expect(t.outputs).toEqual(['{projectRoot}/topic-spec.md']);
    expect(t.dependsOn).toEqual(['chunk', 'keywords', { projects: ['topic-spec'], target: 'build' }]);
  });

  it('index: reads only what spec wrote, under the docs root', () => {
    const t = inferred().targets.index!;
    expect(t.command).toBe('node apps/index-tool/dist/main.js {projectRoot} --root docs');
    expect(t.inputs[0]).toEqual({ dependentTasksOutputFiles: '**/*', transitive: true });
    expect(t.outputs).toEqual(['{projectRoot}/index.json']);
    expect(t.dependsOn).toEqual(['spec', { projects: ['index-tool'], target: 'build' }]);
  });

  it('keywords: reads the topic only (no chunking config), writes _keywords, needs its tool built', () => {
    const t = inferred().targets.keywords!;
    expect(t.command).toBe('node apps/keyword-extractor/dist/main.js {projectRoot}');
    expect(t.cache).toBe(true);
    expect(t.inputs).toEqual([
      'topicSources',
      { dependentTasksOutputFiles: '**/*', transitive: true },
      { externalDependencies: [...plugin.DEFAULT_EXTERNAL_DEPENDENCIES] },
    ]);
    expect(t.outputs).toEqual(['{projectRoot}/_keywords']);
    expect(t.dependsOn).toEqual([{ projects: ['keyword-extractor'], target: 'build' }]);
  });

  it('chunk: passes --config exactly because it hashes chunkyardConfig', () => {
    const t = inferred().targets.chunk!;
    expect(t.command).toBe('node apps/chunking-tool/dist/main.js {projectRoot} --config chunkyard.config.yaml');
    expect(t.inputs.slice(0, 2)).toEqual(['topicSources', 'chunkyardConfig']);
  });

  it('every tool is an implicit dependency, so nx affected marks every topic when a tool changes', () => {
    expect(inferred().implicitDependencies).toEqual(['chunking-tool', 'keyword-extractor', 'topic-spec', 'index-tool']);
  });

  it('every folder above a topic, up to docs/, is a section project whose index waits for its children', () => {
    const results = plugin.createNodes[1](['docs/a/b/t2/golden-reference.md', 'docs/a/t1/golden-reference.md', 'docs/a/t1/sub/golden-reference.md', 'docs/t0/golden-reference.md'], {});
    const all = Object.assign({}, ...results.map(([, r]) => r.projects)) as Record<string, { name: string; implicitDependencies: string[]; targets: Record<string, Target> }>;
    // Each project is described by exactly one marker's result.
    expect(results.flatMap(([, r]) => Object.keys(r.projects)).sort()).toEqual(Object.keys(all).sort());
    expect(Object.fromEntries(Object.entries(all).map(([root, p]) => [root, p.name]))).toEqual({
      docs: 'docs',
      'docs/a': 'section-a',
      'docs/a/b': 'section-a-b',
      'docs/a/b/t2': 'topic-a-b-t2',
      'docs/a/t1': 'topic-a-t1',
      'docs/a/t1/sub': 'topic-a-t1-sub',
      'docs/t0': 'topic-t0',
    });
    expect(Object.keys(all.docs!.targets)).toEqual(['index']);
    expect(all.docs!.targets.index!.dependsOn).toEqual([{ projects: ['section-a', 'topic-t0'], target: 'index' }, { projects: ['index-tool'], target: 'build' }]);
    expect(all['docs/a']!.targets.index!.dependsOn[0]).toEqual({ projects: ['section-a-b', 'topic-a-t1'], target: 'index' });
    expect(all['docs/a']!.implicitDependencies).toEqual(['index-tool', 'section-a-b', 'topic-a-t1']);
    // A topic with a topic below it lists it too, so its index waits for the child's.
    expect(all['docs/a/t1']!.targets.index!.dependsOn).toContainEqual({ projects: ['topic-a-t1-sub'], target: 'index' });
    expect(all['docs/a/b/t2']!.targets.index!.dependsOn).toEqual(['spec', { projects: ['index-tool'], target: 'build' }]);
  });

  it('hashes the npm packages the keyword extractor loads at run time', () => {
    for (const dep of ['markdown-it', 'stemmer', 'yaml']) expect(plugin.DEFAULT_EXTERNAL_DEPENDENCIES).toContain(dep);
  });
});
