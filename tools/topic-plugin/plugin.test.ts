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
  it('has a chunk and a keywords target, in STEPS order', () => {
    expect(plugin.STEPS.map((s) => s.target)).toEqual(['chunk', 'keywords']);
    expect(Object.keys(inferred().targets)).toEqual(['chunk', 'keywords']);
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
    expect(inferred().implicitDependencies).toEqual(['chunking-tool', 'keyword-extractor']);
  });

  it('hashes the npm packages the keyword extractor loads at run time', () => {
    for (const dep of ['markdown-it', 'stemmer', 'yaml']) expect(plugin.DEFAULT_EXTERNAL_DEPENDENCIES).toContain(dep);
  });
});
