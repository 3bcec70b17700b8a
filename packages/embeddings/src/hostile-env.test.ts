// Addresses and keys from the environment (or the config) that cannot work: each is a `config`
// EmbeddingError from createProvider or the first embed, before any request, naming the
// variable and never echoing a secret. They were raw TypeErrors and URIErrors from URL parsing
// and fetch, and a password in OPENAI_BASE_URL came back inside the message.
import { describe, expect, it } from 'vitest';
import { createProvider, EmbeddingError, type EmbeddingSettings } from './index.js';

function configError(settings: EmbeddingSettings, env: Record<string, string>): Promise<EmbeddingError> {
  return (async () => {
    try {
      await createProvider({ maxRetries: 0, timeoutMs: 2000, ...settings }, env).embed(['a']);
    } catch (err) {
      expect(err).toBeInstanceOf(EmbeddingError);
      return err as EmbeddingError;
    }
    throw new Error('expected an EmbeddingError');
  })();
}

describe('ollama: hosts that cannot work are config errors', () => {
  it.each([
    ['file:///etc/passwd', /OLLAMA_HOST must be an http\(s\) address, got "file:\/\/\/etc\/passwd"/],
    ['ftp://x', /OLLAMA_HOST must be an http\(s\) address, got "ftp:\/\/x"/],
    ['http://u:p%ZZ@127.0.0.1:1', /OLLAMA_HOST is not a valid address/],
  ])('OLLAMA_HOST=%s', async (host, message) => {
    const err = await configError({ provider: 'ollama' }, { OLLAMA_HOST: host });
    expect(err.kind).toBe('config');
    expect(err.message).toMatch(message);
    expect(err.message).not.toContain('%ZZ');
  });

  it('names embeddings.host when the address came from the settings', async () => {
    const err = await configError({ provider: 'ollama', host: 'file:///x' }, {});
    expect(err.message).toMatch(/embeddings\.host must be an http\(s\) address/);
  });
});

describe('openai: base URLs and keys that cannot work are config errors', () => {
  it.each([['file:///etc/'], ['data:text/plain,hi'], ['ftp://example.com/v1']])('OPENAI_BASE_URL=%s', async (baseURL) => {
    const err = await configError({ provider: 'openai' }, { OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'k' });
    expect(err.kind).toBe('config');
    expect(err.message).toMatch(/OPENAI_BASE_URL must be an http\(s\) URL/);
  });

  it('refuses credentials in OPENAI_BASE_URL without repeating them', async () => {
    const err = await configError({ provider: 'openai' }, { OPENAI_BASE_URL: 'http://user:hunter2@127.0.0.1:1/v1', OPENAI_API_KEY: 'k' });
    expect(err.kind).toBe('config');
    expect(err.message).toMatch(/OPENAI_BASE_URL holds a user name or password/);
    expect(err.message).not.toContain('hunter2');
  });

  it.each([
    ['a line break', 'sk-abc\nX-Evil: 1'],
    ['a non-ASCII character', 'sk-ключ'],
  ])('refuses an OPENAI_API_KEY holding %s, without repeating it', async (_what, key) => {
    const err = await configError({ provider: 'openai', baseURL: 'http://127.0.0.1:1/v1' }, { OPENAI_API_KEY: key });
    expect(err.kind).toBe('auth');
    expect(err.message).toMatch(/OPENAI_API_KEY holds characters an HTTP header cannot carry/);
    expect(err.message).not.toContain(key.slice(3));
  });
});

// A query or fragment in the address: the openai package builds its URLs by appending
// `/embeddings` to the base URL as a string, so `http://h/v1?api-key=SECRET` sent the request
// to POST /v1 with `api-key=SECRET%2Fembeddings`, and every error printed the key in its URL
// (`openai embeddings (http://h/v1?api-key=SECRET/embeddings): …`); a `#frag` went to /v1. The
// ollama package dropped the query without a word, so a token there was never sent.
describe('addresses holding a query or fragment are config errors that do not repeat it', () => {
  const SECRET = 'QSECRET123456789abcdef';
  it.each([
    ['openai', 'OPENAI_BASE_URL', `http://127.0.0.1:1/v1?api-key=${SECRET}`],
    ['openai', 'OPENAI_BASE_URL', `http://127.0.0.1:1/v1#${SECRET}`],
    ['openai', 'OPENAI_BASE_URL', `http://127.0.0.1:1/v1?`],
    ['ollama', 'OLLAMA_HOST', `http://127.0.0.1:1/?token=${SECRET}`],
    ['ollama', 'OLLAMA_HOST', `localhost:11434#${SECRET}`],
  ] as const)('%s, %s=%s', async (provider, variable, address) => {
    const err = await configError({ provider }, { [variable]: address, OPENAI_API_KEY: 'k' });
    expect(err.kind).toBe('config');
    expect(err.message).toContain(`${variable} holds a query or fragment`);
    expect(err.message).not.toContain(SECRET);
  });

  it('names the setting it came from', async () => {
    const err = await configError({ provider: 'openai', baseURL: `http://127.0.0.1:1/v1?key=${SECRET}` }, { OPENAI_API_KEY: 'k' });
    expect(err.message).toContain('embeddings.baseURL holds a query or fragment');
  });

  it('a refused scheme or unparsable address is shown without its query', async () => {
    for (const [provider, variable] of [['openai', 'OPENAI_BASE_URL'], ['ollama', 'OLLAMA_HOST']] as const) {
      for (const address of [`ftp://127.0.0.1/v1?key=${SECRET}`, `http://[::1/v1?key=${SECRET}`]) {
        const err = await configError({ provider }, { [variable]: address, OPENAI_API_KEY: 'k' });
        expect(err.kind).toBe('config');
        expect(err.message).not.toContain(SECRET);
      }
    }
  });
});
