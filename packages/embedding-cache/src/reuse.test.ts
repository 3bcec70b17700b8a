// Reuse of the caches beside a cache (reuseFrom, siblingCacheRoots), on the real file system:
// the Nx plugin gives each topic project `.embedding-cache/<project>`, so a renamed topic
// started with an empty cache and re-embedded every chunk while its vectors sat in the old
// project's folder. A sibling's entry is validated as the cache's own, and one that is not
// valid is never trusted, reported, changed or removed.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddingCache, embedThroughCache, encodePathSegment, sha256Hex, siblingCacheRoots, TEXT_STORE_DIR } from './index.js';
import { CountingEmbedder, bitsOf, chunkTexts, fakeVector, makeTempRoot, snapshot } from './test-helpers.js';

const MODEL = 'nomic-embed-text:latest';
const STRATEGY = 'semantic-16-80-512';
const SOURCE = '# Guide\n\nThe source text of the topic.\n';
const DIMS = 16;
/** A text entry's size: the 112-byte header and 4 bytes per dimension. */
const ENTRY_BYTES = 112 + DIMS * 4;

let root: string;
let cleanup: () => void;
let caches: string; // the `.embedding-cache/` holding one folder per project
beforeEach(() => {
  ({ root, cleanup } = makeTempRoot());
  caches = join(root, '.embedding-cache');
});
afterEach(() => cleanup());

/** A project's cache as topic-spec opens it under the Nx plugin: its own folder, reusing the others. */
function projectCache(dir: string, reuse = true): { cache: EmbeddingCache; corrupt: string[] } {
  const cache = new EmbeddingCache(dir);
  const corrupt: string[] = [];
  cache.onCorrupt = (path, reason) => corrupt.push(`${path}: ${reason}`);
  if (reuse) cache.reuseFrom(siblingCacheRoots(cache.root));
  return { cache, corrupt };
}

async function build(project: string, texts: string[], options: { source?: string; parent?: string; reuse?: boolean } = {}) {
  const { cache, corrupt } = projectCache(join(options.parent ?? caches, project), options.reuse);
  const embedder = new CountingEmbedder(MODEL, DIMS);
  const r = await embedThroughCache(cache, embedder, { strategyKey: STRATEGY, fileHash: sha256Hex(options.source ?? SOURCE) }, texts, { batchSize: 8 });
  // Whatever came from where: every vector is the model's vector of its text.
  expect(r.vectors.map(bitsOf)).toEqual(texts.map((t) => bitsOf(fakeVector(t, DIMS, MODEL))));
  return { ...r, embedder, cache, corrupt };
}

/** Where `text`'s entry sits in the cache at `cacheRoot`. */
const textFile = (cacheRoot: string, text: string, model = MODEL) => {
  const h = sha256Hex(text);
  return join(cacheRoot, TEXT_STORE_DIR, encodePathSegment(model), h.slice(0, 2), `${h}.bin`);
};

/** The bytes the cache writes for `text` under `model` (the vector that model gives it). */
function entryBytes(text: string, model = MODEL): Buffer {
  const scratch = new EmbeddingCache(join(root, 'scratch'));
  scratch.putText(model, text, fakeVector(text, DIMS, model));
  return readFileSync(scratch.textPath(model, text));
}

/** A valid entry whose first value is NaN and whose checksum matches: only the finite check refuses it. */
function nanEntry(good: Buffer): Buffer {
  const b = Buffer.from(good);
  b.writeFloatLE(Number.NaN, 112);
  createHash('sha256').update(b.subarray(112)).digest().copy(b, 80);
  return b;
}

function place(file: string, bytes: Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, bytes);
}

describe('a renamed topic (its project, so its cache folder, renamed)', () => {
  it('embeds nothing: every vector comes from the old folder, is copied in bit for bit, and the old folder is left as it was', async () => {
    const texts = chunkTexts(50);
    expect((await build('topic-guides-alpha', texts)).stats.embedded).toBe(50);
    const before = snapshot(join(caches, 'topic-guides-alpha'));

    const renamed = await build('topic-guides-beta', texts);
    expect(renamed.stats).toEqual({ documentHit: false, textHits: 50, embedded: 0 });
    expect(renamed.embedder.calls).toEqual([]);
    expect(renamed.corrupt).toEqual([]);
    expect(snapshot(join(caches, 'topic-guides-alpha'))).toEqual(before);
    // The copies are the old files, byte for byte.
    for (const t of texts) expect(readFileSync(textFile(join(caches, 'topic-guides-beta'), t))).toEqual(readFileSync(textFile(join(caches, 'topic-guides-alpha'), t)));

    // Self-contained: with the old folder gone, the new one alone serves the document and each text.
    rmSync(join(caches, 'topic-guides-alpha'), { recursive: true });
    const again = await build('topic-guides-beta', texts);
    expect(again.stats.documentHit).toBe(true);
    const alone = new EmbeddingCache(join(caches, 'topic-guides-beta'));
    for (const t of texts) expect(bitsOf(alone.getText(MODEL, t)!)).toEqual(bitsOf(fakeVector(t, DIMS, MODEL)));
  });

  it('renamed and edited: only the changed texts are embedded', async () => {
    const texts = chunkTexts(30);
    await build('topic-a', texts);
    const edited = texts.map((t, i) => (i === 4 || i === 20 ? `${t} Edited.` : t));
    const r = await build('topic-b', edited, { source: `${SOURCE}Edited.\n` });
    expect(r.stats.embedded).toBe(2);
    expect(r.embedder.calls.flat().sort()).toEqual([edited[4], edited[20]].sort());
  });

  it('finds each text in whichever sibling holds it (a topic merged from two old ones)', async () => {
    const a = chunkTexts(10, 'a');
    const b = chunkTexts(10, 'b');
    await build('topic-a', a);
    await build('topic-b', b);
    const merged = await build('topic-ab', [...b.slice(0, 5), ...a, ...b.slice(5)]);
    expect(merged.stats.embedded).toBe(0);
  });

  it("another model's vectors in a sibling are not reused", async () => {
    const texts = chunkTexts(5);
    const old = new EmbeddingCache(join(caches, 'topic-a'));
    await embedThroughCache(old, new CountingEmbedder('other-model', DIMS), { strategyKey: STRATEGY, fileHash: sha256Hex(SOURCE) }, texts);
    expect((await build('topic-b', texts)).stats.embedded).toBe(5);
  });

  it('without reuseFrom a cache reads only itself (the default: a cache is not changed by its neighbours)', async () => {
    const texts = chunkTexts(5);
    await build('topic-a', texts);
    expect((await build('topic-b', texts, { reuse: false })).stats.embedded).toBe(5);
  });
});

describe('a damaged entry in a sibling', () => {
  const TEXTS = chunkTexts(6);

  /** Each way a text file can be damaged, as the cache's own corruption tests name them. */
  const damages: [string, (file: string) => void][] = [
    ['a flipped payload byte', (f) => { const b = readFileSync(f); b[b.length - 3]! ^= 0x40; writeFileSync(f, b); }],
    ['truncated', (f) => writeFileSync(f, readFileSync(f).subarray(0, 130))],
    ['shorter than the header', (f) => writeFileSync(f, readFileSync(f).subarray(0, 20))],
    ['bad magic', (f) => { const b = readFileSync(f); b.write('XXXX', 0, 'latin1'); writeFileSync(f, b); }],
    ['another text hash in the header', (f) => { const b = readFileSync(f); b[50]! ^= 1; writeFileSync(f, b); }],
    ['NaN under a matching checksum', (f) => writeFileSync(f, nanEntry(readFileSync(f)))],
    ["another model's entry at this model's path", (f) => writeFileSync(f, entryBytes(TEXTS[2]!, 'other-model'))],
    ['a folder in its place', (f) => { rmSync(f); mkdirSync(f); }],
    // Opened without blocking: a FIFO must not hang the run (nor the snapshot, which skips it).
    ['a FIFO in its place', (f) => { rmSync(f); execFileSync('mkfifo', [f]); }],
    ['a dangling symlink in its place', (f) => { rmSync(f); symlinkSync(join(f, 'gone'), f); }],
  ];

  it.each(damages)('%s: skipped (that one text is embedded), never reported as ours, never changed or removed', async (_, damage) => {
    await build('topic-a', TEXTS);
    damage(textFile(join(caches, 'topic-a'), TEXTS[2]!));
    const before = snapshot(join(caches, 'topic-a'));
    const r = await build('topic-b', TEXTS);
    expect(r.stats.embedded).toBe(1);
    expect(r.embedder.calls).toEqual([[TEXTS[2]]]);
    expect(r.corrupt).toEqual([]);
    expect(snapshot(join(caches, 'topic-a'))).toEqual(before);
  });

  it('property: whatever the siblings hold, every vector returned is the model\'s own, exactly the texts no sibling holds validly are embedded, and the siblings are untouched', async () => {
    /** What one sibling holds at one text's path. */
    type Variant =
      | { kind: 'absent' | 'good' | 'other-model' | 'other-text' | 'nan' | 'folder' | 'dangling' }
      | { kind: 'flips'; flips: [number, number][] }
      | { kind: 'cut'; at: number }
      | { kind: 'extended'; extra: Uint8Array }
      | { kind: 'random'; bytes: Uint8Array };
    const variant: fc.Arbitrary<Variant> = fc.oneof(
      fc.constantFrom('absent', 'good', 'other-model', 'other-text', 'nan', 'folder', 'dangling').map((kind) => ({ kind })),
      // Flipped bytes anywhere, and in the reserved bytes 12..15, which no check reads: such a
      // file is still a valid entry of the right vector.
      fc
        .array(fc.tuple(fc.oneof(fc.nat({ max: ENTRY_BYTES - 1 }), fc.integer({ min: 12, max: 15 })), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 6 })
        .map((flips) => ({ kind: 'flips' as const, flips })),
      fc.nat({ max: ENTRY_BYTES - 1 }).map((at) => ({ kind: 'cut' as const, at })),
      fc.uint8Array({ minLength: 1, maxLength: 32 }).map((extra) => ({ kind: 'extended' as const, extra })),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ kind: 'random' as const, bytes })),
    );
    const bytesOf = (v: Variant, text: string): Buffer | null => {
      const good = entryBytes(text);
      switch (v.kind) {
        case 'good': return good;
        case 'other-model': return entryBytes(text, 'other-model');
        case 'other-text': return entryBytes(`other: ${text}`);
        case 'nan': return nanEntry(good);
        case 'flips': { const b = Buffer.from(good); for (const [at, x] of v.flips) b[at]! ^= x; return b; }
        case 'cut': return good.subarray(0, v.at);
        case 'extended': return Buffer.concat([good, v.extra]);
        case 'random': return Buffer.from(v.bytes);
        default: return null;
      }
    };
    /** Valid: the good entry's bytes, but for the reserved ones (any other change breaks a check). */
    const isValid = (bytes: Buffer | null, good: Buffer) =>
      bytes !== null && bytes.length === good.length && bytes.every((b, i) => (i >= 12 && i < 16) || b === good[i]);

    const scenario = fc
      .record({
        // Distinct by hash: lone surrogates fold to U+FFFD in UTF-8, so two strings can be one text.
        texts: fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 40 }), { minLength: 1, maxLength: 8, selector: sha256Hex }),
        siblings: fc.integer({ min: 1, max: 3 }),
        // A hidden (temp) folder and a symlinked folder beside the cache, both holding every
        // text's good entry: neither is a sibling cache, so neither may serve a text.
        hidden: fc.boolean(),
        linked: fc.boolean(),
      })
      .chain((s) => fc.record({ s: fc.constant(s), held: fc.array(fc.array(variant, { minLength: s.texts.length, maxLength: s.texts.length }), { minLength: s.siblings, maxLength: s.siblings }) }));

    let run = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ s, held }) => {
        const parent = join(root, `run-${run++}`);
        const watched: string[] = [];
        held.forEach((variants, i) => {
          const sib = join(parent, `old-${i}`);
          mkdirSync(sib, { recursive: true });
          watched.push(sib);
          variants.forEach((v, j) => {
            const file = textFile(sib, s.texts[j]!);
            const bytes = bytesOf(v, s.texts[j]!);
            if (bytes) place(file, bytes);
            else if (v.kind === 'folder') mkdirSync(file, { recursive: true });
            else if (v.kind === 'dangling') { mkdirSync(dirname(file), { recursive: true }); symlinkSync(join(file, 'gone'), file); }
          });
        });
        const goodEverywhere = (dir: string) => {
          for (const t of s.texts) place(textFile(dir, t), entryBytes(t));
          watched.push(dir);
        };
        if (s.hidden) goodEverywhere(join(parent, '.old-9.tmp-1~1-abcd'));
        if (s.linked) {
          goodEverywhere(join(root, `outside-${run}`));
          symlinkSync(join(root, `outside-${run}`), join(parent, 'old-linked'));
        }
        const before = watched.map(snapshot);

        const r = await build('topic-new', s.texts, { parent });
        const unheld = s.texts.filter((t, j) => !held.some((variants) => isValid(bytesOf(variants[j]!, t), entryBytes(t))));
        expect(r.embedder.calls.flat().sort()).toEqual([...unheld].sort());
        expect(r.stats.embedded).toBe(unheld.length);
        expect(r.corrupt).toEqual([]);
        expect(watched.map(snapshot)).toEqual(before);
        // What was copied in is valid on its own.
        const alone = new EmbeddingCache(join(parent, 'topic-new'));
        for (const t of s.texts) expect(bitsOf(alone.getText(MODEL, t)!)).toEqual(bitsOf(fakeVector(t, DIMS, MODEL)));
      }),
      { numRuns: 60 },
    );
  });
});

describe('the miss allowance', () => {
  // The sibling holds 10 texts; the new topic looks them up first (10 hits), then `fresh` texts
  // no sibling holds, then one more held text. Lookups stop once misses reach 64 + hits.
  async function lastHeldEmbedded(fresh: number): Promise<boolean> {
    const held = chunkTexts(11, 'held');
    await build('topic-a', held);
    const r = await build('topic-b', [...held.slice(0, 10), ...chunkTexts(fresh, 'new'), held[10]!]);
    rmSync(caches, { recursive: true });
    return r.embedder.calls.flat().includes(held[10]!);
  }

  it('looks up the 74th miss after 10 hits, and not the 75th (64 more misses than hits)', async () => {
    expect(await lastHeldEmbedded(73)).toBe(false);
    expect(await lastHeldEmbedded(74)).toBe(true);
  });

  it('a new topic beside caches of other texts stops looking after 64 misses', async () => {
    await build('topic-a', ['shared text']);
    const r = await build('topic-b', [...chunkTexts(64, 'new'), 'shared text']);
    expect(r.embedder.calls.flat()).toContain('shared text');
    rmSync(join(caches, 'topic-b'), { recursive: true });
    const within = await build('topic-b', [...chunkTexts(63, 'new'), 'shared text']);
    expect(within.embedder.calls.flat()).not.toContain('shared text');
  });
});

describe('siblingCacheRoots', () => {
  it('the other folders beside the root, in name order: not itself, no .pack files, hidden temp folders or symlinks', () => {
    for (const d of ['topic-b', 'topic-a', 'topic-c', '.topic-a.tmp-1~1-abcd']) mkdirSync(join(caches, d), { recursive: true });
    writeFileSync(join(caches, 'topic-a.pack'), '');
    symlinkSync(join(caches, 'topic-a'), join(caches, 'topic-link'));
    symlinkSync(join(root, 'gone'), join(caches, 'topic-dangling'));
    execFileSync('mkfifo', [join(caches, 'topic-fifo')]);
    expect(siblingCacheRoots(join(caches, 'topic-c'))).toEqual([join(caches, 'topic-a'), join(caches, 'topic-b')]);
    expect(siblingCacheRoots(join(caches, 'topic-new'))).toEqual([join(caches, 'topic-a'), join(caches, 'topic-b'), join(caches, 'topic-c')]);
    // Relative or with a trailing separator, the root is still itself.
    expect(siblingCacheRoots(`${join(caches, 'topic-c')}/`)).toEqual([join(caches, 'topic-a'), join(caches, 'topic-b')]);
    expect(siblingCacheRoots(join(root, 'no', 'such', 'dir'))).toEqual([]);
  });
});
