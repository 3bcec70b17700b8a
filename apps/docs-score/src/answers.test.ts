// docs-score --queries: seed 000's LLM evaluation over a topic built by the real chunking-tool,
// with the real `ollama` and `openai` clients talking to a local server that speaks each chat
// API. The fake model answers a question with its reference answer when the context it was
// given contains that answer, and "I do not know" otherwise, so F1 measures the context.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { startChatServer, userText, type ChatBody, type TestServer } from '../../../packages/llm/src/chat-server.js';
import { normalizeAnswer } from '@chunkyard/quality';
import { MAX_QUERIES_CHARS, parseMetrics, parseQueries } from './answers.js';
import { main, type ScoreResult } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const QUERIES = [
  { q: 'Which packages does sudo apt-get install on Ubuntu?', a: 'clang zlib1g-dev' },
  { q: 'Which packages does sudo apk add install on Alpine?', a: 'clang build-base zlib-dev' },
  { q: 'Which property do you add to your project file to enable Native AOT compilation during publish?', a: 'PublishAot' },
  { q: 'Which Visual Studio 2022 workload is needed on Windows?', a: 'Desktop development with C++' },
];
const queriesYaml = (extra = '') =>
  `queries:\n${QUERIES.map(({ q, a }) => `  - topic: native-aot\n    question: ${JSON.stringify(q)}\n    answer: ${JSON.stringify(a)}\n`).join('')}${extra}`;

let root: string;
let docs: string;
let server: TestServer | null = null;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-answers-'));
  docs = join(root, 'docs');
  const topic = join(docs, 'native-aot');
  mkdirSync(topic, { recursive: true });
  cpSync(join(REPO, 'docs/deployment/native-aot/golden-reference.md'), join(topic, 'golden-reference.md'));
  const config = join(root, 'build.yaml');
  writeFileSync(config, 'chunking:\n  minTokens: 32\n  targetTokens: 100\n  maxTokens: 128\n');
  expect(await chunk([topic, '--config', config], { stdout: () => {}, stderr: () => {} })).toBe(0);
  writeFileSync(join(root, 'queries.yaml'), queriesYaml());
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(async () => {
  await server?.close();
  server = null;
});

/** The fake model; `slowExperimental` delays answers from a chunk context, `blindExperimental` withholds them. */
function model(opts: { slowExperimental?: boolean; blindExperimental?: boolean } = {}) {
  return (body: ChatBody) => {
    const user = userText(body);
    const context = user.slice(user.indexOf('<<<\n') + 4, user.lastIndexOf('\n>>>'));
    const question = user.slice(user.lastIndexOf('Question: ') + 'Question: '.length);
    const ref = QUERIES.find((x) => x.q === question)?.a ?? '';
    const experimental = context.length < 7000; // the whole document is longer
    const knows = normalizeAnswer(context).includes(normalizeAnswer(ref)) && !(experimental && opts.blindExperimental);
    // Latency grows with the prompt, as a model's does: ~1 ms per 100 characters.
    const delayMs = opts.slowExperimental && experimental ? 250 : Math.round(context.length / 100);
    return { text: knows ? ref : 'I do not know', delayMs };
  };
}

function writeConfig(name: string, llm: string): string {
  const file = join(root, name);
  writeFileSync(file, `embeddings:\n  provider: local\n${llm}`);
  return file;
}

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}

describe('docs-score --queries with a model', () => {
  it('ollama: scores both groups, restores context through the CT graph and passes every gate', async () => {
    server = await startChatServer(model());
    const config = writeConfig('ollama.yaml', `llm:\n  provider: ollama\n  host: ${server.origin}\n  model: llama3.2\n`);
    const r = await run([docs, '--queries', join(root, 'queries.yaml'), '--metrics', 'f1,recall,pis,latency', '--config', config, '--json']);
    const result = JSON.parse(r.stdout) as ScoreResult;
    const a = result.answers!;
    expect(a.llm).toBe('ollama/llama3.2');
    // Two requests per query (control, experimental), temperature 0.2, the whole document in the control one.
    expect(server.requests).toHaveLength(2 * QUERIES.length);
    expect(server.requests.every((q) => (q.body as ChatBody).options?.temperature === 0.2)).toBe(true);
    expect(a.control!.f1).toBe(1);
    expect(a.control!.exactMatch).toBe(1);
    expect(a.experimental!.f1).toBe(1);
    expect(a.experimental!.semantic).toBeCloseTo(1, 5);
    expect(a.contextRecall!.restored).toBe(1);
    expect(a.contextRecall!.restored).toBeGreaterThanOrEqual(a.contextRecall!.retrievedOnly);
    // The restored set is the retrieved chunks plus their prev/next neighbours.
    for (const q of a.perQuery) {
      const expected = new Set(q.retrieved.flatMap((i) => [i - 1, i, i + 1]).filter((i) => i >= 0));
      expect(q.restored.every((i) => expected.has(i))).toBe(true);
      expect(q.retrieved.every((i) => q.restored.includes(i))).toBe(true);
      expect(q.restored.length).toBeGreaterThan(q.retrieved.length);
    }
    expect(a.latencyDeltaPct!).toBeLessThan(0); // shorter prompts answer sooner
    expect(a.gates.map((g) => [g.metric, g.status])).toEqual([
      ['f1', 'pass'],
      ['recall', 'pass'],
      ['pis', 'pass'],
      ['latency', 'pass'],
    ]);
    expect(r.code).toBe(0);
  });

  it('openai: a gate that fails is reported FAIL and exits 1', async () => {
    server = await startChatServer(model({ slowExperimental: true, blindExperimental: true }));
    const config = writeConfig('openai.yaml', `llm:\n  provider: openai\n  baseURL: ${server.origin}/v1\n`);
    const queries = join(root, 'queries-hard.yaml');
    writeFileSync(queries, queriesYaml(`  - topic: native-aot\n    question: Which word is not there?\n    answer: none\n    required: [xylophone]\n`));
    // The client reads OPENAI_API_KEY from the environment, as it does for users.
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-test';
    const r = await run([docs, '--queries', queries, '--config', config]).finally(() => {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(r.code).toBe(1);
    expect(server.requests[0]!.path).toBe('/v1/chat/completions');
    expect((server.requests[0]!.body as ChatBody).model).toBe('gpt-4o-mini');
    expect(r.stdout).toMatch(/^\| control \(unsplit document\) \| 0\.8\d\d \|/m);
    expect(r.stdout).toMatch(/^Answer F1\s+0\.000\s+>= 0\.92\s+FAIL$/m);
    expect(r.stdout).toMatch(/^Context Recall\s+0\.800\s+>= 0\.97\s+FAIL$/m);
    expect(r.stdout).toMatch(/^PIS\s+100\.0\s+>= 98\s+pass$/m);
    expect(r.stdout).toMatch(/^Latency Delta\s+\+\d+\.\d%\s+<= \+15%\s+FAIL$/m);
  });
});

describe('docs-score --queries without a model', () => {
  it('skips F1 and latency with one line, and still runs recall and PIS', async () => {
    const config = writeConfig('none.yaml', '');
    const r = await run([docs, '--queries', join(root, 'queries.yaml'), '--metrics', 'f1,recall,pis,latency', '--config', config]);
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => /no LLM configured/.test(l));
    expect(lines).toEqual(['docs-score: no LLM configured (an llm: section in chunkyard.config.yaml): skipping f1 and latency; recall and pis still run']);
    expect(r.stdout).toMatch(/^Answer F1\s+—\s+>= 0\.92\s+skipped$/m);
    expect(r.stdout).toMatch(/^Context Recall\s+1\.000\s+>= 0\.97\s+pass$/m);
    expect(r.stdout).toMatch(/^PIS\s+100\.0\s+>= 98\s+pass$/m);
    expect(r.stdout).toMatch(/^Latency Delta\s+—\s+<= \+15%\s+skipped$/m);
  });
});

describe('queries.yaml and --metrics', () => {
  it('parses questions, answers and required words', () => {
    const q = parseQueries('queries:\n  - topic: t/\n    question: Q?\n    answer: 42\n    required: [a, 7, true]\n', 'q.yaml');
    expect(q).toEqual([{ id: 'q1', corpusId: 't', question: 'Q?', answer: '42', required: ['a', '7', 'true'], line: 2 }]);
    expect(() => parseQueries('queries:\n  - topic: t\n    question: Q\n    answer: A\n    required: [[x]]\n', 'q.yaml')).toThrow('q.yaml:2: queries[0].required: expected a list of words');
  });

  it('names the file, the line and the problem (exit 2)', async () => {
    // A second document was "Source contains multiple documents; please use YAML.parseAllDocuments()".
    expect(() => parseQueries('queries: []\n---\nqueries: []\n', 'q.yaml')).toThrow(/^q\.yaml:2: not valid YAML: a second document starts here \(a --- line\); the file must hold one document, so remove it$/);
    expect(() => parseQueries('queries:\n  - topic: t\n    question: Q\n    answr: A\n', 'q.yaml')).toThrow('q.yaml:4: queries[0].answr: unknown key (known: topic, question, answer, required)');
    expect(() => parseQueries('queries:\n  - topic: t\n    question: Q\n', 'q.yaml')).toThrow('q.yaml:2: queries[0].answer: expected a non-empty string');
    expect(() => parseQueries('questions: []\n', 'q.yaml')).toThrow(/^q\.yaml:1: questions: unknown key/);
    const bad = join(root, 'bad-topic.yaml');
    writeFileSync(bad, 'queries:\n  - topic: nope\n    question: Q\n    answer: A\n');
    const r = await run([docs, '--queries', bad, '--config', writeConfig('none2.yaml', '')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad-topic\.yaml:2: topic "nope" is not a built document here \(known: native-aot\)/);
  });

  it('rejects an unknown metric, and --metrics without --queries', async () => {
    expect(parseMetrics('f1, pis,f1')).toEqual(['f1', 'pis']);
    expect(() => parseMetrics('f1,recal')).toThrow('--metrics: unknown metric "recal" (known: f1, recall, pis, latency)');
    expect((await run([docs, '--metrics', 'pis'])).code).toBe(2);
    expect((await run([docs, '--queries', join(root, 'queries.yaml'), '--min-f1', '2'])).stderr).toMatch(/--min-f1: expected a number from 0 to 1/);
  });
});

describe('hostile queries files (issue 15 probe)', () => {
  it('reads 160,000 keys in linear time: yaml’s own duplicate-key check was quadratic', () => {
    // yaml's uniqueKeys compares each key with every earlier one of its mapping: 10,000 keys took
    // 1.3 s, 20,000 3.2 s, and this flow mapping of 160,000 (1.1 MB) would take minutes, past
    // vitest's 60 s limit, which is the failure that counts; linear it is a few seconds.
    const text = `{queries: [{topic: t, question: Q, answer: A}], ${Array.from({ length: 160_000 }, (_, i) => `k${i.toString(36)}`).join(', ')}}\n`;
    expect(() => parseQueries(text, 'q.yaml')).toThrow(/^q\.yaml:1: k0: unknown key \(known: queries\)$/);
  });

  it('still refuses a key given twice, naming it and both lines', () => {
    expect(() => parseQueries('queries:\n  - topic: t\n    question: Q\n    topic: u\n    answer: A\n', 'q.yaml')).toThrow(
      /^q\.yaml:4: not valid YAML: queries\[0\]\.topic is set twice \(first on line 2\); keep one$/,
    );
    expect(() => parseQueries('queries:\n  - {topic: t, question: Q, answer: A}\nqueries: []\n', 'q.yaml')).toThrow(
      /^q\.yaml:3: not valid YAML: queries is set twice \(first on line 1\); keep one$/,
    );
  });

  it('refuses a file over 2 MiB before parsing it (8 MiB of short queries took 22 s)', () => {
    expect(() => parseQueries(`queries:\n${'  - {topic: t, question: Q, answer: A}\n'.repeat(60_000)}`, 'q.yaml')).toThrow(
      /^q\.yaml: 2\.2 MiB is larger than a queries file can be \(2 MiB\); each query is two model calls, so check that this is the right file$/,
    );
    // Before parsing, not after: yaml takes 4.5 s and 350 MB per 2 MiB of queries, so 31.6 MiB would
    // run past vitest's 60 s limit or out of heap; refused first, it is instant.
    expect(() => parseQueries(`queries:\n${'  - {topic: t, question: Q, answer: A}\n'.repeat(850_000)}`, 'q.yaml')).toThrow(
      /^q\.yaml: 31\.6 MiB is larger than a queries file can be \(2 MiB\)/,
    );
    // Just under the limit still parses.
    const small = 'queries:\n  - {topic: t, question: Q, answer: A}\n';
    expect(parseQueries(`${small}#${' '.repeat(MAX_QUERIES_CHARS - small.length - 2)}\n`, 'q.yaml')).toHaveLength(1);
  });
});
