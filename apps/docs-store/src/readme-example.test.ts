// The README's sample session (the ```text block after "npx docs-store mcp --http"), run as a
// new user would: the sample docs ingested as its first command shows, then every `$ npx
// docs-store …` line of the block, its output held against the lines the README prints. The
// --no-routes sample had kept a chunk id and ranks from before issue 17's chunks (issue 15 walk).
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const README = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');

/** Each `$ npx docs-store ARGS` of the README's ```text blocks, with the lines printed under it. */
function samples(): { command: string; args: string[]; expected: string[] }[] {
  const out: { command: string; args: string[]; expected: string[] }[] = [];
  for (const block of README.matchAll(/^```text\n([\s\S]*?)^```$/gm)) {
    for (const line of block[1]!.split('\n')) {
      const cmd = /^\$ npx docs-store (.*)$/.exec(line);
      if (cmd) out.push({ command: line, args: shellWords(cmd[1]!), expected: [] });
      else if (line !== '' && out.length > 0) out[out.length - 1]!.expected.push(line);
    }
  }
  return out;
}

/** Words as sh reads them, for the quoting the README uses (double quotes, no escapes). */
function shellWords(s: string): string[] {
  return [...s.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

/**
 * Whether `expected` reads as `actual` does: a line `…` (with its indent) stands for any lines,
 * a line ending in ` …` for any line starting with what comes before it, any other line for
 * itself; lines not parted by a `…` line follow each other. Both lists are short, so the
 * backtracking is a few steps.
 */
function matches(expected: readonly string[], actual: readonly string[], e = 0, a = 0): boolean {
  if (e === expected.length) return a === actual.length || actual.slice(a).every((l) => l.trim() === '');
  const want = expected[e]!;
  if (want.trim() === '…') {
    for (let skip = a; skip <= actual.length; skip++) if (matches(expected, actual, e + 1, skip)) return true;
    return false;
  }
  const got = actual[a];
  if (got === undefined) return false;
  const same = want.endsWith(' …') ? got.startsWith(want.slice(0, -2)) : got === want;
  return same && matches(expected, actual, e + 1, a + 1);
}

let ws: string;
beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-readme-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  const topics: string[] = [];
  for (const section of ['libraries', 'deployment']) {
    for (const t of readdirSync(join(REPO, 'docs', section)).sort()) {
      const from = join(REPO, 'docs', section, t);
      if (!readdirSync(from).includes('golden-reference.md')) continue;
      cpSync(from, join(ws, 'docs', section, t), { recursive: true, filter: (p) => !/_chunks|_keywords|index\.json|topic-spec/.test(p) });
      topics.push(`docs/${section}/${t}`);
    }
  }
  // The README's first command: `npx docs-store ingest docs/libraries/* docs/deployment/*`.
  let stderr = '';
  const code = await main(['ingest', ...topics], { stdout: () => {}, stderr: (s) => (stderr += s), cwd: ws, env: { CI: '1' } });
  expect(code, stderr).toBe(0);
}, 120_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

describe('README sample session', () => {
  it('the README holds the samples this test reads', () => {
    expect(samples().map((s) => s.args.slice(0, 2))).toEqual([
      ['search', 'native AOT limitations'],
      ['search', 'native AOT limitations'],
    ]);
  });

  it('reads as a glob of the README would: any lines for "…", a prefix for a line ending " …"', () => {
    expect(matches(['a', '…', 'd'], ['a', 'b', 'c', 'd'])).toBe(true);
    expect(matches(['a', 'b …'], ['a', 'b c d'])).toBe(true);
    expect(matches(['a', 'c'], ['a', 'b', 'c'])).toBe(false);
    expect(matches(['a', 'b'], ['a', 'x'])).toBe(false);
  });

  for (const sample of samples()) {
    it(`prints what the README shows for: ${sample.command}`, async () => {
      let stdout = '';
      let stderr = '';
      const code = await main(sample.args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), cwd: ws, env: { CI: '1' } });
      expect(code, stderr).toBe(0);
      const actual = stdout.split('\n');
      // On a mismatch, both texts side by side say more than `false`.
      if (!matches(sample.expected, actual)) expect(actual.join('\n')).toBe(sample.expected.join('\n'));
    }, 60_000);
  }
});
