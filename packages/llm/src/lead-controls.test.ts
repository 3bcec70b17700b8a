// Lead sentences from a model whose reply holds control characters (issue 15 probe): a NUL, an
// ESC sequence or U+202E went into the page's text and its `_chunks/*.md` file, where a NUL
// made the file "binary" to every tool that reads it. The real client against a local chat
// server, the real paginate strategy.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkDocument } from '@chunkyard/chunking';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { startChatServer, type TestServer } from './chat-server.js';
import { applyLeadSentences, createChatClient, generateLeadSentences, oneLine } from './index.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const SOURCE = readFileSync(join(REPO, 'docs/deployment/native-aot/golden-reference.md'), 'utf8');
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('lead sentences and control characters (issue 15 probe)', () => {
  it('oneLine leaves no control character and no line break, whatever the reply', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (reply) => {
        expect(oneLine(reply)).not.toMatch(CONTROLS);
      }),
      { numRuns: 500 },
    );
    expect(oneLine('Covers\u0000 AOT \u001b[2Jpublishing\u202e.')).toBe('Covers AOT [2Jpublishing.');
  });

  it('the lead lines of pages written from such replies hold none', async () => {
    server = await startChatServer(() => 'Recap\u0000 of \u001b]0;pwned\u0007 the \u202epage\u0085 before.');
    const client = createChatClient({ provider: 'ollama', host: server.origin }, {});
    const result = chunkDocument(SOURCE, { strategy: 'paginate', ctxSize: 612, bufSize: 100, docName: 'golden-reference', sourceFile: 'golden-reference.md' });
    const withLeads = applyLeadSentences(result, await generateLeadSentences(result, client, null));
    const leads = withLeads.chunks.flatMap((c) => [c.page?.leadIn, c.page?.leadOut]).filter((l): l is string => typeof l === 'string');
    expect(leads.some((l) => l.includes('Recap of ]0;pwned the page before.'))).toBe(true);
    for (const l of leads) expect(l).not.toMatch(CONTROLS);
  });
});
