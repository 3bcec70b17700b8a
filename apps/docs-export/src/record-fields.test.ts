/**
 * A hand-edited or damaged manifest whose chunk lacks a field the export reads, or holds one of
 * another type (helper-81 probe, session 60): `tokenStats` missing was a TypeError's stack trace
 * (exit 1) after the lines of the topics before it had gone to stdout; `headerPath` missing the
 * same, for llamaindex only; `headerBreadcrumb: {…}`, `fileTitle: [...]` or a `source.startLine`
 * object went out as an object in the metadata the README promises flat (Chroma, Milvus, …
 * refuse it), exit 0. Like any broken manifest, each fails the run before anything is written,
 * naming the file and the field. Topics built by the real chunker in a temp tree, the real CLI.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { chunkDocument } from '@chunkyard/chunking';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './main.js';

const ws = mkdtempSync(join(tmpdir(), 'docs-export-fields-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));
writeFileSync(join(ws, 'nx.json'), '{}\n');
const FORMATS = ['langchain', 'llamaindex', 'jsonl'] as const;

const text = '# Guide\n\nIntro text here, long enough to stand alone.\n\n## Install\n\nRun the installer and follow it.\n\n## Use\n\nCall the tool with a folder.\n';
const built = chunkDocument(text, { docName: 'golden-reference', sourceFile: 'golden-reference.md', strategy: 'hierarchical' });
const manifest = { schemaVersion: 1, source: 'golden-reference.md', sourceSha256: 'x', strategy: built.strategy, strategyKey: built.strategyKey, options: built.options, fileTitle: built.fileTitle, frontMatter: built.frontMatter, chunks: built.chunks };

/** A docs root: topic `a` as built, topic `b` with chunk 1 changed by `edit`. */
function tree(name: string, edit: (chunk: Record<string, unknown>) => void): { root: string; file: string } {
  const root = join(ws, name);
  for (const topic of ['a', 'b']) {
    mkdirSync(join(root, topic, '_chunks'), { recursive: true });
    writeFileSync(join(root, topic, 'golden-reference.md'), text);
    const m = JSON.parse(JSON.stringify(manifest)) as typeof manifest;
    if (topic === 'b') edit(m.chunks[1] as unknown as Record<string, unknown>);
    writeFileSync(join(root, topic, '_chunks/golden-reference.json'), JSON.stringify(m));
  }
  return { root, file: join(root, 'b/_chunks/golden-reference.json') };
}

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), cwd: ws, stdoutIsTTY: true });
  return { code, stdout, stderr };
}

/** Sets the value at a dotted path (made if missing); `undefined` deletes it. */
function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = obj;
  for (const k of keys.slice(0, -1)) {
    if (typeof at[k] !== 'object' || at[k] === null) at[k] = {};
    at = at[k] as Record<string, unknown>;
  }
  if (value === undefined) delete at[keys.at(-1)!];
  else at[keys.at(-1)!] = value;
}

/** Every field the formats read from a chunk record, beyond those checked before this probe. */
const FIELDS = [
  'parentId', 'prevId', 'nextId', 'chunkNumber', 'contentType', 'fileTitle', 'sectionTitle', 'headerPath', 'headerBreadcrumb', 'sectionSlug',
  'sourcePosition.charStart', 'sourcePosition.charEnd', 'sourcePosition.totalChars', 'tokenStats', 'tokenStats.tokens', 'tokenStats.estimatedTokens',
  'tokenStats.embedTokens', 'contentHints', 'isCode', 'containsTable', 'splitUnit', 'overlapChars', 'metadata.sourceFile',
  'metadata.chunkingOptions.strategy', 'metadata.chunkingOptions.breadcrumbMode', 'tier', 'tier.level', 'source', 'source.startLine', 'source.endLine',
];

const flatMetadata = (line: string) => {
  const record = JSON.parse(line) as { metadata: Record<string, unknown> };
  return Object.entries(record.metadata).every(([k, v]) => k === 'loc' || v === null || ['string', 'number', 'boolean'].includes(typeof v));
};

describe('a chunk field missing or of the wrong type', () => {
  it.each([
    ['tokenStats missing', (c: Record<string, unknown>) => delete c.tokenStats, /chunk 1: "tokenStats" is missing/],
    ['headerPath missing', (c: Record<string, unknown>) => delete c.headerPath, /chunk 1: "headerPath" is missing/],
    ['headerBreadcrumb an object', (c: Record<string, unknown>) => (c.headerBreadcrumb = { a: 1 }), /chunk 1: "headerBreadcrumb" is an object, not a string/],
    ['fileTitle an array', (c: Record<string, unknown>) => (c.fileTitle = [1, 2]), /chunk 1: "fileTitle" is an array, not a string/],
    ['source.startLine an object', (c: Record<string, unknown>) => ((c.source as Record<string, unknown>).startLine = {}), /chunk 1: "source\.startLine" is an object, not a number/],
    ['chunkingOptions.strategy an object', (c: Record<string, unknown>) => (((c.metadata as Record<string, unknown>).chunkingOptions as Record<string, unknown>).strategy = { x: 1 }), /chunk 1: "metadata\.chunkingOptions\.strategy" is an object, not a string/],
  ])('%s: exit 1 naming the file and the field, nothing written, in every format', async (name, edit, reason) => {
    const { root, file } = tree(name.replace(/\W+/g, '-'), edit);
    for (const format of FORMATS) {
      const r = await run([root, '--format', format]);
      expect(r, format).toMatchObject({ code: 1, stdout: '' });
      expect(r.stderr).toMatch(reason);
      expect(r.stderr.startsWith(`docs-export: ${file}: not a chunk manifest: `)).toBe(true);
      expect(r.stderr.endsWith(' (rebuild it with chunking-tool)\n')).toBe(true);
      expect(r.stderr.split('\n')).toHaveLength(2);
    }
  });

  it('with --out, the file is left as it was', async () => {
    const { root } = tree('out-kept', (c) => delete c.tokenStats);
    const out = join(ws, 'kept.jsonl');
    writeFileSync(out, 'previous\n');
    expect((await run([root, '--format', 'langchain', '--out', out])).code).toBe(1);
    expect(readFileSync(out, 'utf8')).toBe('previous\n');
  });

  it('any value in any field read: a one-line refusal with nothing written, or flat metadata for every chunk', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...FIELDS), fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }), fc.constantFrom(...FORMATS), async (field, value, format) => {
        const { root, file } = tree(`prop-${n++}`, (c) => setPath(c, field, value));
        const r = await run([root, '--format', format]);
        if (r.code === 0) {
          const lines = r.stdout.split('\n').filter(Boolean);
          expect(lines).toHaveLength(2 * manifest.chunks.length);
          expect(lines.every(flatMetadata)).toBe(true);
        } else {
          expect(r).toMatchObject({ code: 1, stdout: '' });
          expect(r.stderr.startsWith(`docs-export: ${file}: not a chunk manifest: chunk 1`)).toBe(true);
          expect(r.stderr.split('\n')).toHaveLength(2);
        }
        rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
