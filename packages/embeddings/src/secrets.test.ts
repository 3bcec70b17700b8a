// A server (a proxy, a compatible server, anything at OPENAI_BASE_URL or OLLAMA_HOST) may echo
// the request's Authorization header in its error page or in a 2xx body's error; the message
// quotes what the server wrote, and CLIs print it to stderr and CI logs. The key and the
// Basic-auth password must never arrive there (issue 15 probe: "Incorrect API key provided:
// Bearer sk-…" came back whole). Real providers against a real local server.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { MIN_REDACTED_LENGTH, redactSecrets } from './attempt.js';
import { createProvider } from './index.js';
import { failure, startServer, type TestServer } from './test-server.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const KEY = 'sk-proj-SECRET0123456789abcdef';
const PASSWORD = 'hunter2-long-password';
const TOKEN = Buffer.from(`me:${PASSWORD}`).toString('base64');

type Kind = 'ollama' | 'openai';
const provider = (kind: Kind, s: TestServer) =>
  createProvider(
    { provider: kind, ...(kind === 'ollama' ? { host: s.origin.replace('//', `//me:${PASSWORD}@`) } : { baseURL: `${s.origin}/v1` }), backoffMs: 1, maxRetries: 0 },
    { OPENAI_API_KEY: KEY },
  );

/** What the server echoes: the Authorization header, and the key or the password in the clear too. */
const echoed = (kind: Kind, auth: string | undefined) => `Incorrect API key provided: ${auth}; you sent ${kind === 'ollama' ? PASSWORD : KEY}`;

function expectNoSecret(message: string): void {
  expect(message).not.toContain(KEY);
  expect(message).not.toContain(PASSWORD);
  expect(message).not.toContain(TOKEN);
  expect(message).toContain('[redacted]');
}

describe.each<Kind>(['ollama', 'openai'])('%s provider against a server that echoes the credentials it was sent (issue 15 probe)', (kind) => {
  it('a 401 quoting the Authorization header: the message keeps the status and the words, not the key', async () => {
    server = await startServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      const text = echoed(kind, req.headers.authorization);
      res.end(JSON.stringify(kind === 'ollama' ? { error: text } : { error: { message: text } }));
    });
    const err = await failure(provider(kind, server).embed(['a']));
    expect(server.requests[0]!.headers.authorization).toBe(kind === 'ollama' ? `Basic ${TOKEN}` : `Bearer ${KEY}`);
    expect(err.kind).toBe('auth');
    expect(err.message).toContain('HTTP 401: Incorrect API key provided:');
    expectNoSecret(err.message);
  });

  it('a 500 error page in plain text, after the retries', async () => {
    server = await startServer((req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(echoed(kind, req.headers.authorization));
    });
    const err = await failure(provider(kind, server).embed(['a']));
    expect(err.status).toBe(500);
    expectNoSecret(err.message);
  });

  it('a 200 whose body carries an error instead of embeddings', async () => {
    server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: echoed(kind, req.headers.authorization) }));
    });
    const err = await failure(provider(kind, server).embed(['a']));
    expect(err.kind).toBe('malformed');
    expectNoSecret(err.message);
  });
});

describe('redactSecrets', () => {
  it('replaces every occurrence of each secret, and leaves short ones (a dummy key such as "x") alone', () => {
    expect(redactSecrets(`a ${KEY} b ${KEY}`, [KEY])).toBe('a [redacted] b [redacted]');
    expect(redactSecrets('x marks the spot', ['x'])).toBe('x marks the spot');
  });

  it('never leaves a secret of redactable length in the text, wherever it is planted', () => {
    // Keys and tokens are of these characters (base64 adds + / =), none of them a bracket, so a
    // marker put in cannot join with its neighbours into a secret.
    const secretArb = fc.stringMatching(new RegExp(`^[A-Za-z0-9_+/=-]{${MIN_REDACTED_LENGTH},40}$`));
    fc.assert(
      fc.property(fc.array(secretArb, { minLength: 1, maxLength: 3 }), fc.array(fc.string({ maxLength: 20 }), { maxLength: 6 }), (secrets, pieces) => {
        // Each secret planted between the pieces, the secrets also side by side (overlaps).
        const text = pieces.reduce((acc, p, i) => `${acc}${p}${secrets[i % secrets.length]!}`, secrets.join(''));
        const out = redactSecrets(text, secrets);
        // A secret the redaction marker itself spells cannot be told apart; none of these can.
        for (const s of secrets) if (!'[redacted]'.includes(s)) expect(out).not.toContain(s);
      }),
    );
  });
});

describe('redactSecrets on a quote cut inside a secret', () => {
  it('redacts the start of a secret that a cut quote ends with, `…` or not (helper-36 probe: the 300-character cut left the key\'s first part)', () => {
    const body = `Incorrect API key provided: Bearer ${KEY}. See the docs.`;
    const at = body.indexOf(KEY);
    for (let cut = at + 4; cut < at + KEY.length; cut++) {
      for (const ellipsis of ['…', '']) {
        const out = redactSecrets(`${body.slice(0, cut)}${ellipsis}`, [KEY]);
        expect(out).toBe(`${body.slice(0, at)}[redacted]${ellipsis}`);
      }
    }
    // Under four characters of it: nothing of a key, and ordinary text is left alone.
    expect(redactSecrets(`${body.slice(0, at + 3)}…`, [KEY])).toBe(`${body.slice(0, at + 3)}…`);
    // A whole secret and a cut one in the same quote.
    expect(redactSecrets(`${KEY} and ${KEY.slice(0, 10)}…`, [KEY])).toBe('[redacted] and [redacted]…');
  });

  it('leaves no four-character start of the secret at the end of any cut (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: MIN_REDACTED_LENGTH, maxLength: 40 }), fc.string({ maxLength: 30 }), fc.nat(), (secret, before, at) => {
        const text = `${before}${secret}`;
        const cut = before.length + 4 + (at % Math.max(1, secret.length - 4));
        const out = redactSecrets(`${text.slice(0, cut)}…`, [secret]);
        for (let k = 4; k < secret.length; k++) expect(out.slice(0, -1).endsWith(secret.slice(0, k))).toBe(false);
      }),
    );
  });
});
