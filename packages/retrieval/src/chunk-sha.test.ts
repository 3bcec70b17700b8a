// DocsClient.chunkText against the item's sha256 (issue 15): the chunk step rewrites _chunks/
// before the index step rewrites index.json, and a mode that reads chunk files without the
// manifest (disclosure, a prompt match without -k) showed the new text under the old item.
// Real files through a real FolderSource; the hash is computed here as the index step defines
// it (SHA-256 of the text a UTF-8 decoder gives, a leading BOM dropped).
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocsClient } from './client.js';
import { ContractError, parseIndex, type TopicIndex } from './contract.js';
import { FolderSource } from './source.js';
import type { LoadedTopic } from './walk.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-chunk-sha-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const decoded = (text: string) => new TextDecoder().decode(Buffer.from(text, 'utf8'));

/** A topic `t` of one document of two chunks, its chunk files holding `files`; items carry `shas` (undefined: none). */
function topicOf(dir: string, files: [string, string], shas: [string | undefined, string | undefined]): { client: DocsClient; topic: LoadedTopic } {
  mkdirSync(join(dir, 't/_chunks'), { recursive: true });
  files.forEach((text, i) => writeFileSync(join(dir, `t/_chunks/g-${i}.md`), text));
  const items = [0, 1].map((i) => ({ index: i, href: `_chunks/g-${i}.md`, title: `Chunk ${i}`, is_code: false, similarity_conceptual: 1, keywords: [], ...(shas[i] === undefined ? {} : { sha256: shas[i] }) }));
  const json = { kind: 'topic', id: 't', title: 'T', _links: { self: { href: '/t/index.json' } }, _embedded: { topics: [], chunks: { g: { source: 'g.md', manifest: '_chunks/g.json', count: 2, baseline_conceptual: 0, stripe_order: [1], items } } } };
  writeFileSync(join(dir, 't/index.json'), JSON.stringify(json));
  const url = new URL('chunkyard-docs://folder/t/index.json');
  return { client: new DocsClient(new FolderSource(dir)), topic: { id: 't', title: 'T', url, index: parseIndex(json, 'x') as TopicIndex } };
}

// A leading BOM (one or two), CRLF, NULs, lone surrogates (written as U+FFFD) and astral characters.
const text = fc
  .tuple(
    fc.constantFrom('', '\ufeff', '\ufeff\ufeff', '\r\n', '\0'),
    fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ unit: fc.constantFrom('\ufeff', '\r', '\n', '\0', '\ud800', '\udc00', 'é', '😀', 'a', ' '), maxLength: 30 })),
  )
  .map(([h, b]) => h + b);

let n = 0;
const freshDir = () => join(root, String(n++));

describe('DocsClient.chunkText and the item sha256', () => {
  it('reads a chunk file whose text is the one the index was built from, whatever it holds', async () => {
    await fc.assert(
      fc.asyncProperty(text, text, async (a, b) => {
        const { client, topic } = topicOf(freshDir(), [a, b], [sha256(decoded(a)), sha256(decoded(b))]);
        expect(await client.chunkText(topic, 'g', 0)).toBe(decoded(a));
        expect(await client.chunkText(topic, 'g', 1)).toBe(decoded(b));
      }),
      { numRuns: 60 },
    );
  });

  it('refuses a chunk file rewritten since (any other text), naming the file and the index and saying why', async () => {
    await fc.assert(
      fc.asyncProperty(text, text, async (built, now) => {
        fc.pre(decoded(built) !== decoded(now));
        const dir = freshDir();
        const { client, topic } = topicOf(dir, ['zero', now], [undefined, sha256(decoded(built))]);
        const err = await client.chunkText(topic, 'g', 1).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ContractError);
        expect((err as ContractError).message).toBe(
          `${join(dir, 't/_chunks/g-1.md')}: holds other text than ${join(dir, 't/index.json')} was built from (its SHA-256 differs from the index item's sha256): the topic is being rebuilt, or its index step has not run since its chunk step; read it again when the build has finished`,
        );
        // The item without a hash (an index built before it existed) is read as before.
        expect(await client.chunkText(topic, 'g', 0)).toBe('zero');
      }),
      { numRuns: 60 },
    );
  });
});
