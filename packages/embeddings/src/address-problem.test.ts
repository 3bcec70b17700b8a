// addressProblem: the one check, shared by the embedding providers and @chunkyard/llm's chat
// client, that a model server's address holds no query, fragment or (openai) credentials.
// Until session 61 each package kept a copy; these are the invariants both rely on.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressProblem } from './attempt.js';

const SECRET = 'S3CRETs3cret0123';
const host = fc.constantFrom('http://127.0.0.1:11434', 'https://api.example.com', 'http://localhost:1');
const path = fc.constantFrom('', '/', '/v1', '/openai/v1');
const from = fc.constantFrom('llm.baseURL', 'llm.host', 'embeddings.baseURL', 'embeddings.host', 'OPENAI_BASE_URL', 'OLLAMA_HOST');
const provider = fc.constantFrom('ollama' as const, 'openai' as const);

describe('addressProblem', () => {
  it('a query or fragment is refused, naming the setting it came from and never repeating the address', () => {
    fc.assert(
      fc.property(provider, from, host, path, fc.constantFrom('?', '#', '?k=', '#t='), (p, f, h, pa, mark) => {
        const found = addressProblem(p, f, `${h}${pa}${mark}${SECRET}`, '/api/chat');
        expect(found).not.toBeNull();
        expect(found!.problem.startsWith(`${f} holds a query or fragment`)).toBe(true);
        expect(found!.fix).toContain(f);
        expect(`${found!.problem} ${found!.fix}`).not.toContain(SECRET);
      }),
    );
  });

  it('credentials are refused for openai (fetch cannot send them) and left to ollama (a Basic header)', () => {
    fc.assert(
      fc.property(from, host, path, (f, h, pa) => {
        const address = h.replace('//', `//user:${SECRET}@`) + pa;
        const found = addressProblem('openai', f, address, '/embeddings');
        expect(found?.problem).toBe(`${f} holds a user name or password, which the request cannot carry`);
        expect(`${found!.problem} ${found!.fix}`).not.toContain(SECRET);
        expect(addressProblem('ollama', f, address, '/api/embed')).toBeNull();
      }),
    );
  });

  it('a plain address passes', () => {
    fc.assert(
      fc.property(provider, from, host, path, (p, f, h, pa) => {
        expect(addressProblem(p, f, `${h}${pa}`, '/embeddings')).toBeNull();
      }),
    );
  });
});
