// Queries with no word to search for, typed as users and hostile users type them, against a
// real store of chunkyard's sample docs: the CLI in-process and the built `docs-store mcp` over
// stdio with the SDK's Client. Full-text search OR-ed English stop words, so `how do I` (or
// `the`, `a AND`, `OR`) in --mode fts and hybrid --no-routes ranked every chunk by how often it
// says "the", "do" and "i"; an empty result said only `no results` (`[]` over MCP, and the
// prompt told the agent to say the docs do not cover the question). FTS5 syntax typed by
// someone who does not know it (`"`, `NEAR(`, `col:term`, `*`, `^`, `{}`) is text: results or an
// empty list with its reason, never an SQLite error.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOP_WORDS } from '@chunkyard/embeddings';
import { runStore } from './test-run.js';
import { ensureBuilt, REPO } from './test-build.js';
import { connectMcpClient } from './test-mcp-client.js';

let ws: string;
let client: Client;
const run = (args: string[]) => runStore(ws, args);
beforeAll(async () => {
  await ensureBuilt();
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-no-words-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  cpSync(join(REPO, 'docs'), join(ws, 'docs'), { recursive: true });
  const ingest = await run(['ingest', 'docs/deployment/native-aot', 'docs/deployment/trimming-options', 'docs/libraries/system-text-json-polymorphism']);
  expect(ingest.code, ingest.stderr).toBe(0);
  ({ client } = await connectMcpClient(ws, 'docs-store-no-words-test'));
}, 120_000);
afterAll(async () => {
  await client?.close();
  rmSync(ws, { recursive: true, force: true });
});

const MODES = [['--mode', 'fts'], ['--no-routes'], []] as const;
const STOP_ONLY = ['the', 'how do I', 'a an of', 'THE', 'a AND', 'OR', 'NOT', "don't", 'what is it?'];
const NO_LETTER = ['?!.', '🚀', '"', '*', '^', '(', '{}', '+', '-', '\u0000', '\ud800', '😀😀'];

type ToolText = { content: { type: string; text: string }[]; isError?: boolean };
const searchDocs = (args: Record<string, unknown>) => client.callTool({ name: 'search_docs', arguments: args }) as Promise<ToolText>;

describe('docs-store search (CLI)', () => {
  it('a query of stop words alone finds nothing in every mode, and says why, naming them', async () => {
    for (const q of STOP_ONLY) {
      for (const mode of MODES) {
        const r = await run(['search', ...mode, '--limit', '3', q]);
        expect(r.code, `${q} ${mode}`).toBe(0);
        expect(r.stdout, `${q} ${mode}`).toMatch(/^no results for ".*": every word of the query is a stop word \(".*\); give the words that name what you are looking for\n$/);
        const json = JSON.parse((await run(['search', ...mode, '--json', q])).stdout) as { hits: unknown[]; reason?: string };
        expect(json.hits).toEqual([]);
        expect(json.reason).toMatch(/stop word/);
      }
    }
    expect((await run(['search', '--mode', 'fts', 'how do I'])).stdout).toContain('("how", "do", "i":');
  });

  it('a query with no letter or digit finds nothing and says so; FTS5 syntax is never an SQLite error', async () => {
    for (const q of [...NO_LETTER, '-- --', '"" ""']) {
      for (const mode of MODES) {
        const r = await run(['search', ...mode, '--', q]);
        expect(r.stderr, `${JSON.stringify(q)} ${mode}`).toBe('');
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/: the query holds no word to search for \(no letter or digit\); give the words to search for\n$/);
      }
    }
  });

  it('stop words around real words rank as the words alone (fts); FTS5 syntax with words is searched as text', async () => {
    const alone = JSON.parse((await run(['search', '--mode', 'fts', '--json', '--limit', '10', 'trimming warnings'])).stdout) as { hits: { unitId: string }[] };
    expect(alone.hits.length).toBe(10);
    const asked = JSON.parse((await run(['search', '--mode', 'fts', '--json', '--limit', '10', 'How do I turn off the trimming warnings?'])).stdout) as { hits: { unitId: string }[] };
    // "turn" and "off": off is a stop word, turn is a word.
    const turned = JSON.parse((await run(['search', '--mode', 'fts', '--json', '--limit', '10', 'turn trimming warnings'])).stdout) as { hits: { unitId: string }[] };
    expect(asked.hits.map((h) => h.unitId)).toEqual(turned.hits.map((h) => h.unitId));
    for (const q of ['"trimming', 'trimming"', 'NEAR(trimming', 'title:trimming', 'trimming*', '^trimming', 'trimming AND', 'NOT trimming', '{trimming}', '+trimming', '(trimming']) {
      for (const mode of MODES) {
        const r = await run(['search', ...mode, '--json', '--limit', '3', '--', q]);
        expect(r.stderr, q).toBe('');
        expect((JSON.parse(r.stdout) as { hits: unknown[] }).hits.length, `${q} ${mode}`).toBeGreaterThan(0);
      }
    }
  });
});

describe('search_docs and answer_from_docs (MCP, the SDK Client over stdio)', () => {
  it('a query of stop words or of no letter gets [] and a second text saying why, in every mode', async () => {
    for (const q of [...STOP_ONLY, ...NO_LETTER]) {
      for (const mode of ['fts', 'hybrid', 'vector'] as const) {
        for (const routes of mode === 'hybrid' ? [undefined, false] : [undefined]) {
          const r = await searchDocs({ query: q, mode, ...(routes === false ? { routes } : {}) });
          const label = `${JSON.stringify(q)} ${mode} ${routes}`;
          expect(r.isError, label).toBeFalsy();
          expect(JSON.parse(r.content[0]!.text), label).toEqual([]);
          expect(r.content[1]?.text, label).toMatch(/^no results: (every word of the query is a stop word|the query holds no word to search for)/);
        }
      }
    }
  });

  it('property: any mix of stop words and punctuation gets the empty list with its reason; one real word among them gets hits', async () => {
    const stop = [...STOP_WORDS];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...stop), fc.constantFrom(' ', '? ', ' "', ' * ', ' (', ':', ' ^', '{', '}', '-', "'")), { minLength: 1, maxLength: 12 }),
        fc.constantFrom('fts' as const, 'hybrid' as const),
        async (parts, mode) => {
          const q = parts.map(([w, s]) => w + s).join('');
          const r = await searchDocs({ query: q, mode });
          expect(JSON.parse(r.content[0]!.text)).toEqual([]);
          expect(r.content[1]?.text).toMatch(/^no results: every word of the query is a stop word/);
          const withWord = await searchDocs({ query: `${q} polymorphic`, mode });
          expect((JSON.parse(withWord.content[0]!.text) as unknown[]).length).toBeGreaterThan(0);
          expect(withWord.content.length).toBe(1);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('the prompt of a question of stop words asks what the user wants, not "say the docs do not cover it"', async () => {
    const p = await client.getPrompt({ name: 'answer_from_docs', arguments: { question: 'how do I?' } });
    const text = (p.messages[0]!.content as { text: string }).text;
    expect(text).toMatch(/could not search for this question: every word of the question is a stop word \("how", "do", "i"/);
    expect(text).not.toMatch(/Say that the docs do not cover it/);
    const asked = await client.getPrompt({ name: 'answer_from_docs', arguments: { question: 'how do I trim?' } });
    expect((asked.messages[0]!.content as { text: string }).text).toMatch(/^Answer the question using only the documentation excerpts below/);
  });
});
