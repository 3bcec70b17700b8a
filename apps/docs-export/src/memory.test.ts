// docs-export's memory is bounded by the largest document, not by the tree: the built CLI
// (tools/build.mjs apps/docs-export first), in a process of its own with a heap too small for
// the tree's manifests, exports a tree of many copies of one topic with their cached vectors.
// It held every manifest until the last was written, and each document's records, their lines
// and the lines joined all at once (1.5 GB for a 140 MB manifest with its vectors; issue 15).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkDocument } from '@chunkyard/chunking';
import { EmbeddingCache, embedThroughCache, sha256Hex } from '@chunkyard/embedding-cache';
import { createProvider } from '@chunkyard/embeddings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportError, loadSurveyed, surveyBuiltDocs } from './export.js';

const DIST = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const COPIES = 32;
const ws = mkdtempSync(join(tmpdir(), 'docs-export-memory-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));

let chunks = 0;
let manifestBytes = 0;
beforeAll(async () => {
  // A table of made-up rows, as the probe's big topic: many small chunks, each with a vector.
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const word = (n: number) => Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(rnd() * 26))).join('');
  let text = '# Table\n\n| name | kind | value | note |\n| --- | --- | --- | --- |\n';
  while (text.length < 150_000) text += `| ${word(6)} | ${word(5)} | ${Math.floor(rnd() * 1e6)} | ${word(8)} ${word(4)} |\n`;
  const r = chunkDocument(text, { docName: 'golden-reference', sourceFile: 'golden-reference.md' });
  const manifest = { schemaVersion: 1, source: 'golden-reference.md', sourceSha256: sha256Hex(text), strategy: r.strategy, strategyKey: r.strategyKey, options: r.options, fileTitle: r.fileTitle, frontMatter: r.frontMatter, chunks: r.chunks };
  const first = join(ws, 'docs/t0');
  mkdirSync(join(first, '_chunks'), { recursive: true });
  writeFileSync(join(first, 'golden-reference.md'), text);
  writeFileSync(join(first, '_chunks/golden-reference.json'), JSON.stringify(manifest, null, 2));
  for (let i = 1; i < COPIES; i++) cpSync(first, join(ws, `docs/t${i}`), { recursive: true });
  writeFileSync(join(ws, 'nx.json'), '{}\n');
  // topic-spec's default cache, where every topic's vectors are looked for last: one entry serves every copy.
  await embedThroughCache(new EmbeddingCache(join(ws, '.embedding-cache')), createProvider({ provider: 'local' }), { strategyKey: r.strategyKey, fileHash: manifest.sourceSha256 }, r.chunks.map((c) => c.embedText));
  chunks = r.chunks.length;
  manifestBytes = statSync(join(first, '_chunks/golden-reference.json')).size;
}, 120_000);

describe('docs-export on a tree larger than its heap', () => {
  it('exports every chunk with its vector within a heap smaller than the manifests of the tree', () => {
    // The tree's manifests are ~100 MB; the heap is 64 MB, room for a few documents.
    expect(manifestBytes * COPIES).toBeGreaterThan(90 * 2 ** 20);
    const out = join(ws, 'out.jsonl');
    const run = spawnSync(process.execPath, ['--max-old-space-size=64', DIST, 'docs', '--format', 'jsonl', '--with-embeddings', '--cached-only', '--out', out], { cwd: ws, encoding: 'utf8', timeout: 240_000 });
    expect(run.status, run.stderr.slice(-400)).toBe(0);
    expect(run.stderr).toContain(`${chunks * COPIES} chunks of ${COPIES} documents in ${COPIES} topics as jsonl`);
    const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(chunks * COPIES);
    // Every line whole and in order: ids of each topic's chunks, topics in path order.
    const ids = lines.map((l) => (JSON.parse(l) as { id: string; embedding: number[] }).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]!.startsWith('t0/')).toBe(true);
    expect((JSON.parse(lines.at(-1)!) as { embedding: number[] }).embedding).toHaveLength(512);
  }, 300_000);
});

describe('loadSurveyed', () => {
  it('refuses a manifest changed since the survey checked it: what is written is what was checked', () => {
    const docs = join(ws, 'docs');
    const surveyed = surveyBuiltDocs(docs);
    expect(surveyed).toHaveLength(COPIES);
    expect(loadSurveyed(surveyed[1]!).manifest.chunks).toHaveLength(chunks);
    // A build rewriting the manifest between the check and the write: a valid manifest with the
    // same chunks, one byte longer (a file's times can stay the same within a clock tick).
    const file = surveyed[1]!.manifestFile;
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n`);
    expect(() => loadSurveyed(surveyed[1]!)).toThrow(ExportError);
    expect(() => loadSurveyed(surveyed[1]!)).toThrow(/changed while it was exported/);
  });
});
