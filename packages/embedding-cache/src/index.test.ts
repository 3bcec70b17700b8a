// Tests of @chunkyard/embedding-cache on the real file system (a temp dir per test, no mocks):
// the seed 001 layout and exact little-endian bytes, misses on every key mismatch, detection
// and rebuild of every kind of corruption, the content-addressed text store, and
// embedThroughCache (one edited chunk re-embeds one text; a failing provider resumes).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CREATED_BY,
  EmbeddingCache,
  SCHEMA_VERSION,
  TEXT_STORE_DIR,
  decodePathSegment,
  embedThroughCache,
  encodePathSegment,
  projectCacheFolderName,
  readPackedDocument,
  sha256Hex,
  type DocumentKey,
  type DocumentMetadata,
} from './index.js';
import { siblingName } from './sibling-name.js';
import { CountingEmbedder, bitsOf, chunkTexts, fakeVector, leftovers, makeTempRoot, walk } from './test-helpers.js';

let root: string;
let cleanup: () => void;
let cache: EmbeddingCache;
let corrupt: { path: string; reason: string }[];

beforeEach(() => {
  ({ root, cleanup } = makeTempRoot());
  cache = new EmbeddingCache(join(root, '.embedding-cache'));
  corrupt = [];
  cache.onCorrupt = (path, reason) => corrupt.push({ path, reason });
});
afterEach(() => cleanup());

const MODEL = 'nomic-embed-text:latest';
const STRATEGY = 'semantic-64-400-512';
const SOURCE = '# Title\n\nThe source file text.\n';
const KEY: DocumentKey = { strategyKey: STRATEGY, model: MODEL, fileHash: sha256Hex(SOURCE) };

const vectorsFor = (texts: string[], dims = 16) => texts.map((t) => fakeVector(t, dims));
const sha256OfFile = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const readMeta = (dir: string) => JSON.parse(readFileSync(join(dir, 'metadata.json'), 'utf8')) as DocumentMetadata;
const expectSameBits = (got: Float32Array[] | null, want: Float32Array[]) => {
  expect(got).not.toBeNull();
  expect(got!.map(bitsOf)).toEqual(want.map(bitsOf));
};

describe('document entries: layout and round trip', () => {
  it('writes the seed 001 layout with an escaped model folder and a 16-hex file hash folder', () => {
    const texts = chunkTexts(3);
    cache.putDocument(KEY, texts, vectorsFor(texts));
    const dir = join(cache.root, STRATEGY, 'nomic-embed-text%3Alatest', KEY.fileHash.slice(0, 16));
    expect(cache.documentDir(KEY)).toBe(dir);
    expect(readdirSync(dir).sort()).toEqual(['chunk-0.bin', 'chunk-1.bin', 'chunk-2.bin', 'metadata.json']);
    expect(walk(cache.root)).toEqual([
      `${STRATEGY}/`,
      `${STRATEGY}/nomic-embed-text%3Alatest/`,
      `${STRATEGY}/nomic-embed-text%3Alatest/${KEY.fileHash.slice(0, 16)}/`,
      ...['chunk-0.bin', 'chunk-1.bin', 'chunk-2.bin', 'metadata.json'].map(
        (f) => `${STRATEGY}/nomic-embed-text%3Alatest/${KEY.fileHash.slice(0, 16)}/${f}`,
      ),
    ]);
  });

  it('round-trips vectors bit for bit', () => {
    const texts = chunkTexts(7);
    const vectors = vectorsFor(texts, 33);
    cache.putDocument(KEY, texts, vectors);
    expectSameBits(cache.getDocument(KEY, texts), vectors);
    expectSameBits(cache.getDocument(KEY, texts, 33), vectors);
    expect(corrupt).toEqual([]);
  });

  it('stores each vector as little-endian Float32, 4 bytes per dimension', () => {
    const texts = ['a', 'b'];
    const vectors = [new Float32Array([1, -2.5, -0, 2 ** -149]), new Float32Array([0.1, 3e38, -1e-40, 65504])];
    cache.putDocument(KEY, texts, vectors);
    const dir = cache.documentDir(KEY);
    // Hand-written bytes: 1.0f = 0x3F800000, -2.5f = 0xC0200000, -0 = 0x80000000, smallest subnormal = 0x00000001.
    expect(readFileSync(join(dir, 'chunk-0.bin'))).toEqual(
      Buffer.from([0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0, 0x00, 0x00, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00]),
    );
    const bytes1 = readFileSync(join(dir, 'chunk-1.bin'));
    expect(bytes1.length).toBe(16);
    const view = new DataView(bytes1.buffer, bytes1.byteOffset, bytes1.length);
    for (let i = 0; i < 4; i++) expect(view.getFloat32(i * 4, true)).toBe(vectors[1]![i]);
  });

  it('writes metadata.json with hashes of each embedText and of each .bin', () => {
    const texts = chunkTexts(4);
    cache.putDocument(KEY, texts, vectorsFor(texts, 8));
    const dir = cache.documentDir(KEY);
    const meta = readMeta(dir);
    expect(meta).toEqual({
      schemaVersion: SCHEMA_VERSION,
      createdBy: CREATED_BY,
      model: MODEL,
      strategyKey: STRATEGY,
      fileHash: KEY.fileHash,
      chunkCount: 4,
      dimensions: 8,
      chunks: texts.map((t, i) => ({
        textSha256: sha256Hex(t),
        bytesSha256: sha256OfFile(join(dir, `chunk-${i}.bin`)),
      })),
    });
  });

  it('keeps models with slashes and strategies apart, each in one folder', () => {
    const texts = chunkTexts(2);
    const other: DocumentKey = { ...KEY, model: 'org/model' };
    cache.putDocument(KEY, texts, vectorsFor(texts));
    cache.putDocument(other, texts, vectorsFor(texts, 4));
    cache.putDocument({ ...KEY, strategyKey: 'semantic-250-750' }, texts, vectorsFor(texts, 5));
    expect(readdirSync(join(cache.root, STRATEGY)).sort()).toEqual(['nomic-embed-text%3Alatest', 'org%2Fmodel']);
    expect(cache.getDocument(other, texts)![0]!.length).toBe(4);
    expect(cache.getDocument(KEY, texts)![0]!.length).toBe(16);
    expect(cache.getDocument({ ...KEY, strategyKey: 'semantic-250-750' }, texts)![0]!.length).toBe(5);
  });

  it('round-trips an empty document', () => {
    cache.putDocument(KEY, [], []);
    expect(readMeta(cache.documentDir(KEY))).toMatchObject({ chunkCount: 0, dimensions: 0, chunks: [] });
    expect(cache.getDocument(KEY, [])).toEqual([]);
    expect(cache.getDocument(KEY, [], 768)).toEqual([]);
  });

  it('replaces a stale entry for the same key and leaves no temp folders', () => {
    const before = chunkTexts(3, 'v1');
    const after = chunkTexts(5, 'v2');
    cache.putDocument(KEY, before, vectorsFor(before));
    cache.putDocument(KEY, after, vectorsFor(after));
    expectSameBits(cache.getDocument(KEY, after), vectorsFor(after));
    expect(cache.getDocument(KEY, before)).toBeNull();
    expect(readdirSync(cache.documentDir(KEY))).toHaveLength(6);
    expect(leftovers(cache.root)).toEqual([]);
    expect(corrupt).toEqual([]);
  });

  it('keeps an existing valid entry when the same document is written again', () => {
    const texts = chunkTexts(3);
    cache.putDocument(KEY, texts, vectorsFor(texts));
    const metaBefore = readFileSync(join(cache.documentDir(KEY), 'metadata.json'), 'utf8');
    cache.putDocument(KEY, texts, vectorsFor(texts));
    expect(readFileSync(join(cache.documentDir(KEY), 'metadata.json'), 'utf8')).toBe(metaBefore);
    expect(leftovers(cache.root)).toEqual([]);
  });

  it('rejects invalid writes without touching the cache', () => {
    const texts = chunkTexts(2);
    expect(() => cache.putDocument(KEY, texts, [fakeVector('x', 4)])).toThrow(/2 texts but 1 vectors/);
    expect(() => cache.putDocument(KEY, texts, [fakeVector('x', 4), fakeVector('y', 5)])).toThrow(/one dimension/);
    expect(() => cache.putDocument(KEY, texts, [fakeVector('x', 4), new Float32Array([1, NaN, 0, 0])])).toThrow(/non-finite/);
    expect(() => cache.putDocument(KEY, texts, [fakeVector('x', 2), new Float32Array([1, Infinity])])).toThrow(/non-finite/);
    expect(() => cache.putDocument(KEY, ['a'], [new Float32Array(0)])).toThrow(/empty/);
    expect(() => cache.putDocument({ ...KEY, fileHash: 'abc' }, [], [])).toThrow(/64 lowercase hex/);
    expect(() => cache.putDocument({ ...KEY, model: '' }, [], [])).toThrow(/empty model/);
    expect(existsSync(cache.root) ? walk(cache.root).filter((p) => !p.endsWith('/')) : []).toEqual([]);
  });
});

describe('what a killed writer leaves behind', () => {
  // A SIGKILL skips every cleanup: pid 2^31-2 is never a live process here.
  const deadTemp = (dir: string, name: string) => join(dir, `.${name}.tmp-2147483646-0badc0de`);

  it('the next write into a folder removes the dead runs\' temp entries there, and keeps a live run\'s', () => {
    const texts = chunkTexts(2);
    const docParent = join(cache.documentDir(KEY), '..');
    const textParent = join(cache.textPath(MODEL, 'some text'), '..');
    mkdirSync(docParent, { recursive: true });
    mkdirSync(textParent, { recursive: true });
    const halfDocument = deadTemp(docParent, 'abcdef0123456789');
    const halfText = deadTemp(textParent, 'ff.bin');
    const live = join(docParent, `.other.tmp-${process.pid}-0badc0de`);
    mkdirSync(halfDocument);
    writeFileSync(join(halfDocument, 'chunk-0.bin'), 'partial');
    writeFileSync(halfText, 'partial');
    mkdirSync(live);
    cache.putDocument(KEY, texts, vectorsFor(texts));
    cache.putText(MODEL, 'some text', fakeVector('some text', 16));
    expect(existsSync(halfDocument)).toBe(false);
    expect(existsSync(halfText)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expectSameBits(cache.getDocument(KEY, texts), vectorsFor(texts));
  });

  // Before 7625dd7 an entry moved aside was named `.<name>.old-<pid>-<hex>`, which no sweep
  // matches: one a killed writer of that version left stayed in the cache (and in every pack
  // the Nx plugin made of it) forever (helper-77 probe).
  it('the next write into a folder also removes the .old- entries that writers of the older naming left, when their writer is gone', () => {
    const texts = chunkTexts(2);
    const docParent = join(cache.documentDir(KEY), '..');
    const textParent = join(cache.textPath(MODEL, 'some text'), '..');
    mkdirSync(docParent, { recursive: true });
    mkdirSync(textParent, { recursive: true });
    const oldDocument = join(docParent, '.abcdef0123456789.old-2147483646-0badc0de');
    const oldText = join(textParent, '.ff.bin.old-2147483646-0badc0de');
    const live = join(docParent, `.abcdef0123456789.old-${process.pid}-0badc0de`);
    const notOurs = join(docParent, '.notes.old-2147483646-backup');
    mkdirSync(oldDocument);
    writeFileSync(join(oldDocument, 'chunk-0.bin'), 'old');
    writeFileSync(oldText, 'old');
    mkdirSync(live);
    writeFileSync(notOurs, 'kept');
    cache.putDocument(KEY, texts, vectorsFor(texts));
    cache.putText(MODEL, 'some text', fakeVector('some text', 16));
    expect(existsSync(oldDocument)).toBe(false);
    expect(existsSync(oldText)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(notOurs)).toBe(true);
  });

  // fs-atomic's sweep judges a temp by its pid only when the name says the pid is from this pid
  // namespace; the cache's own `<pid>-<hex>` names did not, so a run in a container sharing the
  // cache (where the writer's pid is dead or someone else's) removed a live write's entry.
  it('names its temps as fs-atomic does, with the pid namespace, so a sweep from another namespace leaves a live write alone', () => {
    const name = siblingName(cache.documentDir(KEY));
    expect(name).toMatch(new RegExp(`/\\.${KEY.fileHash.slice(0, 16)}\\.tmp-${process.pid}~[0-9a-f]{4}-[0-9a-f]{8}$`));
    // A live writer's temp from another namespace (another tag) is kept by a write here.
    const docParent = join(cache.documentDir(KEY), '..');
    mkdirSync(docParent, { recursive: true });
    const tag = /~([0-9a-f]{4})-/.exec(name)![1]!;
    const elsewhere = join(docParent, `.other.tmp-2147483646~${tag === 'ffff' ? '0000' : 'ffff'}-0badc0de`);
    mkdirSync(elsewhere);
    cache.putDocument(KEY, chunkTexts(2), vectorsFor(chunkTexts(2)));
    expect(existsSync(elsewhere)).toBe(true);
  });

  it.skipIf(process.platform !== 'linux')('a cache root the kernel will not create folders in fails at once (Node\'s recursive mkdir loops forever under /proc)', () => {
    const stuck = new EmbeddingCache('/proc/self/no-such-folder/.embedding-cache');
    expect(() => stuck.putText(MODEL, 'text', fakeVector('text', 16))).toThrow(/ENOENT/);
    expect(() => stuck.putDocument(KEY, ['a'], vectorsFor(['a']))).toThrow(/ENOENT/);
  });
});

describe('document entries: misses leave the entry in place', () => {
  const texts = chunkTexts(5);
  beforeEach(() => cache.putDocument(KEY, texts, vectorsFor(texts)));
  afterEach(() => {
    // Every miss above is only a miss: the entry still serves the right request.
    expectSameBits(cache.getDocument(KEY, texts), vectorsFor(texts));
    expect(corrupt).toEqual([]);
  });

  it('another model', () => expect(cache.getDocument({ ...KEY, model: 'mxbai-embed-large' }, texts)).toBeNull());
  it('another strategy', () => expect(cache.getDocument({ ...KEY, strategyKey: 'semantic-250-750' }, texts)).toBeNull());
  it('another file hash', () => expect(cache.getDocument({ ...KEY, fileHash: sha256Hex('other') }, texts)).toBeNull());
  it('fewer or more chunks', () => {
    expect(cache.getDocument(KEY, texts.slice(0, 4))).toBeNull();
    expect(cache.getDocument(KEY, [...texts, 'extra'])).toBeNull();
  });
  it('other dimensions', () => expect(cache.getDocument(KEY, texts, 768)).toBeNull());
  it('a changed chunk text', () => {
    const edited = [...texts];
    edited[2] = `${edited[2]} (edited)`;
    expect(cache.getDocument(KEY, edited)).toBeNull();
  });
  it('metadata naming another model or strategy in the same folder (case-folding file systems)', () => {
    const dir = cache.documentDir(KEY);
    const meta = readMeta(dir);
    writeFileSync(join(dir, 'metadata.json'), JSON.stringify({ ...meta, model: 'Nomic-Embed-Text:latest' }));
    expect(cache.getDocument(KEY, texts)).toBeNull();
    writeFileSync(join(dir, 'metadata.json'), JSON.stringify({ ...meta, strategyKey: 'Semantic-64-400-512' }));
    expect(cache.getDocument(KEY, texts)).toBeNull();
    expect(existsSync(dir)).toBe(true);
    writeFileSync(join(dir, 'metadata.json'), JSON.stringify(meta));
  });
});

describe('document entries: corruption is detected, removed, reported and rebuilt', () => {
  const texts = chunkTexts(10);
  const DIMS = 16;

  /** Rewrites chunk-i.bin and fixes its bytesSha256, so only the value check can catch it. */
  function writeValue(dir: string, i: number, index: number, value: number) {
    const file = join(dir, `chunk-${i}.bin`);
    const bytes = readFileSync(file);
    bytes.writeFloatLE(value, index * 4);
    writeFileSync(file, bytes);
    const meta = readMeta(dir);
    meta.chunks[i]!.bytesSha256 = sha256OfFile(file);
    writeFileSync(join(dir, 'metadata.json'), JSON.stringify(meta));
  }

  const cases: [string, (dir: string) => void, RegExp][] = [
    ['a truncated .bin', (dir) => truncateSync(join(dir, 'chunk-3.bin'), DIMS * 4 - 3), /chunk-3\.bin has 61 bytes, expected 64 \(truncated/],
    ['an empty .bin', (dir) => truncateSync(join(dir, 'chunk-0.bin'), 0), /chunk-0\.bin has 0 bytes/],
    [
      'a flipped byte',
      (dir) => {
        const file = join(dir, 'chunk-5.bin');
        const bytes = readFileSync(file);
        bytes[9] = bytes[9]! ^ 0x01;
        writeFileSync(file, bytes);
      },
      /chunk-5\.bin bytes do not match bytesSha256/,
    ],
    ['a deleted .bin', (dir) => rmSync(join(dir, 'chunk-7.bin')), /chunk-7\.bin is missing/],
    ['garbage metadata.json', (dir) => writeFileSync(join(dir, 'metadata.json'), '{"schemaVersion": 1, "mod'), /not valid JSON/],
    ['a deleted metadata.json', (dir) => rmSync(join(dir, 'metadata.json')), /metadata\.json is missing/],
    ['metadata.json that is not an object', (dir) => writeFileSync(join(dir, 'metadata.json'), '[]'), /not a JSON object/],
    [
      'a wrong schemaVersion',
      (dir) => writeFileSync(join(dir, 'metadata.json'), JSON.stringify({ ...readMeta(dir), schemaVersion: 99 })),
      /schemaVersion 99, expected 1/,
    ],
    [
      'chunks disagreeing with chunkCount',
      (dir) => {
        const meta = readMeta(dir);
        writeFileSync(join(dir, 'metadata.json'), JSON.stringify({ ...meta, chunks: meta.chunks.slice(1) }));
      },
      /chunks do not match chunkCount/,
    ],
    // Sparse files of 3 GiB (helper-77 probe): readFileSync threw ERR_FS_FILE_TOO_LARGE out of
    // getDocument, which crashed topic-spec with a stack trace; under 2 GiB, the whole file
    // was read into memory before its length was compared.
    ['a .bin grown past 2 GiB', (dir) => truncateSync(join(dir, 'chunk-3.bin'), 3 * 2 ** 30), /chunk-3\.bin has 3221225472 bytes, expected 64 \(truncated/],
    ['a metadata.json grown past 2 GiB', (dir) => truncateSync(join(dir, 'metadata.json'), 3 * 2 ** 30), /metadata\.json has 3221225472 bytes, more than any metadata\.json/],
    ['NaN in a vector file', (dir) => writeValue(dir, 2, 1, NaN), /chunk-2\.bin holds a non-finite value/],
    ['Infinity in a vector file', (dir) => writeValue(dir, 9, 15, -Infinity), /chunk-9\.bin holds a non-finite value/],
  ];

  for (const [name, damage, reason] of cases) {
    it(name, async () => {
      const embedder = new CountingEmbedder(MODEL, DIMS);
      const first = await embedThroughCache(cache, embedder, KEY, texts);
      const dir = cache.documentDir(KEY);
      damage(dir);

      expect(cache.getDocument(KEY, texts)).toBeNull();
      expect(corrupt).toEqual([{ path: dir, reason: expect.stringMatching(reason) }]);
      expect(existsSync(dir)).toBe(false);
      expect(leftovers(cache.root)).toEqual([]);

      // Rebuilt from the text store: no provider call, and the new entry is valid.
      const again = await embedThroughCache(cache, embedder, KEY, texts);
      expect(again.stats).toEqual({ documentHit: false, textHits: 10, embedded: 0 });
      expectSameBits(again.vectors, first.vectors);
      expectSameBits(cache.getDocument(KEY, texts, DIMS), first.vectors);
      expect(corrupt).toHaveLength(1);
    });
  }

  it('re-embeds through the provider when the text store is gone too', async () => {
    const embedder = new CountingEmbedder(MODEL, DIMS);
    const first = await embedThroughCache(cache, embedder, KEY, texts);
    truncateSync(join(cache.documentDir(KEY), 'chunk-4.bin'), 10);
    rmSync(join(cache.root, TEXT_STORE_DIR), { recursive: true });

    const again = await embedThroughCache(cache, embedder, KEY, texts);
    expect(corrupt).toHaveLength(1);
    expect(again.stats).toEqual({ documentHit: false, textHits: 0, embedded: 10 });
    expectSameBits(again.vectors, first.vectors);
    const third = await embedThroughCache(cache, embedder, KEY, texts);
    expect(third.stats).toEqual({ documentHit: true, textHits: 0, embedded: 0 });
    expect(embedder.textsEmbedded).toBe(20);
  });

  it('treats a file in place of the entry folder as corrupt', () => {
    const dir = cache.documentDir(KEY);
    mkdirSync(join(dir, '..'), { recursive: true });
    writeFileSync(dir, 'not a folder');
    expect(cache.getDocument(KEY, texts)).toBeNull();
    expect(corrupt).toEqual([{ path: dir, reason: 'the entry is not a folder' }]);
    cache.putDocument(KEY, texts, vectorsFor(texts, DIMS));
    expectSameBits(cache.getDocument(KEY, texts), vectorsFor(texts, DIMS));
  });

  it.runIf(process.platform === 'linux')('an entry file that is a FIFO or a link to /dev/zero is corrupt at once, not a hang (issue 15)', async () => {
    // readFileSync blocked on the FIFO, and read /dev/zero until memory ran out: topic-spec,
    // docs-query, docs-export and docs-store --built hung on such a cache until killed.
    const embedder = new CountingEmbedder(MODEL, DIMS);
    const first = await embedThroughCache(cache, embedder, KEY, texts);
    const dir = cache.documentDir(KEY);
    rmSync(join(dir, 'chunk-2.bin'));
    execFileSync('mkfifo', [join(dir, 'chunk-2.bin')]);
    expect(cache.getDocument(KEY, texts)).toBeNull();
    expect(corrupt).toEqual([{ path: dir, reason: 'chunk-2.bin is not a file' }]);
    const text = cache.textPath(MODEL, texts[3]!);
    rmSync(text);
    symlinkSync('/dev/zero', text);
    expect(cache.getText(MODEL, texts[3]!)).toBeNull();
    expect(corrupt[1]).toEqual({ path: text, reason: 'not a regular file (a folder, FIFO or device in its place)' });
    // The next run rebuilds both from what is left, embedding only the lost text.
    const again = await embedThroughCache(cache, embedder, KEY, texts);
    expect(again.stats).toEqual({ documentHit: false, textHits: texts.length - 1, embedded: 1 });
    expectSameBits(again.vectors, first.vectors);
  });

  // Root ignores permission bits, so this only runs as an ordinary user (checked by hand as nobody).
  it.skipIf(process.getuid?.() === 0)('reports a corrupt entry it cannot remove, and removes it once it can', () => {
    cache.putDocument(KEY, texts, vectorsFor(texts, DIMS));
    const dir = cache.documentDir(KEY);
    truncateSync(join(dir, 'chunk-0.bin'), 3);
    chmodSync(join(dir, '..'), 0o555);
    try {
      expect(cache.getDocument(KEY, texts)).toBeNull();
      expect(corrupt).toEqual([{ path: dir, reason: expect.stringMatching(/has 3 bytes.*could not remove it: EACCES/) }]);
      expect(existsSync(dir)).toBe(true);
    } finally {
      chmodSync(join(dir, '..'), 0o755);
    }
    expect(cache.getDocument(KEY, texts)).toBeNull();
    expect(existsSync(dir)).toBe(false);
  });

  it('putDocument replaces a corrupt entry (and reports it)', () => {
    cache.putDocument(KEY, texts, vectorsFor(texts, DIMS));
    const dir = cache.documentDir(KEY);
    rmSync(join(dir, 'chunk-1.bin'));
    cache.putDocument(KEY, texts, vectorsFor(texts, DIMS));
    expect(corrupt).toEqual([{ path: dir, reason: 'chunk-1.bin is missing' }]);
    expectSameBits(cache.getDocument(KEY, texts), vectorsFor(texts, DIMS));
    expect(leftovers(cache.root)).toEqual([]);
  });
});

describe('the content-addressed text store', () => {
  it('stores one file per text at _by-text/{model}/{hh}/{textSha256}.bin with a 112-byte header', () => {
    const v = fakeVector('hello', 24);
    cache.putText('org/model:v2', 'hello', v);
    const h = sha256Hex('hello');
    const file = join(cache.root, '_by-text', 'org%2Fmodel%3Av2', h.slice(0, 2), `${h}.bin`);
    expect(cache.textPath('org/model:v2', 'hello')).toBe(file);
    const bytes = readFileSync(file);
    expect(bytes.length).toBe(112 + 24 * 4);
    expect(bytes.toString('latin1', 0, 4)).toBe('CYEV');
    expect(bytes.readUInt32LE(4)).toBe(1);
    expect(bytes.readUInt32LE(8)).toBe(24);
    expect(bytes.toString('hex', 48, 80)).toBe(h);
    expect(bytes.subarray(112)).toEqual(Buffer.from(v.buffer, v.byteOffset, v.byteLength)); // host is little-endian
    expectSameBits([cache.getText('org/model:v2', 'hello')!], [v]);
    expect(cache.getText('org/model:v2', 'hello!')).toBeNull();
    expect(cache.getText('org/model:v3', 'hello')).toBeNull();
    expect(leftovers(cache.root)).toEqual([]);
  });

  it('is shared across documents and strategies', async () => {
    const embedder = new CountingEmbedder(MODEL);
    const texts = chunkTexts(6);
    await embedThroughCache(cache, embedder, KEY, texts);
    const other = { strategyKey: 'semantic-250-750', fileHash: sha256Hex('another file') };
    const moved = [texts[3]!, 'a new chunk', texts[0]!];
    const r = await embedThroughCache(cache, embedder, other, moved);
    expect(r.stats).toEqual({ documentHit: false, textHits: 2, embedded: 1 });
    expect(embedder.calls.at(-1)).toEqual(['a new chunk']);
  });

  it('misses (and keeps) a file written for another model folded onto the same folder', () => {
    cache.putText('Model-A', 'text', fakeVector('text', 4));
    const file = cache.textPath('Model-A', 'text');
    // Simulate a case-insensitive file system, where 'model-a' would open the same file.
    const twin = cache.textPath('model-a', 'text');
    mkdirSync(join(twin, '..'), { recursive: true });
    writeFileSync(twin, readFileSync(file));
    expect(cache.getText('model-a', 'text')).toBeNull();
    expect(existsSync(twin)).toBe(true);
    expect(corrupt).toEqual([]);
  });

  const damages: [string, (bytes: Buffer) => Buffer, RegExp][] = [
    ['truncated payload', (b) => b.subarray(0, b.length - 2), /truncated or wrong length/],
    ['truncated header', (b) => b.subarray(0, 50), /shorter than the 112-byte header/],
    ['flipped payload byte', (b) => ((b[120] = b[120]! ^ 0x80), b), /payload bytes do not match/],
    ['bad magic', (b) => (b.write('XXXX', 0, 'latin1'), b), /bad magic/],
    ['unknown format version', (b) => (b.writeUInt32LE(7, 4), b), /format version 7/],
    ['header hash of another text', (b) => (b.fill(0, 48, 80), b), /text hash does not match/],
    [
      'NaN with a matching checksum',
      (b) => {
        b.writeFloatLE(NaN, 112 + 4);
        createHash('sha256').update(b.subarray(112)).digest().copy(b, 80);
        return b;
      },
      /non-finite/,
    ],
  ];
  for (const [name, damage, reason] of damages) {
    it(`detects, removes and reports a ${name}`, async () => {
      const texts = chunkTexts(3);
      const embedder = new CountingEmbedder(MODEL, 8);
      await embedThroughCache(cache, embedder, KEY, texts);
      const file = cache.textPath(MODEL, texts[1]!);
      writeFileSync(file, damage(readFileSync(file)));

      expect(cache.getText(MODEL, texts[1]!)).toBeNull();
      expect(corrupt).toEqual([{ path: file, reason: expect.stringMatching(reason) }]);
      expect(existsSync(file)).toBe(false);

      // The document entry is intact, so the next run needs nothing; without it, one text is re-embedded.
      rmSync(cache.documentDir(KEY), { recursive: true });
      const r = await embedThroughCache(cache, embedder, KEY, texts);
      expect(r.stats).toEqual({ documentHit: false, textHits: 2, embedded: 1 });
      expectSameBits([cache.getText(MODEL, texts[1]!)!], [fakeVector(texts[1]!, 8, MODEL)]);
    });
  }

  it('detects, removes and reports a file grown past 2 GiB, without reading it (it threw ERR_FS_FILE_TOO_LARGE)', async () => {
    const texts = chunkTexts(3);
    const embedder = new CountingEmbedder(MODEL, 8);
    await embedThroughCache(cache, embedder, KEY, texts);
    const file = cache.textPath(MODEL, texts[1]!);
    truncateSync(file, 3 * 2 ** 30);

    expect(cache.getText(MODEL, texts[1]!)).toBeNull();
    expect(corrupt).toEqual([{ path: file, reason: expect.stringMatching(/3221225472 bytes for 8 dimensions, expected 144 \(truncated or wrong length\)/) }]);
    expect(existsSync(file)).toBe(false);
    rmSync(cache.documentDir(KEY), { recursive: true });
    const r = await embedThroughCache(cache, embedder, KEY, texts);
    expect(r.stats).toEqual({ documentHit: false, textHits: 2, embedded: 1 });
  });

  it('rejects invalid vectors', () => {
    expect(() => cache.putText(MODEL, 't', new Float32Array([NaN]))).toThrow(/non-finite/);
    expect(() => cache.putText(MODEL, 't', new Float32Array(0))).toThrow(/empty/);
    expect(() => cache.putText('', 't', new Float32Array(1))).toThrow(/empty model/);
  });
});

describe('a file where the cache keeps its own folders', () => {
  // helper-77 probe: a file at _by-text/{model}/{hh} or at {strategy}/{model} failed every
  // later run ("already exists (EEXIST); remove it or choose another location", exit 1),
  // though those names are the cache's own and nothing but it writes there.
  const texts = chunkTexts(6);
  const cases: [string, (c: EmbeddingCache) => string[]][] = [
    ['the two-hex folder of the text store', (c) => [dirname(c.textPath(MODEL, texts[2]!))]],
    ['the model folder of the text store', (c) => [dirname(dirname(c.textPath(MODEL, texts[2]!)))]],
    ['_by-text itself', (c) => [join(c.root, TEXT_STORE_DIR)]],
    ['the model folder of a document entry', (c) => [dirname(c.documentDir(KEY))]],
  ];
  for (const [name, where] of cases) {
    it(`${name}: removed, reported and rebuilt`, async () => {
      const embedder = new CountingEmbedder(MODEL, 8);
      const first = await embedThroughCache(cache, embedder, KEY, texts);
      const [path] = where(cache);
      rmSync(cache.documentDir(KEY), { recursive: true });
      rmSync(path!, { recursive: true });
      writeFileSync(path!, 'stray');

      const again = await embedThroughCache(cache, embedder, KEY, texts);
      expectSameBits(again.vectors, first.vectors);
      expect(corrupt).toContainEqual({ path: path!, reason: expect.stringMatching(/a file where the cache keeps a folder/) });
      expect((await embedThroughCache(cache, embedder, KEY, texts)).stats.documentHit).toBe(true);
      expect(leftovers(cache.root)).toEqual([]);
    });
  }

  it('a file in place of a strategy folder (a name that may be the user\'s, for --cache-dir .) is left, and the write fails naming it', async () => {
    const embedder = new CountingEmbedder(MODEL, 8);
    const strategyDir = dirname(dirname(cache.documentDir(KEY)));
    mkdirSync(dirname(strategyDir), { recursive: true });
    writeFileSync(strategyDir, 'mine');
    await expect(embedThroughCache(cache, embedder, KEY, texts)).rejects.toThrow(/ENOTDIR|EEXIST/);
    expect(readFileSync(strategyDir, 'utf8')).toBe('mine');
  });
});

describe('embedThroughCache', () => {
  it('one edited chunk of 50 re-embeds exactly one text and reuses the other 49 vectors', async () => {
    const embedder = new CountingEmbedder(MODEL, 32);
    const texts = chunkTexts(50);
    const first = await embedThroughCache(cache, embedder, KEY, texts);
    expect(first.stats).toEqual({ documentHit: false, textHits: 0, embedded: 50 });
    expect(embedder.textsEmbedded).toBe(50);

    // Editing a paragraph changes the file hash (a new document entry) and one chunk text.
    const edited = [...texts];
    edited[17] = `${texts[17]} One more sentence.`;
    const editedKey = { strategyKey: STRATEGY, fileHash: sha256Hex(`${SOURCE} edited`) };
    const second = await embedThroughCache(cache, embedder, editedKey, edited);
    expect(second.stats).toEqual({ documentHit: false, textHits: 49, embedded: 1 });
    expect(embedder.calls.at(-1)).toEqual([edited[17]]);
    expect(embedder.textsEmbedded).toBe(51);
    for (let i = 0; i < 50; i++) {
      if (i === 17) expect(bitsOf(second.vectors[i]!)).not.toEqual(bitsOf(first.vectors[i]!));
      else expect(bitsOf(second.vectors[i]!)).toEqual(bitsOf(first.vectors[i]!));
    }

    // And each version is now a document hit.
    const third = await embedThroughCache(cache, embedder, editedKey, edited);
    expect(third.stats).toEqual({ documentHit: true, textHits: 0, embedded: 0 });
    expectSameBits(third.vectors, second.vectors);
    expect((await embedThroughCache(cache, embedder, KEY, texts)).stats.documentHit).toBe(true);
    expect(embedder.textsEmbedded).toBe(51);
  });

  it('a provider failing on the 3rd batch keeps the first batches, writes no document, and the rerun resumes', async () => {
    const texts = chunkTexts(50);
    const failing = new CountingEmbedder(MODEL, 12);
    failing.failOnCall = 3;
    await expect(embedThroughCache(cache, failing, KEY, texts, { batchSize: 8 })).rejects.toThrow(/call 3 failed/);
    expect(failing.calls.map((c) => c.length)).toEqual([8, 8, 8]);

    texts.forEach((t, i) => {
      const v = cache.getText(MODEL, t);
      if (i < 16) expectSameBits([v!], [fakeVector(t, 12, MODEL)]);
      else expect(v).toBeNull();
    });
    expect(existsSync(cache.documentDir(KEY))).toBe(false);

    const working = new CountingEmbedder(MODEL, 12);
    const r = await embedThroughCache(cache, working, KEY, texts, { batchSize: 8 });
    expect(r.stats).toEqual({ documentHit: false, textHits: 16, embedded: 34 });
    expect(working.calls.map((c) => c.length)).toEqual([8, 8, 8, 8, 2]);
    expect(working.calls.flat()).toEqual(texts.slice(16));
    expectSameBits(r.vectors, texts.map((t) => fakeVector(t, 12, MODEL)));
    expectSameBits(cache.getDocument({ ...KEY, model: MODEL }, texts, 12), r.vectors);
    expect(leftovers(cache.root)).toEqual([]);
  });

  it("caches the vectors a failed call's error carries (the requests that came back), rethrows that very error, and the rerun sends only the rest", async () => {
    const texts = chunkTexts(6);
    const failure = Object.assign(new Error('fake provider: the request with text 0 failed'), {
      // Texts 2 and 3 came back; text 1's slot holds something no provider may return.
      partial: [undefined, new Float32Array([NaN, 1]), fakeVector(texts[2]!, 12, MODEL), fakeVector(texts[3]!, 12, MODEL)],
    });
    const failing = { model: MODEL, embed: async () => Promise.reject(failure) };
    await expect(embedThroughCache(cache, failing, KEY, texts, { batchSize: 4 })).rejects.toBe(failure);
    expect(texts.map((t) => cache.getText(MODEL, t) !== null)).toEqual([false, false, true, true, false, false]);
    expectSameBits([cache.getText(MODEL, texts[3]!)!], [fakeVector(texts[3]!, 12, MODEL)]);
    expect(existsSync(cache.documentDir(KEY))).toBe(false);

    const working = new CountingEmbedder(MODEL, 12);
    const r = await embedThroughCache(cache, working, KEY, texts, { batchSize: 4 });
    expect(working.calls.flat()).toEqual([texts[0], texts[1], texts[4], texts[5]]);
    expect(r.stats).toEqual({ documentHit: false, textHits: 2, embedded: 4 });
  });

  it("a partial that does not fit the call (another length, vectors of other dimensions) is not cached, and the provider's error still comes out", async () => {
    const texts = chunkTexts(4);
    const cases = [
      [fakeVector(texts[0]!, 8, MODEL)], // one slot for four texts
      [fakeVector(texts[0]!, 8, MODEL), fakeVector(texts[1]!, 6, MODEL), undefined, undefined], // ragged: nothing tells which is right
      'not a list',
    ];
    for (const partial of cases) {
      const failure = Object.assign(new Error('fake provider failed'), { partial });
      await expect(embedThroughCache(cache, { model: MODEL, embed: async () => Promise.reject(failure) }, KEY, texts)).rejects.toBe(failure);
    }
    expect(texts.map((t) => cache.getText(MODEL, t))).toEqual([null, null, null, null]);
    // A cache that cannot take them does not hide the provider's error either.
    const blocked = new EmbeddingCache(join(root, 'a-file'));
    writeFileSync(blocked.root, 'not a folder');
    const failure = Object.assign(new Error('fake provider failed'), { partial: texts.map((t) => fakeVector(t, 8, MODEL)) });
    await expect(embedThroughCache(blocked, { model: MODEL, embed: async () => Promise.reject(failure) }, KEY, texts)).rejects.toBe(failure);
  });

  it('sends everything in one call without batchSize, and a repeated text once', async () => {
    const embedder = new CountingEmbedder(MODEL);
    const texts = ['same', 'other', 'same', 'third'];
    const r = await embedThroughCache(cache, embedder, KEY, texts);
    expect(embedder.calls).toEqual([['same', 'other', 'third']]);
    expect(r.stats).toEqual({ documentHit: false, textHits: 0, embedded: 3 });
    expectSameBits([r.vectors[2]!], [r.vectors[0]!]);
    expect(r.vectors[2]).not.toBe(r.vectors[0]);
    expectSameBits(cache.getDocument(KEY, texts), r.vectors);
  });

  it('ignores cached entries of other dimensions when dimensions is given', async () => {
    const texts = chunkTexts(4);
    await embedThroughCache(cache, new CountingEmbedder(MODEL, 8), KEY, texts);
    const wide = new CountingEmbedder(MODEL, 16);
    const r = await embedThroughCache(cache, wide, KEY, texts, { dimensions: 16 });
    expect(r.stats).toEqual({ documentHit: false, textHits: 0, embedded: 4 });
    expect(r.vectors.every((v) => v.length === 16)).toBe(true);
    expect(cache.getDocument(KEY, texts, 16)).not.toBeNull();
  });

  it('re-embeds text hits whose length disagrees with what the provider returns now', async () => {
    const texts = chunkTexts(5);
    await embedThroughCache(cache, new CountingEmbedder(MODEL, 8), KEY, texts.slice(0, 3));
    // Same model name, new model version behind it: 16 dimensions now.
    const moved = new CountingEmbedder(MODEL, 16);
    const r = await embedThroughCache(cache, moved, { ...KEY, fileHash: sha256Hex('v2') }, texts);
    expect(r.vectors.every((v) => v.length === 16)).toBe(true);
    expect(r.stats).toEqual({ documentHit: false, textHits: 0, embedded: 5 });
    expect(moved.calls).toEqual([texts.slice(3), texts.slice(0, 3)]);
  });

  it('re-embeds everything when only cached hits of mixed lengths are available', async () => {
    const texts = ['a', 'b'];
    cache.putText(MODEL, 'a', fakeVector('a', 4));
    cache.putText(MODEL, 'b', fakeVector('b', 6));
    const embedder = new CountingEmbedder(MODEL, 6);
    const r = await embedThroughCache(cache, embedder, KEY, texts);
    expect(r.stats).toEqual({ documentHit: false, textHits: 0, embedded: 2 });
    expect(r.vectors.map((v) => v.length)).toEqual([6, 6]);
  });

  it('refuses bad provider output and caches nothing from that batch', async () => {
    const texts = ['a', 'b'];
    const short = { model: MODEL, embed: async (t: string[]) => t.slice(1).map((x) => fakeVector(x, 4)) };
    await expect(embedThroughCache(cache, short, KEY, texts)).rejects.toThrow(/returned 1 vectors for 2 texts/);
    const nan = { model: MODEL, embed: async (t: string[]) => t.map(() => new Float32Array([0, NaN])) };
    await expect(embedThroughCache(cache, nan, KEY, texts)).rejects.toThrow(/non-finite/);
    const ragged = { model: MODEL, embed: async (t: string[]) => t.map((x, i) => fakeVector(x, 4 + i)) };
    await expect(embedThroughCache(cache, ragged, KEY, texts)).rejects.toThrow(/returned 5 dimensions, expected 4/);
    const wrongDims = new CountingEmbedder(MODEL, 4);
    await expect(embedThroughCache(cache, wrongDims, KEY, texts, { dimensions: 8 })).rejects.toThrow(/expected 8/);
    expect(existsSync(cache.root) ? walk(cache.root).filter((p) => p.endsWith('.bin') || p.endsWith('.json')) : []).toEqual([]);
    await expect(embedThroughCache(cache, wrongDims, KEY, texts, { batchSize: 0 })).rejects.toThrow(/batchSize/);
  });

  it('handles an empty document without calling the provider', async () => {
    const embedder = new CountingEmbedder(MODEL);
    expect((await embedThroughCache(cache, embedder, KEY, [])).stats).toEqual({ documentHit: false, textHits: 0, embedded: 0 });
    expect((await embedThroughCache(cache, embedder, KEY, [])).stats.documentHit).toBe(true);
    expect(embedder.calls).toEqual([]);
  });
});

describe('path segment escaping', () => {
  it.each([
    ['nomic-embed-text:latest', 'nomic-embed-text%3Alatest'],
    ['org/model', 'org%2Fmodel'],
    ['semantic-64-400-512', 'semantic-64-400-512'],
    ['text-embedding-3-small', 'text-embedding-3-small'],
    ['a\\b c%d', 'a%5Cb%20c%25d'],
    ['..', '%2E%2E'],
    ['.hidden', '%2Ehidden'],
    ['_by-text', '%5Fby-text'],
    ['snake_case', 'snake_case'],
    ['v1.5', 'v1.5'],
    ['ends.', 'ends%2E'],
    ['nul', '%6Eul'],
    ['COM1.x', '%43OM1.x'],
    ['modèle', 'mod%C3%A8le'],
  ])('%s → %s', (value, segment) => {
    expect(encodePathSegment(value)).toBe(segment);
    expect(decodePathSegment(segment)).toBe(value);
  });

  it('shortens very long values with a hash suffix', () => {
    const long = 'org/'.repeat(60);
    const seg = encodePathSegment(long);
    expect(seg.length).toBeLessThanOrEqual(117);
    expect(seg).toMatch(/^(org%2F)+(o|or|org|org%2F)?~[0-9a-f]{16}$/);
    expect(seg).not.toMatch(/%[0-9A-F]?~/);
    expect(decodePathSegment(seg)).toBeNull();
    expect(encodePathSegment(`${long}x`)).not.toBe(seg);
  });

  it('refuses an empty value', () => expect(() => encodePathSegment('')).toThrow(/empty/));
});

describe('pruneUnused: a cache that is one build output keeps only what the last run used', () => {
  it('after an edit, only the current document entry and its texts remain; the next edit still finds the unchanged texts', async () => {
    const embedder = new CountingEmbedder(MODEL, 8);
    const v1 = chunkTexts(5);
    await embedThroughCache(cache, embedder, { strategyKey: STRATEGY, fileHash: sha256Hex('v1') }, v1);
    // Run 2: one chunk edited, the run tracks and prunes.
    const run2 = new EmbeddingCache(cache.root);
    run2.trackUse();
    const v2 = [...v1.slice(0, 4), 'an edited chunk'];
    const r2 = await embedThroughCache(run2, embedder, { strategyKey: STRATEGY, fileHash: sha256Hex('v2') }, v2);
    expect(r2.stats.embedded).toBe(1);
    expect(run2.pruneUnused()).toBe(1 + 5 + 1); // v1's entry (metadata + 5 vectors) and the edited-away text
    expect(existsSync(run2.documentDir({ strategyKey: STRATEGY, model: MODEL, fileHash: sha256Hex('v1') }))).toBe(false);
    expect(existsSync(run2.textPath(MODEL, v1[4]!))).toBe(false);
    // Run 3: a document hit reads no text entry, yet pruning keeps the texts for the next edit.
    const run3 = new EmbeddingCache(cache.root);
    run3.trackUse();
    expect((await embedThroughCache(run3, embedder, { strategyKey: STRATEGY, fileHash: sha256Hex('v2') }, v2)).stats.documentHit).toBe(true);
    expect(run3.pruneUnused()).toBe(0);
    const run4 = new EmbeddingCache(cache.root);
    const r4 = await embedThroughCache(run4, embedder, { strategyKey: STRATEGY, fileHash: sha256Hex('v3') }, [...v2.slice(0, 4), 'edited again']);
    expect(r4.stats).toEqual({ documentHit: false, textHits: 4, embedded: 1 });
  });

  it('does nothing unless trackUse() was called', async () => {
    await embedThroughCache(cache, new CountingEmbedder(MODEL, 8), { strategyKey: STRATEGY, fileHash: sha256Hex('x') }, chunkTexts(2));
    const before = walk(cache.root);
    expect(new EmbeddingCache(cache.root).pruneUnused()).toBe(0);
    expect(walk(cache.root)).toEqual(before);
  });
});

describe('readPackedDocument (an entry held in memory, as the Nx plugin packs a cache folder)', () => {
  /** Every file below the cache root, as relative posix path → bytes. */
  const filesOf = (dir: string): Map<string, Uint8Array> =>
    new Map(walk(dir).filter((p) => !p.endsWith('/')).map((p) => [p, readFileSync(join(dir, p))]));

  it('reads back what putDocument wrote, and misses on any changed text, key or damaged byte', () => {
    const texts = chunkTexts(3);
    const vectors = texts.map((t) => fakeVector(t, 8));
    cache.putDocument(KEY, texts, vectors);
    const files = filesOf(join(root, '.embedding-cache'));
    expect(readPackedDocument(files, KEY, texts)?.map((v) => [...v])).toEqual(vectors.map((v) => [...v]));
    expect(readPackedDocument(files, KEY, [...texts.slice(0, 2), 'edited'])).toBeNull();
    expect(readPackedDocument(files, KEY, texts.slice(0, 2))).toBeNull();
    expect(readPackedDocument(files, { ...KEY, model: 'other' }, texts)).toBeNull();
    expect(readPackedDocument(files, { ...KEY, fileHash: 'not-hex' }, texts)).toBeNull();
    const bin = [...files.keys()].find((p) => p.endsWith('/chunk-1.bin'))!;
    const damaged = new Map(files);
    const bytes = Uint8Array.from(files.get(bin)!);
    bytes[0]! ^= 1;
    damaged.set(bin, bytes);
    expect(readPackedDocument(damaged, KEY, texts)).toBeNull();
    const truncated = new Map(files);
    truncated.set(bin, files.get(bin)!.subarray(0, 4));
    expect(readPackedDocument(truncated, KEY, texts)).toBeNull();
    // Nothing on disk is touched or reported: the pack belongs to the Nx cache.
    expect(corrupt).toEqual([]);
  });
});

describe('projectCacheFolderName: an Nx project\'s cache folder (as the Nx plugin names it since 2febf58)', () => {
  const long = 'a'.repeat(255);

  it('keeps a name whose .pack fits in 255 bytes, so existing caches stay valid', () => {
    expect(projectCacheFolderName('topic-g-ok')).toBe('topic-g-ok');
    expect(projectCacheFolderName(`topic-${'a'.repeat(244)}`)).toBe(`topic-${'a'.repeat(244)}`); // 250 bytes + .pack = 255
  });

  it('shortens a longer one to its first 200 bytes, ~ and 16 hex of its sha256: the names 2febf58 gives', () => {
    // Literal names the plugin (packages/nx/src/plugin.cjs at 2febf58) gives these topics.
    expect(projectCacheFolderName(`topic-g-${long}`)).toBe(`topic-g-${'a'.repeat(192)}~b32fc964d101409b`);
    expect(projectCacheFolderName(`topic-g-${long.slice(0, 250)}b`)).toBe(`topic-g-${'a'.repeat(192)}~0df84b8353451ac5`);
    expect(projectCacheFolderName(`topic-${'a'.repeat(245)}`)).toBe(`topic-${'a'.repeat(194)}~798045c755e3ca80`);
    for (const name of [`topic-g-${long}`, `topic-${'a'.repeat(245)}`]) expect(Buffer.byteLength(`${projectCacheFolderName(name)}.pack`)).toBeLessThanOrEqual(255);
  });

  it('cuts a multi-byte name on a character boundary', () => {
    const wide = projectCacheFolderName(`topic-${'é'.repeat(127)}`);
    expect(wide).toBe(`topic-${'é'.repeat(97)}~10237a1f3ed4a533`);
    expect(wide).not.toContain('\ufffd');
  });

  it('gives the folder the Nx plugin gives topic-spec, for every shape above', () => {
    // The plugin is CommonJS with its own copy of the rule; until it imports this one, this
    // keeps them equal (docs-export finds a topic's vectors only under the plugin's name).
    type Core = {
      TOOL_PACKAGES: string[];
      normalizeOptions(o: unknown): unknown;
      createProjects(files: string[], ctx: unknown): [string, { projects: Record<string, { name: string; targets: { spec?: { options: { packDir: string } } } }> }][];
    };
    const core = createRequire(import.meta.url)('../../nx/src/plugin.cjs') as Core;
    const tools = Object.fromEntries(core.TOOL_PACKAGES.map((p) => [p, { kind: 'installed', packageName: p }]));
    const dirs = [`docs/g/${long}`, `docs/g/${long.slice(0, 250)}b`, 'docs/g/ok', `docs/${'é'.repeat(127)}`, `docs/${'a'.repeat(244)}`, `docs/${'a'.repeat(245)}`];
    const results = core.createProjects(dirs.map((d) => `${d}/golden-reference.md`), { options: core.normalizeOptions({}), tools });
    let topics = 0;
    for (const [, r] of results) {
      for (const p of Object.values(r.projects)) {
        if (!p.targets.spec) continue;
        expect(p.targets.spec.options.packDir).toBe(`.embedding-cache/${projectCacheFolderName(p.name)}`);
        topics++;
      }
    }
    expect(topics).toBe(dirs.length);
  });
});
