// --base-url with a query string (helper-103 probe): the query was dropped without a word and
// every file asked for at its bare path, so a docs host that wants its `?token=…` answered 403
// for a URL that no longer held the token, and the user was left to guess why. Like a user name
// or password, it is a usage error now (exit 2), the query not echoed (it may be a secret), and
// nothing is requested. Real process (the built bin), real server on loopback.
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingServer } from './test-run.js';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const BIN = join(REPO, 'apps/docs-query/bin/docs-query.js');

let base: string;
let requested: string[];
let close: () => Promise<void>;

function bin(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  execFileSync(process.execPath, ['tools/build.mjs', 'apps/docs-query'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
  ({ base, requested, close } = await recordingServer(403));
}, 60_000);
afterAll(() => close());

describe('docs-query --base-url with a query string', () => {
  it('is a usage error that does not echo the query, and nothing is requested', async () => {
    requested.length = 0;
    for (const given of [`${base}?token=s3cret`, `${base}docs/?a=1&token=s3cret`, `${base}docs?token=s3cret#x`]) {
      const r = await bin('--base-url', given, '--list');
      expect(r.code, given).toBe(2);
      expect(r.stderr, given).toBe('docs-query: --base-url: a query string (?…) is not sent: each file is asked for at its own URL, without it; leave it out\nRun docs-query --help for usage.\n');
      expect(r.stderr + r.stdout).not.toContain('s3cret');
    }
    expect(requested).toEqual([]);
  });

  it('a bare "?" or a fragment is no query: the docs are asked for', async () => {
    requested.length = 0;
    for (const given of [`${base}?`, `${base}#top`]) {
      const r = await bin('--base-url', given, '--list');
      expect(r.code, given).toBe(1);
      expect(r.stderr, given).toBe(`docs-query: ${base}index.json: HTTP 403 Forbidden\n`);
    }
    expect(requested).toEqual(['/index.json', '/index.json']);
  });
});
