// The two sources read the same bytes as the same text (s47 probe): a leading BOM was dropped
// over HTTP (TextDecoder, as res.text()) and kept from the folder, so an index.json saved with
// one was "not valid JSON (byte order mark at line 1, column 1)" from the folder only.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FolderSource, readJson, SourceError, UrlSource } from './source.js';

let dir: string;
let server: Server;
let base: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'source-bom-'));
  server = createServer((req, res) => res.end(readFileSync(join(dir, req.url!.slice(1)))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('FolderSource and UrlSource read the same bytes alike', () => {
  it('an index.json with a BOM parses from the folder as over HTTP', async () => {
    writeFileSync(join(dir, 'index.json'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"kind":"section"}')]));
    const folder = new FolderSource(dir);
    expect(await readJson(folder, folder.rootIndexUrl)).toEqual({ kind: 'section' });
    const url = new UrlSource(base);
    expect(await readJson(url, url.rootIndexUrl)).toEqual({ kind: 'section' });
  });

  it('any bytes decode to the same text, or are refused for the same reason (property)', async () => {
    const folder = new FolderSource(dir);
    const url = new UrlSource(base);
    // The text, or the problem without the file or URL that names it.
    const outcome = (read: Promise<string>) => read.then((text) => ({ text }), (err: SourceError) => ({ problem: err.problem }));
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.uint8Array({ maxLength: 40 }), fc.string({ maxLength: 20 }), async (bom, bytes, text) => {
        writeFileSync(join(dir, 'x.md'), Buffer.concat([Buffer.from(bom ? [0xef, 0xbb, 0xbf] : []), Buffer.from(bytes), Buffer.from(text)]));
        expect(await outcome(folder.readText(new URL('x.md', folder.rootIndexUrl)))).toEqual(await outcome(url.readText(new URL('x.md', url.rootIndexUrl))));
      }),
      { numRuns: 200 },
    );
  });
});
