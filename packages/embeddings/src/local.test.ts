// Tests of the local lexical provider: deterministic, normalised, and lexical in the ways its
// documentation promises (stems, stop words, identifiers, word pairs). No timings here: speed
// is measured by bench.mjs.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createProvider, EmbeddingError, LocalLexicalProvider, lexicalFeatures, localModelId, STOP_WORDS, wordWeight } from './index.js';
import { WORD_WEIGHTS } from './word-weights.js';

function norm(v: Float32Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  const n = norm(a) * norm(b);
  return n === 0 ? 0 : dot / n;
}

const bytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

async function embedOne(p: LocalLexicalProvider, text: string): Promise<Float32Array> {
  const [v] = await p.embed([text]);
  return v!;
}

const local = new LocalLexicalProvider();

describe('local provider: identity', () => {
  it('is the default-size lexical model, with the dimension in its id', () => {
    expect(local.provider).toBe('local');
    expect(local.model).toBe('local-lexical-v1-d512');
    expect(local.dimensions).toBe(512);
    expect(localModelId(256)).toBe('local-lexical-v1-d256');
  });

  it('createProvider gives it by settings, with the dimension option or a model id', () => {
    const p = createProvider({ provider: 'local', dimensions: 64 });
    expect(p.model).toBe('local-lexical-v1-d64');
    expect(p.dimensions).toBe(64);
    expect(createProvider({ provider: 'local', model: 'local-lexical-v1-d128' }).dimensions).toBe(128);
    expect(createProvider({ provider: 'local', model: 'local-lexical-v1', dimensions: 32 }).model).toBe('local-lexical-v1-d32');
  });

  it('rejects a dimension below 8, a foreign model id, and disagreeing model and dimensions (kind config)', () => {
    for (const settings of [
      { provider: 'local' as const, dimensions: 4 },
      { provider: 'local' as const, dimensions: 12.5 },
      { provider: 'local' as const, model: 'mxbai-embed-large' },
      { provider: 'local' as const, model: 'local-lexical-v1-d128', dimensions: 64 },
      { provider: 'local' as const, model: 'local-lexical-v1-d4' },
    ]) {
      let err: unknown;
      try {
        createProvider(settings);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(settings)).toBeInstanceOf(EmbeddingError);
      expect((err as EmbeddingError).kind).toBe('config');
      expect((err as EmbeddingError).provider).toBe('local');
      expect((err as EmbeddingError).fix.length).toBeGreaterThan(10);
    }
    expect(() => new LocalLexicalProvider({ dimensions: 7 })).toThrow(EmbeddingError);
  });

  it('rejects more than 65,536 dimensions, the config file\'s maximum, before any vector is made (2 ** 31 was taken and the first embed was killed for its 8 GiB)', () => {
    const configError = (make: () => unknown, message: string) => {
      let err: unknown;
      try {
        make();
      } catch (e) {
        err = e;
      }
      expect(err, message).toBeInstanceOf(EmbeddingError);
      expect((err as EmbeddingError).kind).toBe('config');
      expect((err as EmbeddingError).message).toContain(message);
    };
    for (const provider of ['local', 'ollama', 'openai'] as const) {
      configError(() => createProvider({ provider, dimensions: 2 ** 31 }, {}), 'dimensions must be an integer 8..65536, got 2147483648');
      configError(() => createProvider({ provider, dimensions: 65_537 }, {}), 'got 65537');
    }
    configError(() => createProvider({ provider: 'local', model: 'local-lexical-v2-d2147483648' }), 'model "local-lexical-v2-d2147483648" has more than 65536 dimensions');
    configError(() => new LocalLexicalProvider({ dimensions: 2 ** 31 }), 'dimensions must be an integer 8..65536, got 2147483648');
    expect(createProvider({ provider: 'local', dimensions: 65_536 }).dimensions).toBe(65_536);
    expect(createProvider({ provider: 'local', model: 'local-lexical-v1-d65536' }).dimensions).toBe(65_536);
  });
});

describe('local provider: vectors', () => {
  const texts = [
    'Use `JsonSerializer.Serialize` with a source-generated `JsonSerializerContext` to avoid reflection.',
    '# Native AOT\n\nPublishing with native AOT produces a self-contained app that starts fast.',
    'Zürich, 東京, naïve café — and a 🦀 or two.',
  ];

  it('is deterministic byte for byte, across calls, instances and batch companions', async () => {
    const a = await local.embed(texts);
    const b = await new LocalLexicalProvider().embed(texts);
    const alone = await Promise.all(texts.map((t) => embedOne(new LocalLexicalProvider(), t)));
    for (let i = 0; i < texts.length; i++) {
      expect(bytes(a[i]!).equals(bytes(b[i]!))).toBe(true);
      expect(bytes(a[i]!).equals(bytes(alone[i]!))).toBe(true);
    }
    expect(local.embedSync(texts).map(bytes)).toEqual(a.map(bytes));
  });

  it('returns L2-normalised Float32Arrays of the configured length', async () => {
    for (const d of [8, 100, 512, 1024]) {
      const p = new LocalLexicalProvider({ dimensions: d });
      for (const v of await p.embed(texts)) {
        expect(v).toBeInstanceOf(Float32Array);
        expect(v.length).toBe(d);
        expect(Math.abs(norm(v) - 1)).toBeLessThan(1e-6);
      }
    }
  });

  it('places a paraphrase closer than an unrelated text', async () => {
    const [q, para, unrelated] = await local.embed([
      'How do I read a file synchronously in Node.js?',
      'Reading files synchronously with fs.readFileSync in Node',
      'The weather in Paris is sunny with a light breeze.',
    ]);
    expect(cosine(q!, para!)).toBeGreaterThan(0.3);
    expect(cosine(q!, para!)).toBeGreaterThan(cosine(q!, unrelated!) + 0.2);
  });

  it('gives the zero vector for empty, punctuation-only and stop-word-only text', async () => {
    const vs = await local.embed(['', '   \n\t', '!!! --- ... ???', 'The and of to a in that it is was', 'AND THE OR']);
    for (const v of vs) {
      expect(v.length).toBe(512);
      expect(v.every((x) => x === 0)).toBe(true);
    }
  });

  it('returns [] for no texts', async () => {
    expect(await local.embed([])).toEqual([]);
  });

  it('reports progress and honours an aborted signal', async () => {
    const calls: [number, number][] = [];
    await local.embed(
      Array.from({ length: 600 }, (_, i) => `text number ${i}`),
      { onProgress: (done, total) => calls.push([done, total]) },
    );
    expect(calls).toEqual([
      [256, 600],
      [512, 600],
      [600, 600],
    ]);
    const ctrl = new AbortController();
    ctrl.abort(new Error('stop'));
    await expect(local.embed(['x'], { signal: ctrl.signal })).rejects.toThrow('stop');
  });
});

describe('local provider: lexical features', () => {
  it('ignores stop words (the vector does not change when they are added)', async () => {
    const [plain, padded] = await local.embed(['cache embeddings per chunk', 'the cache of the embeddings is kept for each and every chunk']);
    // "kept", "every" add features; compare what they share instead.
    expect(lexicalFeatures('the cache of the embeddings is for each chunk').unigrams).toEqual(['cach', 'embed', 'chunk']);
    expect(cosine(plain!, padded!)).toBeGreaterThan(0.5);
    const [a, b] = await local.embed(['cache embeddings chunk', 'the cache of the embeddings for a chunk']);
    expect(bytes(a!).equals(bytes(b!))).toBe(true);
  });

  it('stems: running and runs share the feature "run"', async () => {
    expect(lexicalFeatures('running').unigrams).toEqual(['run']);
    expect(lexicalFeatures('runs').unigrams).toEqual(['run']);
    const [running, runs, walking] = await local.embed(['running', 'runs', 'walking']);
    expect(bytes(running!).equals(bytes(runs!))).toBe(true);
    expect(cosine(running!, walking!)).toBeLessThan(0.5);
  });

  it('splits camelCase, PascalCase, snake_case and dotted identifiers, and keeps the whole identifier', () => {
    expect(lexicalFeatures('fs.readFileSync')).toEqual({
      unigrams: ['fs', 'read', 'file', 'sync'],
      identifiers: ['id:fs.readfilesync'],
      bigrams: ['fs read', 'read file', 'file sync'],
    });
    expect(lexicalFeatures('XMLHttpRequest').unigrams).toEqual(['xml', 'http', 'request']);
    expect(lexicalFeatures('HTTP2Server').unigrams).toEqual(['http2', 'server']);
    expect(lexicalFeatures('max_token_count').unigrams).toEqual(['max', 'token', 'count']);
    expect(lexicalFeatures('max_token_count').identifiers).toEqual(['id:max_token_count']);
    expect(lexicalFeatures('JsonSerializerContext').identifiers).toEqual(['id:jsonserializercontext']);
    // One word is not an identifier, whatever its case; surrounding underscores are not parts.
    expect(lexicalFeatures('Hello WORLD __dirname').identifiers).toEqual([]);
    // A sentence-ending dot does not join words.
    expect(lexicalFeatures('Run it. Then stop.').identifiers).toEqual([]);
  });

  it('matches prose to the identifier that spells it', async () => {
    const [code, prose, other] = await local.embed(['readFileSync', 'read file sync', 'write directory']);
    expect(cosine(code!, prose!)).toBeGreaterThan(0.6);
    expect(cosine(code!, other!)).toBeLessThan(0.2);
  });

  it('uses word pairs: the same words in another order are close but not identical', async () => {
    const [a, b] = await local.embed(['dog bites man', 'man bites dog']);
    const c = cosine(a!, b!);
    expect(c).toBeGreaterThan(0.5);
    expect(c).toBeLessThan(0.999);
  });

  it('keeps words of other scripts and numbers (unstemmed)', () => {
    expect(lexicalFeatures('Zürich 東京 naïve 2024 İstanbul').unigrams).toEqual(['zürich', '東京', 'naïve', '2024', 'istanbul']);
  });

  it('has a fixed stop-word list', () => {
    expect(STOP_WORDS.has('the')).toBe(true);
    expect(STOP_WORDS.has('json')).toBe(false);
  });
});

describe('local provider: properties over random text', () => {
  const provider = new LocalLexicalProvider({ dimensions: 64 });
  const anyText = fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 120 }), fc.string({ unit: 'binary', maxLength: 120 }));

  it('every vector has norm 1 (or is all zeros) and is reproducible', () => {
    fc.assert(
      fc.property(fc.array(anyText, { minLength: 1, maxLength: 5 }), (texts) => {
        const a = provider.embedSync(texts);
        const b = new LocalLexicalProvider({ dimensions: 64 }).embedSync([...texts].reverse()).reverse();
        for (let i = 0; i < texts.length; i++) {
          const v = a[i]!;
          expect(v.length).toBe(64);
          const n = norm(v);
          expect(n === 0 || Math.abs(n - 1) < 1e-6).toBe(true);
          expect(bytes(v).equals(bytes(b[i]!))).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  const word = fc.stringMatching(/^[a-z]{1,10}$/);
  const stop = fc.constantFrom(...[...STOP_WORDS]);

  it('inserting stop words anywhere between words changes nothing', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 12 }), fc.array(fc.tuple(fc.nat(), stop), { maxLength: 6 }), (words, inserts) => {
        const padded = [...words];
        for (const [at, s] of inserts) padded.splice(at % (padded.length + 1), 0, s);
        const [a, b] = provider.embedSync([words.join(' '), padded.join(' ')]);
        expect(bytes(a!).equals(bytes(b!))).toBe(true);
      }),
    );
  });

  it('capitalising or upper-casing whole words changes nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(word, fc.constantFrom('lower', 'Title', 'UPPER')), { minLength: 1, maxLength: 12 }), (items) => {
        const lower = items.map(([w]) => w).join(' ');
        const cased = items.map(([w, c]) => (c === 'UPPER' ? w.toUpperCase() : c === 'Title' ? w[0]!.toUpperCase() + w.slice(1) : w)).join(' ');
        const [a, b] = provider.embedSync([lower, cased]);
        expect(bytes(a!).equals(bytes(b!))).toBe(true);
      }),
    );
  });

  it('punctuation and whitespace between words do not matter', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 12 }), fc.array(fc.constantFrom(' ', '\n', ', ', ' — ', '\t(', ') ', '; '), { minLength: 12, maxLength: 12 }), (words, seps) => {
        const spaced = words.join(' ');
        const mixed = words.map((w, i) => w + seps[i]!).join('');
        const [a, b] = provider.embedSync([spaced, mixed]);
        expect(bytes(a!).equals(bytes(b!))).toBe(true);
      }),
    );
  });
});

describe('local provider v2: words weighted by English rarity', () => {
  const v2 = new LocalLexicalProvider({ version: 'v2' });
  const v2small = new LocalLexicalProvider({ version: 'v2', dimensions: 128 });
  const golden = [
    'Use `JsonSerializer.Serialize` with a source-generated `JsonSerializerContext` to avoid reflection.',
    '# Native AOT\n\nPublishing with native AOT produces a self-contained app that starts fast.',
    'Zürich, 東京, naïve café — and a 🦀 or two.',
    'How do I read a file synchronously in Node.js? fs.readFileSync reads it.',
  ];
  const digest = (vs: Float32Array[]) => {
    const h = createHash('sha256');
    for (const v of vs) h.update(bytes(v));
    return h.digest('hex').slice(0, 16);
  };

  it('v1 vectors are unchanged by v2 (byte digests of the version before v2), and v2 is pinned too', () => {
    // A changed digest means every cached vector of that model id is stale: bump the version instead.
    expect(digest(local.embedSync(golden))).toBe('b8ed34f4f8131fc7');
    expect(digest(new LocalLexicalProvider({ dimensions: 64 }).embedSync(golden))).toBe('fbca66e5b700cc53');
    expect(digest(v2.embedSync(golden))).toBe('92699718641271dd');
  });

  it('is local-lexical-v2-d2048 by default, chosen by model id, with its own dimension', () => {
    expect(v2.model).toBe('local-lexical-v2-d2048');
    expect(v2.dimensions).toBe(2048);
    expect(localModelId(1024, 'v2')).toBe('local-lexical-v2-d1024');
    expect(createProvider({ provider: 'local', model: 'local-lexical-v2' }).model).toBe('local-lexical-v2-d2048');
    expect(createProvider({ provider: 'local', model: 'local-lexical-v2-d1024' }).dimensions).toBe(1024);
    expect(createProvider({ provider: 'local', model: 'local-lexical-v2', dimensions: 512 }).model).toBe('local-lexical-v2-d512');
    // The default stays v1 at 512: v2 is opt-in.
    expect(createProvider({ provider: 'local' }).model).toBe('local-lexical-v1-d512');
    expect(() => createProvider({ provider: 'local', model: 'local-lexical-v2-d1024', dimensions: 2048 })).toThrow(EmbeddingError);
    expect(() => createProvider({ provider: 'local', model: 'local-lexical-v3' })).toThrow(EmbeddingError);
  });

  it('weighs common English words below rare ones; unknown stems (identifiers, jargon) weigh 1', () => {
    expect(wordWeight('get')).toBeLessThan(0.35);
    expect(wordWeight('time')).toBeLessThan(wordWeight('file'));
    expect(wordWeight('file')).toBeLessThan(wordWeight('serial'));
    expect(wordWeight('jsonseri')).toBe(1);
    for (const line of WORD_WEIGHTS.split('\n')) {
      const w = Number(line.split(' ')[0]);
      expect(Number.isInteger(w) && w > 0 && w < 100, line.slice(0, 40)).toBe(true);
    }
  });

  it('ranks a text sharing a rare word above one sharing as many common words (v1 cannot tell them apart)', () => {
    const q = 'time serializer';
    const texts = [q, 'the time', 'the serializer'];
    const [qa, common, rare] = v2.embedSync(texts);
    expect(cosine(qa!, rare!)).toBeGreaterThan(cosine(qa!, common!) + 0.1);
    const [q1, c1, r1] = new LocalLexicalProvider({ dimensions: 2048 }).embedSync(texts);
    expect(Math.abs(cosine(q1!, r1!) - cosine(q1!, c1!))).toBeLessThan(0.01);
  });

  it('a vector depends on its own text only: the same bytes alone, in any batch, after any other texts', () => {
    const text = fc.oneof(fc.string({ maxLength: 200 }), fc.array(fc.constantFrom('file', 'time', 'serializer', 'get', 'JsonSerializer', 'native', 'aot'), { maxLength: 20 }).map((w) => w.join(' ')));
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 6 }), (texts) => {
        const batch = new LocalLexicalProvider({ version: 'v2', dimensions: 128 }).embedSync(texts);
        const reversed = v2small.embedSync([...texts].reverse()).reverse();
        for (let i = 0; i < texts.length; i++) {
          const alone = new LocalLexicalProvider({ version: 'v2', dimensions: 128 }).embedSync([texts[i]!])[0]!;
          expect(bytes(batch[i]!).equals(bytes(alone))).toBe(true);
          expect(bytes(reversed[i]!).equals(bytes(alone))).toBe(true);
          const n = norm(alone);
          expect(n === 0 || Math.abs(n - 1) < 1e-6).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a text with thousands of features gives the same bytes while its buffers grow as after', () => {
    // 3000 distinct words: 6000 features, past the first buffers (1024), so they grow mid-text.
    const long = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}x term${i % 7}`).join(' ');
    const p = new LocalLexicalProvider({ version: 'v2', dimensions: 256 });
    const [growing] = p.embedSync([long]);
    const [grown] = p.embedSync([long]);
    expect(bytes(growing!).equals(bytes(grown!))).toBe(true);
    expect(Math.abs(norm(grown!) - 1)).toBeLessThan(1e-6);
  });

  it('keeps v1\'s invariances: stop words and letter case change nothing', () => {
    const [a, b] = v2.embedSync(['Serialize the JSON file at startup', 'SERIALIZE a json File, at the Startup!']);
    expect(bytes(a!).equals(bytes(b!))).toBe(true);
  });
});
