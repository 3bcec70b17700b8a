// tools/build.mjs is how a fresh clone builds (npm ci's prepare) and how the benchmarks build
// a git state: a mistyped argument gets the usage, not a stack trace (it threw before).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const build = (...args: string[]) => spawnSync(process.execPath, ['tools/build.mjs', ...args], { cwd: root, encoding: 'utf8' });

describe('tools/build.mjs arguments', () => {
  it('--help prints the usage and exits 0', () => {
    const r = build('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: node tools\/build\.mjs \[PROJECT…\]/);
    expect(r.stderr).toBe('');
  });

  it.each([
    [['packages/nope'], 'build: packages/nope is not a workspace project (packages/* or apps/* with a package.json)'],
    [['--standalone', 'x.js'], 'build: --standalone takes an output file and one library'],
  ])('%j is a usage error with exit 2 and no stack trace', (args, message) => {
    const r = build(...args);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(message);
    expect(r.stderr).toContain('usage: node tools/build.mjs');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
