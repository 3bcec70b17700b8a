// A chunk or child href that the URL parser reads as another host (helper-80's probe): a leading
// backslash pair, a leading space or tab before an absolute URL. The contract's check took them
// for relative URLs, and the source refused the resolved URL later, so docs-query said
// 'http://127.0.0.1:<other>/x.md: outside the docs at http://127.0.0.1:<port>/' after printing the
// topic's heading, naming neither the index.json nor the item. Now the index is refused as it is
// read, naming its URL or file and the JSON path; the other host is asked for nothing. A real
// server, a real second "other host", real files.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './test-run.js';

let docs: Server;
let other: Server;
let otherRequests = 0;
let files: Record<string, string> = {};
let base: string;
let otherHost: string;
let dir: string;

const listen = async (s: Server) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `127.0.0.1:${(s.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  docs = createServer((req, res) => (files[req.url!] === undefined ? res.writeHead(404).end() : res.end(files[req.url!])));
  other = createServer((_req, res) => {
    otherRequests++;
    res.end('{}');
  });
  base = `http://${await listen(docs)}/`;
  otherHost = await listen(other);
  dir = mkdtempSync(join(tmpdir(), 'foreign-href-'));
});
afterAll(async () => {
  await Promise.all([docs, other].map((s) => new Promise<void>((r) => s.close(() => r()))));
  rmSync(dir, { recursive: true, force: true });
});

/** The tree: root → topic t, its chunk 0's href `chunkHref`, its self link `selfHref`. */
function tree(chunkHref: string, childHref = '/t/index.json'): Record<string, string> {
  const items = [0, 1].map((i) => ({ index: i, href: i === 0 ? chunkHref : `_chunks/g-${i}.md`, title: `C${i}`, is_code: false, similarity_conceptual: 1, keywords: [] }));
  return {
    '/index.json': JSON.stringify({ kind: 'section', id: '', title: 'R', _links: { self: { href: '/index.json' } }, _embedded: { topics: [{ id: 't', kind: 'topic', title: 'T', _links: { self: { href: childHref } } }] } }),
    '/t/index.json': JSON.stringify({
      kind: 'topic', id: 't', title: 'T', _links: { self: { href: '/t/index.json' }, parent: { href: '/index.json' } },
      _embedded: { topics: [], chunks: { g: { source: 'g.md', manifest: '_chunks/g.json', count: 2, baseline_conceptual: 0, stripe_order: [1], items } } },
    }),
    '/t/_chunks/g-0.md': 'zero',
    '/t/_chunks/g-1.md': 'one',
  };
}

describe('an href that leaves for another host', () => {
  const chunkHrefs = () => [`\\\\${otherHost}\\x.md`, ` http://${otherHost}/x.md`, `\t//${otherHost}/x.md`, `/\\${otherHost}/x.md`];

  it('in a chunk item, over HTTP: the topic index is refused, naming it and the item; the other host is asked nothing', async () => {
    for (const href of chunkHrefs()) {
      files = tree(href);
      const r = await run('--base-url', base, '--baseline', '-n', '1');
      expect(r.code, href).toBe(1);
      expect(r.stdout, href).toBe('');
      expect(r.stderr, href).toBe(`docs-query: ${base}t/index.json: _embedded.chunks.g.items[0].href: expected a relative URL, got ${JSON.stringify(href)}\n`);
    }
    expect(otherRequests).toBe(0);
  });

  it("in a section's child link, over HTTP: the root index is refused the same way", async () => {
    files = tree('_chunks/g-0.md', `//${otherHost}/t/index.json`);
    const r = await run('--base-url', base, '--list');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`docs-query: ${base}index.json: _embedded.topics[0]._links.self.href: expected a root-relative URL (starting with /), got ${JSON.stringify(`//${otherHost}/t/index.json`)}\n`);
    expect(otherRequests).toBe(0);
  });

  it('in a chunk item, from a folder: the same message, naming the file', async () => {
    const href = chunkHrefs()[0]!;
    for (const [path, text] of Object.entries(tree(href))) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const r = await run(dir, '--baseline', '-n', '1');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`docs-query: ${join(dir, 't/index.json')}: _embedded.chunks.g.items[0].href: expected a relative URL, got ${JSON.stringify(href)}\n`);
  });
});
