// Wrong options of @chunkyard/nx in nx.json, under real Nx. For the first plugin entry Nx
// prints no "Defined at nx.json#plugins[i]", and `nx run-many` prints only our line above its
// "Failed to process project graph": that line said "option docsRoot must be a non-empty
// workspace-relative path, got 5" with no word of nx.json, and a configFile outside the workspace
// was told it "must be a folder" (found by a probe). Each message now names nx.json and the
// option, and a file option is asked to be a file.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTempWorkspace, runNx, type TempWorkspace } from './temp-workspace.mjs';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
let ws: TempWorkspace;
let nxJson: Record<string, unknown>;

beforeAll(() => {
  ws = createTempWorkspace({ prefix: 'chunkyard-nx-option-errors-', topics: { 'docs/a': '# A\n\nA paragraph.\n' } });
  nxJson = JSON.parse(readFileSync(join(ws.root, 'nx.json'), 'utf8'));
  writeFileSync(join(ws.root, 'a-file'), 'not a folder\n');
  mkdirSync(join(ws.root, 'docs2'));
});
afterAll(() => {
  if (ws && !KEEP) rmSync(ws.root, { recursive: true, force: true });
});

const withOptions = (options: unknown) =>
  writeFileSync(join(ws.root, 'nx.json'), JSON.stringify({ ...nxJson, plugins: [{ plugin: '@chunkyard/nx', options }] }, null, 2));

// [options, the option the message must name, what else it must say]
const CASES: [unknown, string, RegExp][] = [
  [{ docsRoot: 5 }, 'docsRoot', /must be a non-empty workspace-relative path, got 5/],
  [{ docsRoot: [] }, 'docsRoot', /is an empty list/],
  [{ docsRoot: '../outside' }, 'docsRoot', /must be a folder inside the workspace.*got "\.\.\/outside"/],
  [{ docsRoot: ['docs', 'docs/a'] }, 'docsRoot', /"docs\/a" lies inside docsRoot "docs"/],
  [{ docsRoot: 'a-file' }, 'docsRoot', /"a-file" .*is not a folder/],
  [{ topicMarker: 'sub/x.md' }, 'topicMarker', /must be a plain file name/],
  [{ topicMarker: 'index.json' }, 'topicMarker', /is a name of a file chunkyard writes/],
  [{ configFile: '../chunkyard.config.yaml' }, 'configFile', /must be a file inside the workspace/],
  [{ embeddingCacheDir: '/tmp/cache' }, 'embeddingCacheDir', /must be a folder inside the workspace/],
  [{ llmsTxt: 'yes' }, 'llmsTxt', /must be false or \{/],
];

it('every wrong option stops nx run-many with a line naming nx.json and the option, and no stack trace', () => {
  const failures: string[] = [];
  for (const [options, option, says] of CASES) {
    withOptions(options);
    const run = runNx(ws, ['run-many', '-t', 'index', '--outputStyle=static']);
    const line = /^@chunkyard\/nx: [^\n]*/m.exec(run.output)?.[0] ?? '';
    const problems = [
      run.status === 1 ? '' : `status ${run.status}`,
      line.includes(`option ${option} of @chunkyard/nx in nx.json`) ? '' : 'does not name the option and nx.json',
      says.test(line) ? '' : `does not say ${says}`,
      /^\s+at /m.test(run.output) ? 'prints a stack trace' : '',
    ].filter(Boolean);
    if (problems.length > 0) failures.push(`${JSON.stringify(options)}: ${problems.join(', ')}\n${run.output}`);
  }
  expect(failures).toEqual([]);
  // Mended, the same workspace builds.
  withOptions({ docsRoot: 'docs' });
  expect(runNx(ws, ['show', 'projects']).status).toBe(0);
}, 600_000);
