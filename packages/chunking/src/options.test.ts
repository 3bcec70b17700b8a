import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkDocumentStream } from './index.js';
import { ChunkOptionsError } from './options.js';
import { thrown } from './test-helpers.js';

/** The error chunkDocument throws for `options`, or null when it throws none. */
function errorOf(options: unknown): Error | null {
  try {
    chunkDocument('# T\n\nText.\n', options as never);
    return null;
  } catch (err) {
    return err as Error;
  }
}

describe('option errors name the value as it was given (session 46 probe)', () => {
  it('show NaN, Infinity and -Infinity as themselves (JSON.stringify said "got null")', () => {
    expect(errorOf({ maxTokens: Number.NaN })?.message).toBe('maxTokens must be an integer >= 16, got NaN');
    expect(errorOf({ maxTokens: Number.POSITIVE_INFINITY })?.message).toBe('maxTokens must be an integer >= 16, got Infinity');
    expect(errorOf({ overlapSentences: Number.NEGATIVE_INFINITY })?.message).toBe('overlapSentences must be an integer >= 0, got -Infinity');
    expect(errorOf({ windowTokens: 1.5 })?.message).toBe('windowTokens must be an integer >= 16, got 1.5');
  });

  it('refuse a BigInt or a cyclic object with a ChunkOptionsError naming the option, not a TypeError of JSON.stringify', () => {
    const big = errorOf({ maxTokens: 512n });
    expect(big).toBeInstanceOf(ChunkOptionsError);
    expect(big?.message).toBe('maxTokens must be an integer >= 16, got 512n (a BigInt; give a number)');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cyc = errorOf({ targetTokens: cyclic });
    expect(cyc).toBeInstanceOf(ChunkOptionsError);
    expect(cyc?.message).toBe('targetTokens must be an integer >= 1, got an object');
    expect(errorOf({ strategy: ['semantic'] })?.message).toBe('strategy must be one of semantic, token-window, hierarchical, paginate, got an array');
  });

  it('quote a long string value cut to 80 characters, with its length, and escape what JSON leaves raw', () => {
    const long = errorOf({ parser: 'x'.repeat(1_000_000) });
    expect(long).toBeInstanceOf(ChunkOptionsError);
    expect(long!.message.length).toBeLessThan(200);
    expect(long!.message).toContain('(1000000 characters)');
    const hostile = errorOf({ breadcrumbMode: 'a\u001b[2J\u009b\u202eb' });
    expect(hostile!.message).toBe('breadcrumbMode must be conditional, always or none, got "a\\u001b[2J\\u009b\\u202eb"');
    expect(hostile!.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it('refuse options that are not an object (null threw "Cannot convert undefined or null to object"; 5 or "x" were taken as no options)', () => {
    for (const [bad, shown] of [
      [null, 'null'],
      [5, '5'],
      ['semantic', '"semantic"'],
      [['maxTokens', 512], 'an array'],
    ] as const) {
      const err = errorOf(bad);
      expect(err).toBeInstanceOf(ChunkOptionsError);
      expect(err?.message).toBe(`options must be an object (or left out), got ${shown}`);
      expect(() => chunkDocumentStream('# T\n', bad as never)).toThrow(ChunkOptionsError);
    }
    expect(chunkDocument('# T\n\nText.\n', undefined).chunks).toHaveLength(1);
  });
});

describe('per-document options are checked like the others (issue 15 library probe)', () => {
  it('refuse a fileTitle, sourceFile, sourceId or sourceSystem that is not a string, naming it (fileTitle 5 threw "options.fileTitle?.trim is not a function")', () => {
    for (const name of ['fileTitle', 'sourceFile', 'sourceId', 'sourceSystem']) {
      for (const [bad, shown] of [
        [5, '5'],
        [null, 'null'],
        [{}, 'an object'],
        [['a.md'], 'an array'],
      ] as const) {
        const err = errorOf({ strategy: 'token-window', [name]: bad });
        expect(err, `${name}: ${shown}`).toBeInstanceOf(ChunkOptionsError);
        expect(err?.message).toBe(`${name} must be a string, got ${shown}`);
        expect(() => chunkDocumentStream('# T\n', { [name]: bad } as never)).toThrow(ChunkOptionsError);
      }
    }
    // Strings, the empty one included, are still taken as before.
    expect(chunkDocument('# T\n\nText.\n', { fileTitle: '', sourceFile: 'notes.txt', sourceId: 'x', sourceSystem: '' }).chunks).toHaveLength(1);
  });

  it('refuse a docName holding a control character, which would go into every chunk id', () => {
    expect(errorOf({ docName: 'a\u001b[2Jb' })?.message).toBe('docName must hold no control character (it goes into every chunk id), got "a\\u001b[2Jb" with U+001B');
    for (const bad of ['a\nb', 'x\u0085', 'tab\there', 'rtl\u202ex', 'del\u007f']) expect(errorOf({ docName: bad })?.message, JSON.stringify(bad)).toMatch(/^docName must hold no control character/);
    // `::` and other scripts are names like any other.
    expect(chunkDocument('# T\n\nText.\n', { docName: 'std::vector' }).chunks[0]!.id).toBe('doc:std::vector::ch0');
    expect(errorOf({ docName: '日本語 é' })).toBeNull();
  });

  it('show what docName and contentType were given when they are not a non-empty string', () => {
    expect(errorOf({ docName: 5 })?.message).toBe('docName must be a non-empty string, got 5');
    expect(errorOf({ contentType: null })?.message).toBe('contentType must be a non-empty string, got null');
  });
});

describe('options are read by name, wherever the object keeps them (session 59 probe)', () => {
  const source = `# T\n\n${'Sentence number one is here. '.repeat(200)}`;

  it('takes a class instance\'s getters and an object made with Object.create(defaults) (the defaults were used without a word, while sourceFile was taken)', () => {
    class Options {
      get maxTokens(): number {
        return 64;
      }
      get targetTokens(): number {
        return 48;
      }
      get sourceFile(): string {
        return 'x.md';
      }
    }
    const fromClass = chunkDocument(source, new Options() as never);
    expect(fromClass.strategyKey).toBe('semantic-16-48-64');
    expect(fromClass.chunks[0]!.metadata.sourceFile).toBe('x.md');
    expect(chunkDocument(source, Object.create({ maxTokens: 64, targetTokens: 48 })).strategyKey).toBe('semantic-16-48-64');
    expect(chunkDocumentStream(source, new Options() as never).strategyKey).toBe('semantic-16-48-64');
    // A bad value on the prototype is refused like an own one.
    expect(errorOf(Object.create({ maxTokens: 5 }))?.message).toBe('maxTokens must be an integer >= 16, got 5');
  });

  it('gives frozen, null-prototype and plain objects the same result, and does not read a polluted Object.prototype', () => {
    const plain = chunkDocument(source, { maxTokens: 64, targetTokens: 48 });
    expect(chunkDocument(source, Object.freeze({ maxTokens: 64, targetTokens: 48 }))).toEqual(plain);
    expect(chunkDocument(source, Object.assign(Object.create(null), { maxTokens: 64, targetTokens: 48 }))).toEqual(plain);
    const proto = Object.prototype as Record<string, unknown>;
    proto.maxTokens = 5;
    try {
      expect(chunkDocument(source, {}).strategyKey).toBe('semantic-16-80-512');
    } finally {
      delete proto.maxTokens;
    }
  });
});

describe('strategyKey and recordedOptions take the options a caller has (session 59 probe)', () => {
  it('give chunkDocument\'s key and recorded options for partial options ({} gave "undefined-undefined-…", and recordedOptions threw)', async () => {
    const { recordedOptions, strategyKey } = await import('./options.js');
    for (const options of [{}, { maxTokens: 256 }, { strategy: 'paginate' as const, ctxSize: 4096 }, { strategy: 'hierarchical' as const, maxConcepts: 0 }]) {
      const result = chunkDocument('# T\n\nText.\n', options);
      expect(strategyKey(options)).toBe(result.strategyKey);
      expect(recordedOptions(options)).toEqual(result.options);
    }
    expect(strategyKey({})).toBe('semantic-16-80-512');
    expect(() => strategyKey({ maxTokens: Number.NaN })).toThrow(new ChunkOptionsError('maxTokens must be an integer >= 16, got NaN'));
    expect(() => recordedOptions({ strategy: 'fast' as never })).toThrow(ChunkOptionsError);
  });
});

describe('a key chunkDocument does not know is refused, naming it (session 59 probe: a misspelt option was ignored)', () => {
  const source = `# T\n\n${'Sentence number one is here. '.repeat(200)}`;

  it('refuses maxToken with "did you mean maxTokens?" in both functions (it chunked at the default 512 without a word)', () => {
    for (const run of [() => chunkDocument(source, { docName: 'd', maxToken: 50 } as never), () => chunkDocumentStream(source, { docName: 'd', maxToken: 50 } as never)]) {
      const err = thrown(run);
      expect(err).toBeInstanceOf(ChunkOptionsError);
      expect(err?.message).toMatch(/^unknown option "maxToken" \(did you mean maxTokens\?\); chunkDocument's options are docName, contentType, strategy, /);
      expect(err?.message).toContain('sourceSystem');
    }
  });

  it('suggests the option meant for a case or typing slip, and none for another library\'s key', () => {
    expect(errorOf({ MaxTokens: 64 })?.message).toMatch(/^unknown option "MaxTokens" \(did you mean maxTokens\?\)/);
    expect(errorOf({ stratgey: 'paginate' })?.message).toMatch(/^unknown option "stratgey" \(did you mean strategy\?\)/);
    expect(errorOf({ filetitle: 'Guide' })?.message).toMatch(/^unknown option "filetitle" \(did you mean fileTitle\?\)/);
    expect(errorOf({ chunkSize: 512 })?.message).toMatch(/^unknown option "chunkSize"; /);
    // Set to undefined is still a key the caller wrote wrong.
    expect(errorOf({ overlapSentence: undefined })?.message).toMatch(/^unknown option "overlapSentence" \(did you mean overlapSentences\?\)/);
    // A hostile key is cut and escaped as a value is.
    const hostile = errorOf({ [`\u001b[2J${'k'.repeat(100)}`]: 1 })!.message;
    expect(hostile).toContain('"\\u001b[2Jkkk');
    expect(hostile).not.toMatch(/[\u0000-\u001f]/);
    expect(hostile.length).toBeLessThan(1000);
  });

  it('is checked by strategyKey and recordedOptions too, and still takes every known option, recorded options and resolved ones', async () => {
    const { DEFAULT_OPTIONS, recordedOptions, strategyKey } = await import('./options.js');
    expect(() => strategyKey({ maxToken: 50 } as never)).toThrow(/did you mean maxTokens/);
    expect(() => recordedOptions({ maxToken: 50 } as never)).toThrow(/did you mean maxTokens/);
    const all = { ...DEFAULT_OPTIONS, fileTitle: 'G', fallbackTitle: 'F', sourceFile: 'g.md', sourceId: 'i', sourceSystem: 's' };
    expect(chunkDocument(source, all).chunks.length).toBeGreaterThan(1);
    const result = chunkDocument(source, { maxTokens: 64, targetTokens: 48 });
    expect(chunkDocument(source, result.options).strategyKey).toBe('semantic-16-48-64');
    // A symbol key is no option a caller could misspell; it is left alone.
    expect(chunkDocument(source, { [Symbol('tag')]: 1, maxTokens: 64, targetTokens: 48 } as never).strategyKey).toBe('semantic-16-48-64');
  });
});
