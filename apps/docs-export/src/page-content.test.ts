/**
 * `--format langchain --page-content embed`: each Document's pageContent is the chunk's
 * embedText (the chunk behind its heading breadcrumb, what chunkyard embeds and what
 * `--with-embeddings` vectors are of), so a LangChain store that embeds pageContent itself
 * embeds what chunkyard embeds. Checked with @langchain/core's FakeVectorStore and an
 * Embeddings subclass recording the texts it is given, on a topic built in a temp workspace.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Document as LcDocument } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';
import { FakeVectorStore } from '@langchain/core/utils/testing';
import { chunkDocument, type ChunkRecord } from '@chunkyard/chunking';
import { createProvider } from '@chunkyard/embeddings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.js';

const ws = mkdtempSync(join(tmpdir(), 'docs-export-page-content-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));
const local = createProvider({ provider: 'local' });

/** Two sections whose last chunks read the same: only the breadcrumb tells them apart. */
const filler = Array.from({ length: 14 }, (_, i) => `Paragraph ${i} about prerequisites explains one more detail of the setup, with enough words to fill a chunk of its own.`).join('\n\n');
const STEP = 'Run `npm install` from the project folder, wait for it to finish, then restart the terminal before you go on.';
const GUIDE = `# Installing\n\nHow to get the tool.\n\n## Windows\n\n${filler}\n\n${STEP}\n\n## Linux\n\n${filler}\n\n${STEP}\n`;
let chunks: ChunkRecord[] = [];

beforeAll(() => {
  writeFileSync(join(ws, 'nx.json'), '{}\n');
  const dir = join(ws, 'docs/tools/install');
  mkdirSync(join(dir, '_chunks'), { recursive: true });
  writeFileSync(join(dir, 'guide.md'), GUIDE);
  const r = chunkDocument(GUIDE, { docName: 'guide', sourceFile: 'guide.md', maxTokens: 120, targetTokens: 60, minTokens: 16, breadcrumbMode: 'always' });
  chunks = r.chunks;
  const manifest = { schemaVersion: 1, source: 'guide.md', sourceSha256: 'x', strategy: r.strategy, strategyKey: r.strategyKey, options: r.options, fileTitle: r.fileTitle, frontMatter: r.frontMatter, chunks };
  writeFileSync(join(dir, '_chunks/guide.json'), JSON.stringify(manifest));
});

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), cwd: ws, stdoutIsTTY: true });
  return { code, stdout, stderr, lines: () => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { pageContent: string; metadata: Record<string, unknown>; id: string; embedding?: number[] }) };
}

class RecordingEmbeddings extends Embeddings {
  readonly documents: string[] = [];
  constructor() {
    super({});
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.documents.push(...texts);
    return (await local.embed(texts)).map((v) => Array.from(v));
  }
  async embedQuery(text: string): Promise<number[]> {
    return Array.from((await local.embed([text]))[0]!);
  }
}

describe('docs-export --page-content', () => {
  it('default and original: pageContent is originalText, as before; embed: embedText, the metadata the same', async () => {
    const plain = await run(['docs', '--format', 'langchain']);
    const original = await run(['docs', '--format', 'langchain', '--page-content', 'original']);
    const embed = await run(['docs', '--format', 'langchain', '--page-content', 'embed']);
    for (const r of [plain, original, embed]) expect(r.code, r.stderr).toBe(0);
    expect(original.stdout).toBe(plain.stdout);
    expect(plain.lines().map((l) => l.pageContent)).toEqual(chunks.map((c) => c.originalText));
    expect(embed.lines().map((l) => l.pageContent)).toEqual(chunks.map((c) => c.embedText));
    expect(chunks.every((c) => c.embedText !== c.originalText)).toBe(true);
    expect(embed.lines().map((l) => [l.id, l.metadata])).toEqual(plain.lines().map((l) => [l.id, l.metadata]));
  });

  it('embed: a LangChain store embeds the breadcrumb, and a query naming the section finds its step', async () => {
    const docs = (await run(['docs', '--format', 'langchain', '--page-content', 'embed'])).lines().map((l) => new LcDocument(l));
    const embeddings = new RecordingEmbeddings();
    const store = await FakeVectorStore.fromDocuments(docs, embeddings);
    expect(embeddings.documents).toEqual(chunks.map((c) => c.embedText));
    const steps = embeddings.documents.filter((t) => t.includes(STEP));
    expect(steps.map((t) => t.split('\n')[0])).toEqual(['Installing > Windows', 'Installing > Linux']);
    for (const os of ['Windows', 'Linux']) {
      const [top] = await store.similaritySearch(`npm install restart the terminal on ${os}`, 1);
      expect(top!.pageContent).toContain(STEP);
      expect(top!.metadata.headerBreadcrumb).toBe(`Installing > ${os}`);
    }
  });

  it('embed with --with-embeddings: each vector is the embedding of its own pageContent (with original it is not)', async () => {
    for (const [mode, same] of [['embed', true], ['original', false]] as const) {
      const r = await run(['docs', '--format', 'langchain', '--page-content', mode, '--with-embeddings']);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.lines();
      const again = await local.embed(lines.map((l) => l.pageContent));
      for (const [i, l] of lines.entries()) expect(Array.from(Float32Array.from(l.embedding!)) + '' === Array.from(again[i]!) + '', `${mode} ${l.id}`).toBe(same);
    }
  });

  it('refuses a value it does not know, and a format other than langchain (exit 2)', async () => {
    const usage = async (argv: string[], message: string) => {
      const r = await run(argv);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(message);
    };
    await usage(['docs', '--format', 'langchain', '--page-content', 'embedText'], '--page-content must be original or embed, got "embedText"');
    await usage(['docs', '--format', 'llamaindex', '--page-content', 'embed'], '--page-content applies to --format langchain only');
    await usage(['docs', '--format', 'jsonl', '--page-content', 'original'], '--page-content applies to --format langchain only');
  });
});
