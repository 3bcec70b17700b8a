// A 2xx body that is not UTF-8 (a Latin-1 byte in a JSON string, a Latin-1 page): both client
// packages decoded it with replacement characters and went on, so it was either taken (a chat
// reply "caf\uFFFD", vectors beside a broken field) or quoted as "Gr\uFFFD\uFFFDe … is not valid
// JSON". limitResponse now refuses it where it stops being UTF-8, and the providers report a
// malformed response naming the URL and the byte. Real servers (node:http), the real clients.
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { limitResponse, ResponseNotUtf8Error } from './attempt.js';
import { createProvider, type EmbeddingSettings } from './index.js';
import { failure, LATIN1_PAGE, latin1ErrorBodies, serveByteByByte, serveBytes, type TestServer } from './test-server.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** `bytes` as a 200 (or `status`) response whose body arrives in the pieces `cuts` make. */
function responseOf(bytes: Uint8Array, cuts: number[], status = 200): Response {
  const edges = [0, ...[...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b), bytes.length];
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 1; i < edges.length; i++) if (edges[i]! > edges[i - 1]!) controller.enqueue(bytes.slice(edges[i - 1], edges[i]));
      controller.close();
    },
  });
  return new Response(body, { status });
}

/** The longest prefix of `bytes` that is UTF-8: where the first bad sequence starts. */
function validPrefix(bytes: Uint8Array): number {
  for (let p = bytes.length; p > 0; p--) if (isUtf8(bytes.subarray(0, p))) return p;
  return 0;
}

// Bytes near UTF-8's edges: ASCII, continuation bytes, every lead, and the bytes never allowed.
const byte = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xbf }), fc.constantFrom(0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff));
const text = fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => new Uint8Array(Buffer.from(s, 'utf8')));
const body = fc.oneof(fc.uint8Array({ maxLength: 24 }), fc.array(byte, { maxLength: 16 }).map((a) => Uint8Array.from(a)), fc.tuple(text, fc.array(byte, { maxLength: 3 }), text).map(([a, b, c]) => Uint8Array.from([...a, ...b, ...c])));

describe('limitResponse on a 2xx body', () => {
  it('passes UTF-8 through whole, however it is cut into chunks, and refuses anything else at its first bad byte', async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.array(fc.nat(), { maxLength: 6 }), async (bytes, cuts) => {
        const read = limitResponse(responseOf(bytes, cuts), 1024).arrayBuffer();
        if (isUtf8(bytes)) {
          expect(new Uint8Array(await read)).toEqual(bytes);
          return;
        }
        const err = await read.then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ResponseNotUtf8Error);
        const at = validPrefix(bytes);
        const message = (err as Error).message;
        expect(message.startsWith('the body is not UTF-8 JSON (')).toBe(true);
        // A body that ends inside a character (the native decoder, streaming, finds nothing wrong
        // until the end) is said so; else the byte is named, in hex.
        let endsInside = true;
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
        } catch {
          endsInside = false;
        }
        expect(message).toContain(endsInside ? `it ends inside a character, at byte ${at}` : `byte ${at}, 0x${bytes[at]!.toString(16).toUpperCase().padStart(2, '0')}, is not UTF-8`);
      }),
    );
  });

});

describe('limitResponse on an error body', () => {
  it('passes UTF-8 on as it is, and reads anything else as Windows-1252 (Latin-1), however it is cut', async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.array(fc.nat(), { maxLength: 6 }), fc.constantFrom(400, 404, 500, 503), async (bytes, cuts, status) => {
        const text = await limitResponse(responseOf(bytes, cuts, status), 1024).text();
        expect(text).toBe(isUtf8(bytes) ? Buffer.from(bytes).toString('utf8') : new TextDecoder('windows-1252').decode(bytes));
        expect(text).not.toContain('\uFFFD');
      }),
    );
  });
});

const E9 = Buffer.from([0xe9]);
const settings = (provider: 'ollama' | 'openai', s: TestServer): EmbeddingSettings =>
  provider === 'ollama' ? { provider, host: s.origin, maxRetries: 2, backoffMs: 1 } : { provider, baseURL: `${s.origin}/v1`, maxRetries: 2, backoffMs: 1 };
/** A body with the vectors for one input, and a field holding `field` (raw bytes). */
const vectorsWith = (provider: 'ollama' | 'openai', field: Buffer) =>
  Buffer.concat([
    Buffer.from(provider === 'ollama' ? '{"model":"m","embeddings":[[1,2,3]],"note":"caf' : '{"object":"list","model":"m","data":[{"object":"embedding","index":0,"embedding":[1,2,3]}],"note":"caf'),
    field,
    Buffer.from('"}'),
  ]);

describe.each(['ollama', 'openai'] as const)('%s embeddings: a body that is not UTF-8', (provider) => {
  const path = provider === 'ollama' ? '/api/embed' : '/v1/embeddings';

  it.each([
    ['a JSON body with a Latin-1 byte in a string', vectorsWith(provider, E9), 'application/json'],
    ['a Latin-1 text page', LATIN1_PAGE, 'text/plain'],
  ])('%s: a malformed response naming the URL and the byte, not retried', async (_what, bytes, type) => {
    server = await serveBytes(200, type, bytes);
    const err = await failure(createProvider(settings(provider, server), { OPENAI_API_KEY: 'sk-test' }).embed(['a']));
    expect(err.kind).toBe('malformed');
    const at = validPrefix(bytes);
    expect(err.message).toContain(`(${server.origin}${path}): malformed response: the body is not UTF-8 JSON (byte ${at}, 0x${bytes[at]!.toString(16).toUpperCase()}, is not UTF-8: Latin-1 or another encoding)`);
    expect(err.message).not.toContain('\uFFFD');
    expect(err.message).not.toMatch(/\n\s+at /);
    expect(server.requests).toHaveLength(1);
  });

  it.each(latin1ErrorBodies(provider))('an error body in Latin-1 (%s) is quoted in its own words, not with replacement characters', async (_what, bytes, type) => {
    server = await serveBytes(400, type, bytes);
    const err = await failure(createProvider(settings(provider, server), { OPENAI_API_KEY: 'sk-test' }).embed(['a']));
    expect(err.message).toMatch(new RegExp(`^${provider} embeddings \\(${server.origin}${path}\\): HTTP 400: (400 )?"?Ungültige Anfrage`));
    expect(err.message).not.toContain('\uFFFD');
  });

  it('UTF-8 sent one byte at a time (characters split between chunks) is read', async () => {
    server = await serveByteByByte(vectorsWith(provider, Buffer.from('é ✓ 😀')));
    const vectors = await createProvider(settings(provider, server), { OPENAI_API_KEY: 'sk-test' }).embed(['a']);
    expect(vectors.map((v) => Array.from(v))).toEqual([[1, 2, 3]]);
  });
});
