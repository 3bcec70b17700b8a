// LLM lead lines: generated through the real clients against a local chat server, cached by
// content, model and prompt (a rerun makes no request; a corrupt entry is rebuilt), applied to
// paginate's pages without moving a byte of the source text.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkDocument, countTokens, type ChunkDocumentResult } from '@chunkyard/chunking';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startChatServer, userText, type ChatBody, type TestServer } from './chat-server.js';
import { applyLeadSentences, cacheKey, cachedChat, createChatClient, generateLeadSentences, LEAD_PROMPTS, LlmCache, oneLine, promptSha256, sha256 } from './index.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const SOURCE = readFileSync(join(REPO, 'docs/deployment/native-aot/golden-reference.md'), 'utf8');
const paged = (): ChunkDocumentResult => chunkDocument(SOURCE, { strategy: 'paginate', ctxSize: 612, bufSize: 100, docName: 'golden-reference', sourceFile: 'golden-reference.md' });

/** The fake model: a sentence naming the prompt kind and the page's first heading-ish words. */
function reply(body: ChatBody): string {
  const user = userText(body);
  const kind = user.startsWith('Summarize') ? 'Recap' : 'Preview';
  const page = user.slice(user.indexOf('\n\n') + 2);
  return `"${kind} of ${page.replace(/[^A-Za-z ]+/g, ' ').trim().split(/\s+/).slice(0, 6).join(' ')} <b>."`;
}

let server: TestServer | null = null;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkyard-llm-'));
});
afterEach(async () => {
  await server?.close();
  server = null;
  rmSync(dir, { recursive: true, force: true });
});

const files = (d: string): string[] => readdirSync(d, { recursive: true, encoding: 'utf8' }).filter((f) => statSync(join(d, f)).isFile());

describe.each(['ollama', 'openai'] as const)('lead sentences from %s', (provider) => {
  it('writes every lead line from the model at T = 0.2, caches them, and a rerun makes no request', async () => {
    server = await startChatServer(reply);
    const settings = provider === 'ollama' ? { provider, host: server.origin, model: 'llama3.2' } : { provider, baseURL: `${server.origin}/v1`, model: 'gpt-4o-mini' };
    const client = createChatClient(settings, { OPENAI_API_KEY: 'sk-test' });
    const result = paged();
    const n = result.chunks.length;
    expect(n).toBeGreaterThan(3);
    const first = await generateLeadSentences(result, client, new LlmCache(dir));
    // One summary per page with a successor, one preview per page with a predecessor.
    expect(first.requests).toBe(2 * (n - 1));
    expect(server.requests).toHaveLength(2 * (n - 1));
    for (const r of server.requests) {
      const b = r.body as ChatBody;
      expect(provider === 'ollama' ? b.options?.temperature : b.temperature).toBe(0.2);
    }
    const out = applyLeadSentences(result, first);
    for (let i = 0; i < n; i++) {
      const page = out.chunks[i]!.page!;
      if (i > 0) expect(page.leadIn).toMatch(new RegExp(`^<p>\\[Lead-in\\] Continuing from ${page.ct.prev}: Recap of .* &lt;b&gt;\\.</p>$`));
      if (i < n - 1) expect(page.leadOut).toMatch(new RegExp(`^<p>\\[Lead-out\\] Upcoming in ${page.ct.next}: Preview of .*</p>$`));
      // The exact source text, the CT comment and the cap are untouched.
      expect(out.chunks[i]!.originalText).toBe(result.chunks[i]!.originalText);
      expect(page.text.startsWith(`<!--CT ${JSON.stringify(page.ct)}-->\n`)).toBe(true);
      expect(page.text).toContain(out.chunks[i]!.originalText);
      expect(page.tokens).toBe(countTokens(page.text));
      expect(page.tokens).toBeLessThanOrEqual(page.nmax);
      expect(out.chunks[i]!.embedText).toBe([page.leadIn, out.chunks[i]!.originalText, page.leadOut].filter(Boolean).join('\n\n'));
    }

    // Rerun: the server sees zero requests, and the sentences are the same.
    const before = server.requests.length;
    const cache = new LlmCache(dir);
    const again = await generateLeadSentences(result, client, cache);
    expect(server.requests.length - before).toBe(0);
    expect(again.requests).toBe(0);
    expect(cache.stats).toEqual({ hits: 2 * (n - 1), misses: 0, corrupt: 0 });
    expect(again.summaries).toEqual(first.summaries);
    expect(again.previews).toEqual(first.previews);
  });
});

describe('the cache', () => {
  it('detects a corrupt entry (bad JSON, edited text, wrong key) and rebuilds only that one', async () => {
    server = await startChatServer(reply);
    const client = createChatClient({ provider: 'ollama', host: server.origin }, {});
    const result = paged();
    await generateLeadSentences(result, client, new LlmCache(dir));
    const entries = files(dir).sort();
    expect(entries.length).toBe(server.requests.length);
    // Three kinds of damage on three entries.
    writeFileSync(join(dir, entries[0]!), '{"version":1,"key":');
    const edited = JSON.parse(readFileSync(join(dir, entries[1]!), 'utf8')) as { text: string };
    edited.text = 'tampered';
    writeFileSync(join(dir, entries[1]!), JSON.stringify(edited));
    writeFileSync(join(dir, entries[2]!), readFileSync(join(dir, entries[3]!)));
    const before = server.requests.length;
    const cache = new LlmCache(dir);
    const again = await generateLeadSentences(result, client, cache);
    expect(cache.stats.corrupt).toBe(3);
    expect(server.requests.length - before).toBe(3);
    expect(again.requests).toBe(3);
    expect(again.summaries.concat(again.previews)).not.toContain('tampered');
    // Rebuilt in place: a third run is all hits.
    const third = new LlmCache(dir);
    await generateLeadSentences(result, client, third);
    expect(third.stats).toEqual({ hits: entries.length, misses: 0, corrupt: 0 });
  });

  it('keys by model, temperature, prompt and content: a change to any one is a new entry', () => {
    const base = { provider: 'ollama', model: 'm', temperature: 0.2, promptSha256: promptSha256(LEAD_PROMPTS.summary), contentSha256: sha256('page') };
    const keys = new Set([
      cacheKey(base),
      cacheKey({ ...base, model: 'm2' }),
      cacheKey({ ...base, temperature: 0 }),
      cacheKey({ ...base, promptSha256: promptSha256(LEAD_PROMPTS.preview) }),
      cacheKey({ ...base, contentSha256: sha256('page!') }),
      cacheKey({ ...base, provider: 'openai' }),
    ]);
    expect(keys.size).toBe(6);
    expect(cacheKey({ ...base })).toBe(cacheKey(base));
    expect(promptSha256({ ...LEAD_PROMPTS.summary, user: (p: string) => `Recap:\n\n${p}` })).not.toBe(promptSha256(LEAD_PROMPTS.summary));
  });
});

describe('LlmCache', () => {
  it('an entry that is a symlink is not written through (probe: the cache wrote over the file it pointed to); the link and its target are left as they were', () => {
    const cache = new LlmCache(join(dir, 'cache'));
    const parts = { provider: 'ollama', model: 'm', temperature: 0.2, promptSha256: promptSha256(LEAD_PROMPTS.summary), contentSha256: sha256('page') };
    const entry = cache.fileOf(parts);
    const decoy = join(dir, 'decoy.txt');
    writeFileSync(decoy, 'decoy\n');
    mkdirSync(dirname(entry), { recursive: true });
    symlinkSync(decoy, entry);
    expect(cache.get(parts)).toBeNull();
    expect(() => cache.put(parts, 'Recap.')).toThrow(`${entry}: is a symlink (it points to ${decoy}); a generated output is never written through a link, so nothing was written; remove the link and run again`);
    expect(readFileSync(decoy, 'utf8')).toBe('decoy\n');
    expect(lstatSync(entry).isSymbolicLink()).toBe(true);
  });
});

describe('applyLeadSentences', () => {
  it('without sentences, gives back the extractive pages byte for byte', () => {
    const result = paged();
    const n = result.chunks.length;
    expect(applyLeadSentences(result, { summaries: Array(n).fill(null), previews: Array(n).fill(null) })).toEqual(result);
  });

  it('keeps every page within Nmax however long the sentence', () => {
    const result = paged();
    const n = result.chunks.length;
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), (s) => {
        const out = applyLeadSentences(result, { summaries: Array(n).fill(s), previews: Array(n).fill(s) });
        return out.chunks.every((c, i) => c.page!.tokens <= c.page!.nmax && c.originalText === result.chunks[i]!.originalText);
      }),
      { numRuns: 30 },
    );
  });

  it('leaves pages without lead lines (leadLines: none) and other strategies alone', () => {
    const none = chunkDocument(SOURCE, { strategy: 'paginate', ctxSize: 612, bufSize: 100, leadLines: 'none', docName: 'g', sourceFile: 'g.md' });
    const n = none.chunks.length;
    expect(applyLeadSentences(none, { summaries: Array(n).fill('x'), previews: Array(n).fill('x') })).toEqual(none);
    const semantic = chunkDocument(SOURCE, { docName: 'g', sourceFile: 'g.md' });
    expect(applyLeadSentences(semantic, { summaries: ['x'], previews: ['x'] })).toBe(semantic);
  });

  it('oneLine drops labels, quotes and line breaks', () => {
    expect(oneLine('  Summary: "It covers\n trimming."  ')).toBe('It covers trimming.');
    expect(oneLine('“Quoted.”')).toBe('Quoted.');
  });
});

describe('lead lines for a document whose name holds HTML characters', () => {
  it('show the id escaped exactly as the extractive lines do', async () => {
    server = await startChatServer(reply);
    const client = createChatClient({ provider: 'ollama', host: server.origin, model: 'llama3.2' }, {});
    const result = chunkDocument(SOURCE, { strategy: 'paginate', ctxSize: 612, bufSize: 100, docName: 'a<b>&c', sourceFile: 'a<b>&c.md' });
    const out = applyLeadSentences(result, await generateLeadSentences(result, client, new LlmCache(dir)));
    const idPart = (line: string | null | undefined) => line?.slice(0, line.indexOf(': '));
    for (const [i, chunk] of out.chunks.entries()) {
      const extractive = result.chunks[i]!.page!;
      const page = chunk.page!;
      if (page.ct.prev) {
        expect(idPart(page.leadIn)).toBe(idPart(extractive.leadIn));
        expect(page.leadIn).toContain('Continuing from a&lt;b&gt;&amp;c:chunk-');
      }
      if (page.ct.next) expect(idPart(page.leadOut)).toBe(idPart(extractive.leadOut));
      expect(page.tokens).toBeLessThanOrEqual(page.nmax);
    }
  });
});

describe('a cached reply of a thinking model, written before chat() dropped its reasoning', () => {
  it('is read as its answer, without asking the model again', async () => {
    server = await startChatServer(() => 'asked again');
    const client = createChatClient({ provider: 'ollama', host: server.origin, model: 'deepseek-r1' }, {});
    const cache = new LlmCache(dir);
    const page = 'Native AOT publishes a self-contained executable.';
    const parts = { provider: client.provider, model: client.model, temperature: client.temperature, promptSha256: promptSha256(LEAD_PROMPTS.summary), contentSha256: sha256(page) };
    cache.put(parts, '<think>\nOkay, the user wants a recap.\n</think>\n\nIt showed how to publish with native AOT.');
    expect(await cachedChat(client, cache, LEAD_PROMPTS.summary, page)).toEqual({ text: 'It showed how to publish with native AOT.', cached: true });
    expect(server.requests).toHaveLength(0);
  });
});
