// Suffix ranges (RFC 9110 14.1.1: `bytes=-N` with N > 0 is satisfiable whatever the size) on
// what a folder URL serves and on an empty file (s47 probe). Real files, a real server.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from './server.js';

let dir: string;
let srv: RunningServer;
const INDEX = '{"kind":"section","id":"t"}\n';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'docs-serve-range-'));
  mkdirSync(join(dir, 't'));
  writeFileSync(join(dir, 't/index.json'), INDEX);
  writeFileSync(join(dir, 'empty.md'), '');
  srv = await startServer({ root: dir, port: 0, inspector: false });
});
afterAll(async () => {
  await srv?.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (path: string, range: string) => fetch(new URL(path, srv.url), { headers: { Range: range } });

describe('docs-serve: suffix ranges longer than what is served', () => {
  it('a folder URL serves the whole index.json, as its own URL does (it was 416)', async () => {
    for (const path of ['t/', 't/index.json']) {
      const res = await get(path, 'bytes=-100000');
      expect(res.status, path).toBe(206);
      expect(res.headers.get('content-range'), path).toBe(`bytes 0-${INDEX.length - 1}/${INDEX.length}`);
      expect(await res.text(), path).toBe(INDEX);
    }
    const tail = await get('t/', 'bytes=-3');
    expect(tail.status).toBe(206);
    expect(await tail.text()).toBe(INDEX.slice(-3));
  });

  it('an empty file asked for its last bytes is 200 with the empty body (it was 416; only bytes=-0 and int ranges are unsatisfiable there)', async () => {
    for (const range of ['bytes=-5', 'bytes=-1', 'bytes = -99999999999999999999', 'bytes=0-3, -5']) {
      const res = await get('empty.md', range);
      expect(res.status, range).toBe(200);
      expect(res.headers.get('content-length'), range).toBe('0');
      expect(await res.text(), range).toBe('');
    }
    for (const range of ['bytes=0-', 'bytes=-0', 'bytes=0-3']) {
      const res = await get('empty.md', range);
      expect(res.status, range).toBe(416);
      expect(res.headers.get('content-range'), range).toBe('bytes */0');
    }
  });
});
