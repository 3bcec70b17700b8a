// Built docs files that are not UTF-8 (issue 15): both sources refuse them with one line naming
// the file or URL, as topic-io and the store's ingest do, instead of turning each bad byte into
// U+FFFD and carrying on with altered text. Real files, and a real HTTP server on loopback.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocsClient } from './client.js';
import { FolderSource, readJson, SourceError, UrlSource } from './source.js';

const ADVICE = 'built docs files are UTF-8, so this one was damaged or replaced after the build: rebuild the docs (npx nx run-many -t index)';
const latin1Index = Buffer.concat([Buffer.from('{"title":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]);

let dir: string;
let server: Server;
let base: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'source-utf8-'));
  mkdirSync(join(dir, 't/_chunks'), { recursive: true });
  server = createServer((req, res) => {
    try {
      res.end(readFileSync(join(dir, decodeURIComponent(req.url!.slice(1)))));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('a built docs file that is not UTF-8', () => {
  it('an index.json with a Latin-1 byte is refused, naming the file and the offset (folder)', async () => {
    writeFileSync(join(dir, 'index.json'), latin1Index);
    const s = new FolderSource(dir);
    await expect(readJson(s, s.rootIndexUrl)).rejects.toThrow(new SourceError(join(dir, 'index.json'), `not valid UTF-8 (first bad byte at offset 13); ${ADVICE}`));
  });

  it('the same index.json is refused, naming the URL (URL source)', async () => {
    writeFileSync(join(dir, 'index.json'), latin1Index);
    const s = new UrlSource(base);
    await expect(readJson(s, s.rootIndexUrl)).rejects.toThrow(new SourceError(`${base}index.json`, `not valid UTF-8 (first bad byte at offset 13); ${ADVICE}`));
  });

  it('a chunk file with a bad byte is refused through the client, never shown with U+FFFD', async () => {
    writeFileSync(join(dir, 't/_chunks/g-1.md'), Buffer.concat([Buffer.from('naïve '), Buffer.from([0xc3, 0x28]), Buffer.from(' text\n')]));
    for (const s of [new FolderSource(dir), new UrlSource(base)]) {
      const url = new URL('/t/_chunks/g-1.md', s.rootIndexUrl);
      await expect(new DocsClient(s).source.readText(url)).rejects.toThrow(`${s.describe(url)}: not valid UTF-8 (first bad byte at offset 7); ${ADVICE}`);
    }
  });

  it('UTF-16 text says so, not just "offset 0"', async () => {
    writeFileSync(join(dir, 'u16.json'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"a":1}', 'utf16le')]));
    for (const s of [new FolderSource(dir), new UrlSource(base)]) {
      await expect(readJson(s, new URL('/u16.json', s.rootIndexUrl))).rejects.toThrow(`: UTF-16 (little-endian) text (it starts with that byte order mark), not UTF-8; ${ADVICE}`);
    }
  });

  it('valid UTF-8 is read exactly, a leading BOM dropped (both sources)', async () => {
    writeFileSync(join(dir, 'ok.md'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('é ✓ 𝄞 \uFFFD kept\n')]));
    for (const s of [new FolderSource(dir), new UrlSource(base)]) {
      expect(await s.readText(new URL('/ok.md', s.rootIndexUrl))).toBe('é ✓ 𝄞 \uFFFD kept\n');
    }
  });

  it('text read is never altered: it is the file, less a BOM, or the file is refused (property)', async () => {
    const folder = new FolderSource(dir);
    const url = new UrlSource(base);
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 24 }), fc.string({ maxLength: 12, unit: 'binary' }), async (raw, text) => {
        const bytes = Buffer.concat([Buffer.from(text), Buffer.from(raw)]);
        writeFileSync(join(dir, 'p.md'), bytes);
        const bomless = bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])) ? bytes.subarray(3) : bytes;
        for (const s of [folder, url]) {
          const read = await s.readText(new URL('/p.md', s.rootIndexUrl)).catch((err: SourceError) => err);
          if (read instanceof SourceError) expect(read.problem).toMatch(/^(not valid UTF-8 \(first bad byte at offset \d+\)|UTF-(16|32) \(\w+-endian\) text .*); built docs/);
          else expect(Buffer.from(read)).toEqual(bomless);
        }
      }),
      { numRuns: 150 },
    );
  });
});
