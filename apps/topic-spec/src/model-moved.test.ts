// A model tag (`m:latest`) that moved to a version of another vector size between runs (issue
// 15 probe): a set served whole from its document entry (the questions, unchanged) kept the old
// size while the edited document was embedded at the new one, and the spec's cosine between
// them threw "RangeError: cannot compare vectors of 24 and 16 dimensions" with its stack trace,
// exit 1. The real topic-spec, chunking-tool and keyword-extractor over real files, the real
// `ollama` client against a local server speaking Ollama's /api/embed.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTopicSpecMd } from '@chunkyard/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { fakeVector, sendJson, startServer, type TestServer } from '../../../packages/embeddings/src/test-server.js';
import { main } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const GOLDEN = readFileSync(join(REPO, 'docs/libraries/system-text-json-source-generation/golden-reference.md'), 'utf8');
const QA_A = '# Questions\n\n## How do I serialize enum fields as strings with source generation?\n\nUse a converter.\n';
const QA_B = '# Questions\n\n## How do I combine source generators?\n\nChain the resolvers.\n';
const quiet = { stdout: () => {}, stderr: () => {} };

let root: string;
let config: string;
let server: TestServer | null = null;
/** The size of the vectors the model behind the tag gives now. */
let dims = 24;
beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-spec-moved-'));
  config = join(root, 'chunkyard.config.yaml');
  server = await startServer((req, res) => {
    const input = (req.body as { input: string[] }).input;
    sendJson(res, 200, { model: 'm:latest', embeddings: input.map((t) => fakeVector(t, dims)) });
  });
  writeFileSync(config, `chunking:\n  maxTokens: 512\nembeddings:\n  provider: ollama\n  host: ${server.origin}\n  model: m:latest\n  maxRetries: 0\n`);
  dims = 24;
});
afterEach(async () => {
  await server?.close();
  server = null;
  rmSync(root, { recursive: true, force: true });
});

async function run(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await main(argv, { stdout: () => {}, stderr: (s) => void (stderr += s) });
  return { code, stderr };
}

async function builtTopic(qa: string): Promise<string> {
  const dir = join(root, 'topic');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'golden-reference.md'), GOLDEN);
  writeFileSync(join(dir, 'qa-pairs.md'), qa);
  expect(await chunk([dir, '--config', config], quiet)).toBe(0);
  expect(await keywords([dir], quiet)).toBe(0);
  return dir;
}

/** Every vector size the written spec was computed from, by its front matter. */
const specDimensions = (dir: string) => parseTopicSpecMd(readFileSync(join(dir, 'topic-spec.md'), 'utf8'), 'topic-spec.md').embedding.dimensions;

describe('topic-spec when the model behind a tag changed its vector size (issue 15 probe)', () => {
  it('the document is edited, the questions are not: the questions are embedded again at the new size, exit 0', async () => {
    const dir = await builtTopic(QA_A);
    expect((await run([dir, '--config', config])).code).toBe(0);
    expect(specDimensions(dir)).toBe(24);

    dims = 16;
    writeFileSync(join(dir, 'golden-reference.md'), `${GOLDEN}\n\n## Added section\n\nSome new text about converters.\n`);
    expect(await chunk([dir, '--config', config], quiet)).toBe(0);
    const before = server!.requests.length;
    const r = await run([dir, '--config', config]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(specDimensions(dir)).toBe(16);
    const sent = server!.requests.slice(before).flatMap((q) => (q.body as { input: string[] }).input);
    expect(sent).toContain('How do I serialize enum fields as strings with source generation?');
  });

  it('every set served from the cache, but of two sizes: the provider is asked once for its size, and the odd set embedded again', async () => {
    const dir = await builtTopic(QA_A);
    expect((await run([dir, '--config', config])).code).toBe(0); // chunks and questions A at 24
    dims = 16;
    writeFileSync(join(dir, 'qa-pairs.md'), QA_B);
    expect((await run([dir, '--config', config])).code).toBe(0); // chunks (again) and questions B at 16
    writeFileSync(join(dir, 'qa-pairs.md'), QA_A); // questions A: a document entry at 24 still
    const before = server!.requests.length;
    const r = await run([dir, '--config', config]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(specDimensions(dir)).toBe(16);
    // One request to learn the size, and the question of A again; the chunks were all hits.
    const sent = server!.requests.slice(before).flatMap((q) => (q.body as { input: string[] }).input);
    expect(sent.filter((t) => t === 'How do I serialize enum fields as strings with source generation?')).toHaveLength(1);
    expect(server!.requests.length - before).toBe(2);
  });
});
