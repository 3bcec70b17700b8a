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
const asked: string[] = [];
let files: Record<string, string> = {};
let base: string;
let otherHost: string;
let dir: string;

const listen = async (s: Server) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `127.0.0.1:${(s.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  docs = createServer((req, res) => {
    asked.push(req.url!);
    if (files[req.url!] === undefined) res.writeHead(404).end();
    else res.end(files[req.url!]);
  });
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

describe('an href with a "." or ".." segment, plain, encoded or split by a tab', () => {
  const hrefs = ['../../../etc/passwd', '..%2f..%2f..%2fetc%2fpasswd', '_chunks/%2e%2e/%2E%2E/x.md', '_chunks\\..\\..\\x.md', '.\t./.\n./x.md', '_chunks/./g-0.md', '_chunks//g-0.md', '_chunks/a%2fb.md', '_chunks/%zz.md'];
  const problem = `a path of plain names below the index's folder (no ".", ".." or empty segment, no encoded slash)`;

  it('in a chunk item, over HTTP: the topic index is refused, naming it and the item, and no chunk is asked for', async () => {
    for (const href of hrefs) {
      files = tree(href);
      asked.length = 0;
      const r = await run('--base-url', base, '--baseline', '-n', '1');
      expect(r.code, href).toBe(1);
      expect(r.stderr, href).toBe(`docs-query: ${base}t/index.json: _embedded.chunks.g.items[0].href: expected ${problem}, got ${JSON.stringify(href)}\n`);
      expect(asked, href).toEqual(['/index.json', '/t/index.json']);
    }
  });

  it("in a section's child link: the same, for a root-relative link", async () => {
    files = tree('_chunks/g-0.md', '/t/%2e%2e/t/index.json');
    const r = await run('--base-url', base, '--list');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`docs-query: ${base}index.json: _embedded.topics[0]._links.self.href: expected a path of plain names (no ".", ".." or empty segment, no encoded slash), got "/t/%2e%2e/t/index.json"\n`);
  });

  it('from a folder: the same message, naming the file (an encoded .. was "chunkyard-docs://folder/…: outside the docs folder")', async () => {
    const href = '..%2f..%2f..%2fetc%2fpasswd';
    for (const [path, text] of Object.entries(tree(href))) writeFileSync(join(dir, path), text);
    const r = await run(dir, '--baseline', '-n', '1');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`docs-query: ${join(dir, 't/index.json')}: _embedded.chunks.g.items[0].href: expected ${problem}, got ${JSON.stringify(href)}\n`);
  });

  it('plain names that only look odd are read as before', async () => {
    files = { ...tree('_chunks/my%20guide..0.md'), '/t/_chunks/my%20guide..0.md': 'zero' };
    const r = await run('--base-url', base, '--baseline', '-n', '1');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('\nzero\n');
  });
});
