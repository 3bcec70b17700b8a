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
