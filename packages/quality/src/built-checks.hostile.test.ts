// checkTopic on a manifest from the real chunker with one field of its records replaced by any
// JSON value: a hand-edited or foreign manifest is findings naming its file, never a TypeError
// out of the checks (docs-score printed "Cannot read properties of null (reading 'maxTokens')"
// for `"options": null`, and "… (reading 'id')" for a chunk whose `page` was not a page, with
// no file named; helper-84 probe).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkDocument } from '@chunkyard/chunking';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTopic, manifestShape, report, type LoadedTopic } from './built-checks.js';

const source = readFileSync(join(import.meta.dirname, '../../../docs/deployment/native-aot/golden-reference.md'), 'utf8');
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const MANIFEST = '_chunks/golden-reference.json';

type Json = Record<string, unknown>;

function manifestOf(strategy: 'semantic' | 'paginate'): Json {
  const r = chunkDocument(source, strategy === 'paginate' ? { strategy, ctxSize: 1024, bufSize: 0, pageOverlapTokens: 40, docName: 'golden-reference' } : { docName: 'golden-reference' });
  return JSON.parse(JSON.stringify({ schemaVersion: 1, ...r, source: 'golden-reference.md', sourceSha256: sha(source) })) as Json;
}
const BUILT = { semantic: manifestOf('semantic'), paginate: manifestOf('paginate') };

/** The topic with `manifest` and the chunk files of the faithful `built` one. */
function topicOf(manifest: Json, built: Json): LoadedTopic {
  const chunks = built.chunks as { originalText: string; page?: { text: string } }[];
  const files = new Map(chunks.map((c, i) => [`_chunks/golden-reference-${i}.md`, c.page?.text ?? c.originalText]));
  return {
    dir: 'topic',
    documents: [{ name: 'golden-reference', manifestFile: MANIFEST, manifest, sourceFile: 'golden-reference.md', source, chunkFiles: files, chunkFileOf: (n) => `_chunks/golden-reference-${n}.md` }],
    pages: null,
  };
}

const score = (manifest: Json, built: Json = BUILT.semantic) => {
  const { tally, graphs } = checkTopic(topicOf(manifest, built));
  return report(tally, graphs);
};

describe('checkTopic on a manifest whose fields have the wrong types', () => {
  it('passes the faithful manifests (so a finding below is the edit)', () => {
    expect(score(structuredClone(BUILT.semantic)).findings).toEqual([]);
    expect(manifestShape(BUILT.paginate)).toBeNull();
  });

  it('names the file for "options" that is not an object, and a chunk "page" that is not a page', () => {
    const cases: [string, (m: Json) => void, RegExp][] = [
      ['options null', (m) => (m.options = null), /"options" is not an object/],
      ['options a list', (m) => (m.options = [512]), /"options" is not an object/],
      ['page a string', (m) => (((m.chunks as Json[])[0]!).page = 'x'), /chunk 0: "page" is not a page/],
      ['page {}', (m) => (((m.chunks as Json[])[0]!).page = {}), /chunk 0: "page" is not a page/],
      ['page without a ct', (m) => (((m.chunks as Json[])[2]!).page = { text: 'x', nmax: 9, ct: null }), /chunk 2: "page" is not a page/],
    ];
    for (const [label, edit, message] of cases) {
      const m = structuredClone(BUILT.semantic);
      edit(m);
      const { findings } = score(m);
      expect(findings, label).toEqual([{ check: 'checksum', file: MANIFEST, message: expect.stringMatching(message) }]);
      expect(findings[0]!.message, label).toMatch(/^not a chunk manifest: /);
    }
  });

  it('never throws, whatever JSON value replaces a top-level field, a chunk field or a field below one (property)', () => {
    const strategies = ['semantic', 'paginate'] as const;
    fc.assert(
      fc.property(fc.constantFrom(...strategies), fc.nat(), fc.nat(), fc.nat(), fc.jsonValue({ maxDepth: 2 }), (strategy, a, b, c, value) => {
        const m = structuredClone(BUILT[strategy]);
        const chunks = m.chunks as Json[];
        const chunk = chunks[b % chunks.length]!;
        const where = a % 3;
        if (where === 0) {
          const keys = Object.keys(m);
          m[keys[c % keys.length]!] = value;
        } else {
          const keys = Object.keys(chunk);
          const key = keys[c % keys.length]!;
          const inner = chunk[key];
          if (where === 2 && typeof inner === 'object' && inner !== null && !Array.isArray(inner) && Object.keys(inner).length > 0) {
            const innerKeys = Object.keys(inner);
            (inner as Json)[innerKeys[a % innerKeys.length]!] = value;
          } else chunk[key] = value;
        }
        const r = score(m, BUILT[strategy]);
        for (const f of r.findings) expect(typeof f.message).toBe('string');
      }),
      { numRuns: 300 },
    );
  });
});
