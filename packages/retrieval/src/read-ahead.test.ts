// Read-ahead of chunk files (helper-80's probe): disclosure and search read 8 chunk files ahead of
// the one being written out, each whole, so 8 chunk files of 100 MB were held at once:
// docs-query -n 9 on such a topic peaked at 1.6 GB, and files up to the 512 MiB cap would hold
// 4 GiB. A read ahead is now capped at LARGE_BODY_BYTES and read again, whole, when its turn
// comes. Real files and a real server; the sources count the bytes they have handed out.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocsClient } from './client.js';
import { discloseTopicsStream } from './retrieve.js';
import { FolderSource, LARGE_BODY_BYTES, UrlSource, type DocsSource } from './source.js';

const MiB = 1024 * 1024;
const COUNT = 12;
/** Chunk i's size: every third one large, the rest small. */
const size = (i: number) => (i % 3 === 2 ? 6 * MiB : 100 + i);
const text = (i: number) => String.fromCharCode(97 + i).repeat(size(i));

let dir: string;
let server: Server;
let base: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'read-ahead-'));
  mkdirSync(join(dir, 't/_chunks'), { recursive: true });
  const items = Array.from({ length: COUNT }, (_, i) => ({ index: i, href: `_chunks/g-${i}.md`, title: `C${i}`, is_code: false, similarity_conceptual: 1, keywords: [] }));
  for (let i = 0; i < COUNT; i++) writeFileSync(join(dir, `t/_chunks/g-${i}.md`), text(i));
  const group = { source: 'g.md', manifest: '_chunks/g.json', count: COUNT, baseline_conceptual: 0, stripe_order: items.slice(1).map((x) => x.index), items };
  writeFileSync(join(dir, 't/index.json'), JSON.stringify({ kind: 'topic', id: 't', title: 'T', _links: { self: { href: '/t/index.json' }, parent: { href: '/index.json' } }, _embedded: { topics: [], chunks: { g: group } } }));
  writeFileSync(join(dir, 'index.json'), JSON.stringify({ kind: 'section', id: '', title: 'R', _links: { self: { href: '/index.json' } }, _embedded: { topics: [{ id: 't', kind: 'topic', title: 'T', _links: { self: { href: '/t/index.json' } } }] } }));
  server = createServer((req, res) => {
    try {
      res.end(readFileSync(join(dir, decodeURIComponent(req.url!.slice(1)))));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

/** Wraps a real source: how many characters of chunk text it has handed out. */
function counting(source: DocsSource): { source: DocsSource; handedOut: () => number } {
  let out = 0;
  const wrapped: DocsSource = {
    rootIndexUrl: source.rootIndexUrl,
    folder: source.folder,
    describe: (url) => source.describe(url),
    readText: async (url, maxBytes) => {
      const t = await (maxBytes === undefined ? source.readText(url) : source.readText(url, maxBytes));
      if (url.pathname.includes('/_chunks/')) out += t.length;
      return t;
    },
  };
  return { source: wrapped, handedOut: () => out };
}

describe('disclosure reading chunk files ahead', () => {
  for (const [name, make] of [
    ['a folder', () => new FolderSource(dir)],
    ['a server', () => new UrlSource(base)],
  ] as const) {
    it(`from ${name}: every text whole and in order, and no file over ${LARGE_BODY_BYTES / MiB} MiB held ahead of the one written`, async () => {
      const { source, handedOut } = counting(make());
      const seen: number[] = [];
      let consumed = 0;
      let mostAhead = 0;
      for await (const d of discloseTopicsStream(new DocsClient(source), { n: COUNT, withBaseline: true })) {
        for await (const c of d.chunks) {
          expect(c.text).toBe(text(c.index));
          seen.push(c.index);
          consumed += c.text.length;
          // A slow reader: the read-ahead fills while this one is written out.
          await new Promise((r) => setTimeout(r, 20));
          mostAhead = Math.max(mostAhead, handedOut() - consumed);
        }
      }
      expect(seen).toEqual(Array.from({ length: COUNT }, (_, i) => i));
      // The small files only (before, the three large ones ahead were held whole: 18 MiB).
      expect(mostAhead).toBeLessThan(MiB);
    });
  }
});
