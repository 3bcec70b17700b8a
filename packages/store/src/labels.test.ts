// A document's names and labels (title, source system and id, source file, topic, artifact
// type) obey the rule its text does: no lone surrogates. An MCP client's JSON can carry one
// ("\ud800"), and SQLite and the artifact id's hash both wrote it as U+FFFD (s55 probe:
// ingest_artifact with source_id "doc\ud800", then "doc\udbff", a different document: the
// second was refused as a clash with "mcp:doc\ufffd", an id the client never sent).
// Real SQLite files, the real local embedder.
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from './errors.js';
import { DocStore } from './store.js';
import { localProvider, makeTempDir, snapshot } from './test-helpers.js';
import type { ArtifactInput } from './types.js';

let temp: ReturnType<typeof makeTempDir>;
beforeAll(() => {
  temp = makeTempDir();
});
afterAll(() => temp.cleanup());

const FIELDS = ['title', 'artifactType', 'sourceSystem', 'sourceId', 'sourceFile', 'topic'] as const;
type Field = (typeof FIELDS)[number];
const LABEL: Record<Field, string> = {
  title: 'its title',
  artifactType: 'its artifact type',
  sourceSystem: 'its source system',
  sourceId: 'its source id',
  sourceFile: 'its source file',
  topic: 'its topic',
};

let n = 0;
const freshStore = () => DocStore.open(join(temp.dir, `l${n++}.db`));

async function refusal(store: DocStore, input: ArtifactInput): Promise<InputError> {
  const err = await store.ingest([input], localProvider()).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InputError);
  return err as InputError;
}

describe('a lone surrogate in a document\'s labels', () => {
  it('two source ids that differ only in their lone surrogates are not one artifact: both are refused, naming the field, and nothing is stored', async () => {
    const store = freshStore();
    try {
      const before = snapshot(store);
      const first = await refusal(store, { content: 'first document about giraffes', sourceSystem: 'mcp', sourceId: 'doc\ud800', sourceFile: 'doc\ud800' });
      const second = await refusal(store, { content: 'second document about elephants', sourceSystem: 'mcp', sourceId: 'doc\udbff', sourceFile: 'doc\udbff' });
      expect(first.message).toBe('doc\ud800: its source id is not valid Unicode (contains a lone surrogate)');
      expect(second.message).toBe('doc\udbff: its source id is not valid Unicode (contains a lone surrogate)');
      expect(snapshot(store)).toEqual(before);
    } finally {
      store.close();
    }
  });

  it('in any label, anywhere in it, is refused naming that label; the same label well-formed is stored as it was given (property)', async () => {
    // Any text, with surrogate pairs (astral characters) and controls, so the check must tell a
    // pair from a lone half at either end of the string and next to each other.
    const text = fc.string({ unit: fc.oneof(fc.constantFrom('a', ':', ' ', '\u001b', '\ufffd'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), minLength: 1, maxLength: 12 });
    const lone = fc.oneof(fc.integer({ min: 0xd800, max: 0xdbff }), fc.integer({ min: 0xdc00, max: 0xdfff })).map((c) => String.fromCharCode(c));
    // A high half followed by a high half, a low half first, and so on: every order of halves
    // but the one pair that is a character.
    const broken = fc.tuple(text, lone, text, fc.boolean()).map(([a, l, b, twice]) => `${a}${l}${twice ? l : ''}${b}`);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...FIELDS), broken, text, async (field, bad, good) => {
        const store = freshStore();
        try {
          // artifactType is one word without ":" (chunking's own rule), so its well-formed value is fixed.
          const wellFormed = field === 'artifactType' ? 'guide' : `x${good}x`;
          const base: ArtifactInput = { content: 'a document about zebras and lions', sourceSystem: 'mcp', sourceId: 'id', sourceFile: 'id' };
          const before = snapshot(store);
          const err = await refusal(store, { ...base, [field]: bad });
          expect(err.message).toContain(`: ${LABEL[field]} is not valid Unicode (contains a lone surrogate)`);
          expect(snapshot(store)).toEqual(before);
          const [out] = await store.ingest([{ ...base, [field]: wellFormed }], localProvider());
          const column = { title: 'title', artifactType: 'artifact_type', sourceSystem: 'source_system', sourceId: 'source_id', sourceFile: 'source_file', topic: 'topic' }[field];
          const row = store.db.prepare(`SELECT ${column} AS v FROM artifacts WHERE id = ?`).get(out!.artifactId) as { v: string };
          expect(row.v).toBe(wellFormed);
        } finally {
          store.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});
