// A `_chunks/` manifest whose records are not what chunking-tool writes (hand-edited, from
// another tool, planted in a pull request) is refused by name before anything reaches SQLite
// (s55 probe: a record without tokenStats failed with "Cannot read properties of undefined
// (reading 'tokens')", one whose sectionTitle was null made ingest --built die with a stack
// trace, and a source of "../other/file.md" was read and hashed outside the topic). The real
// chunking-tool writes the manifest, each property breaks one field of one record.
import { cpSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as chunkingTool } from '../../../apps/chunking-tool/src/main.js';
import { readBuiltTopic, type BuiltSource } from './built.js';
import { InputError } from './errors.js';
import { DocStore } from './store.js';
import { localProvider, makeTempDir, REPO_ROOT } from './test-helpers.js';

let temp: ReturnType<typeof makeTempDir>;
let topicDir: string;
let source: BuiltSource;
let manifestPath: string;
let original: string;
beforeAll(async () => {
  temp = makeTempDir();
  topicDir = join(temp.dir, 'docs', 'native-aot');
  cpSync(join(REPO_ROOT, 'docs/deployment/native-aot'), topicDir, { recursive: true, filter: (p) => !p.includes('_chunks') });
  expect(await chunkingTool([topicDir], { stdout: () => {}, stderr: () => {} })).toBe(0);
  source = { topicDir, topic: 'docs/native-aot', sourceSystem: 'file', displayOf: (s) => `docs/native-aot/${s}`, sourceIdOf: (s) => `docs/native-aot/${s}` };
  manifestPath = join(topicDir, '_chunks', 'golden-reference.json');
  original = readFileSync(manifestPath, 'utf8');
});
afterAll(() => temp.cleanup());

type Json = Record<string, unknown>;
/** The manifest as chunking-tool wrote it, changed by `edit`, written back. */
function writeEdited(edit: (m: Json & { chunks: Json[] }) => void): void {
  const m = JSON.parse(original) as Json & { chunks: Json[] };
  edit(m);
  writeFileSync(manifestPath, JSON.stringify(m));
}
function refusal(): InputError {
  let err: unknown = null;
  try {
    readBuiltTopic(source);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(InputError);
  return err as InputError;
}

// Values of every JSON type, the field's own type aside where the generator says so.
const notString = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }));
const notCount = fc.oneof(fc.integer({ max: -1 }), fc.double({ min: 0.01, max: 1e6, noNaN: true }).filter((d) => !Number.isInteger(d)), fc.constant(2 ** 60), fc.string(), fc.boolean(), fc.constant(null));
const missing = fc.constant(undefined);
/** A field of a chunk record and a value that breaks it (undefined: the field is deleted). */
const broken: fc.Arbitrary<[string, unknown]> = fc.oneof(
  ...(['id', 'originalText', 'embedText', 'sectionTitle', 'headerBreadcrumb'] as const).map((k) => fc.tuple(fc.constant(k), fc.oneof(notString, missing))),
  fc.tuple(fc.constant('sourcePosition'), fc.oneof(notString.filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)), missing)),
  fc.tuple(fc.constant('sourcePosition.charStart'), fc.oneof(notCount, missing)),
  fc.tuple(fc.constant('sourcePosition.charEnd'), fc.oneof(notCount, missing)),
  // charStart past charEnd.
  fc.tuple(fc.constant('sourcePosition.charStart'), fc.constant(Number.MAX_SAFE_INTEGER)),
  fc.tuple(fc.constant('tokenStats'), fc.oneof(notString.filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)), fc.constant({}), missing)),
  fc.tuple(fc.constant('tokenStats.tokens'), fc.oneof(notCount, missing)),
  fc.tuple(fc.constant('contentHints'), fc.oneof(notString, missing, fc.string().filter((s) => !['prose', 'table', 'code', 'list', 'quote', 'mixed'].includes(s)))),
  fc.tuple(fc.constant('isCode'), fc.oneof(fc.integer(), fc.string(), fc.constant(null), missing)),
  fc.tuple(fc.constant('overlapChars'), notCount),
  fc.tuple(fc.constant('contentType'), fc.oneof(notString, fc.constantFrom('', 'api:v2', 'two words', 'nl\n', '\u009b', 'tab\t'))),
);

function set(record: Json, path: string, value: unknown): void {
  const [head, tail] = path.split('.') as [string, string | undefined];
  if (tail === undefined) {
    if (value === undefined) delete record[head];
    else record[head] = value;
    return;
  }
  const inner = record[head] as Json;
  if (value === undefined) delete inner[tail];
  else inner[tail] = value;
}

describe('a chunk manifest readBuiltTopic cannot use', () => {
  it('the manifest as chunking-tool wrote it is read', () => {
    writeFileSync(manifestPath, original);
    expect(readBuiltTopic(source)).toHaveLength(1);
  });

  it('any field of any record broken: an InputError naming the manifest, the record and the field, never anything else (property)', () => {
    const chunks = (JSON.parse(original) as { chunks: unknown[] }).chunks.length;
    fc.assert(
      fc.property(fc.nat({ max: chunks - 1 }), broken, (index, [field, value]) => {
        writeEdited((m) => set(m.chunks[index]!, field, value));
        const err = refusal();
        expect(err.message.startsWith(`${manifestPath}: chunk ${index}: `)).toBe(true);
        const named = field === 'sourcePosition.charStart' || field === 'sourcePosition.charEnd' ? 'sourcePosition' : field === 'tokenStats' ? 'tokenStats.tokens' : field;
        expect(err.message).toContain(named);
        expect(err.message).toMatch(/rebuild the topic's chunks/);
        expect(err.message).not.toContain('\n');
      }),
      { numRuns: 200 },
    );
  });

  it('bytes that are not UTF-8 anywhere in it: an InputError naming the manifest and the offset (property; s57 probe: read as U+FFFD, a damaged embedText was embedded and stored, exit 0)', () => {
    const bytes = Buffer.from(original, 'utf8');
    // An ASCII byte replaced, so the bad byte is the first one whatever stands around it.
    const ascii = [...bytes.keys()].filter((i) => bytes[i]! < 0x80);
    fc.assert(
      fc.property(fc.constantFrom(...ascii), fc.constantFrom(0xff, 0xfe, 0x80, 0xc0, 0xf8), (at, bad) => {
        const damaged = Buffer.from(bytes);
        damaged[at] = bad;
        writeFileSync(manifestPath, damaged);
        expect(refusal().message).toBe(`${manifestPath}: not valid UTF-8 (first bad byte at offset ${at}); remove it and rebuild the topic's chunks (nx run <topic>:chunk, or chunking-tool)`);
      }),
      { numRuns: 100 },
    );
  });

  it('a manifest that is a dangling symlink is named as one, not "no such file or folder (ENOENT); check the path" (s57 probe)', () => {
    rmSync(manifestPath);
    symlinkSync(join(temp.dir, 'nowhere.json'), manifestPath);
    try {
      expect(refusal().message).toBe(`${manifestPath}: a dangling symlink (its target does not exist); fix or remove the link`);
    } finally {
      rmSync(manifestPath);
      writeFileSync(manifestPath, original);
    }
  });

  it('a record that is not an object is named as such', () => {
    for (const value of [null, 3, 'x', [1]]) {
      writeEdited((m) => (m.chunks[1] = value as never));
      expect(refusal().message).toMatch(new RegExp(`^${manifestPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: chunk 1: not an object \\(got `));
    }
  });

  it('a source that leads out of the topic is refused without reading it', () => {
    // A real file outside the topic, whose hash the manifest gives: it was read and stored.
    const outside = join(temp.dir, 'outside.md');
    writeFileSync(outside, readFileSync(join(topicDir, 'golden-reference.md')));
    for (const s of ['../../outside.md', 'sub/../../../outside.md', '..\\..\\outside.md', outside]) {
      writeEdited((m) => (m.source = s));
      expect(refusal().message).toBe(`${manifestPath}: manifest field source ${JSON.stringify(s)} leads out of the topic folder; remove it and rebuild the topic's chunks (nx run <topic>:chunk, or chunking-tool)`);
    }
  });

  it('ingest --built of the probe\'s manifest stores nothing and raises no TypeError (it died in SQLite with a stack trace)', async () => {
    writeEdited((m) => {
      Object.assign(m.chunks[0]!, { sectionTitle: null, contentHints: 7, headerBreadcrumb: {} });
    });
    const store = DocStore.open(join(temp.dir, 'store.db'));
    try {
      const err = await Promise.resolve()
        .then(() => readBuiltTopic(source))
        .then((docs) => store.ingestPlans(docs.map((d) => d.plan), localProvider().model, async () => []))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toBe(`${manifestPath}: chunk 0: sectionTitle is not a string (got null); remove it and rebuild the topic's chunks (nx run <topic>:chunk, or chunking-tool)`);
    } finally {
      store.close();
    }
  });
});
