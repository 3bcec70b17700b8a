// Both remote providers against a configured server that answers with a redirect. fetch's own
// 'follow' resent a 307/308's request, the texts to embed included, to whatever host the
// Location header named (fetch drops only the Authorization header there). A redirect to
// another origin is now refused before anything is sent there; one within the origin is
// followed; a chain that never ends is cut.
import { afterEach, describe, expect, it } from 'vitest';
import { createProvider } from './index.js';
import { failure, fakeVector, sendJson, startServer, type RecordedRequest, type TestServer } from './test-server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

type Kind = 'ollama' | 'openai';
const ENDPOINT: Record<Kind, string> = { ollama: '/api/embed', openai: '/v1/embeddings' };

async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const s = await startServer(handler);
  servers.push(s);
  return s;
}

function provider(kind: Kind, origin: string) {
  const where = kind === 'ollama' ? { host: origin } : { baseURL: `${origin}/v1` };
  return createProvider({ provider: kind, ...where, backoffMs: 1, maxRetries: 2 }, { OPENAI_API_KEY: 'sk-secret' });
}

/** A documented 200 for the request's inputs, wherever it was sent. */
function answer(kind: Kind) {
  return (req: RecordedRequest, res: Parameters<Parameters<typeof startServer>[0]>[1]) => {
    const input = (req.body as { input: string[] }).input;
    if (kind === 'ollama') return sendJson(res, 200, { model: 'm', embeddings: input.map((t) => fakeVector(t)) });
    sendJson(res, 200, { object: 'list', model: 'm', data: input.map((t, index) => ({ object: 'embedding', index, embedding: fakeVector(t) })) });
  };
}

describe.each<Kind>(['ollama', 'openai'])('%s provider against a server that redirects', (kind) => {
  it.each([307, 308])('refuses a %i to another origin, sending it nothing, and names both addresses', async (status) => {
    const elsewhere = await serve(answer(kind));
    const configured = await serve((req, res) => void res.writeHead(status, { location: `${elsewhere.origin}${req.path}` }).end());
    const err = await failure(provider(kind, configured.origin).embed(['confidential text-1']));
    expect(elsewhere.requests).toHaveLength(0);
    // Not retried: asking again would get the same redirect.
    expect(configured.requests).toHaveLength(1);
    expect(err.kind).toBe('http');
    expect(err.status).toBe(status);
    expect(err.message).toContain(`HTTP ${status}: a redirect from ${configured.origin}${ENDPOINT[kind]} to ${elsewhere.origin}${ENDPOINT[kind]}, another origin: not followed`);
    expect(err.fix).toMatch(kind === 'ollama' ? /set OLLAMA_HOST \(or embeddings\.host\) to its address/ : /set OPENAI_BASE_URL \(or embeddings\.baseURL\) to its address/);
  });

  it('follows a redirect within the origin, resending the request there', async () => {
    const s = await serve((req, res) => (req.path === `${ENDPOINT[kind]}/` ? answer(kind)(req, res) : void res.writeHead(308, { location: `${req.path}/` }).end()));
    const out = await provider(kind, s.origin).embed(['text-5']);
    expect(out[0]![0]).toBe(5);
    expect(s.requests.map((r) => [r.method, r.path])).toEqual([
      ['POST', ENDPOINT[kind]],
      ['POST', `${ENDPOINT[kind]}/`],
    ]);
    expect((s.requests[1]!.body as { input: string[] }).input).toEqual(['text-5']);
    if (kind === 'openai') expect(s.requests[1]!.headers.authorization).toBe('Bearer sk-secret');
  });

  // fetch turns a POST into a GET without its body on a 301, 302 or 303, so the server never
  // saw the texts: a proxy adding a trailing slash with a 301 ended in "HTTP 405: Method Not
  // Allowed. Check embeddings.model …", the redirect nowhere in the message (helper-77 probe).
  it.each([301, 302, 303])('refuses a %i within the origin, which would resend the POST as a GET without the texts, naming both addresses', async (status) => {
    const s = await serve((req, res) => (req.path === `${ENDPOINT[kind]}/` && req.method === 'POST' ? answer(kind)(req, res) : req.path.endsWith('/') ? sendJson(res, 405, { error: 'Method Not Allowed' }) : void res.writeHead(status, { location: `${req.path}/` }).end()));
    const err = await failure(provider(kind, s.origin).embed(['a']));
    expect(s.requests.map((r) => [r.method, r.path])).toEqual([['POST', ENDPOINT[kind]]]);
    expect(err.kind).toBe('http');
    expect(err.status).toBe(status);
    expect(err.message).toContain(`HTTP ${status}: a redirect from ${s.origin}${ENDPOINT[kind]} to ${s.origin}${ENDPOINT[kind]}/, which turns the POST into a GET without its body: not followed`);
    expect(err.fix).toMatch(kind === 'ollama' ? /set OLLAMA_HOST \(or embeddings\.host\) to its address/ : /set OPENAI_BASE_URL \(or embeddings\.baseURL\) to its address/);
  });

  it('refuses a redirect to an address that is not http(s)', async () => {
    const s = await serve((_req, res) => void res.writeHead(307, { location: 'file:///etc/passwd' }).end());
    const err = await failure(provider(kind, s.origin).embed(['a']));
    expect(err.message).toContain('to "file:///etc/passwd", which is not an http(s) address');
  });

  it('cuts a chain of redirects that never ends', async () => {
    const s = await serve((req, res) => void res.writeHead(307, { location: req.path }).end());
    const err = await failure(provider(kind, s.origin).embed(['a']));
    expect(err.message).toContain('more than 20 redirects');
    expect(s.requests).toHaveLength(21);
  });
});
