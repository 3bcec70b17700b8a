// chunk-inspector's CLI on paths where the page cannot be copied: one line naming the
// path, exit 1, and never a hang (Node's recursive mkdir loops forever under /proc).
import { describe, expect, it } from 'vitest';
import { main } from './main.js';

describe('chunk-inspector build --out where no folder can be made', () => {
  it.runIf(process.platform === 'linux')('under /proc: exit 1 at once, the path named', async () => {
    const err: string[] = [];
    const code = await main(['build', '--out', '/proc/chunkyard-no-such/_inspect'], { stdout: () => {}, stderr: (s) => void err.push(s) });
    expect(code).toBe(1);
    expect(err.join('')).toMatch(/^chunk-inspector: \/proc\/chunkyard-no-such[^\n]*\(ENOENT\)[^\n]*\n$/);
  });
});

describe('chunk-inspector usage', () => {
  it('an extra argument after build is named as such, not as an unknown command "build y" (found by probing)', async () => {
    const err: string[] = [];
    const code = await main(['build', '--out', '/tmp/x', 'y'], { stdout: () => {}, stderr: (s) => void err.push(s) });
    expect(code).toBe(2);
    expect(err.join('')).toBe('chunk-inspector: build takes no arguments, got "y" (the folder is --out DIR)\nRun chunk-inspector --help for usage.\n');
    const other: string[] = [];
    expect(await main(['bogus', 'y'], { stdout: () => {}, stderr: (s) => void other.push(s) })).toBe(2);
    expect(other.join('')).toContain('unknown command "bogus" (build)');
  });
});
