// Docs trees of unusual shape (s46 probe). A section listing hundreds of children: the walker
// read every child index at once, so 300 siblings held 300 files open together (EMFILE under
// macOS's default limit of 256 open files) and, over HTTP, made 300 requests at once. A server
// whose every section lists one more: the walk never ended.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractError } from './contract.js';
import { FolderSource, jsonValueCount, UrlSource } from './source.js';
import { MAX_WALK_DEPTH, MAX_WALK_JSON_VALUES, WALK_CONCURRENCY, walkTopics } from './walk.js';

/** A valid tree: the root section listing `n` empty sections t0 … t(n-1). */
export function writeWideTree(dir: string, n: number): void {
  const ref = (i: number) => ({ id: `t${i}`, kind: 'section', title: `T ${i}`, _links: { self: { href: `/t${i}/index.json` } } });
  for (let i = 0; i < n; i++) {
    mkdirSync(join(dir, `t${i}`));
    writeFileSync(join(dir, `t${i}`, 'index.json'), JSON.stringify({ ...ref(i), _links: { self: { href: `/t${i}/index.json` }, parent: { href: '/index.json' } }, _embedded: { topics: [] } }));
  }
  const topics = Array.from({ length: n }, (_, i) => ref(i));
  writeFileSync(join(dir, 'index.json'), JSON.stringify({ id: '', kind: 'section', title: 'Root', _links: { self: { href: '/index.json' } }, _embedded: { topics } }));
}

/** A real folder source that counts how many reads are under way at once. */
class CountingSource extends FolderSource {
  now = 0;
  most = 0;
  reads = 0;
  override async readText(url: URL): Promise<string> {
    this.reads++;
    this.most = Math.max(this.most, ++this.now);
    try {
      return await super.readText(url);
    } finally {
      this.now--;
    }
  }
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'walk-wide-'));
  writeWideTree(dir, 300);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('walkTopics over a section of 300 children', () => {
  it(`reads at most ${WALK_CONCURRENCY} indexes at once, and every one of them`, async () => {
    const source = new CountingSource(dir);
    expect(await walkTopics(source)).toEqual([]);
    expect(source.reads).toBe(301);
    expect(source.most).toBeLessThanOrEqual(WALK_CONCURRENCY);
  });

  it('still names the broken child, and reads no more after it', async () => {
    const file = join(dir, 't150', 'index.json');
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, '{"id": "t150"');
    try {
      const source = new CountingSource(dir);
      await expect(walkTopics(source)).rejects.toThrow(/t150\/index\.json: not valid JSON/);
      expect(source.reads).toBeLessThan(301);
    } finally {
      writeFileSync(file, good);
    }
  });
});

describe('walkTopics over a tree without end', () => {
  /** Section `n` (id s<n>, at /s<n>/index.json) lists section n + 1, for every n: a chain with no end. */
  const chain = (n: number) => ({
    id: n === 0 ? '' : `s${n}`,
    kind: 'section',
    title: `S ${n}`,
    _links: { self: { href: n === 0 ? '/index.json' : `/s${n}/index.json` }, ...(n > 0 ? { parent: { href: n === 1 ? '/index.json' : `/s${n - 1}/index.json` } } : {}) },
    _embedded: { topics: [{ id: `s${n + 1}`, kind: 'section', title: `S ${n + 1}`, _links: { self: { href: `/s${n + 1}/index.json` } } }] },
  });

  it(`a server whose sections nest without end is refused below ${MAX_WALK_DEPTH} levels (the walk never ended)`, async () => {
    let requests = 0;
    const endless = createServer((req, res) => {
      requests++;
      const n = req.url === '/index.json' ? 0 : Number(/^\/s(\d+)\/index\.json$/.exec(req.url ?? '')?.[1] ?? -1);
      if (n < 0) return void res.writeHead(404).end();
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(chain(n)));
    });
    await new Promise<void>((r) => endless.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/`;
    try {
      await expect(walkTopics(new UrlSource(base))).rejects.toThrow(
        `${base}s${MAX_WALK_DEPTH}/index.json: s${MAX_WALK_DEPTH + 1}: sections nested more than ${MAX_WALK_DEPTH} deep; a docs tree follows its folders, so is this a chunkyard docs tree?`,
      );
      expect(requests).toBe(MAX_WALK_DEPTH + 1);
    } finally {
      await new Promise<void>((r) => endless.close(() => r()));
    }
  });

  // Session 56: index-tool built a tree of 160 nested sections and docs-query refused it at 65.
  it('a folder tree of 300 nested sections, as index-tool lays it out, is walked to its end', async () => {
    const deep = mkdtempSync(join(tmpdir(), 'walk-nested-'));
    try {
      const depth = 300;
      const idOf = (n: number) => Array.from({ length: n }, (_, k) => `l${k + 1}`).join('/');
      const hrefOf = (n: number) => (n === 0 ? '/index.json' : `/${idOf(n)}/index.json`);
      for (let n = 0; n <= depth; n++) {
        const children = n === depth ? [] : [{ id: idOf(n + 1), kind: 'section', title: `L ${n + 1}`, _links: { self: { href: hrefOf(n + 1) } } }];
        const index = { id: idOf(n), kind: 'section', title: `L ${n}`, _links: { self: { href: hrefOf(n) }, ...(n > 0 ? { parent: { href: hrefOf(n - 1) } } : {}) }, _embedded: { topics: children } };
        mkdirSync(join(deep, idOf(n)), { recursive: true });
        writeFileSync(join(deep, idOf(n), 'index.json'), JSON.stringify(index));
      }
      const source = new CountingSource(deep);
      expect(await walkTopics(source)).toEqual([]);
      expect(source.reads).toBe(depth + 1);
    } finally {
      rmSync(deep, { recursive: true, force: true });
    }
  });

  it('a folder tree of sections nested to the limit is walked', async () => {
    const deep = mkdtempSync(join(tmpdir(), 'walk-deep-'));
    try {
      for (let n = 0; n <= MAX_WALK_DEPTH; n++) {
        const index = chain(n);
        if (n === MAX_WALK_DEPTH) index._embedded.topics = [];
        mkdirSync(join(deep, n === 0 ? '' : `s${n}`), { recursive: true });
        writeFileSync(join(deep, n === 0 ? '' : `s${n}`, 'index.json'), JSON.stringify(index));
      }
      const source = new CountingSource(deep);
      expect(await walkTopics(source)).toEqual([]);
      expect(source.reads).toBe(MAX_WALK_DEPTH + 1);
    } finally {
      rmSync(deep, { recursive: true, force: true });
    }
  });

  it('a tree of more index files than maxIndexes is refused, naming the limit', async () => {
    await expect(walkTopics(new FolderSource(dir), { maxIndexes: 100 })).rejects.toThrow(`${join(dir, 'index.json')}: more than 100 index files below the root; is this a chunkyard docs tree?`);
    expect(await walkTopics(new FolderSource(dir), { maxIndexes: 301 })).toEqual([]);
  });

  it('a maxIndexes that is no whole number from 1 is a RangeError naming it (NaN and Infinity turned the bound off)', async () => {
    for (const maxIndexes of [NaN, Infinity, 0, -1, 100.5]) {
      await expect(walkTopics(new FolderSource(dir), { maxIndexes }), String(maxIndexes)).rejects.toThrow(
        new RangeError(`walkTopics maxIndexes: expected a whole number of index files from 1 (the root's) up, got ${maxIndexes}`),
      );
    }
  });
});

// The walk keeps every topic's index, so each file's bound (MAX_JSON_VALUES) did not bound the
// walk: docs-query --list over 10 topic indexes of a million chunks each took 2 GB, and some 20
// of them (2 GB from a server) ended the process with "JavaScript heap out of memory" and a
// native stack trace (helper-80's probe). Real files and a real server, with a small maxValues.
describe('the JSON values of all the index files a walk reads', () => {
  it(`are bounded together (default ${MAX_WALK_JSON_VALUES}), naming the index that passes the bound, from a folder and a server`, async () => {
    const tree = mkdtempSync(join(tmpdir(), 'walk-values-'));
    writeWideTree(tree, 40);
    const server = createServer((req, res) => {
      try {
        res.end(readFileSync(join(tree, req.url!)));
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      // The root lists 40 sections (some 10 values each); each section's file holds 9.
      const rootValues = jsonValueCount(readFileSync(join(tree, 'index.json'), 'utf8'));
      const each = jsonValueCount(readFileSync(join(tree, 't0', 'index.json'), 'utf8'));
      for (const source of [new FolderSource(tree), new UrlSource(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)]) {
        expect(await walkTopics(source, { maxValues: rootValues + 40 * each })).toEqual([]);
        const err = await walkTopics(source, { maxValues: rootValues + 39 * each }).then(() => null, (e: Error) => e);
        expect(err).toBeInstanceOf(ContractError);
        expect((err as ContractError).problem).toBe(
          `the index files read so far hold ${(rootValues + 40 * each).toLocaleString('en-US')} JSON values together, more than a walk keeps (${(rootValues + 39 * each).toLocaleString('en-US')}, 2 to 5 million chunks); is this a chunkyard docs tree?`,
        );
        expect((err as ContractError).where).toMatch(/t\d+[/\\]index\.json$/);
      }
      await expect(walkTopics(new FolderSource(tree), { maxValues: Number.NaN })).rejects.toThrow(RangeError);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(tree, { recursive: true, force: true });
    }
  });
});
