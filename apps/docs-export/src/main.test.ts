/**
 * docs-export on a built docs tree in a temp workspace: two topics from the sample docs, one
 * chunked `semantic` with its vectors cached where the Nx plugin's spec task puts them, one
 * chunked `hierarchical` with none. Every format is loaded back with the real libraries
 * (@langchain/core's Document and in-memory FakeVectorStore; llamaindex's TextNode,
 * VectorStoreIndex and SimpleVectorStore), indexed and queried.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Document as LcDocument } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';
import { FakeVectorStore } from '@langchain/core/utils/testing';
import { BaseEmbedding, jsonToNode, metadataDictToNode, MetadataMode, nodeToMetadata, Settings, SimpleVectorStore, TextNode, VectorStoreIndex, VectorStoreQueryMode } from 'llamaindex';
import { chunkDocument, PAGES_MANIFEST, type ChunkRecord } from '@chunkyard/chunking';
import { ChunkyardTextSplitter } from '@chunkyard/chunking/langchain';
import { EmbeddingCache, embedThroughCache, projectCacheFolderName, sha256Hex } from '@chunkyard/embedding-cache';
import { createProvider } from '@chunkyard/embeddings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGES_MANIFEST as LOCAL_PAGES_MANIFEST } from './export.js';
import { HELP, main, type Io } from './main.js';

const APP = join(import.meta.dirname, '..');
const REPO = join(APP, '../..');
const pkg = JSON.parse(readFileSync(join(APP, 'package.json'), 'utf8')) as { version: string };
const ws = mkdtempSync(join(tmpdir(), 'docs-export-'));
const DOCS = join(ws, 'docs');
const POLY = 'libraries/polymorphism';
const AOT = 'deployment/native-aot';
const local = createProvider({ provider: 'local' });
afterAll(() => rmSync(ws, { recursive: true, force: true }));

interface Manifest {
  source: string;
  sourceSha256: string;
  strategyKey: string;
  chunks: ChunkRecord[];
}
const manifests = new Map<string, Manifest>();
const sources = new Map<string, string>();
let polyVectors: Float32Array[] = [];

/** A topic as chunking-tool leaves it: the source and `_chunks/golden-reference.json`. */
function buildTopic(topic: string, from: string, strategy: 'semantic' | 'hierarchical'): Manifest {
  const text = readFileSync(join(REPO, 'docs', from, 'golden-reference.md'), 'utf8');
  mkdirSync(join(DOCS, topic, '_chunks'), { recursive: true });
  writeFileSync(join(DOCS, topic, 'golden-reference.md'), text);
  const r = chunkDocument(text, { docName: 'golden-reference', sourceFile: 'golden-reference.md', strategy });
  const manifest = { schemaVersion: 1, source: 'golden-reference.md', sourceSha256: sha256Hex(text), strategy: r.strategy, strategyKey: r.strategyKey, options: r.options, fileTitle: r.fileTitle, frontMatter: r.frontMatter, chunks: r.chunks };
  writeFileSync(join(DOCS, topic, '_chunks/golden-reference.json'), JSON.stringify(manifest, null, 2));
  manifests.set(topic, manifest);
  sources.set(topic, text);
  return manifest;
}

beforeAll(async () => {
  writeFileSync(join(ws, 'nx.json'), '{}\n');
  const poly = buildTopic(POLY, 'libraries/system-text-json-polymorphism', 'semantic');
  buildTopic(AOT, 'deployment/native-aot', 'hierarchical');
  // spec's cache for the poly topic, where the Nx plugin puts it: .embedding-cache/<project>.
  const cache = new EmbeddingCache(join(ws, '.embedding-cache/topic-libraries-polymorphism'));
  polyVectors = (await embedThroughCache(cache, local, { strategyKey: poly.strategyKey, fileHash: poly.sourceSha256 }, poly.chunks.map((c) => c.embedText))).vectors;
  // Folders that are not topics are walked past: a section with no _chunks, a hidden folder.
  mkdirSync(join(DOCS, '.git/_chunks'), { recursive: true });
  writeFileSync(join(DOCS, '.git/_chunks/x.json'), 'not json');
});

async function run(argv: string[], extra: Partial<Io> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), cwd: ws, stdoutIsTTY: true, ...extra });
  return {
    code,
    stdout,
    stderr,
    /** Each output line as JSON (read when asked: --help output is not JSON). */
    get lines() {
      return stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    },
  };
}

const totalChunks = () => [...manifests.values()].reduce((n, m) => n + m.chunks.length, 0);

/** LangChain's Embeddings over chunkyard's offline lexical embedder (the model the vectors were cached for). */
class LocalEmbeddings extends Embeddings {
  constructor() {
    super({});
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return (await local.embed(texts)).map((v) => Array.from(v));
  }
  async embedQuery(text: string): Promise<number[]> {
    return (await this.embedDocuments([text]))[0]!;
  }
}

class LocalEmbedding extends BaseEmbedding {
  constructor() {
    super();
  }
  async getTextEmbedding(text: string): Promise<number[]> {
    return Array.from((await local.embed([text]))[0]!);
  }
}

const AOT_QUERY = 'How do I publish a native AOT app and what are its limitations?';
const POLY_QUERY = 'type discriminator for polymorphic deserialization of derived classes';

describe('docs-export', () => {
  it('leaves out the pages manifest under the name the chunker writes it', () => {
    expect(LOCAL_PAGES_MANIFEST).toBe(PAGES_MANIFEST);
  });

  it('--help, --version and usage errors', async () => {
    expect(await run(['--help'])).toMatchObject({ code: 0, stdout: HELP, stderr: '' });
    expect(HELP.startsWith('docs-export — ')).toBe(true);
    expect(await run(['--version'])).toMatchObject({ code: 0, stdout: `docs-export ${pkg.version}\n` });
    const usage = async (argv: string[], message: string) => {
      const r = await run(argv);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(message);
    };
    await usage(['docs'], '--format is required: langchain, llamaindex, jsonl');
    await usage(['docs', '--format', 'csv'], '--format must be langchain, llamaindex, jsonl, got "csv"');
    // Issue 15: parseArgs called a value starting with a minus "ambiguous"; the tool's own check words it.
    await usage(['docs', '--format', '-1'], '--format must be langchain, llamaindex, jsonl, got "-1"');
    expect((await run(['docs', '--format', '-1'])).stderr).not.toContain('ambiguous');
    await usage(['nope', '--format', 'jsonl'], 'nope: no such folder');
    // Issue 15: a dangling symlink was "no such folder", though it is there to fix.
    symlinkSync('nowhere', join(ws, 'dangling-docs'));
    await usage(['dangling-docs', '--format', 'jsonl'], 'dangling-docs: a dangling symlink (its target does not exist); fix or remove the link');
    await usage(['nx.json', '--format', 'jsonl'], 'nx.json: not a folder');
    // Issue 15 probe: '' exported the current folder, and --cache-dir '' looked for a cache in it.
    await usage(['', '--format', 'jsonl'], 'an empty argument (""); give a path');
    await usage(['docs', '--format', 'jsonl', '--with-embeddings', '--cache-dir', ''], '--cache-dir: empty; give a value, or leave --cache-dir out');
    // Issue 15 probe: a name too long was "no such folder".
    await usage(['x'.repeat(300), '--format', 'jsonl'], `${'x'.repeat(300)}: name too long (ENAMETOOLONG); use a shorter path`);
    await usage(['docs', '--format', 'jsonl', '--cached-only'], '--cached-only applies to --with-embeddings only');
    await usage(['docs', '--format', 'jsonl', '--out', 'missing/x.jsonl'], 'does not exist');
    await usage(['docs', '--format', 'jsonl', '--bogus'], "Unknown option '--bogus'");
  });

  it('langchain: every chunk of every topic, loaded as @langchain/core Documents, indexed and queried in FakeVectorStore', async () => {
    const r = await run(['docs', '--format', 'langchain']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.lines).toHaveLength(totalChunks());
    expect(r.stderr).toBe(`docs-export: ${totalChunks()} chunks of 2 documents in 2 topics as langchain\n`);
    const docs = r.lines.map((l) => new LcDocument(l as { pageContent: string; metadata: Record<string, unknown>; id: string }));
    /** What ChunkyardTextSplitter gives the same chunks, by export id. */
    const splitterLoc = new Map<string, unknown>();
    for (const [topic, m] of manifests) {
      const strategy = m.chunks[0]!.metadata.chunkingOptions.strategy;
      const split = await new ChunkyardTextSplitter({ docName: 'golden-reference', strategy }).createDocuments([sources.get(topic)!], [{}]);
      for (const s of split) splitterLoc.set(`${topic}/${s.id!}`, s.metadata.loc);
    }
    let compared = 0;
    // Path order: deployment/ before libraries/.
    expect(docs[0]!.id).toBe(`${AOT}/${manifests.get(AOT)!.chunks[0]!.id}`);
    expect(new Set(docs.map((d) => d.id)).size).toBe(docs.length);
    for (const d of docs) {
      const topic = d.metadata.topic as string;
      const chunk = manifests.get(topic)!.chunks.find((c) => `${topic}/${c.id}` === d.id)!;
      expect(d.pageContent).toBe(chunk.originalText);
      expect(d.metadata).toMatchObject({
        chunkId: chunk.id,
        prevId: chunk.prevId,
        nextId: chunk.nextId,
        parentId: chunk.parentId,
        headerBreadcrumb: chunk.headerBreadcrumb,
        charStart: chunk.sourcePosition.charStart,
        charEnd: chunk.sourcePosition.charEnd,
        totalChars: chunk.sourcePosition.totalChars,
        startLine: chunk.source!.startLine,
        endLine: chunk.source!.endLine,
        tokens: chunk.tokenStats.tokens,
        embedTokens: chunk.tokenStats.embedTokens,
        source: `${topic}/golden-reference.md`,
        strategyKey: manifests.get(topic)!.strategyKey,
      });
      const { charStart, charEnd } = chunk.sourcePosition;
      if (!chunk.splitUnit) expect(sources.get(topic)!.slice(charStart, charEnd)).toBe(d.pageContent);
      // LangChain's own place for source lines, which its splitters set and its stores read
      // (Chroma's locFrom/locTo), as ChunkyardTextSplitter sets it (issue 15 probe: absent).
      expect(d.metadata.loc).toEqual({ lines: { from: chunk.source!.startLine, to: chunk.source!.endLine } });
      if (!/[\r\n]$/.test(chunk.originalText) && !chunk.splitUnit) {
        expect(d.metadata.loc).toEqual(splitterLoc.get(`${topic}/${chunk.id}`));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(docs.length / 2);
    const store = await FakeVectorStore.fromDocuments(docs, new LocalEmbeddings());
    expect((await store.similaritySearch(AOT_QUERY, 1))[0]!.metadata.topic).toBe(AOT);
    expect((await store.similaritySearch(POLY_QUERY, 1))[0]!.metadata.topic).toBe(POLY);
  });

  it('--with-embeddings: the cached vectors, exactly, for the configured model; uncached chunks embedded and counted', async () => {
    const r = await run(['docs', '--format', 'langchain', '--with-embeddings']);
    expect(r.code, r.stderr).toBe(0);
    const aotCount = manifests.get(AOT)!.chunks.length;
    expect(r.stderr).toContain(`vectors of ${local.model}: ${polyVectors.length} cached, ${aotCount} embedded now`);
    const poly = r.lines.filter((l) => (l.metadata as { topic: string }).topic === POLY);
    expect(poly.map((l) => Array.from(Float32Array.from(l.embedding as number[])))).toEqual(polyVectors.map((v) => Array.from(v)));
    for (const l of r.lines) expect((l.metadata as { embeddingModel: string }).embeddingModel).toBe(local.model);
    // LangChain's store takes the exported vectors as they are; the query is embedded with the same model.
    const store = new FakeVectorStore(new LocalEmbeddings());
    await store.addVectors(
      r.lines.map((l) => l.embedding as number[]),
      r.lines.map((l) => new LcDocument(l as { pageContent: string; metadata: Record<string, unknown>; id: string })),
    );
    const [[top, score]] = (await store.similaritySearchVectorWithScore(await new LocalEmbeddings().embedQuery(AOT_QUERY), 1)) as [[LcDocument, number]];
    expect(top.metadata.topic).toBe(AOT);
    expect(score).toBeGreaterThan(0);
  });

  it('llamaindex: TextNodes from JSON with SOURCE, PREVIOUS, NEXT, PARENT and CHILD; VectorStoreIndex and SimpleVectorStore queries', async () => {
    const r = await run(['docs', '--format', 'llamaindex', '--with-embeddings']);
    expect(r.code, r.stderr).toBe(0);
    // As the README reads them: jsonToNode drops a startCharIdx of 0, so it is set from the line.
    const nodes = r.lines.map((l) => Object.assign(jsonToNode(l) as TextNode, { startCharIdx: (l as { startCharIdx: number }).startCharIdx }));
    const byId = new Map(nodes.map((n) => [n.id_, n]));
    expect(byId.size).toBe(totalChunks());
    let parents = 0;
    for (const [i, n] of nodes.entries()) {
      expect(n).toBeInstanceOf(TextNode);
      const line = r.lines[i]!;
      const topic = n.metadata.topic as string;
      const chunk = manifests.get(topic)!.chunks.find((c) => `${topic}/${c.id}` === n.id_)!;
      expect(n.text).toBe(chunk.originalText);
      expect([line.start_char_idx, line.end_char_idx, line.startCharIdx, line.endCharIdx]).toEqual([chunk.sourcePosition.charStart, chunk.sourcePosition.charEnd, chunk.sourcePosition.charStart, chunk.sourcePosition.charEnd]);
      expect([n.startCharIdx, n.endCharIdx]).toEqual([chunk.sourcePosition.charStart, chunk.sourcePosition.charEnd]);
      expect(n.sourceNode!.nodeId).toBe(`${topic}/golden-reference.md`);
      expect(n.prevNode?.nodeId).toBe(chunk.prevId ? `${topic}/${chunk.prevId}` : undefined);
      expect(n.nextNode?.nodeId).toBe(chunk.nextId ? `${topic}/${chunk.nextId}` : undefined);
      for (const rel of [n.prevNode, n.nextNode, n.parentNode]) if (rel) expect(byId.has(rel.nodeId)).toBe(true);
      if (n.parentNode) {
        parents++;
        expect(byId.get(n.parentNode.nodeId)!.childNodes!.map((c) => c.nodeId)).toContain(n.id_);
      }
      expect(n.embedding).toHaveLength(local.dimensions!);
      // Flat, as LlamaIndex's Chroma, Milvus, Weaviate, MongoDB and AstraDB stores require (issue 15
      // probe: headerPath, sourcePosition, tokenStats and sourceLines were objects, and
      // nodeToMetadata(…, flatMetadata = true) threw "must not be another object").
      expect((metadataDictToNode(nodeToMetadata(n, true, 'text', true)) as TextNode).metadata).toEqual(n.metadata);
      // Only the breadcrumb of chunkyard's metadata is in the text LlamaIndex embeds and shows the
      // LLM: the file title where chunkyard's breadcrumb starts with it (the AOT topic's front-matter
      // title is not its H1), and the heading path.
      const titled = chunk.fileTitle !== chunk.headerPath[0];
      expect(n.getContent(MetadataMode.EMBED)).toBe(`${titled ? `fileTitle: ${chunk.fileTitle}\n` : ''}headerBreadcrumb: ${String(n.metadata.headerBreadcrumb)}\n\n${n.text}`.trim());
      expect(n.getContent(MetadataMode.LLM)).toBe(n.getContent(MetadataMode.EMBED));
    }
    // The hierarchical topic has snippets under sections; the semantic one has no chunk parents.
    expect(parents).toBe(manifests.get(AOT)!.chunks.filter((c) => c.tier?.level === 'snippet').length);
    expect(parents).toBeGreaterThan(0);

    // The exported vectors in LlamaIndex's in-memory vector store, queried by vector.
    const store = new SimpleVectorStore({ embedModel: new LocalEmbedding() });
    await store.add(nodes);
    const q = await store.query({ queryEmbedding: Array.from((await local.embed([POLY_QUERY]))[0]!), similarityTopK: 1, mode: VectorStoreQueryMode.DEFAULT });
    expect(byId.get(q.ids[0]!)!.metadata.topic).toBe(POLY);

    // And a VectorStoreIndex over the nodes, embedded by LlamaIndex itself, queried through its retriever.
    const index = await Settings.withEmbedModel(new LocalEmbedding(), () => VectorStoreIndex.init({ nodes: nodes.map((n) => new TextNode({ ...n, embedding: undefined })) }));
    const hits = await Settings.withEmbedModel(new LocalEmbedding(), () => index.asRetriever({ similarityTopK: 2 }).retrieve({ query: AOT_QUERY }));
    expect(hits[0]!.node.metadata.topic).toBe(AOT);
    expect(hits[0]!.node.id_.startsWith(`${AOT}/`)).toBe(true);
  });

  it('jsonl: plain records holding the whole chunk record, with vectors when asked', async () => {
    const r = await run(['docs', '--format', 'jsonl', '--with-embeddings']);
    expect(r.code, r.stderr).toBe(0);
    const polyLines = r.lines.filter((l) => l.topic === POLY);
    expect(polyLines.map((l) => l.chunk)).toEqual(JSON.parse(JSON.stringify(manifests.get(POLY)!.chunks)));
    expect(polyLines[0]).toMatchObject({ id: `${POLY}/doc:golden-reference::ch0`, source: `${POLY}/golden-reference.md`, strategyKey: 'semantic-16-80-512', embeddingModel: local.model });
    expect(Array.from(Float32Array.from(polyLines[0]!.embedding as number[]))).toEqual(Array.from(polyVectors[0]!));
    const plain = await run(['docs', '--format', 'jsonl']);
    expect(plain.lines[0]!.embedding).toBeUndefined();
    expect(plain.lines[0]!.embeddingModel).toBeUndefined();
  });

  it('names each symlinked folder holding built topics that the walk skipped (s40 probe: left out without a word)', async () => {
    const outside = join(ws, 'outside-built');
    cpSync(join(DOCS, AOT), join(outside, 'aot'), { recursive: true });
    const linked = join(DOCS, 'libraries', 'linked');
    const quiet = [join(DOCS, 'libraries', 'images'), join(DOCS, '_hidden-by-name'), join(DOCS, 'dangling')];
    symlinkSync(outside, linked);
    symlinkSync(mkdtempSync(join(ws, 'no-topics-')), quiet[0]!);
    symlinkSync(outside, quiet[1]!);
    symlinkSync(join(ws, 'nowhere'), quiet[2]!);
    try {
      const r = await run(['docs', '--format', 'jsonl']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr.split('\n')[0]).toBe(`docs-export: ${linked}: a symlinked folder (it leads to ${outside}), skipped: the walk does not follow links (one could lead back into the tree or out of it); export it as a docs folder of its own`);
      expect(r.stderr.split('\n').filter((l) => l.includes('symlinked'))).toHaveLength(1);
      expect(r.lines).toHaveLength(totalChunks());
    } finally {
      for (const l of [linked, ...quiet]) rmSync(l);
    }
  });

  it('--out writes atomically; --cached-only fails on the topic with no cache, naming its manifest, and leaves --out as it was', async () => {
    const out = join(ws, 'export.jsonl');
    const ok = await run(['docs', '--format', 'jsonl', '--out', 'export.jsonl']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('');
    expect(readFileSync(out, 'utf8').split('\n').filter(Boolean)).toHaveLength(totalChunks());
    writeFileSync(out, 'previous export\n');
    const fail = await run(['docs', '--format', 'jsonl', '--with-embeddings', '--cached-only', '--out', 'export.jsonl']);
    expect(fail.code).toBe(1);
    expect(fail.stderr).toContain(join(DOCS, AOT, '_chunks/golden-reference.json'));
    expect(fail.stderr).toContain(`no cached vectors of model ${local.model}`);
    expect(fail.stderr).toContain('nx run-many -t spec');
    expect(readFileSync(out, 'utf8')).toBe('previous export\n');
    expect(readdirSync(ws).filter((f) => f.includes('.tmp-'))).toEqual([]);
    // --cache-dir names another cache: with the aot vectors there, --cached-only passes.
    const aot = manifests.get(AOT)!;
    await embedThroughCache(new EmbeddingCache(join(ws, 'other-cache')), local, { strategyKey: aot.strategyKey, fileHash: aot.sourceSha256 }, aot.chunks.map((c) => c.embedText));
    const cached = await run(['docs', '--format', 'jsonl', '--with-embeddings', '--cached-only', '--cache-dir', 'other-cache']);
    expect(cached.code, cached.stderr).toBe(0);
    expect(cached.stderr).toContain(`${totalChunks()} cached, 0 embedded now`);
  });

  it('finds the cache of a topic whose project name is 255 bytes, in the shortened folder the Nx plugin gives it (2febf58)', async () => {
    // topic-g-<247 bytes>.pack would be over NAME_MAX, so the plugin names the folder
    // topic-g-<192 a>~<16 hex>; docs-export looked only under the full name and found nothing.
    const ws2 = mkdtempSync(join(tmpdir(), 'docs-export-long-'));
    try {
      writeFileSync(join(ws2, 'nx.json'), '{}\n');
      const folder = 'a'.repeat(247);
      const project = `topic-g-${folder}`;
      expect(Buffer.byteLength(project)).toBe(255);
      const text = sources.get(POLY)!;
      const r = chunkDocument(text, { docName: 'golden-reference', sourceFile: 'golden-reference.md', strategy: 'semantic' });
      const topicDir = join(ws2, 'docs/g', folder);
      mkdirSync(join(topicDir, '_chunks'), { recursive: true });
      writeFileSync(join(topicDir, 'golden-reference.md'), text);
      const manifest = { schemaVersion: 1, source: 'golden-reference.md', sourceSha256: sha256Hex(text), strategy: r.strategy, strategyKey: r.strategyKey, options: r.options, fileTitle: r.fileTitle, frontMatter: r.frontMatter, chunks: r.chunks };
      writeFileSync(join(topicDir, '_chunks/golden-reference.json'), JSON.stringify(manifest));
      const cacheDir = join(ws2, '.embedding-cache', projectCacheFolderName(project));
      expect(cacheDir).toMatch(/\/topic-g-a{192}~[0-9a-f]{16}$/);
      const { vectors } = await embedThroughCache(new EmbeddingCache(cacheDir), local, { strategyKey: r.strategyKey, fileHash: manifest.sourceSha256 }, r.chunks.map((c) => c.embedText));
      const out = await run(['docs', '--format', 'jsonl', '--with-embeddings', '--cached-only'], { cwd: ws2 });
      expect(out.code, out.stderr).toBe(0);
      expect(out.stderr).toContain(`${r.chunks.length} cached, 0 embedded now`);
      expect(out.lines.map((l) => Array.from(Float32Array.from(l.embedding as number[])))).toEqual(vectors.map((v) => Array.from(v)));
    } finally {
      rmSync(ws2, { recursive: true, force: true });
    }
  });

  // Issue 15 probe (s55): existsSync follows links, so a workspace's chunkyard.config.yaml that
  // was a dangling or looping link read as no config: --with-embeddings exported the default
  // model's vectors, exit 0, where chunking-tool, topic-spec and docs-score refuse that config.
  it('--with-embeddings: a chunkyard.config.yaml that is a dangling or looping symlink is named, exit 2, nothing written', async () => {
    const linked = mkdtempSync(join(tmpdir(), 'docs-export-linkcfg-'));
    try {
      const text = sources.get(POLY)!;
      const r = chunkDocument(text, { docName: 'golden-reference', sourceFile: 'golden-reference.md', strategy: 'semantic' });
      mkdirSync(join(linked, 'docs/t/_chunks'), { recursive: true });
      writeFileSync(join(linked, 'docs/t/golden-reference.md'), text);
      const manifest = { schemaVersion: 1, source: 'golden-reference.md', sourceSha256: sha256Hex(text), strategy: r.strategy, strategyKey: r.strategyKey, options: r.options, fileTitle: r.fileTitle, frontMatter: r.frontMatter, chunks: r.chunks };
      writeFileSync(join(linked, 'docs/t/_chunks/golden-reference.json'), JSON.stringify(manifest));
      const config = join(linked, 'chunkyard.config.yaml');
      for (const [target, why] of [
        ['no-such.yaml', 'a dangling symlink (its target does not exist); fix or remove the link'],
        ['chunkyard.config.yaml', 'a symlink loop (it never reaches a file); fix or remove the link'],
      ] as const) {
        rmSync(config, { force: true });
        symlinkSync(target, config);
        const out = await run(['docs', '--format', 'jsonl', '--with-embeddings', '--out', 'x.jsonl'], { cwd: linked });
        expect(out.code, out.stderr).toBe(2);
        expect(out.stderr).toBe(`docs-export: cannot read config: ${config}: ${why}\nRun docs-export --help for usage.\n`);
        expect(existsSync(join(linked, 'x.jsonl'))).toBe(false);
      }
    } finally {
      rmSync(linked, { recursive: true, force: true });
    }
  });

  // s50 probe: in a folder with neither chunkyard.config.yaml nor nx.json, topic-spec caches in
  // ./.embedding-cache (its workspace is the current folder) but docs-export looked in
  // docs/.embedding-cache: --cached-only failed with "run the spec step first" right after it,
  // and without it every chunk was embedded again (a bill, with a remote provider).
  it('--with-embeddings, no config or nx.json anywhere up: finds the vectors topic-spec cached in the current folder', () => {
    const bare = mkdtempSync(join(tmpdir(), 'docs-export-bare-'));
    try {
      const topic = join(bare, 'docs/t');
      mkdirSync(topic, { recursive: true });
      writeFileSync(join(topic, 'golden-reference.md'), sources.get(POLY)!);
      const bin = (app: string, args: string[]) => spawnSync(process.execPath, [join(REPO, 'apps', app, 'bin', `${app}.js`), ...args], { cwd: bare, encoding: 'utf8', timeout: 60_000 });
      expect(bin('chunking-tool', ['docs/t']).status).toBe(0);
      expect(bin('keyword-extractor', ['docs/t']).status).toBe(0);
      const spec = bin('topic-spec', ['docs/t']);
      expect(spec.status, spec.stderr).toBe(0);
      expect(existsSync(join(bare, '.embedding-cache'))).toBe(true);
      const r = bin('docs-export', ['docs', '--format', 'jsonl', '--with-embeddings', '--cached-only']);
      expect(r.status, r.stderr).toBe(0);
      const chunks = r.stdout.split('\n').filter(Boolean).length;
      expect(chunks).toBeGreaterThan(1);
      expect(r.stderr).toContain(`vectors of local-lexical-v1-d512: ${chunks} cached, 0 embedded now`);
      expect(existsSync(join(bare, 'docs/.embedding-cache'))).toBe(false);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  // s39 probe: --out docs/<topic>/golden-reference.md replaced the author's source with JSON
  // lines (exit 0), and --out of a manifest replaced the chunk manifest it had just read, so the
  // topic was broken for every later step.
  it('--out onto a file of the docs it exports (a source, a manifest, a chunk, an index) is refused, exit 2, and the file is left as it was', async () => {
    writeFileSync(join(DOCS, 'index.json'), '{"root": true}\n');
    const chunkFile = join(DOCS, POLY, '_chunks/golden-reference-0.md');
    writeFileSync(chunkFile, 'chunk 0\n');
    for (const [rel, what] of [
      [`docs/${POLY}/golden-reference.md`, `the source of topic ${POLY}`],
      [`docs/${AOT}/_chunks/golden-reference.json`, `in topic ${AOT}'s generated _chunks/ folder`],
      [`docs/${POLY}/_chunks/golden-reference-0.md`, `in topic ${POLY}'s generated _chunks/ folder`],
      ['docs/index.json', 'a generated index.json of the docs'],
    ] as const) {
      const file = join(ws, rel);
      const before = readFileSync(file);
      const r = await run(['docs', '--format', 'jsonl', '--out', rel]);
      expect(r, rel).toEqual({
        code: 2,
        stdout: '',
        stderr: `docs-export: --out ${rel}: ${what}; writing there would replace it: choose a file outside the topics\nRun docs-export --help for usage.\n`,
        lines: expect.anything(),
      });
      expect(readFileSync(file), rel).toEqual(before);
    }
    rmSync(join(DOCS, 'index.json'));
    rmSync(chunkFile);
  });

  it('--out keeps the permissions of the file it replaces (s47 probe: a 0600 export came back 0644, readable by all)', async () => {
    const out = join(ws, 'private.jsonl');
    writeFileSync(out, 'old\n', { mode: 0o600 });
    chmodSync(out, 0o600);
    const r = await run(['docs', '--format', 'jsonl', '--out', 'private.jsonl']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').split('\n').filter(Boolean)).toHaveLength(totalChunks());
    expect(statSync(out).mode & 0o777).toBe(0o600);
    chmodSync(out, 0o640);
    expect((await run(['docs', '--format', 'langchain', '--out', 'private.jsonl'])).code).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o640);
  });

  it('--out with a legal name of 250 bytes is written (s34 probe: its temp name was over NAME_MAX, ENAMETOOLONG)', async () => {
    const name = 'e'.repeat(250);
    const r = await run(['docs', '--format', 'jsonl', '--out', name]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(ws, name), 'utf8').split('\n').filter(Boolean)).toHaveLength(totalChunks());
    expect(readdirSync(ws).filter((f) => f.includes('.tmp-'))).toEqual([]);
    rmSync(join(ws, name));
  });

  it('--out - writes to stdout, as without --out, and makes no file named - (s57 probe)', async () => {
    const plain = await run(['docs', '--format', 'jsonl']);
    const dash = await run(['docs', '--format', 'jsonl', '--out', '-']);
    expect(dash.code, dash.stderr).toBe(0);
    expect(dash.stdout).toBe(plain.stdout);
    expect(dash.lines).toHaveLength(totalChunks());
    expect(existsSync(join(ws, '-'))).toBe(false);
  });

  it('--out that is a symlink: what it points to is written and the link kept; a link to nothing is named, exit 1 (issue 15 probe)', async () => {
    mkdirSync(join(ws, 'exports'), { recursive: true });
    writeFileSync(join(ws, 'exports/week.jsonl'), 'old\n');
    symlinkSync('exports/week.jsonl', join(ws, 'latest.jsonl'));
    const ok = await run(['docs', '--format', 'jsonl', '--out', 'latest.jsonl']);
    expect(ok.code, ok.stderr).toBe(0);
    // Before: the rename put a regular file where the link was, and week.jsonl kept "old".
    expect(lstatSync(join(ws, 'latest.jsonl')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(ws, 'exports/week.jsonl'), 'utf8').split('\n').filter(Boolean)).toHaveLength(totalChunks());
    symlinkSync(join(ws, 'nowhere.jsonl'), join(ws, 'dangling.jsonl'));
    const dangling = await run(['docs', '--format', 'jsonl', '--out', 'dangling.jsonl']);
    expect({ code: dangling.code, stderr: dangling.stderr }).toEqual({ code: 1, stderr: `docs-export: ${join(ws, 'dangling.jsonl')}: a dangling symlink (its target does not exist); fix or remove the link\n` });
    expect(lstatSync(join(ws, 'dangling.jsonl')).isSymbolicLink()).toBe(true);
  });

  it('--out removes the temp file a killed run left beside it, and leaves a live run\'s', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const leftover = join(ws, `.killed.jsonl.tmp-${dead}-0123abcd`);
    const live = join(ws, `.killed.jsonl.tmp-${process.pid}-4567cdef`);
    writeFileSync(leftover, 'half an export');
    writeFileSync(live, 'another run in progress');
    const r = await run(['docs', '--format', 'jsonl', '--out', 'killed.jsonl']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(leftover)).toBe(false);
    expect(existsSync(live)).toBe(true);
    rmSync(live);
  });

  it.runIf(process.platform !== 'win32')('a manifest or --config that is a FIFO is refused at once, naming it', async () => {
    const fifo = join(ws, 'fifo-docs/topic/_chunks/golden-reference.json');
    mkdirSync(dirname(fifo), { recursive: true });
    spawnSync('mkfifo', [fifo]);
    const r = await run(['fifo-docs', '--format', 'jsonl']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`docs-export: ${fifo}: a FIFO (named pipe), not a regular file (rebuild it with chunking-tool)\n`);
    spawnSync('mkfifo', [join(ws, 'config.pipe')]);
    const c = await run(['docs', '--format', 'jsonl', '--with-embeddings', '--config', 'config.pipe']);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain(`cannot read config: ${join(ws, 'config.pipe')}: a FIFO (named pipe), not a regular file; point it at a regular file`);
  }, 20_000);

  // Root reads a file of any mode, so the built bin runs as nobody (setpriv).
  const canSetpriv = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v setpriv']).status === 0;
  it.runIf(canSetpriv)('a manifest that cannot be read (EACCES) is named with what to do, not "cannot read it (EACCES)" (s39 probe)', () => {
    const manifest = join(ws, 'eacces-docs/topic/_chunks/golden-reference.json');
    mkdirSync(dirname(manifest), { recursive: true });
    cpSync(join(DOCS, POLY, '_chunks/golden-reference.json'), manifest);
    spawnSync('chmod', ['a+rX', ws]);
    spawnSync('chmod', ['-R', 'a+rX', join(ws, 'eacces-docs')]);
    spawnSync('chmod', ['000', manifest]);
    const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, join(APP, 'bin/docs-export.js'), 'eacces-docs', '--format', 'jsonl'], { cwd: ws, encoding: 'utf8', timeout: 20_000 });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`docs-export: ${manifest}: permission denied (EACCES); check its permissions or choose another location\n`);
  });

  it('a chunk id given twice fails before any output, naming the manifest and the id (issue 15 probe)', async () => {
    // Two records with one export id were written, exit 0: a vector store keyed on it kept one.
    const dup = join(ws, 'dup-docs');
    const file = join(dup, 't/_chunks/golden-reference.json');
    mkdirSync(dirname(file), { recursive: true });
    const manifest = manifests.get(POLY)!;
    const [c0, c1, ...rest] = manifest.chunks;
    writeFileSync(file, JSON.stringify({ schemaVersion: 1, ...manifest, chunks: [c0, { ...c1!, id: c0!.id }, ...rest] }));
    for (const format of ['langchain', 'llamaindex', 'jsonl']) {
      expect(await run(['dup-docs', '--format', format]), format).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `docs-export: ${file}: not a chunk manifest: chunk 1 has the id ${JSON.stringify(c0!.id)}, which an earlier chunk of this manifest already gives (export id "t/${c0!.id}") (rebuild it with chunking-tool)\n`,
      });
    }
    // Across manifests: the root's own topic naming a chunk "t/<id>" is the export id of t's chunk.
    writeFileSync(file, JSON.stringify({ schemaVersion: 1, ...manifest }));
    const rootFile = join(dup, '_chunks/golden-reference.json');
    mkdirSync(dirname(rootFile), { recursive: true });
    writeFileSync(rootFile, JSON.stringify({ schemaVersion: 1, ...manifest, chunks: [{ ...c0!, id: `t/${c0!.id}` }] }));
    const r = await run(['dup-docs', '--format', 'jsonl', '--out', join(ws, 'dup.jsonl')]);
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: `docs-export: ${file}: not a chunk manifest: chunk 0 has the id ${JSON.stringify(c0!.id)}, which ${rootFile} already gives (export id "t/${c0!.id}") (rebuild it with chunking-tool)\n` });
    expect(existsSync(join(ws, 'dup.jsonl'))).toBe(false);
    rmSync(rootFile);
    const ok = await run(['dup-docs', '--format', 'jsonl']);
    expect(ok.code).toBe(0);
    expect(new Set(ok.lines.map((l) => l.id)).size).toBe(manifest.chunks.length);
    // One of each, said in the singular (it read "1 documents in 1 topics").
    expect(ok.stderr).toBe(`docs-export: ${manifest.chunks.length} chunks of 1 document in 1 topic as jsonl\n`);
    // A manifest without its schemaVersion says so (it read "schemaVersion is undefined").
    const { schemaVersion: _dropped, ...unversioned } = { schemaVersion: 1, ...manifest };
    writeFileSync(file, JSON.stringify(unversioned));
    expect(await run(['dup-docs', '--format', 'jsonl'])).toMatchObject({ code: 1, stderr: `docs-export: ${file}: not a chunk manifest: no "schemaVersion" (it is 1) (rebuild it with chunking-tool)\n` });
    rmSync(dup, { recursive: true, force: true });
  });

  it('a broken manifest fails before any output, naming the file; no built topic is an error too', async () => {
    const bad = join(ws, 'bad-docs/topic/_chunks/golden-reference.json');
    mkdirSync(dirname(bad), { recursive: true });
    cpSync(join(DOCS, POLY, '_chunks/golden-reference.json'), join(ws, 'bad-docs/a/_chunks/golden-reference.json'), { recursive: true });
    writeFileSync(bad, '{"schemaVersion": 1, "source": "golden-reference.md", "chunks": [');
    const r = await run(['bad-docs', '--format', 'langchain']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${bad}: not valid JSON`);
    writeFileSync(bad, JSON.stringify({ schemaVersion: 1, source: 'x.md', sourceSha256: 'ab', strategyKey: 'k', chunks: [{ id: 'x' }] }));
    expect((await run(['bad-docs', '--format', 'langchain'])).stderr).toContain(`${bad}: not a chunk manifest: chunk 0 lacks id, originalText`);
    // s47 probe: a chunk without metadata.chunkingOptions passed the check, then every format
    // threw a TypeError (a stack trace) while writing.
    const record = manifests.get(POLY)!.chunks[0]!;
    writeFileSync(bad, JSON.stringify({ schemaVersion: 1, source: 'x.md', sourceSha256: 'ab', strategyKey: 'k', chunks: [{ ...record, metadata: { sourceFile: 'x.md' } }] }));
    for (const format of ['langchain', 'llamaindex', 'jsonl']) {
      expect(await run(['bad-docs', '--format', format])).toMatchObject({ code: 1, stdout: '', stderr: `docs-export: ${bad}: not a chunk manifest: chunk 0 lacks metadata.chunkingOptions (rebuild it with chunking-tool)\n` });
    }
    mkdirSync(join(ws, 'empty-docs/section'), { recursive: true });
    const none = await run(['empty-docs', '--format', 'jsonl']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no built topic');
  });

  it('chunk files whose manifest is missing fail the run, naming the folder (s47 probe: the topic was left out without a word)', async () => {
    cpSync(join(DOCS, POLY), join(ws, 'orphan-docs/good'), { recursive: true });
    const chunks = join(ws, 'orphan-docs/gone/_chunks');
    mkdirSync(chunks, { recursive: true });
    for (let i = 0; i < 3; i++) writeFileSync(join(chunks, `golden-reference-${i}.md`), `chunk ${i}\n`);
    // paginate's pages manifest beside a good manifest is not a chunk file
    writeFileSync(join(ws, 'orphan-docs/good/_chunks', PAGES_MANIFEST), '{}');
    const r = await run(['orphan-docs', '--format', 'langchain']);
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: `docs-export: ${chunks}: chunk files without their manifest (golden-reference.json); rebuild the topic with chunking-tool\n` });
    rmSync(join(ws, 'orphan-docs/gone'), { recursive: true });
    const ok = await run(['orphan-docs', '--format', 'langchain']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.lines).toHaveLength(manifests.get(POLY)!.chunks.length);
  });

  it('a manifest that is a link to a secret is named as not JSON without quoting it (issue 15: JSON.parse quoted the file)', async () => {
    const secret = join(ws, 'outside-secret');
    writeFileSync(secret, 'password=hunter2-secret');
    const manifest = join(ws, 'secret-docs/topic/_chunks/golden-reference.json');
    mkdirSync(dirname(manifest), { recursive: true });
    symlinkSync(secret, manifest);
    const r = await run(['secret-docs', '--format', 'jsonl']);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toBe(`docs-export: ${manifest}: not valid JSON (unexpected character at line 1, column 1)\n`);
    expect(r.stderr).not.toMatch(/hunter2|password/);
  });

  it('environment errors are one line naming the path: a _chunks that is a file, an --out folder that is a file, an --out FIFO or device', async () => {
    // Found by probing: each of these printed a stack trace (the abort's rmSync threw over
    // the real error), and a FIFO --out was silently replaced by a regular file.
    const docs = join(ws, 'enotdir-docs');
    mkdirSync(join(docs, 't'), { recursive: true });
    writeFileSync(join(docs, 't/_chunks'), 'a file where a folder belongs');
    const a = await run(['enotdir-docs', '--format', 'jsonl']);
    expect(a.code).toBe(1);
    expect(a.stderr).toMatch(new RegExp(`^docs-export: ${join(docs, 't/_chunks')}: .*file where a folder is expected \\(ENOTDIR\\); remove or rename .*\n$`));
    const file = join(ws, 'plain-file');
    writeFileSync(file, 'x');
    const b = await run(['docs', '--format', 'jsonl', '--out', join(file, 'out.jsonl')]);
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(new RegExp(`^docs-export: ${file}: .*file where a folder is expected \\(ENOTDIR\\); remove or rename .*\n$`));
    const fifo = join(ws, 'out.fifo');
    spawnSync('mkfifo', [fifo]);
    for (const target of [fifo, '/dev/null']) {
      const c = await run(['docs', '--format', 'jsonl', '--out', target]);
      expect(c.code, target).toBe(2);
      expect(c.stderr.split('\n')[0]).toMatch(new RegExp(`^docs-export: --out ${target}: a (FIFO \\(named pipe\\)|character device), not a regular file; give a file path, or leave out --out`));
    }
    expect(statSync(fifo).isFIFO()).toBe(true);
    // A folder that refuses the temp file: named by the shared guard, not by the temp name.
    if (process.platform === 'linux') {
      expect(await run(['docs', '--format', 'jsonl', '--out', '/proc/self/out.jsonl'])).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'docs-export: /proc/self: cannot write in this folder: no such file or folder (ENOENT); check the path\n',
      });
    }
  });

  it.runIf(process.platform !== 'win32')('a --cache-dir that is a FIFO, a device, a dangling symlink or a file is refused (exit 2), naming it', async () => {
    // Found by probing: each of these was silently skipped (existsSync passed a FIFO or device
    // and failed a dangling symlink), so --cached-only blamed the cache rather than the option.
    const fifo = join(ws, 'cache.fifo');
    spawnSync('mkfifo', [fifo]);
    const dangling = join(ws, 'cache.dangling');
    symlinkSync(join(ws, 'no-such-cache'), dangling);
    const file = join(ws, 'cache.file');
    writeFileSync(file, 'x');
    const cases: [string, string][] = [
      [fifo, 'a FIFO \\(named pipe\\), not a folder'],
      ['/dev/null', 'a character device, not a folder'],
      [dangling, `a symlink to ${join(ws, 'no-such-cache')}, which does not exist`],
      [file, 'a regular file, not a folder'],
      // s37 probe: a path through a file (it can never be made) was skipped without a word.
      [join(file, 'sub'), `${file} is a regular file, so no folder can be made below it`],
    ];
    for (const [target, what] of cases) {
      for (const extra of [[], ['--with-embeddings']]) {
        const r = await run(['docs', '--format', 'jsonl', ...extra, '--cache-dir', target]);
        expect(r.code, `${target} ${extra.join(' ')}`).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(new RegExp(`^docs-export: --cache-dir ${target}: ${what}; give an embedding cache folder \\(or one not yet made\\)\n`));
      }
    }
    // A folder not made yet is an empty cache, as topic-spec --cache-dir makes it: not an error.
    const fresh = await run(['docs', '--format', 'jsonl', '--cache-dir', 'not-yet-made']);
    expect(fresh.code, fresh.stderr).toBe(0);
  }, 20_000);

  it('a --config given is read even without --with-embeddings: a missing or invalid one is exit 2', async () => {
    const missing = await run(['docs', '--format', 'jsonl', '--config', 'no-such.yaml']);
    expect(missing.code).toBe(2);
    // Issue 15 probe: it was "<file>: cannot read config (ENOENT)", the errno and nothing to do.
    expect(missing.stderr).toContain(`cannot read config: ${join(ws, 'no-such.yaml')}: no such file or folder (ENOENT); check the path`);
    expect(missing.stdout).toBe('');
    writeFileSync(join(ws, 'bad.yaml'), 'embeddings:\n  dimensions: 1e309\n');
    expect((await run(['docs', '--format', 'jsonl', '--config', 'bad.yaml'])).code).toBe(2);
    // Issue 15 probe: read with replacement characters, UTF-16 was "expected a mapping of settings at the top level".
    writeFileSync(join(ws, 'utf16.yaml'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('embeddings:\n  provider: local\n', 'utf16le')]));
    const utf16 = await run(['docs', '--format', 'jsonl', '--config', 'utf16.yaml']);
    expect(utf16.code).toBe(2);
    expect(utf16.stderr).toContain('utf16.yaml: UTF-16 (little-endian) text (it starts with that byte order mark), not UTF-8; save it as UTF-8');
  });

  it('escapes control characters in its messages (a docs root named with an escape sequence)', async () => {
    const r = await run(['no\u001b[2Jsuch\u009b', '--format', 'jsonl']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no\\u001b[2Jsuch\\u009b');
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });

  it('names a path with a line break on one line: usage errors, no built topic, a broken manifest, the summary (s47 probe: the line split in two)', async () => {
    const oneLineEach = (stderr: string, lines: number) => {
      expect(stderr.split('\n').filter(Boolean)).toHaveLength(lines);
      expect(stderr).toContain('\\u000a');
    };
    const missing = await run(['no\nsuch', '--format', 'jsonl']);
    expect(missing.code).toBe(2);
    oneLineEach(missing.stderr, 2); // and "Run docs-export --help for usage."
    oneLineEach((await run(['docs', '--format', 'jsonl', '--out', 'no\nfolder/x.jsonl'])).stderr, 2);
    oneLineEach((await run(['docs', 'x\ny', '--format', 'jsonl'])).stderr, 2);
    mkdirSync(join(ws, 'nl-docs/a\nb'), { recursive: true });
    const none = await run(['nl-docs/a\nb', '--format', 'jsonl']);
    expect(none.code).toBe(1);
    oneLineEach(none.stderr, 1);
    const manifest = join(ws, 'nl-docs/top\nic/_chunks/golden-reference.json');
    mkdirSync(dirname(manifest), { recursive: true });
    writeFileSync(manifest, '{');
    const broken = await run(['nl-docs', '--format', 'jsonl']);
    expect(broken.code).toBe(1);
    oneLineEach(broken.stderr, 1);
    cpSync(join(DOCS, POLY), join(ws, 'nl-docs/top\nic'), { recursive: true });
    const done = await run(['nl-docs', '--format', 'jsonl', '--out', 'out\nput.jsonl']);
    expect(done.code, done.stderr).toBe(0);
    oneLineEach(done.stderr, 1);
  });

  it('escapes DEL and C1 controls from chunk text in its JSON lines, keeping the values', async () => {
    const root = join(ws, 'c1-docs');
    // Issue 15 probe: the bidi overrides and isolates (U+202E in a title shows "gnp.exe" as
    // "exe.png") went out raw; every CLI's escapeControl escapes them.
    const text = '# Title \u009b2J end \u202egnp.exe\u2066x\u2069\n\nThe widget \u009d0;PWNED\u009c keeps \u007f things\u2028and\u2029more.\n';
    mkdirSync(join(root, 't', '_chunks'), { recursive: true });
    writeFileSync(join(root, 't', 'golden-reference.md'), text);
    const c = chunkDocument(text, { docName: 'golden-reference', sourceFile: 'golden-reference.md' });
    writeFileSync(
      join(root, 't', '_chunks/golden-reference.json'),
      JSON.stringify({ schemaVersion: 1, source: 'golden-reference.md', sourceSha256: sha256Hex(text), strategy: c.strategy, strategyKey: c.strategyKey, options: c.options, fileTitle: c.fileTitle, frontMatter: c.frontMatter, chunks: c.chunks }),
    );
    const r = await run([root, '--format', 'jsonl']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(r.stdout).toContain('\\u009b2J');
    expect(r.stdout).toContain('\\u202egnp.exe\\u2066x\\u2069');
    // U+2028 and U+2029 are line breaks to Python's str.splitlines() and to editors: a JSONL
    // reader splitting on them got half records. Escaped, one record is one line for any reader.
    expect(r.stdout).toContain('things\\u2028and\\u2029more');
    expect(r.stdout.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/).filter(Boolean)).toHaveLength(r.lines.length);
    expect((r.lines[0]!.chunk as { originalText: string }).originalText).toBe(c.chunks[0]!.originalText);
    expect(c.chunks[0]!.originalText).toContain('\u009d0;PWNED\u009c');
  });

  it('progress lines on stderr when stdout is not a terminal, none when it is', async () => {
    const piped = await run(['docs', '--format', 'jsonl'], { stdoutIsTTY: false, progressIntervalMs: 0 });
    expect(piped.stderr).toContain(`docs-export: 1/2 documents, ${manifests.get(AOT)!.chunks.length}/${totalChunks()} chunks\n`);
    const tty = await run(['docs', '--format', 'jsonl'], { stdoutIsTTY: false });
    expect(tty.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect((await run(['docs', '--format', 'jsonl'], { stdoutIsTTY: true, progressIntervalMs: 0 })).stderr).not.toContain('documents,');
  });

  it('the built bin writes the same lines, and stops quietly when the reader closes the pipe', () => {
    const bin = join(APP, 'bin/docs-export.js');
    const r = spawnSync(process.execPath, [bin, 'docs', '--format', 'langchain'], { cwd: ws, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(totalChunks());
    const head = spawnSync('sh', ['-c', `"${process.execPath}" "${bin}" docs --format jsonl --with-embeddings | head -c 100`], { cwd: ws, encoding: 'utf8' });
    expect(head.stdout).toHaveLength(100);
    expect(head.stderr).not.toContain('EPIPE');
  });

  it('the built bin with stdout redirected to a file past its size limit: exit 1, saying so (s47 probe: cut mid-line, exit 0)', () => {
    // Node's stdout to a file drops the error of a write that got part way (libuv returns the
    // bytes written); `ulimit -f` is a full disk's EFBIG without filling one.
    const bin = join(APP, 'bin/docs-export.js');
    const file = join(ws, 'limited.jsonl');
    const limited = (args: string) => spawnSync('sh', ['-c', `ulimit -f 4 && exec "${process.execPath}" "${bin}" ${args} > "${file}"`], { cwd: ws, encoding: 'utf8' });
    // One topic, one document: one write, which got part way and was taken as done.
    const r = limited(`docs/${POLY} --format langchain`);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toBe('docs-export: cannot write to stdout: file too large for this file system (EFBIG); choose another location\n');
    expect(statSync(file).size).toBeGreaterThan(0); // part of it went down: the short write, not a failed first one
    const help = limited('--help');
    expect(help.status, help.stderr).toBe(1);
    expect(help.stderr).toBe('docs-export: cannot write to stdout: file too large for this file system (EFBIG); choose another location\n');
  });
});
