// The walker and index validation over a real fixture tree (real chunking-tool output,
// index.json per the contract), then over copies broken in the ways a client must report.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractError, parseIndex } from './contract.js';
import { FolderSource } from './source.js';
import { buildFixtureDocs, SAMPLE_TOPICS, type FixtureDocs } from './test-fixture-docs.js';
import { topicMatches, walkTopics } from './walk.js';

let fx: FixtureDocs;
beforeAll(async () => {
  fx = await buildFixtureDocs({ technical: ['libraries/system-text-json-source-generation'] });
});
afterAll(() => fx?.cleanup());

// any: the tests reach into arbitrary JSON paths to break them on purpose.
type Json = Record<string, any>;

function edit(file: string, change: (j: Json) => void): () => void {
  const original = readFileSync(file, 'utf8');
  const j = JSON.parse(original) as Json;
  change(j);
  writeFileSync(file, JSON.stringify(j));
  return () => writeFileSync(file, original);
}

async function walkError(file: string, change: (j: Json) => void): Promise<string> {
  const restore = edit(file, change);
  try {
    await walkTopics(new FolderSource(fx.docs));
    return 'no error';
  } catch (err) {
    return (err as Error).message;
  } finally {
    restore();
  }
}

describe('walkTopics', () => {
  it('reaches every topic from the root by links alone', async () => {
    const topics = await walkTopics(new FolderSource(fx.docs));
    expect(topics.map((t) => t.id)).toEqual([...SAMPLE_TOPICS].sort());
    for (const t of topics) {
      const g = t.index._embedded.chunks['golden-reference']!;
      const manifest = JSON.parse(readFileSync(join(fx.docs, t.id, '_chunks/golden-reference.json'), 'utf8')) as { chunks: unknown[] };
      expect(g.count).toBe(manifest.chunks.length);
      expect(t.url.pathname).toBe(`/${t.id}/index.json`);
    }
  });

  it('filters by topic or section id', async () => {
    const source = new FolderSource(fx.docs);
    expect((await walkTopics(source, { topic: 'deployment' })).map((t) => t.id)).toEqual(['deployment/native-aot', 'deployment/trimming-options']);
    expect((await walkTopics(source, { topic: 'deployment/native-aot' })).map((t) => t.id)).toEqual(['deployment/native-aot']);
    expect(await walkTopics(source, { topic: 'deploy' })).toEqual([]);
    expect(topicMatches('a/b', 'a/')).toBe(true);
    expect(topicMatches('ab/c', 'a')).toBe(false);
  });

  it('names the file and the problem when the tree is broken', async () => {
    const lib = join(fx.docs, 'libraries/index.json');
    const topic = join(fx.docs, 'libraries/system-text-json-source-generation/index.json');
    expect(await walkError(lib, (j) => (j._embedded.topics[0]._links.self.href = '/libraries/missing/index.json'))).toBe(
      `${join(fx.docs, 'libraries/missing/index.json')}: no such file`,
    );
    expect(await walkError(lib, (j) => (j._embedded.topics[0].kind = 'section'))).toMatch(/is topic "libraries\/system-text-json-collections", but its parent lists it as section/);
    expect(await walkError(lib, (j) => (j._embedded.topics[0]._links.self.href = '/index.json'))).toMatch(/links back to \/index\.json, which is this index or one above it \(a cycle\)/);
    // Issue 15: a duplicated entry, and one listed by a second section, are not cycles.
    expect(await walkError(lib, (j) => j._embedded.topics.push(j._embedded.topics[0]))).toBe(
      `${lib}: libraries/system-text-json-collections: /libraries/system-text-json-collections/index.json is listed twice in _embedded.topics; remove the duplicate entry`,
    );
    expect(await walkError(lib, (j) => (j._embedded.topics[0]._links.self.href = '/deployment/native-aot/index.json'))).toMatch(
      /\/deployment\/native-aot\/index\.json is also listed by \/deployment\/index\.json; a topic or section has one parent/,
    );
    expect(await walkError(topic, (j) => (j._links.self.href = '/elsewhere/index.json'))).toMatch(/_links.self says \/elsewhere\/index.json/);
    expect(await walkError(topic, (j) => j._embedded.chunks['golden-reference'].stripe_order.pop())).toContain(`${topic}: _embedded.chunks.golden-reference.stripe_order: expected all`);
    expect(await walkError(topic, (j) => (j._embedded.chunks['golden-reference'].items[2].prompt_hashes = ['ABC']))).toMatch(/items\[2\]\.prompt_hashes\[0\]: expected a 16-digit lowercase hex SimHash/);
    expect(await walkError(join(fx.docs, 'index.json'), (j) => (j._links.parent = { href: '/index.json' }))).toMatch(/root index has a parent link/);
    expect(await walkError(topic, (j) => (j._links.parent.href = '/index.json'))).toBe(`${topic}: _links.parent is /index.json, but /libraries/index.json lists it`);
    expect(await walkError(topic, (j) => delete j._links.parent)).toBe(`${topic}: _links.parent is missing, but /libraries/index.json lists it`);
    const restore = edit(topic, () => undefined);
    writeFileSync(topic, '{ not json');
    await expect(walkTopics(new FolderSource(fx.docs))).rejects.toThrow(`${topic}: not valid JSON`);
    restore();
  });
});

describe('parseIndex', () => {
  const topicJson = () => JSON.parse(readFileSync(join(fx.docs, 'libraries/system-text-json-source-generation/index.json'), 'utf8')) as Json;

  it('keeps the technical fields only with a technical baseline', () => {
    const t = parseIndex(topicJson(), 'x');
    if (t.kind !== 'topic') throw new Error('expected a topic');
    const g = t._embedded.chunks['golden-reference']!;
    expect(g.baseline_technical).toBe(1);
    expect(g.stripe_order_technical).toHaveLength(g.count - 2);
    expect(g.items.every((i) => typeof i.similarity_technical === 'number')).toBe(true);
  });

  // The expected message may depend on the fixture topic's chunk count n.
  const broken: [string, (j: Json) => void, RegExp | ((n: number) => RegExp)][] = [
    ['count disagrees with items', (j) => (j._embedded.chunks['golden-reference'].count += 1), (n) => new RegExp(`items: expected ${n + 1} items \\(count\\)`)],
    ['a baseline in the order', (j) => (j._embedded.chunks['golden-reference'].stripe_order[0] = 0), (n) => new RegExp(`stripe_order\\[0\\]: expected a chunk index in 0..${n - 1} other than 0`)],
    ['a duplicate in the technical order', (j) => (j._embedded.chunks['golden-reference'].stripe_order_technical[1] = j._embedded.chunks['golden-reference'].stripe_order_technical[0]), /stripe_order_technical\[1\]: expected each chunk once/],
    ['a technical order without a baseline', (j) => delete j._embedded.chunks['golden-reference'].baseline_technical, /stripe_order_technical: expected nothing/],
    ['an absolute chunk href', (j) => (j._embedded.chunks['golden-reference'].items[0].href = 'http://evil.example/x.md'), /items\[0\]\.href: expected a relative URL/],
    ['a relative self link', (j) => (j._links.self.href = 'index.json'), /_links.self.href: expected a root-relative URL/],
    ['an unknown kind', (j) => (j.kind = 'page'), /kind: expected "topic" or "section"/],
    ['items out of order', (j) => j._embedded.chunks['golden-reference'].items.reverse(), /items\[0\]\.index: expected 0/],
  ];
  it.each(broken)('rejects %s, naming the source', (_name, change, message) => {
    const j = topicJson();
    const n = j._embedded.chunks['golden-reference'].count as number;
    change(j);
    expect(() => parseIndex(j, 'http://h/t/index.json')).toThrow(ContractError);
    expect(() => parseIndex(j, 'http://h/t/index.json')).toThrow(typeof message === 'function' ? message(n) : message);
    expect(() => parseIndex(j, 'http://h/t/index.json')).toThrow(/^http:\/\/h\/t\/index.json: /);
  });

  it('an index nested thousands deep is a ContractError naming the file, not a stack overflow (issue 15)', () => {
    // Showing the bad value ran JSON.stringify over it: "Maximum call stack size exceeded", no file.
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    expect(() => parseIndex(deep, 'http://h/index.json')).toThrow(new ContractError('http://h/index.json', '(top level): expected an object, got a list nested too deeply to show'));
    const j = topicJson();
    j.title = JSON.parse('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)) as Json;
    expect(() => parseIndex(j, 'http://h/t/index.json')).toThrow('title: expected a string, got an object nested too deeply to show');
    // A long string is cut to 80 characters, quotes included, before it is quoted.
    expect(() => parseIndex({ ...topicJson(), kind: 'x'.repeat(10_000_000) }, 'i')).toThrow(`i: kind: expected "topic" or "section", got "${'x'.repeat(79)}`);
  });
});
