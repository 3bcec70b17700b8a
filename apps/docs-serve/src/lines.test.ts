// docs-serve names its docs folder on one line in every message, whatever the folder's name
// (s47 probe: a name with a line break split the warning and the "serving" line in two, the
// second half passing for a line of docs-serve's own).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { ServeError, startServer } from './server.js';

let dir: string;
let odd: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'docs-serve-lines-'));
  odd = join(dir, 'odd\ndocs-serve: fake');
  mkdirSync(odd);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs-serve: a docs folder named with a line break', () => {
  it('is named on one line in the warning and the serving line', async () => {
    let stdout = '';
    let stderr = '';
    const code = await main([odd, '--port', '0'], { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) }, () => Promise.resolve('test'));
    expect(code).toBe(0);
    const lines = `${stdout}${stderr}`.split('\n').filter(Boolean);
    expect(lines.every((l) => l.startsWith('docs-serve: ') && !l.startsWith('docs-serve: fake')), lines.join('\n')).toBe(true);
    expect(stderr).toContain('odd\\u000adocs-serve: fake/index.json does not exist; is ');
    expect(stdout).toContain('serving ');
    expect(stdout).toContain('odd\\u000adocs-serve: fake at http://');
  });

  it('startServer names a missing one on one line', async () => {
    const missing = `${odd}-missing`;
    const err = await startServer({ root: missing, port: 0, inspector: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServeError);
    expect((err as Error).message).toBe(`${missing.replace('\n', '\\u000a')}: no such folder`);
  });
});
