// The page's layout of chunks over the source (static/data.js), in Node: the properties every
// strategy's manifest must get drawn with — each source character once, each chunk once.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { capLabel, clipText, DETAIL_CHARS, docsRoot, FETCH_CONCURRENCY, indexUrl, layoutTree, listTopics, loadTopic, MAX_NESTING, nestingDepth, shownLineBreaks, tokenCap, type Run } from '../static/data.js';

type Chunk = { sourcePosition: { charStart: number; charEnd: number }; overlapChars?: number };
const at = (charStart: number, charEnd: number, overlapChars = 0): Chunk => ({ sourcePosition: { charStart, charEnd }, overlapChars });

/** The drawn text of a run list, and each chunk's node by index. */
function flatten(runs: Run[]) {
  const text: [number, number][] = [];
  const nodes = new Map<number, Extract<Run, { kind: 'chunk' }>>();
  const walk = (list: Run[]) => {
    for (const r of list) {
      if (r.kind === 'text') text.push([r.start, r.end]);
      else {
        expect(nodes.has(r.index)).toBe(false);
        nodes.set(r.index, r);
        walk(r.children);
      }
    }
  };
  walk(runs);
  return { text, nodes };
}

/** Text runs inside a chunk node (its own and its nested chunks'), with their overlap flags. */
function textOf(node: Run): { start: number; end: number; overlap: boolean }[] {
  return node.kind === 'text' ? [node] : node.children.flatMap(textOf);
}

describe('layoutTree', () => {
  it('draws the usual chunking: gaps dimmed, an overlap inside the later chunk, the earlier cut at its start', () => {
    // 0..10 front matter, chunk 0 = 10..40, chunk 1 = 30..60 repeating 10 chars (+2 separator), 60..70 trailing.
    const runs = layoutTree([at(10, 40), at(30, 60, 12)], 70);
    expect(runs.map((r) => [r.kind, r.start, r.end])).toEqual([
      ['text', 0, 10],
      ['chunk', 10, 40],
      ['chunk', 30, 60],
      ['text', 60, 70],
    ]);
    const [, c0, c1] = runs as [Run, Extract<Run, { kind: 'chunk' }>, Extract<Run, { kind: 'chunk' }>];
    expect(c0.drawnEnd).toBe(30);
    expect(textOf(c0)).toEqual([{ kind: 'text', start: 10, end: 30, overlap: false }]);
    expect(c1.overlapEnd).toBe(42); // overlapChars reaches past chunk 0's end
    expect(c1.overlapWith).toEqual([0]);
    expect(c0.overlapWith).toEqual([]);
    expect(textOf(c1).map((t) => [t.start, t.end, t.overlap])).toEqual([
      [30, 42, true],
      [42, 60, false],
    ]);
  });

  it('nests a chunk that lies inside another (hierarchical sections and snippets)', () => {
    const runs = layoutTree([at(0, 100), at(10, 40), at(40, 90, 5)], 100);
    const { nodes } = flatten(runs);
    expect(runs).toHaveLength(1);
    const section = nodes.get(0)!;
    expect(section.children.filter((r) => r.kind === 'chunk').map((r) => (r as { index: number }).index)).toEqual([1, 2]);
    expect(textOf(nodes.get(2)!).filter((t) => t.overlap).map((t) => [t.start, t.end])).toEqual([[40, 45]]);
    // Snippets overlapping each other inside their section: the later one holds the overlap.
    const inner = flatten(layoutTree([at(0, 100), at(10, 40), at(30, 90)], 100)).nodes;
    expect(inner.get(1)!.drawnEnd).toBe(30);
    expect(inner.get(2)!.overlapWith).toEqual([1]);
    expect(inner.get(2)!.overlapEnd).toBe(40);
  });

  it('for any ranges: every character drawn exactly once, in order; every chunk drawn once, from its start', () => {
    const chunk = fc.record({ a: fc.integer({ min: -5, max: 300 }), b: fc.integer({ min: -5, max: 300 }), o: fc.integer({ min: 0, max: 40 }) });
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 30 }), fc.integer({ min: 0, max: 250 }), (cs, length) => {
        const chunks = cs.map(({ a, b, o }) => at(a, b, o));
        const runs = layoutTree(chunks, length);
        const { text, nodes } = flatten(runs);
        let pos = 0;
        for (const [s, e] of text) {
          expect(s).toBe(pos);
          expect(e).toBeGreaterThan(s);
          pos = e;
        }
        expect(pos).toBe(length);
        expect(nodes.size).toBe(chunks.length);
        for (const [i, node] of nodes) {
          const start = Math.min(Math.max(0, chunks[i]!.sourcePosition.charStart), length);
          expect(node.start).toBe(start);
          const drawn = textOf(node);
          if (drawn.length) expect(drawn[0]!.start).toBe(start);
          // Drawn text stays inside the chunk's range and overlap marks sit at its start.
          for (const t of drawn) expect(t.end).toBeLessThanOrEqual(Math.max(node.end, start));
          const own = node.children.filter((r) => r.kind === 'text');
          for (const t of own.filter((x) => x.overlap)) expect(t.end).toBeLessThanOrEqual(node.overlapEnd);
        }
      }),
    );
  });
});

describe('clipText', () => {
  it('cuts a text for the detail pane, never inside a surrogate pair, saying how much is left out', () => {
    expect(clipText('short', 10)).toBe('short');
    expect(clipText('abcdefghij', 4)).toBe('abcd… [6 more characters not shown]');
    expect(clipText('abc😀def', 4)).toBe('abc… [5 more characters not shown]');
    expect(clipText('x'.repeat(5_000_000)).length).toBeLessThan(DETAIL_CHARS + 100);
  });
});

describe('nestingDepth', () => {
  it('counts how deep chunks nest, without recursion (20,000 over one range crashed the tab)', () => {
    expect(nestingDepth(layoutTree([], 10))).toBe(0);
    expect(nestingDepth(layoutTree([at(0, 5), at(5, 10)], 10))).toBe(1);
    expect(nestingDepth(layoutTree([at(0, 10), at(2, 4)], 10))).toBe(2);
    expect(nestingDepth(layoutTree(Array.from({ length: 20_000 }, () => at(0, 10)), 10))).toBe(20_000);
    expect(MAX_NESTING).toBeGreaterThanOrEqual(2);
  });
});

describe('URLs', () => {
  it('finds the docs root one level above the page, or at ?root=', () => {
    expect(docsRoot('http://h:1/_inspect/?topic=a/b').href).toBe('http://h:1/');
    expect(docsRoot('http://h:1/site/docs/_inspect/index.html?topic=a').href).toBe('http://h:1/site/docs/');
    expect(docsRoot('http://h:1/_inspect/?root=http://other:2/docs').href).toBe('http://other:2/docs/');
  });

  it('encodes each folder of a topic path, as index-tool does', () => {
    const root = new URL('http://h/');
    expect(indexUrl(root, 'guides/c# & f#').href).toBe('http://h/guides/c%23%20%26%20f%23/index.json');
    expect(indexUrl(root, '').href).toBe('http://h/index.json');
    // The page never reaches above the docs root through ?topic=.
    expect(() => indexUrl(new URL('http://h/site/docs/'), 'a/../../etc')).toThrow(/not a folder under the docs root/);
  });
});

describe('a malformed index.json or manifest (probe)', () => {
  // The page said "Cannot read properties of null (reading 'manifest')", or fetched
  // ".../undefined" and blamed a build that had not run.
  const idx = (group: unknown) => ({ kind: 'topic', id: 't', title: 'T', _embedded: { chunks: { 'golden-reference': group } } });
  const goodGroup = { source: 'golden-reference.md', manifest: '_chunks/golden-reference.json', stripe_order: [0] };
  const chunk = { sourcePosition: { charStart: 0, charEnd: 3 }, tokenStats: { tokens: 1 } };
  async function load(files: Record<string, unknown>) {
    vi.stubGlobal('fetch', async (url: URL) => {
      // As a server maps a path to a file: its escapes decoded.
      const body = files[decodeURIComponent(new URL(url).pathname)];
      if (body === undefined) return new Response('missing', { status: 404 });
      return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status: 200 });
    });
    try {
      return await loadTopic(new URL('http://h/'), 't', null);
    } finally {
      vi.unstubAllGlobals();
    }
  }
  const files = (group: unknown, manifest: unknown) => ({ '/t/index.json': idx(group), '/t/_chunks/golden-reference.json': manifest, '/t/golden-reference.md': 'abc' });

  it('loads a good topic', async () => {
    expect((await load(files(goodGroup, { chunks: [chunk] }))).manifest.chunks).toHaveLength(1);
  });

  // A source named c#-guide.md was fetched as /t/c (the rest a fragment), 50%-off.md failed as
  // a malformed escape: its text is fetched from the file of that name.
  it('loads a topic whose source and manifest names hold #, ? and %', async () => {
    for (const name of ['c#-guide', '50%-off', 'what?']) {
      const group = { ...goodGroup, source: `${name}.md`, manifest: `_chunks/${encodeURIComponent(name)}.json` };
      const loaded = await load({ '/t/index.json': idx(group), [`/t/_chunks/${name}.json`]: { chunks: [chunk] }, [`/t/${name}.md`]: 'abc' });
      expect(loaded.source, name).toBe('abc');
      expect(loaded.manifest.chunks, name).toHaveLength(1);
    }
  });

  it.each([
    ['a group that is null', null, /^http:\/\/h\/t\/index\.json: _embedded\.chunks\["golden-reference"\] is not an object with "source" and "manifest"/],
    ['a group without manifest', { source: 'golden-reference.md' }, /^http:\/\/h\/t\/index\.json: _embedded\.chunks\["golden-reference"\]\.manifest is not a path/],
    ['a source of another scheme', { ...goodGroup, source: 'javascript:alert(1)' }, /^http:\/\/h\/t\/index\.json: _embedded\.chunks\["golden-reference"\]\.source "javascript:alert\(1\)" is not a path on this server/],
  ])('%s is named in a message, with the file', async (_what, group, message) => {
    await expect(load(files(group, { chunks: [chunk] }))).rejects.toThrow(message);
  });

  it.each([
    ['a chunk that is null', [null]],
    ['a chunk without sourcePosition', [{ tokenStats: { tokens: 1 } }]],
    ['a sourcePosition without numbers', [{ sourcePosition: { charStart: 'a', charEnd: 2 } }]],
  ])('%s in the manifest is named in a message, with the file', async (_what, chunks) => {
    await expect(load(files(goodGroup, { chunks }))).rejects.toThrow(
      /^http:\/\/h\/t\/_chunks\/golden-reference\.json: chunk 0 has no sourcePosition \{ charStart, charEnd \} \(not a chunk manifest; rebuild: npx nx run-many -t index\)/,
    );
  });

  it('the topic list names an index.json that is not an object, or a child link without an href', async () => {
    const list = async (files: Record<string, unknown>) => {
      vi.stubGlobal('fetch', async (url: URL) => new Response(JSON.stringify(files[new URL(url).pathname] ?? null), { status: 200 }));
      try {
        return await listTopics(new URL('http://h/'));
      } finally {
        vi.unstubAllGlobals();
      }
    };
    await expect(list({ '/index.json': null })).rejects.toThrow(/^http:\/\/h\/index\.json: not an index \(expected a JSON object; rebuild/);
    await expect(list({ '/index.json': { kind: 'section', _embedded: { topics: [{ id: 'x' }] } } })).rejects.toThrow(/^http:\/\/h\/index\.json: _embedded\.topics\[0\] has no _links\.self\.href/);
  });

  it('a ?root= that is not an http(s) URL is refused with a message naming it', () => {
    expect(() => docsRoot('http://h:1/_inspect/?root=javascript:alert(1)')).toThrow(/^\?root=javascript:alert\(1\): not an http\(s\) URL of a docs root/);
    expect(docsRoot('http://h:1/_inspect/?root=/other/').href).toBe('http://h:1/other/');
  });
});

describe('tokenCap', () => {
  it("takes each strategy's hard cap from the manifest options", () => {
    expect(tokenCap({ strategy: 'semantic', minTokens: 64, targetTokens: 400, maxTokens: 512 }, {})).toBe(512);
    const hierarchical = { strategy: 'hierarchical', sectionMaxTokens: 2048, snippetMaxTokens: 512, sectionTargetTokens: 1700 };
    expect(tokenCap(hierarchical, { tier: { level: 'section' } })).toBe(2048);
    expect(tokenCap(hierarchical, { tier: { level: 'snippet' } })).toBe(512);
    expect(capLabel(hierarchical)).toBe('sections 2048 · snippets 512');
    expect(tokenCap({ strategy: 'token-window', windowTokens: 900, singlePieceMaxTokens: 1200 }, {})).toBe(1200);
    expect(tokenCap({ strategy: 'paginate', ctxSize: 16384, bufSize: 512 }, {})).toBe(15872);
    expect(tokenCap({ strategy: 'unknown' }, {})).toBeUndefined();
    expect(capLabel(undefined)).toBe('—');
  });
});

describe('index.json lists of the wrong type, over a real HTTP server (s46 probe)', () => {
  // The page walks these lists as it draws; one of another type stopped it with "order.map is
  // not a function" (a stripe_order that is an object), or threw on a click and left the
  // detail pane empty (keywords or prompt_hashes that are strings, a null question).
  const goodGroup = { source: 'golden-reference.md', manifest: '_chunks/golden-reference.json', count: 1, stripe_order: [0], items: [{ keywords: [{ name: 'k', score: 1 }], prompt_hashes: ['ab'] }] };
  const chunk = { sourcePosition: { charStart: 0, charEnd: 3 }, tokenStats: { tokens: 1 } };
  async function serve(files: Record<string, unknown>): Promise<{ root: URL; close: () => Promise<void> }> {
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      const body = files[new URL(req.url ?? '/', 'http://h').pathname];
      res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
      res.end(body === undefined ? 'missing' : typeof body === 'string' ? body : JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return { root: new URL(`http://127.0.0.1:${port}/`), close: () => new Promise((resolve) => server.close(() => resolve())) };
  }
  const topic = (group: unknown, embedded: Record<string, unknown> = {}, manifestChunk: unknown = chunk) => ({
    '/index.json': { kind: 'section', _embedded: { topics: [{ _links: { self: { href: '/t/index.json' } } }] } },
    '/t/index.json': { kind: 'topic', id: 't', title: 'T', _embedded: { chunks: { 'golden-reference': group }, ...embedded } },
    '/t/_chunks/golden-reference.json': { chunks: [manifestChunk] },
    '/t/golden-reference.md': 'abc',
  });
  const where = String.raw`^http://127\.0\.0\.1:\d+/t/index\.json: _embedded\.chunks\["golden-reference"\]`;

  it('a well-formed topic loads', async () => {
    const s = await serve(topic(goodGroup, { questions: [{ hash: 'ab', question: 'Q?' }] }));
    try {
      expect((await loadTopic(s.root, 't', null)).manifest.chunks).toHaveLength(1);
    } finally {
      await s.close();
    }
  });

  it.each([
    ['stripe_order an object', { ...goodGroup, stripe_order: { 0: 0 } }, {}, `${where}\\.stripe_order is an object, not a list`],
    ['stripe_order holding a string', { ...goodGroup, stripe_order: ['0'] }, {}, `${where}\\.stripe_order\\[0\\] is a string, not a chunk index`],
    ['stripe_order_technical a number', { ...goodGroup, stripe_order_technical: 3 }, {}, `${where}\\.stripe_order_technical is a number, not a list`],
    ['items a string', { ...goodGroup, items: 'x' }, {}, `${where}\\.items is a string, not a list`],
    ['keywords a string', { ...goodGroup, items: [{ keywords: 'k' }] }, {}, `${where}\\.items\\[0\\]\\.keywords is a string, not a list`],
    ['a keyword that is null', { ...goodGroup, items: [{ keywords: [null] }] }, {}, `${where}\\.items\\[0\\]\\.keywords\\[0\\] is null, not a keyword`],
    ['prompt_hashes a string', { ...goodGroup, items: [{ prompt_hashes: 'ab' }] }, {}, `${where}\\.items\\[0\\]\\.prompt_hashes is a string, not a list`],
    ['questions an object', goodGroup, { questions: {} }, String.raw`^http://127\.0\.0\.1:\d+/t/index\.json: _embedded\.questions is an object, not a list`],
    ['a question that is null', goodGroup, { questions: [null] }, String.raw`^http://127\.0\.0\.1:\d+/t/index\.json: _embedded\.questions\[0\] is null, not a question`],
    // Issue 15 probe (s55): an index.json not built from the manifest beside it was drawn as it stood.
    ['a count other than the manifest\'s', { ...goodGroup, count: 2 }, {}, String.raw`${where}\.count is 2, but http://127\.0\.0\.1:\d+/t/_chunks/golden-reference\.json has 1 chunk: the topic's index\.json was not built from this manifest`],
    ['a stripe_order naming a chunk the manifest lacks', { ...goodGroup, count: undefined, stripe_order: [0, 1] }, {}, String.raw`${where}\.stripe_order\[1\] is chunk 1, but http://127\.0\.0\.1:\d+/t/_chunks/golden-reference\.json has 1 chunk: the topic's index\.json was not built`],
    ['a stripe_order_technical naming a chunk the manifest lacks', { ...goodGroup, count: undefined, stripe_order_technical: [7] }, {}, String.raw`${where}\.stripe_order_technical\[0\] is chunk 7, but http://127\.0\.0\.1:\d+/t/_chunks/golden-reference\.json has 1 chunk`],
  ])('%s is named with its file, before anything is drawn', async (_what, group, embedded, message) => {
    const s = await serve(topic(group, embedded));
    try {
      await expect(loadTopic(s.root, 't', null)).rejects.toThrow(new RegExp(`${message}.*rebuild: npx nx run-many -t index`));
    } finally {
      await s.close();
    }
  });

  it("a manifest of another source than the index's, or of no chunks, is named with both files (issue 15 probe, s55)", async () => {
    const files: Record<string, unknown> = topic({ ...goodGroup, source_sha256: 'a'.repeat(64) });
    files['/t/_chunks/golden-reference.json'] = { sourceSha256: 'b'.repeat(64), chunks: [chunk] };
    const s = await serve(files);
    try {
      await expect(loadTopic(s.root, 't', null)).rejects.toThrow(new RegExp(String.raw`${where}\.source_sha256 differs from http://127\.0\.0\.1:\d+/t/_chunks/golden-reference\.json's sourceSha256 .*rebuild: npx nx run-many -t index`));
      files['/t/_chunks/golden-reference.json'] = { sourceSha256: 'a'.repeat(64), chunks: [chunk] };
      expect((await loadTopic(s.root, 't', null)).manifest.chunks).toHaveLength(1);
      files['/t/_chunks/golden-reference.json'] = { chunks: [] };
      await expect(loadTopic(s.root, 't', null)).rejects.toThrow(/^http:\/\/127\.0\.0\.1:\d+\/t\/_chunks\/golden-reference\.json: no chunks \(chunking-tool writes at least one/);
    } finally {
      await s.close();
    }
  });

  it("a manifest chunk's tableColumns that is not a list is named with the manifest", async () => {
    const s = await serve(topic(goodGroup, {}, { ...chunk, containsTable: true, tableColumns: 'a' }));
    try {
      await expect(loadTopic(s.root, 't', null)).rejects.toThrow(/^http:\/\/127\.0\.0\.1:\d+\/t\/_chunks\/golden-reference\.json: chunk 0's tableColumns is not a list/);
    } finally {
      await s.close();
    }
  });

  it('the topic list counts a null chunk group as no chunks', async () => {
    const s = await serve(topic(null));
    try {
      expect(await listTopics(s.root)).toEqual([{ id: 't', title: 'T', chunks: 0 }]);
    } finally {
      await s.close();
    }
  });
});

describe('nothing outside the docs root is read (issue 15 probe)', () => {
  // A child link or a group's manifest/source of "../secret.json" or "http://other/..." was
  // fetched as it stood: with ?root=/docs/ the page read /secret.json, and the topic list
  // followed a link to any host. Two real servers: the docs under /docs/ (with a file beside
  // them, above the root) and another origin; each records what it was asked for.
  async function serve(files: Record<string, unknown>) {
    const { createServer } = await import('node:http');
    const asked: string[] = [];
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://h').pathname;
      asked.push(path);
      const body = files[decodeURIComponent(path)];
      res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
      res.end(body === undefined ? 'missing' : typeof body === 'string' ? body : JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return { origin: `http://127.0.0.1:${port}`, asked, files, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }
  const chunk = { sourcePosition: { charStart: 0, charEnd: 3 }, tokenStats: { tokens: 1 } };
  const group = (manifest: string, source: string) => ({ source, manifest, count: 1, stripe_order: [0] });
  const docs = (childHref: string, manifest = '_chunks/golden-reference.json', source = 'golden-reference.md') => ({
    '/docs/index.json': { kind: 'section', _embedded: { topics: [{ _links: { self: { href: childHref } } }] } },
    '/docs/t/index.json': { kind: 'topic', id: 't', title: 'T', _embedded: { chunks: { 'golden-reference': group(manifest, source) } } },
    '/docs/t/_chunks/golden-reference.json': { chunks: [chunk] },
    '/docs/t/golden-reference.md': 'abc',
    // What a link above the root finds: it must never be asked for.
    '/secret.json': { kind: 'topic', id: 'secret', title: 'SECRET', _embedded: { chunks: { s: { count: 1 } } } },
    '/t/index.json': { kind: 'topic', id: 'up', title: 'UP', _embedded: { chunks: {} } },
  });

  it('a topic link above the root or to another host is named with its file, and not fetched', async () => {
    const other = await serve({ '/index.json': { kind: 'topic', id: 'o', title: 'OTHER', _embedded: { chunks: {} } } });
    for (const href of ['../secret.json', '/secret.json', '/docs/../secret.json', '%2e%2e/secret.json', `${other.origin}/index.json`, `//${other.origin.slice(7)}/index.json`]) {
      const s = await serve(docs(href));
      try {
        await expect(listTopics(new URL(`${s.origin}/docs/`)), href).rejects.toThrow(
          new RegExp(`^${s.origin}/docs/index\\.json: _embedded\\.topics\\[0\\]\\._links\\.self\\.href ".*" leads outside the docs root ${s.origin}/docs/, which the page never reads`),
        );
        expect(s.asked, href).toEqual(['/docs/index.json']);
      } finally {
        await s.close();
      }
    }
    expect(other.asked).toEqual([]);
    await other.close();
    // index-tool's own root-relative links, read from a ?root= below the host's root: said why.
    const s = await serve(docs('/t/index.json'));
    try {
      await expect(listTopics(new URL(`${s.origin}/docs/`))).rejects.toThrow(/"\/t\/index\.json" leads outside the docs root .*; index-tool's links start at the host's root, so serve the docs at the root of a host/);
    } finally {
      await s.close();
    }
  });

  it('a link no URL parser accepts is named with its file (it was "Invalid URL" alone)', async () => {
    const s = await serve(docs('\\/%2f/..', '//['));
    try {
      await expect(listTopics(new URL(`${s.origin}/docs/`))).rejects.toThrow(new RegExp(`^${s.origin}/docs/index\\.json: _embedded\\.topics\\[0\\]\\._links\\.self\\.href ".*" is not a URL \\(not an index\\.json`));
      await expect(loadTopic(new URL(`${s.origin}/docs/`), 't', null)).rejects.toThrow(new RegExp(`^${s.origin}/docs/t/index\\.json: _embedded\\.chunks\\["golden-reference"\\]\\.manifest "//\\[" is not a URL`));
    } finally {
      await s.close();
    }
  });

  it("a group's manifest or source above the root is named with its file, and not fetched", async () => {
    for (const [key, files] of [
      ['manifest', docs('/docs/t/index.json', '../../secret.json')],
      ['source', docs('/docs/t/index.json', '_chunks/golden-reference.json', '../../secret.json')],
      ['manifest', docs('/docs/t/index.json', '/t/index.json')],
    ] as const) {
      const s = await serve(files);
      try {
        await expect(loadTopic(new URL(`${s.origin}/docs/`), 't', null), key).rejects.toThrow(
          new RegExp(`^${s.origin}/docs/t/index\\.json: _embedded\\.chunks\\["golden-reference"\\]\\.${key} ".*" leads outside the docs root ${s.origin}/docs/`),
        );
        expect(s.asked, key).toEqual(['/docs/t/index.json']);
      } finally {
        await s.close();
      }
    }
  });

  it('for any link, the page asks only for URLs under the root (hostile generator)', async () => {
    const other = await serve({});
    const s = await serve(docs('/docs/t/index.json'));
    const part = fc.constantFrom('..', '.', '%2e%2e', '%2E.', '.%2e', 'docs', 't', '', '\\', '..\\', 'index.json', 'secret.json', '?x', '#y', '%2f', other.origin, `//${other.origin.slice(7)}`, 'http:', s.origin);
    const href = fc.array(part, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('/'));
    const root = new URL(`${s.origin}/docs/`);
    try {
      await fc.assert(
        fc.asyncProperty(href, fc.constantFrom('child', 'manifest', 'source'), async (link, where) => {
          s.asked.length = 0;
          const files = where === 'child' ? docs(link) : where === 'manifest' ? docs('/docs/t/index.json', link) : docs('/docs/t/index.json', '_chunks/golden-reference.json', link);
          Object.assign(s.files, files);
          await (where === 'child' ? listTopics(root) : loadTopic(root, 't', null)).catch((err: unknown) => {
            // Every refusal is a message of ours naming the file, never a TypeError.
            expect((err as Error).message).toMatch(new RegExp(`^${s.origin}/docs/`));
          });
          for (const path of s.asked) expect(path, link).toMatch(/^\/docs\//);
        }),
        { numRuns: 150 },
      );
      expect(other.asked).toEqual([]);
    } finally {
      await s.close();
      await other.close();
    }
  });
});

describe('the topic list names each topic by the folder its index.json is in (issue 15 probe)', () => {
  // It took index.json's own id: a topic index without one linked to ?topic=undefined, and a
  // copied folder whose index.json still held the original's id was listed twice, both
  // entries opening the original (and its title, when not a string, read "[object Object]").
  async function serve(files: Map<string, unknown>) {
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      const body = files.get(new URL(req.url ?? '/', 'http://h').pathname);
      res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
      res.end(body === undefined ? 'missing' : JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return { root: new URL(`http://127.0.0.1:${port}/`), close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }
  /** A root section linking topics at these folders (hrefs encoded as index-tool writes them), each given its own index body. */
  const tree = (topics: [string, Record<string, unknown>][]) => {
    const href = (id: string) => `/${id.split('/').map(encodeURIComponent).join('/')}/index.json`;
    const files = new Map<string, unknown>([['/index.json', { kind: 'section', _embedded: { topics: topics.map(([id]) => ({ _links: { self: { href: href(id) } } })) } }]]);
    for (const [id, body] of topics) files.set(href(id), { kind: 'topic', _embedded: { chunks: { g: { count: 2 } } }, ...body });
    return files;
  };

  it('a topic index without an id, a copied one holding its original id, a title that is not a string', async () => {
    const s = await serve(tree([['a/t1', { id: 'a/t1', title: 'One' }], ['a/t2', { title: { x: 1 } }], ['a/t3', { id: 'a/t1', title: 'One' }]]));
    try {
      const topics = await listTopics(s.root);
      expect(topics).toEqual([
        { id: 'a/t1', title: 'One', chunks: 2 },
        { id: 'a/t2', title: 'a/t2', chunks: 2 },
        { id: 'a/t3', title: 'One', chunks: 2 },
      ]);
    } finally {
      await s.close();
    }
  });

  it('for any folder names, each listed id leads back to the index.json it was found at (hostile names)', async () => {
    // Names a docs folder may have: spaces, #, ?, %, RTL overrides, zero-width and astral characters.
    const name = fc
      .array(fc.constantFrom('a', 'Z', ' ', '#', '?', '%', '%20', '&', '+', ';', '=', '\u202e', '\u200b', '\u0301', 'é', '😀', '\\', '"', '<', '>', '..x', '.', '~'), { minLength: 1, maxLength: 5 })
      .map((p) => p.join(''))
      .filter((n) => n !== '.' && n !== '..' && n.trim() !== '');
    const ids = fc.uniqueArray(fc.array(name, { minLength: 1, maxLength: 3 }).map((p) => p.join('/')), { minLength: 1, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(ids, async (list) => {
        const files = tree(list.map((id) => [id, { id: 'claimed/elsewhere', title: 'T' }]));
        const s = await serve(files);
        try {
          const found = await listTopics(s.root);
          expect(found.map((t) => t.id).sort()).toEqual([...list].sort());
          for (const t of found) expect(files.has(indexUrl(s.root, t.id).pathname), t.id).toBe(true);
        } finally {
          await s.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('the topic list over a wide section (issue 15 probe)', () => {
  // A section of 5,000 topics was 5,000 fetches at once: Chromium failed them
  // (ERR_INSUFFICIENT_RESOURCES) and the page blamed the server. A real server that answers
  // each index.json after a pause counts how many it is asked for at once.
  it(`asks for at most ${FETCH_CONCURRENCY} index.json files at once, and lists every topic`, async () => {
    const { createServer } = await import('node:http');
    const n = 300;
    let inFlight = 0;
    let most = 0;
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://h').pathname;
      inFlight++;
      most = Math.max(most, inFlight);
      const m = /^\/t(\d+)\/index\.json$/.exec(path);
      const body =
        path === '/index.json'
          ? { kind: 'section', _embedded: { topics: Array.from({ length: n }, (_, i) => ({ _links: { self: { href: `/t${i}/index.json` } } })) } }
          : m
            ? { kind: 'topic', title: `T${m[1]}`, _embedded: { chunks: { g: { count: 1 } } } }
            : undefined;
      setTimeout(() => {
        inFlight--;
        res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body ?? null));
      }, 5);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const topics = await listTopics(new URL(`http://127.0.0.1:${port}/`));
      expect(topics).toHaveLength(n);
      expect(topics.reduce((sum, t) => sum + t.chunks, 0)).toBe(n);
      expect(most).toBeGreaterThan(1); // still in parallel
      expect(most).toBeLessThanOrEqual(FETCH_CONCURRENCY);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('shownLineBreaks (issue 15 probe: a CR-only document was drawn as one paragraph)', () => {
  it('turns every lone CR into LF and changes nothing else, so every position still holds', () => {
    const text = fc.array(fc.constantFrom('\r', '\n', '\r\n', '\r\r', 'a', ' ', '\u2028', '\ud800', '😀', '\u0000'), { maxLength: 40 }).map((p) => p.join(''));
    fc.assert(
      fc.property(text, (t) => {
        const shown = shownLineBreaks(t);
        expect(shown.length).toBe(t.length);
        for (let i = 0; i < t.length; i++) {
          const lone = t[i] === '\r' && t[i + 1] !== '\n';
          expect(shown[i]).toBe(lone ? '\n' : t[i]);
        }
      }),
    );
  });
});
