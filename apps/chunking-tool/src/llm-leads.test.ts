// chunking-tool with `llm.leadLines: true`: paginate's lead sentences come from the configured
// model (a local server speaking Ollama's / OpenAI's chat API), are cached beside the config,
// and a rerun makes no request and writes the same bytes.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main as score } from '../../docs-score/src/main.js';
import { startChatServer, userText, type ChatBody, type TestServer } from '../../../packages/llm/src/chat-server.js';
import { main } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
let root: string;
let server: TestServer;
beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-llm-leads-'));
  const topic = join(root, 'docs/native-aot');
  mkdirSync(topic, { recursive: true });
  cpSync(join(REPO, 'docs/deployment/native-aot/golden-reference.md'), join(topic, 'golden-reference.md'));
  server = await startChatServer((body: ChatBody) => (userText(body).startsWith('Summarize') ? 'The model recap sentence.' : 'The model preview sentence.'));
});
afterEach(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}
const snapshot = (dir: string) => Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));

describe('chunking-tool: lead lines from an LLM', () => {
  it('writes model sentences, caches them, and a rerun makes zero requests and the same bytes', async () => {
    const config = join(root, 'chunkyard.config.yaml');
    writeFileSync(config, `chunking:\n  strategy: paginate\n  ctxSize: 612\n  bufSize: 100\nllm:\n  provider: ollama\n  host: ${server.origin}\n  model: llama3.2\n  leadLines: true\n`);
    const topic = join(root, 'docs/native-aot');
    const first = await run([topic, '--config', config]);
    expect(first.stderr).toMatch(/lead sentence\(s\) from ollama\/llama3\.2/);
    expect(first.code).toBe(0);
    const made = server.requests.length;
    expect(made).toBeGreaterThan(2);
    const out = snapshot(join(topic, '_chunks'));
    const pages = Object.keys(out).filter((f) => /^golden-reference-\d+\.md$/.test(f));
    expect(pages.length).toBeGreaterThan(2);
    // (The CT id's form belongs to the chunking library; the sentence after it is the model's.)
    expect(out['golden-reference-1.md']).toMatch(/\n<p>\[Lead-in\] Continuing from \S*chunk-001: The model recap sentence\.<\/p>\n/);
    expect(out['golden-reference-0.md']).toMatch(/\n<p>\[Lead-out\] Upcoming in \S*chunk-002: The model preview sentence\.<\/p>\n/);
    // The cache lives beside the config, one entry per request.
    expect(readdirSync(join(root, '.llm-cache/llama3.2'), { recursive: true }).filter((f) => String(f).endsWith('.json'))).toHaveLength(made);
    // The scorer's checks (checksums, token caps, CT graph) hold for the rewritten pages.
    expect(await score([join(root, 'docs')], { stdout: () => {}, stderr: () => {} })).toBe(0);

    const second = await run([topic, '--config', config]);
    expect(second.code).toBe(0);
    expect(server.requests.length).toBe(made);
    expect(second.stderr).toBe('');
    expect(snapshot(join(topic, '_chunks'))).toEqual(out);
  });

  it('keeps the extractive lines without llm.leadLines, and a model error fails the document (exit 1, one line)', async () => {
    const topic = join(root, 'docs/native-aot');
    const offline = join(root, 'offline.yaml');
    writeFileSync(offline, `chunking:\n  strategy: paginate\n  ctxSize: 612\n  bufSize: 100\nllm:\n  provider: ollama\n  host: ${server.origin}\n`);
    expect((await run([topic, '--config', offline])).code).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(readFileSync(join(topic, '_chunks/golden-reference-1.md'), 'utf8')).not.toContain('The model recap');

    await server.close();
    server = await startChatServer(() => ({ text: 'model "llama3.2" not found, try pulling it first', status: 404 }));
    const broken = join(root, 'broken.yaml');
    writeFileSync(broken, `chunking:\n  strategy: paginate\n  ctxSize: 612\n  bufSize: 100\nllm:\n  provider: ollama\n  host: ${server.origin}\n  leadLines: true\n`);
    const r = await run([topic, '--config', broken]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/golden-reference\.md: ollama chat \(http:\/\/127\.0\.0\.1:\d+\/api\/chat\): HTTP 404: .*ollama pull llama3\.2/);
    // The earlier outputs are left intact.
    expect(readFileSync(join(topic, '_chunks/golden-reference-1.md'), 'utf8')).toContain('[Lead-in]');
  });

  it('a topic renamed while its pages are made is not brought back holding only _chunks/ (s34 probe)', async () => {
    // The lead sentences are the last thing before the write: the topic is renamed as their log
    // line comes. The folder came back at the old path with _chunks/ alone, exit 0 (or, renamed
    // while a big document streamed, the error named the staging temp file).
    const config = join(root, 'chunkyard.config.yaml');
    writeFileSync(config, `chunking:\n  strategy: paginate\n  ctxSize: 612\n  bufSize: 100\nllm:\n  provider: ollama\n  host: ${server.origin}\n  model: llama3.2\n  leadLines: true\n`);
    const topic = join(root, 'docs/native-aot');
    const moved = join(root, 'docs/moved');
    let stderr = '';
    const code = await main([topic, '--config', config], {
      stdout: () => {},
      stderr: (s) => {
        stderr += s;
        if (s.includes('lead sentence(s)')) renameSync(topic, moved);
      },
    });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n').at(-1)).toBe(`chunking-tool: ${topic}: the folder was removed or renamed during the run; nothing written there`);
    expect(existsSync(topic)).toBe(false);
    expect(readdirSync(moved)).toEqual(['golden-reference.md']);
  });
});
