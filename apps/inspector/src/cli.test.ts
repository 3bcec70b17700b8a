// chunk-inspector's CLI on paths where the page cannot be copied: one line naming the
// path, exit 1, and never a hang (Node's recursive mkdir loops forever under /proc).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, STATIC_DIR } from './main.js';

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

describe('chunk-inspector build --out lands the page whole or not at all (issue 15 probe)', () => {
  it('a folder where render.js goes: exit 1 naming it, and none of the earlier files replaced; a killed run\'s temp is swept', async () => {
    const out = mkdtempSync(join(tmpdir(), 'chunk-inspector-'));
    try {
      const names = readdirSync(STATIC_DIR).sort();
      for (const n of names) if (n !== 'render.js') writeFileSync(join(out, n), `old ${n}`);
      mkdirSync(join(out, 'render.js'));
      // What a killed run leaves: fs-atomic's temp name with a pid that is gone.
      mkdirSync(join(out, '.staged.tmp-999999999-0123abcd'));
      const err: string[] = [];
      const code = await main(['build', '--out', out], { stdout: () => {}, stderr: (s) => void err.push(s) });
      expect(code).toBe(1);
      expect(err.join('')).toBe(`chunk-inspector: ${join(out, 'render.js')}: is a folder where a file is expected (EISDIR); remove or rename that folder\n`);
      // Before: data.js, dom.js, index.html, inspect.css and inspect.js were new, render.js missing.
      for (const n of names) if (n !== 'render.js') expect(readFileSync(join(out, n), 'utf8')).toBe(`old ${n}`);
      expect(readdirSync(out).filter((n) => n.startsWith('.'))).toEqual([]);
      rmSync(join(out, 'render.js'), { recursive: true });
      expect(await main(['build', '--out', out], { stdout: () => {}, stderr: () => {} })).toBe(0);
      for (const n of names) expect(readFileSync(join(out, n), 'utf8')).toBe(readFileSync(join(STATIC_DIR, n), 'utf8'));
      expect(readdirSync(out).sort()).toEqual(names);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
