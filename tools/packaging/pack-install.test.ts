/**
 * The packages as a user gets them: `npm pack --workspaces` from the repo root, then
 * `npm i <tarballs>` in an empty folder outside the repo (nothing links back into it), then
 * @chunkyard/chunking used from ESM, CommonJS and type-checked TypeScript, and the
 * `chunkyard` command run from its own install. Real npm, real tarballs; npm's cache (filled by
 * `npm ci`) serves the npm dependencies (--prefer-offline). better-sqlite3 (under
 * `chunkyard store`) compiles from source during the install, most of this file's time.
 */
import { spawn } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_ENV, ROOT, runChecked, workspacePackages } from './workspace.js';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
const packages = workspacePackages();
const temp = mkdtempSync(join(realpathSync(tmpdir()), 'chunkyard-pack-'));
const tarballDir = join(temp, 'tarballs');
const consumer = join(temp, 'consumer');
afterAll(() => {
  if (!KEEP) rmSync(temp, { recursive: true, force: true });
});

const run = runChecked;

/** `name` and every @chunkyard package it depends on, transitively. */
function closure(name: string): string[] {
  const out = new Set<string>();
  const visit = (n: string) => {
    if (out.has(n)) return;
    out.add(n);
    const pkg = packages.find((p) => p.pkg.name === n)?.pkg;
    if (!pkg) throw new Error(`${n} is not a workspace package`);
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies })) if (dep.startsWith('@chunkyard/')) visit(dep);
  };
  visit(name);
  return [...out].sort();
}

const tarballs = new Map<string, string>();
const install = (names: string[]) =>
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...names.map((n) => tarballs.get(n)!)], consumer);

/** Every symlink under `dir` must stay inside `dir` (npm links bins; nothing may lead back into the repo). */
function linksLeavingDir(dir: string): string[] {
  const bad: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isSymbolicLink()) {
        const target = realpathSync(p);
        if (relative(dir, target).startsWith('..') || target.startsWith(ROOT)) bad.push(`${p} -> ${target}`);
      } else if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return bad;
}

// A real document from the sample docs: headings, code, tables.
const DOC = readFileSync(join(ROOT, 'docs/libraries/system-text-json-polymorphism/golden-reference.md'), 'utf8');

/** Starts `chunkyard serve . --port 0` in the consumer, fetches /_inspect/, stops the server. */
async function inspectorPage(): Promise<string> {
  const server = spawn(process.execPath, [join(consumer, 'node_modules/.bin/chunkyard'), 'serve', '.', '--port', '0'], { cwd: consumer, env: CHILD_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((done) => server.on('exit', (code) => done(code)));
  try {
    const url = await new Promise<string>((found, fail) => {
      let out = '';
      server.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /chunk inspector at (http:\/\/\S+)/.exec(out);
        if (m) found(m[1]!);
      });
      void exited.then((code) => fail(new Error(`chunkyard serve exited ${code} before listening: ${out}`)));
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    return await res.text();
  } finally {
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  }
}

beforeAll(() => {
  mkdirSync(tarballDir);
  mkdirSync(consumer);
  const packed = JSON.parse(run('npm', ['pack', '--workspaces', '--pack-destination', tarballDir, '--json', '--loglevel=error'], ROOT).stdout) as { name: string; filename: string }[];
  for (const p of packed) tarballs.set(p.name, join(tarballDir, p.filename));
  run('npm', ['init', '-y'], consumer);
  writeFileSync(join(consumer, 'guide.md'), DOC);
}, 600_000);

describe('npm pack --workspaces, installed outside the repo', () => {
  it('packs every workspace package into @chunkyard-<name>-<version>.tgz', () => {
    expect([...tarballs.keys()].sort()).toEqual(packages.map((p) => p.pkg.name).sort());
    expect(tarballs.get('@chunkyard/chunking')).toBe(join(tarballDir, 'chunkyard-chunking-0.1.0.tgz'));
  });

  it('@chunkyard/chunking installs with its @chunkyard dependencies alone and works from ESM, CommonJS and TypeScript', () => {
    const names = closure('@chunkyard/chunking');
    expect(names).toEqual(['@chunkyard/chunking', '@chunkyard/keywords']);
    install(names);
    expect(lstatSync(join(consumer, 'node_modules/@chunkyard/chunking')).isSymbolicLink()).toBe(false);
    expect(readdirSync(join(consumer, 'node_modules/@chunkyard')).sort()).toEqual(['chunking', 'keywords']);

    // Each consumer prints what it got: chunk count and whether every chunk is its source slice.
    const check = `const src = fs.readFileSync('guide.md', 'utf8');
const r = chunkDocument(src, { docName: 'guide' });
console.log(JSON.stringify({ chunks: r.chunks.length, slices: r.chunks.every((c) => c.originalText === src.slice(c.sourcePosition.charStart, c.sourcePosition.charEnd)), title: r.fileTitle }));`;
    const esm = run(process.execPath, ['--input-type=module', '-e', `import fs from 'node:fs';\nimport { chunkDocument } from '@chunkyard/chunking';\n${check}`], consumer);
    const cjs = run(process.execPath, ['-e', `const fs = require('node:fs');\nconst { chunkDocument } = require('@chunkyard/chunking');\n${check}`], consumer);
    const got = JSON.parse(esm.stdout) as { chunks: number; slices: boolean; title: string };
    expect(got.chunks).toBeGreaterThan(3);
    expect(got.slices).toBe(true);
    expect(got.title).toMatch(/derived classes/);
    expect(JSON.parse(cjs.stdout)).toEqual(got);
    // Loading from CommonJS is Node's require(esm): no warning, no second build.
    expect(cjs.stderr).toBe('');

    // Typed, with the repo's TypeScript and nothing else: strict, lib checks on (no skipLibCheck).
    writeFileSync(
      join(consumer, 'consumer.mts'),
      `import { chunkDocument, ChunkOptionsError, type ChunkDocumentResult, type ChunkOptions, type ChunkRecord } from '@chunkyard/chunking';
const options: Partial<ChunkOptions> = { docName: 'guide', maxTokens: 256 };
const result: ChunkDocumentResult = chunkDocument('# Title\\n\\nText.\\n', options);
const first: ChunkRecord | undefined = result.chunks[0];
const start: number | undefined = first?.sourcePosition.charStart;
const isError: boolean = new ChunkOptionsError('x') instanceof Error;
// @ts-expect-error maxTokens is a number (this line would compile if the types were any)
chunkDocument('# T', { maxTokens: 'big' });
export { start, isError };
`,
    );
    writeFileSync(
      join(consumer, 'consumer.cts'),
      `import chunking = require('@chunkyard/chunking');
const n: number = chunking.chunkDocument('# T\\n\\nx\\n', { docName: 'x' }).chunks.length;
export = n;
`,
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    run(process.execPath, [tsc, '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--strict', 'consumer.mts', 'consumer.cts'], consumer);
    expect(linksLeavingDir(consumer)).toEqual([]);
  }, 120_000);

  it('@chunkyard/cli installs with the tools, and `npx chunkyard` runs them', async () => {
    const names = closure('@chunkyard/cli');
    // The nine tools, and the libraries whose types their declarations name.
    for (const tool of ['chunking-tool', 'keyword-extractor', 'topic-spec', 'index-tool', 'docs-query', 'docs-serve', 'docs-store', 'docs-score', 'inspector']) {
      expect(names).toContain(`@chunkyard/${tool}`);
    }
    install(names);
    // npm_config_yes=false: run the installed bin, never fetch one from the registry.
    const npx = (...args: string[]) => run('npx', args, consumer, { npm_config_yes: 'false' });
    expect(npx('chunkyard', '--version').stdout).toBe(`chunkyard ${packages.find((p) => p.pkg.name === '@chunkyard/cli')!.pkg.version}\n`);
    const chunk = npx('chunkyard', 'chunk', 'guide.md');
    expect(chunk.stdout).toMatch(/^guide\.md: \d+ chunks/);
    const manifest = JSON.parse(readFileSync(join(consumer, '_chunks/guide.json'), 'utf8')) as { source: string; chunks: { originalText: string }[] };
    expect(manifest.source).toBe('guide.md');
    expect(manifest.chunks.length).toBeGreaterThan(3);
    expect(readFileSync(join(consumer, '_chunks/guide-0.md'), 'utf8')).toBe(manifest.chunks[0]!.originalText);
    // docs-store loads better-sqlite3 (compiled during the install) and the MCP SDK.
    expect(npx('chunkyard', 'store', '--help').stdout).toMatch(/^docs-store — /);
    npx('chunkyard', 'store', 'ingest', 'guide.md', '--db', 'store.db');
    const found = JSON.parse(npx('chunkyard', 'store', 'search', 'polymorphic type discriminator', '--db', 'store.db', '--json').stdout) as { hits: { sourceFile: string }[] };
    expect(found.hits.length).toBeGreaterThan(0);
    expect(found.hits[0]!.sourceFile).toBe('guide.md');
    // chunkyard export hands the chunks to LangChain and LlamaIndex as JSON lines.
    const docs = JSON.parse(npx('chunkyard', 'export', '.', '--format', 'langchain').stdout.split('\n')[0]!) as { pageContent: string; metadata: { sourceFile: string } };
    expect(docs.pageContent).toBe(manifest.chunks[0]!.originalText);
    expect(docs.metadata.sourceFile).toBe('guide.md');
    const node = JSON.parse(npx('chunkyard', 'export', '.', '--format', 'llamaindex').stdout.split('\n')[1]!) as { relationships: Record<string, unknown> };
    expect(Object.keys(node.relationships)).toEqual(expect.arrayContaining(['SOURCE', 'PREVIOUS']));
    // Every tool is its own bin too.
    expect(npx('chunking-tool', '--version').stdout).toBe('chunking-tool 0.1.0\n');
    // docs-serve finds the inspector's page through the installed @chunkyard/inspector.
    expect(await inspectorPage()).toMatch(/^<!doctype html>/i);
    expect(linksLeavingDir(consumer)).toEqual([]);
  }, 900_000); // better-sqlite3 compiles from source during the install: minutes on 2 busy cores

  it('the drop-in splitters work from the installed package with the real LangChain.js and LlamaIndex.TS', () => {
    // The peers a LangChain or LlamaIndex user already has, at the versions this repo tests against.
    const version = (name: string) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    const peers = ['@langchain/core', '@langchain/textsplitters', 'llamaindex'].map((n) => `${n}@${version(n)}`);
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...peers], consumer);
    // One import changes: LangChain's MarkdownTextSplitter becomes chunkyard's.
    const script = `import fs from 'node:fs';
import { Document } from '@langchain/core/documents';
import { TextSplitter } from '@langchain/textsplitters';
import { MarkdownTextSplitter } from '@chunkyard/chunking/langchain';
import { ChunkyardNodeParser } from '@chunkyard/chunking/llamaindex';
import { Document as LlamaDocument, NodeParser, TextNode, NodeRelationship } from 'llamaindex';
const text = fs.readFileSync('guide.md', 'utf8');
const splitter = new MarkdownTextSplitter({ chunkSize: 1000, chunkOverlap: 0 });
const docs = await splitter.splitDocuments([new Document({ pageContent: text, metadata: { source: 'guide.md' } })]);
const parser = new ChunkyardNodeParser();
const nodes = parser.getNodesFromDocuments([new LlamaDocument({ id_: 'guide', text })]);
console.log(JSON.stringify({
  isTextSplitter: splitter instanceof TextSplitter,
  docs: docs.length,
  docsAreDocuments: docs.every((d) => d instanceof Document),
  docSlices: docs.every((d) => d.pageContent === text.slice(d.metadata.charStart, d.metadata.charEnd)),
  firstDoc: { source: docs[0].metadata.source, chunkId: docs[0].metadata.chunkId, id: docs[0].id },
  isNodeParser: parser instanceof NodeParser,
  nodes: nodes.length,
  nodesAreTextNodes: nodes.every((n) => n instanceof TextNode),
  nodeSlices: nodes.every((n) => n.text === text.slice(n.startCharIdx, n.endCharIdx)),
  sourceOfSecond: nodes[1].relationships[NodeRelationship.SOURCE]?.nodeId,
  previousOfSecond: nodes[1].relationships[NodeRelationship.PREVIOUS]?.nodeId === nodes[0].id_,
}));`;
    const got = JSON.parse(run(process.execPath, ['--input-type=module', '-e', script], consumer).stdout) as Record<string, unknown>;
    expect(got).toMatchObject({
      isTextSplitter: true,
      docsAreDocuments: true,
      docSlices: true,
      isNodeParser: true,
      nodesAreTextNodes: true,
      nodeSlices: true,
      sourceOfSecond: 'guide',
      previousOfSecond: true,
    });
    expect(got.docs).toBeGreaterThan(3);
    expect(got.nodes).toBe(got.docs);
    expect(got.firstDoc).toMatchObject({ source: 'guide.md' });
    expect((got.firstDoc as { chunkId: string; id: string }).id).toBe((got.firstDoc as { chunkId: string }).chunkId);
  }, 600_000);

  it('`chunkyard store mcp --http` from the install answers the official MCP SDK client: tools, chunk:// resources, the prompt', async () => {
    const bin = join(consumer, 'node_modules/.bin/chunkyard');
    run(process.execPath, [bin, 'store', 'ingest', 'guide.md', '--db', 'mcp.db'], consumer);
    const server = spawn(process.execPath, [bin, 'store', 'mcp', '--db', 'mcp.db', '--http', '--port', '0', '--token', 's3cret'], { cwd: consumer, env: CHILD_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((done) => server.on('exit', (code) => done(code)));
    try {
      const url = await new Promise<string>((found, fail) => {
        let err = '';
        server.stderr.on('data', (d: Buffer) => {
          err += d.toString();
          const m = / at (http:\/\/\S+\/mcp)/.exec(err);
          if (m) found(m[1]!);
        });
        void exited.then((code) => fail(new Error(`docs-store mcp exited ${code} before listening: ${err}`)));
      });
      // The SDK the consumer got as docs-store's dependency; the client runs in its own process,
      // resolving everything from the consumer's node_modules.
      const client = `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
const url = new URL(process.argv[1]);
const denied = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
const client = new Client({ name: 'pack-install', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: 'Bearer s3cret' } } }));
const tools = (await client.listTools()).tools.map((t) => t.name).sort();
const search = await client.callTool({ name: 'search_docs', arguments: { query: 'polymorphic type discriminator', limit: 3 } });
const hits = JSON.parse(search.content[0].text);
const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
const listed = (await client.listResources()).resources;
const read = await client.readResource({ uri: listed[0].uri });
const prompt = await client.getPrompt({ name: 'answer_from_docs', arguments: { question: 'How is the type discriminator written?' } });
await client.close();
console.log(JSON.stringify({ denied: denied.status, tools, hitFile: (hits.hits ?? hits)[0]?.source_file, templates, resources: listed.length, firstUri: listed[0].uri, readText: read.contents[0].text.length, promptText: prompt.messages[0].content.text }));`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', client, url], { cwd: consumer, env: CHILD_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const code = await new Promise<number | null>((done) => child.on('exit', done));
      expect(err).toBe('');
      expect(code).toBe(0);
      const got = JSON.parse(out) as { denied: number; tools: string[]; hitFile: string; templates: string[]; resources: number; firstUri: string; readText: number; promptText: string };
      expect(got.denied).toBe(401);
      expect(got.tools).toEqual(expect.arrayContaining(['search_docs', 'ingest_artifact', 'expand_chunk', 'store_stats']));
      expect(got.hitFile).toBe('guide.md');
      expect(got.templates.some((t) => t.startsWith('chunk://'))).toBe(true);
      expect(got.resources).toBeGreaterThan(3);
      expect(got.firstUri).toMatch(/^chunk:\/\//);
      expect(got.readText).toBeGreaterThan(0);
      expect(got.promptText).toMatch(/chunk:\/\//);
    } finally {
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 120_000);
});
