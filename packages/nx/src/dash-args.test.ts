// Values with a leading dash in the plugin's options and folder names: every target's command
// line, as the plugin writes it, run through the real executor and the real tools. parseArgs
// reads `--llms-title -x` as two options, so the llms-txt task failed ("ambiguous") or, for a
// summary "--help", printed the help and succeeded with no llms.txt.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';

interface Target {
  executor?: string;
  options?: { tool: string; args: string[]; env?: Record<string, string>; packDir?: string };
}
interface Project {
  targets: Record<string, Target>;
}
type ToolLocation = { kind: 'installed'; packageName: string };
interface PluginCore {
  TOOL_PACKAGES: readonly string[];
  normalizeOptions(o: unknown): unknown;
  createProjects(files: string[], ctx: { options: unknown; tools: Record<string, ToolLocation> }): [string, { projects: Record<string, Project> }][];
}
type Executor = (options: NonNullable<Target['options']>, context: { root: string }) => Promise<{ success: boolean }>;

const require = createRequire(import.meta.url);
const core = require('./plugin.cjs') as PluginCore;
const executor = require('./executor.cjs') as Executor;
const repo = join(import.meta.dirname, '..', '..', '..');

const temp = mkdtempSync(join(tmpdir(), 'chunkyard-nx-dash-'));
const cwd = process.cwd();
afterEach(() => process.chdir(cwd));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

it('option values and folders with a leading dash reach the tools as values: every task succeeds and llms.txt has the title and summary', async () => {
  const root = join(temp, 'ws');
  mkdirSync(join(root, '-docs', '-guide'), { recursive: true });
  writeFileSync(join(root, '-docs', '-guide', 'golden-reference.md'), '# Guide\n\nInstall the tool, then run it over the docs folder.\n');
  cpSync(join(repo, 'chunkyard.config.yaml'), join(root, '-chunkyard.yaml'));
  const options = core.normalizeOptions({
    docsRoot: '-docs',
    configFile: '-chunkyard.yaml',
    embeddingCacheDir: '-cache',
    llmsTxt: { title: '-Beta docs', summary: '--help' },
  });
  const tools = Object.fromEntries(core.TOOL_PACKAGES.map((p) => [p, { kind: 'installed', packageName: p } as ToolLocation]));
  const all: Record<string, Project> = {};
  for (const [, r] of core.createProjects(['-docs/-guide/golden-reference.md'], { options, tools })) Object.assign(all, r.projects);

  const order: [string, string][] = [
    ['-docs/-guide', 'chunk'],
    ['-docs/-guide', 'keywords'],
    ['-docs/-guide', 'spec'],
    ['-docs/-guide', 'index-json'],
    ['-docs', 'index-json'],
    ['-docs', 'llms-txt'],
  ];
  const failed: string[] = [];
  for (const [dir, target] of order) {
    const t = all[dir]?.targets[target];
    expect(t?.options, `${dir}:${target}`).toBeDefined();
    const r = await executor(t!.options!, { root });
    if (!r.success) failed.push(`${dir}:${target}`);
  }
  expect(failed).toEqual([]);
  expect(JSON.parse(readFileSync(join(root, '-docs', '-guide', 'index.json'), 'utf8')).kind).toBe('topic');
  const llms = readFileSync(join(root, '-docs', 'llms.txt'), 'utf8');
  expect(llms.split('\n')[0]).toBe('# -Beta docs');
  expect(llms).toContain('\n> --help\n');
  expect(llms).toContain('-guide/golden-reference.md');
}, 60_000);
