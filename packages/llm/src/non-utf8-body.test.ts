// A chat reply whose body is not UTF-8: both clients decoded it with replacement characters, so
// a reply holding a Latin-1 byte came back as "caf\uFFFD" (and went into the cache and the lead
// lines), and a Latin-1 page was quoted as "Gr\uFFFD\uFFFDe … is not valid JSON". Now a malformed
// response naming the URL and the byte. Real servers (node:http), the real ollama and openai clients.
import { afterEach, describe, expect, it } from 'vitest';
import { LATIN1_PAGE, latin1ErrorBodies, serveByteByByte, serveBytes, type TestServer } from '../../embeddings/src/test-server.js';
import { createChatClient, LlmError, type LlmSettings } from './index.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const settings = (provider: 'ollama' | 'openai', s: TestServer): LlmSettings =>
  provider === 'ollama' ? { provider, host: s.origin, maxRetries: 2, backoffMs: 1 } : { provider, baseURL: `${s.origin}/v1`, maxRetries: 2, backoffMs: 1 };

/** A reply whose content is "caf" then `tail` (raw bytes), as each API sends it. */
const replyWith = (provider: 'ollama' | 'openai', tail: Buffer) =>
  Buffer.concat([
    Buffer.from(
      provider === 'ollama'
        ? '{"model":"m","created_at":"2026-11-23T00:00:00Z","done":true,"message":{"role":"assistant","content":"caf'
        : '{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"caf',
    ),
    tail,
    Buffer.from(provider === 'ollama' ? '"}}' : '"}}]}'),
  ]);

describe.each(['ollama', 'openai'] as const)('%s chat: a reply that is not UTF-8', (provider) => {
  const path = provider === 'ollama' ? '/api/chat' : '/v1/chat/completions';
  const chat = (s: TestServer) => createChatClient(settings(provider, s), { OPENAI_API_KEY: 'sk-test' }).chat([{ role: 'user', content: 'q' }]);

  it.each([
    ['a JSON reply with a Latin-1 byte in its content', replyWith(provider, Buffer.from([0xe9])), 'application/json'],
    ['a Latin-1 text page', LATIN1_PAGE, 'text/plain'],
  ])('%s: a malformed response naming the URL and the byte, not retried', async (_what, bytes, type) => {
    server = await serveBytes(200, type, bytes);
    const err = await chat(server).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LlmError);
    const message = (err as LlmError).message;
    const at = bytes.indexOf(bytes.find((b) => b >= 0x80)!);
    expect(message).toContain(`${provider} chat (${server.origin}${path}): malformed response: the body is not UTF-8 JSON (byte ${at}, 0x${bytes[at]!.toString(16).toUpperCase()}, is not UTF-8: Latin-1 or another encoding)`);
    expect(message).not.toContain('\uFFFD');
    expect(message).not.toMatch(/\n\s+at /);
    expect(server.requests).toHaveLength(1);
  });

  it.each(latin1ErrorBodies(provider))('an error body in Latin-1 (%s) is quoted in its own words, not with replacement characters', async (_what, bytes, type) => {
    server = await serveBytes(400, type, bytes);
    const err = await chat(server).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).message).toMatch(new RegExp(`^${provider} chat \\(${server.origin}${path}\\): HTTP 400: (400 )?"?Ungültige Anfrage`));
    expect((err as LlmError).message).not.toContain('\uFFFD');
  });

  it('a UTF-8 reply sent one byte at a time (characters split between chunks) is read whole', async () => {
    server = await serveByteByByte(replyWith(provider, Buffer.from('é ✓ 😀')));
    expect(await chat(server)).toBe('café ✓ 😀');
  });
});
