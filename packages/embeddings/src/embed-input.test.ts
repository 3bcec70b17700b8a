/**
 * What `embed` says to a JavaScript caller whose arguments are not what the types promise
 * (issue 15's library probe, from the packed package): a TypeError naming the argument, before
 * any vector is made or any request sent, for the local provider and both remote ones.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cosine, createProvider, EmbeddingError, lexicalFeatures } from './index.js';

// Nothing listens on port 1: a request sent there fails as a refused connection, so an argument
// error (a TypeError) shows that embed refused before sending anything.
const env = { OPENAI_API_KEY: 'sk-test', OLLAMA_HOST: 'http://127.0.0.1:1' };
const providers = () => [
  createProvider({ provider: 'local' }, env),
  createProvider({ provider: 'ollama', maxRetries: 0 }, env),
  createProvider({ provider: 'openai', baseURL: 'http://127.0.0.1:1/v1', maxRetries: 0 }, env),
];

describe('embed arguments (issue 15 library probe)', () => {
  it('a string is refused, not embedded one vector per character (locally) or sent whole for three result slots', async () => {
    for (const p of providers()) {
      await expect(p.embed('abc' as never), p.provider).rejects.toThrow(new TypeError('embed: texts must be an array of strings, got string'));
      await expect(p.embed(null as never)).rejects.toThrow(new TypeError('embed: texts must be an array of strings, got null'));
    }
  });

  it('a text that is not a string is named by its index (was "text.toLowerCase is not a function", or sent to the server)', async () => {
    for (const p of providers()) {
      await expect(p.embed(['ok', 5 as never]), p.provider).rejects.toThrow(new TypeError('embed: texts[1] must be a string, got number'));
      await expect(p.embed([null as never])).rejects.toThrow(new TypeError('embed: texts[0] must be a string, got null'));
    }
  });

  it('null options are no options, and an onProgress that is not a function is named (null threw "Cannot destructure property \'signal\'")', async () => {
    const [local, ...remote] = providers();
    expect(await local!.embed(['a b'], null as never)).toHaveLength(1);
    await expect(local!.embed(['a'], { onProgress: 5 as never })).rejects.toThrow(new TypeError('embed: options.onProgress must be a function, got number'));
    for (const p of remote) {
      // Past the argument checks, the request itself fails: the refused connection, not a TypeError.
      await expect(p.embed(['a'], null as never)).rejects.toBeInstanceOf(EmbeddingError);
      await expect(p.embed(['a'], { onProgress: 'x' as never })).rejects.toThrow(new TypeError('embed: options.onProgress must be a function, got string'));
    }
  });

  it('the local provider embeds any array of strings, lone surrogates and NUL included, one normalised vector each', async () => {
    const local = createProvider({ provider: 'local', dimensions: 64 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: fc.oneof(fc.constantFrom('\ud800', '\udc00', '\u0000', ' ', 'é', 'Run', 'ning'), fc.string({ maxLength: 3 })) })), async (texts) => {
        const vectors = await local.embed(texts);
        expect(vectors).toHaveLength(texts.length);
        for (const v of vectors) {
          const norm = Math.hypot(...v);
          expect(norm === 0 || Math.abs(norm - 1) < 1e-5).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('createProvider refuses an onRetry that is not a function (kind config), where the first retry threw "onRetry is not a function"', () => {
    for (const provider of ['local', 'ollama', 'openai'] as const) {
      let err: unknown;
      try {
        createProvider({ provider, onRetry: 5 as never }, env);
      } catch (e) {
        err = e;
      }
      expect(err, provider).toBeInstanceOf(EmbeddingError);
      expect((err as EmbeddingError).kind).toBe('config');
      expect((err as EmbeddingError).message).toContain('onRetry must be a function, got 5');
    }
    expect(createProvider({ provider: 'ollama', onRetry: () => {} }, env).model).toBe('mxbai-embed-large');
  });

  it('createProvider, cosine and lexicalFeatures name an argument of the wrong type (were "Cannot read properties of null" and "text.toLowerCase is not a function")', () => {
    for (const bad of [null, undefined, 'local', ['local']]) {
      let err: unknown;
      try {
        createProvider(bad as never);
      } catch (e) {
        err = e;
      }
      expect(err, String(bad)).toBeInstanceOf(EmbeddingError);
      expect((err as EmbeddingError).kind).toBe('config');
      expect((err as EmbeddingError).message).toMatch(/the embedding settings must be an object, got (null|undefined|string|an array)/);
    }
    expect(() => createProvider({ provider: 'ollama' }, null as never)).toThrow(new TypeError('createProvider: env must be an object of environment variables (or left out), got null'));
    expect(() => cosine(null as never, new Float32Array(2))).toThrow(new TypeError('cosine: both vectors must be arrays of numbers (Float32Array)'));
    expect(cosine([1, 0] as never, [1, 0] as never)).toBe(1);
    expect(() => lexicalFeatures(5 as never)).toThrow(new TypeError('lexicalFeatures: the text must be a string, got number'));
  });
});
