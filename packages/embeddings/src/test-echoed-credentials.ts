/**
 * Test support (not exported by the package): issue 15's probe of a server that echoes the
 * credentials it was sent, one suite for every client of a model server: the embedding
 * providers (secrets.test.ts) and @chunkyard/llm's chat client (its secrets.test.ts).
 *
 * A server (a proxy, a compatible server, anything at OPENAI_BASE_URL or OLLAMA_HOST) may echo
 * the request's Authorization header in its error page or in a 2xx body's error; the error
 * message quotes what the server wrote, and the CLIs print it to stderr and CI logs. The API key
 * and the Basic-auth password must never arrive there ("Incorrect API key provided: Bearer
 * sk-…" came back whole). Real clients against a real local server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type Handler, type TestServer } from './test-server.js';

export const KEY = 'sk-proj-SECRET0123456789abcdef';
export const PASSWORD = 'hunter2-long-password';
export const TOKEN = Buffer.from(`me:${PASSWORD}`).toString('base64');

export type Kind = 'ollama' | 'openai';

/** Where a client sends the secrets: ollama's host with PASSWORD in it (Basic auth), openai's base URL (KEY from `env`). */
export type CredentialedSettings = { provider: 'ollama'; host: string } | { provider: 'openai'; baseURL: string };

export interface EchoProbe<E extends { message: string; status: number | null }> {
  /** The describe title of one provider's probes. */
  title: (kind: Kind) => string;
  /** One call of the real client with `settings` (and no retries) and `env`, which fails. */
  call: (settings: CredentialedSettings, env: Record<string, string>) => Promise<unknown>;
  /** The class of the error it fails with. */
  error: abstract new (...args: never[]) => E;
  /** The package's own word for each failure (EmbeddingError's kind), when it has one. */
  kindOf?: (err: E) => string;
}

/** What the server echoes: the Authorization header, and the key or the password in the clear too. */
const echoed = (kind: Kind, auth: string | undefined) => `Incorrect API key provided: ${auth}; you sent ${kind === 'ollama' ? PASSWORD : KEY}`;

function expectNoSecret(message: string): void {
  expect(message).not.toContain(KEY);
  expect(message).not.toContain(PASSWORD);
  expect(message).not.toContain(TOKEN);
  expect(message).toContain('[redacted]');
}

export function describeEchoedCredentials<E extends { message: string; status: number | null }>(probe: EchoProbe<E>): void {
  let server: TestServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  describe.each<Kind>(['ollama', 'openai'])('%s', (kind) => {
    const fail = async (handler: Handler): Promise<E> => {
      server = await startServer(handler);
      const settings: CredentialedSettings = kind === 'ollama' ? { provider: kind, host: server.origin.replace('//', `//me:${PASSWORD}@`) } : { provider: kind, baseURL: `${server.origin}/v1` };
      const err = await probe.call(settings, { OPENAI_API_KEY: KEY }).then(
        () => expect.unreachable('the call succeeded'),
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(probe.error);
      expect(server.requests[0]!.headers.authorization).toBe(kind === 'ollama' ? `Basic ${TOKEN}` : `Bearer ${KEY}`);
      return err as E;
    };

    describe(probe.title(kind), () => {
      it('a 401 quoting the Authorization header: the message keeps the status and the words, not the key', async () => {
        const err = await fail((req, res) => {
          res.writeHead(401, { 'content-type': 'application/json' });
          const text = echoed(kind, req.headers.authorization);
          res.end(JSON.stringify(kind === 'ollama' ? { error: text } : { error: { message: text } }));
        });
        expect(err.status).toBe(401);
        if (probe.kindOf) expect(probe.kindOf(err)).toBe('auth');
        expect(err.message).toContain('HTTP 401: Incorrect API key provided:');
        expectNoSecret(err.message);
      });

      it.each([500, 502])('a %i error page in plain text', async (status) => {
        const err = await fail((req, res) => {
          res.writeHead(status, { 'content-type': 'text/plain' });
          res.end(echoed(kind, req.headers.authorization));
        });
        expect(err.status).toBe(status);
        if (probe.kindOf) expect(probe.kindOf(err)).toBe('http');
        expectNoSecret(err.message);
      });

      it('a 200 whose body carries an error instead of a result', async () => {
        const err = await fail((req, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: echoed(kind, req.headers.authorization) }));
        });
        if (probe.kindOf) expect(probe.kindOf(err)).toBe('malformed');
        expect(err.message).toContain('malformed response');
        expectNoSecret(err.message);
      });
    });
  });
}
