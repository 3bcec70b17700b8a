// The MCP Inspector's CLI mode (@modelcontextprotocol/inspector, a dev dependency: it
// installs from npm alone, with no download at install or run time) against the built bin,
// over stdio (it spawns `docs-store mcp` itself) and over Streamable HTTP with the bearer
// token. A second, independent client: what the SDK's Client accepts, the Inspector must too.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { BIN, ensureBuilt, REPO } from './test-build.js';

const INSPECTOR = join(REPO, 'node_modules/.bin/mcp-inspector');
const TOKEN = 'inspector-token-42';

let ws: string;
let env: Record<string, string>;
let server: ChildProcessWithoutNullStreams;
let url: string;

/** Runs `mcp-inspector --cli …`; resolves with its exit code and parsed stdout (JSON). */
function inspect(args: string[]): Promise<{ code: number; out: unknown; stderr: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, [INSPECTOR, '--cli', ...args], { cwd: ws, env, timeout: 60_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      let out: unknown = stdout;
      try {
        out = JSON.parse(stdout);
      } catch {
        // Not JSON (an error path): keep the text.
      }
      resolve({ code: typeof err?.code === 'number' ? err.code : err ? -1 : 0, out, stderr });
    }),
  );
}

beforeAll(async () => {
  await ensureBuilt();
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-inspector-'));
  // The Inspector keeps a catalog and settings under $HOME: a temp one, not the user's.
  mkdirSync(join(ws, 'home'));
  env = { PATH: process.env.PATH ?? '', HOME: join(ws, 'home'), CI: '1' };
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  cpSync(join(REPO, 'docs/deployment/native-aot'), join(ws, 'docs/deployment/native-aot'), { recursive: true, filter: (p) => !/_chunks|_keywords|index\.json|topic-spec/.test(p) });
  expect(await main(['ingest', 'docs/deployment/native-aot'], { stdout: () => {}, stderr: () => {}, cwd: ws, env: { CI: '1' } })).toBe(0);
  server = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0'], { cwd: ws, env: { ...env, DOCS_STORE_MCP_TOKEN: TOKEN } });
  url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    server.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = / at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    server.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
}, 120_000);

afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(ws, { recursive: true, force: true });
});

describe('MCP Inspector CLI over stdio', () => {
  const stdio = () => ['node', BIN, 'mcp'];

  it('lists the tools and calls search_docs', async () => {
    const tools = await inspect([...stdio(), '--method', 'tools/list']);
    expect(tools.code, tools.stderr).toBe(0);
    expect((tools.out as { tools: { name: string }[] }).tools.map((t) => t.name).sort()).toEqual(['expand_chunk', 'ingest_artifact', 'search_docs', 'store_stats']);
    const search = await inspect([...stdio(), '--method', 'tools/call', '--tool-name', 'search_docs', '--tool-arg', 'query=native AOT limitations', 'mode=fts']);
    expect(search.code, search.stderr).toBe(0);
    const hits = JSON.parse((search.out as { content: { text: string }[] }).content[0]!.text) as { source_file: string }[];
    expect(hits[0]!.source_file).toBe('docs/deployment/native-aot/golden-reference.md');
  });

  it('lists the chunk resources and gets the prompt', async () => {
    const resources = await inspect([...stdio(), '--method', 'resources/list']);
    expect(resources.code, resources.stderr).toBe(0);
    const list = (resources.out as { resources: { uri: string }[] }).resources;
    expect(list.length).toBeGreaterThan(1);
    for (const r of list) expect(r.uri).toMatch(/^chunk:\/\/art_[0-9a-f]{8}\/\d+$/);
    const prompt = await inspect([...stdio(), '--method', 'prompts/get', '--prompt-name', 'answer_from_docs', '--prompt-args', 'question=What does Native AOT not support?', 'limit=2']);
    expect(prompt.code, prompt.stderr).toBe(0);
    const text = (prompt.out as { messages: { content: { text: string } }[] }).messages[0]!.content.text;
    expect(text.match(/^\[\d\] chunk:\/\//gm)).toHaveLength(2);
  });
});

describe('MCP Inspector CLI over Streamable HTTP', () => {
  it('with the bearer token: the template, the list and a read', async () => {
    const auth = ['--header', `Authorization: Bearer ${TOKEN}`];
    const templates = await inspect([url, ...auth, '--method', 'resources/templates/list']);
    expect(templates.code, templates.stderr).toBe(0);
    expect((templates.out as { resourceTemplates: { uriTemplate: string }[] }).resourceTemplates[0]!.uriTemplate).toBe('chunk://{artifact_id}/{chunk_index}');
    const first = ((await inspect([url, ...auth, '--method', 'resources/list'])).out as { resources: { uri: string }[] }).resources[0]!;
    const read = await inspect([url, ...auth, '--method', 'resources/read', '--uri', first.uri]);
    expect(read.code, read.stderr).toBe(0);
    expect((read.out as { contents: { uri: string; text: string }[] }).contents[0]).toMatchObject({ uri: first.uri, text: expect.stringContaining('Native AOT') });
  });

  it('without the token it is refused (the server answers 401)', async () => {
    const r = await inspect([url, '--method', 'tools/list']);
    expect(r.code).not.toBe(0);
    expect(JSON.stringify(r.out) + r.stderr).toMatch(/auth|401|Unauthorized/i);
  });
});
