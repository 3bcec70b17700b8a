// Tests of the topic-spec CLI: `main(argv, io)` in-process over real temp topics built by the
// real chunking-tool and keyword-extractor, the real local embedder and a real embedding
// cache on disk. The remote-provider failure tests drive the real `ollama` client against a
// local HTTP server that speaks Ollama's /api/embed (a real Ollama cannot run here).
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { fakeVector, sendJson, startServer, type TestServer } from '../../../packages/embeddings/src/test-server.js';
import { snapshot } from '../../../packages/embedding-cache/src/test-helpers.js';
import { parseTopicSpecMd } from '@chunkyard/spec';
import { simhash64, toHex } from '@chunkyard/simhash';
import { HELP, main, type TopicSummary } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const GOLDEN = readFileSync(join(REPO, 'docs/libraries/system-text-json-source-generation/golden-reference.md'), 'utf8');
const QA = `# Questions

## How do I serialize enum fields as strings with source generation?

Use \`JsonStringEnumConverter\` or \`UseStringEnumConverter\`.

## How do I combine source generators?

Add several contexts to the resolver chain.
`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
const quiet = { stdout: () => {}, stderr: () => {} };

async function run(argv: string[], env?: Record<string, string | undefined>): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), ...(env ? { env } : {}) });
  return { code, stdout, stderr };
}

let root: string;
let config: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-spec-cli-'));
  config = join(root, 'chunkyard.config.yaml');
  writeFileSync(config, 'chunking:\n  maxTokens: 512\n');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A topic with its chunks and keywords built by the real tools. */
async function builtTopic(name = 'topic', files: Record<string, string> = { 'qa-pairs.md': QA }): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'golden-reference.md'), GOLDEN);
  for (const [f, t] of Object.entries(files)) writeFileSync(join(dir, f), t);
  expect(await chunk([dir, '--config', config], quiet)).toBe(0);
  expect(await keywords([dir], quiet)).toBe(0);
  return dir;
}

const summaryOf = (r: Run): { topics: TopicSummary[]; errors: { topic: string; error: string }[] } => JSON.parse(r.stdout);


describe('config errors', () => {
  it('a config with two problems lists each on its own line (s33 probe: joined by a literal \\u000a)', async () => {
    const dir = await builtTopic();
    writeFileSync(config, 'spec:\n  promptThreshold: 2\nembeddings:\n  dimensions: 1\n');
    const r = await run([dir, '--config', config]);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n').map((l) => l.slice(0, `topic-spec: ${config}:2`.length))).toEqual([`topic-spec: ${config}:2`, `topic-spec: ${config}:4`]);
    expect(r.stderr).not.toContain('\\u000a');
  });
});

describe('topic-spec', () => {
  it('writes topic-spec.md for a built topic, then serves a rerun from the cache, byte-identical', async () => {
    const dir = await builtTopic();
    const first = await run([dir, '--config', config, '--json']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(dir, '_chunks/golden-reference.json'), 'utf8'));
    const s = summaryOf(first).topics[0]!;
    // A text met twice in one run (two chunks with the same embedText) is embedded once, then cached.
    const distinct = new Set(manifest.chunks.map((c: { embedText: string }) => c.embedText)).size;
    expect(distinct).toBeLessThan(manifest.chunks.length);
    expect(s).toMatchObject({ chunks: manifest.chunks.length, questions: 2, embedded: distinct + 2, cached: manifest.chunks.length - distinct });
    const text = readFileSync(join(dir, 'topic-spec.md'), 'utf8');
    const spec = parseTopicSpecMd(text, 'topic-spec.md');
    expect(spec.chunks).toHaveLength(manifest.chunks.length);
    expect(spec.embedding).toEqual({ provider: 'local', model: 'local-lexical-v1-d512', dimensions: 512 });
    expect(spec.questions.map((q) => q.hash)).toEqual([toHex(simhash64('How do I serialize enum fields as strings with source generation?')), toHex(simhash64('How do I combine source generators?'))]);
    const enumChunk = spec.chunks.find((c) => c.title === 'Serialize enum fields as strings')!;
    expect(enumChunk.prompt_hashes).toContain(spec.questions[0]!.hash);
    // The cache is the seed 001 layout under .embedding-cache beside the config.
    expect(readdirSync(join(root, '.embedding-cache'))).toContain(manifest.strategyKey);

    const second = await run([dir, '--config', config, '--json']);
    expect(summaryOf(second).topics[0]).toMatchObject({ embedded: 0, cached: manifest.chunks.length + 2 });
    expect(readFileSync(join(dir, 'topic-spec.md'), 'utf8')).toBe(text);
  });

  it('--prune-cache keeps the cache to what the last run used, and the next edit still re-embeds only what changed', async () => {
    const dir = await builtTopic();
    const cacheDir = join(root, 'per-topic-cache');
    const files = () => {
      const out: string[] = [];
      const walk = (d: string) => readdirSync(d, { withFileTypes: true }).forEach((e) => (e.isDirectory() ? walk(join(d, e.name)) : out.push(join(d, e.name))));
      walk(cacheDir);
      return out.sort();
    };
    const spec = (...extra: string[]) => run([dir, '--config', config, '--cache-dir', cacheDir, '--json', ...extra]);
    expect((await spec('--prune-cache')).code).toBe(0);
    const afterFirst = files();
    // Edit one paragraph and rerun without pruning: the old document entry stays beside the new one.
    const edit = (from: string, to: string) => writeFileSync(join(dir, 'golden-reference.md'), readFileSync(join(dir, 'golden-reference.md'), 'utf8').replace(from, to));
    edit('source generation', 'source-generation');
    expect(await chunk([dir, '--config', config], quiet)).toBe(0);
    const unpruned = await spec();
    expect(summaryOf(unpruned).topics[0]!.embedded).toBeGreaterThan(0);
    expect(files().length).toBeGreaterThan(afterFirst.length);
    // The same run with --prune-cache embeds nothing new and drops what the current text does not use.
    const pruned = await spec('--prune-cache');
    expect(summaryOf(pruned).topics[0]!.embedded).toBe(0);
    const kept = files();
    expect(kept.length).toBeLessThanOrEqual(afterFirst.length + summaryOf(unpruned).topics[0]!.embedded);
    // One document entry for the chunks and one for the questions, as after the first run.
    const entries = (list: string[]) => list.filter((f) => f.endsWith('metadata.json')).length;
    expect(entries(afterFirst)).toBe(2);
    expect(entries(kept)).toBe(2);
    // A failed run prunes nothing.
    writeFileSync(join(dir, 'qa-pairs.md'), '## Not a question\n\nanswer\n');
    const failed = await spec('--prune-cache');
    expect(failed.code).toBe(1);
    expect(files()).toEqual(kept);
  });

  it('works without qa-pairs.md, and takes the threshold from the flag, topic.yaml or config', async () => {
    const dir = await builtTopic('t', {});
    expect((await run([dir, '--config', config])).code).toBe(0);
    const spec = parseTopicSpecMd(readFileSync(join(dir, 'topic-spec.md'), 'utf8'), 'x');
    expect(spec.questions).toEqual([]);
    expect(spec.chunks.every((c) => c.prompt_hashes === undefined)).toBe(true);
    expect(spec.promptMatching.threshold).toBe(0.3);

    writeFileSync(join(dir, 'qa-pairs.md'), QA);
    writeFileSync(config, 'spec:\n  promptThreshold: 0.05\n');
    expect((await run([dir, '--config', config])).code).toBe(0);
    const loose = parseTopicSpecMd(readFileSync(join(dir, 'topic-spec.md'), 'utf8'), 'x');
    expect(loose.promptMatching.threshold).toBe(0.05);
    writeFileSync(join(dir, 'topic.yaml'), 'spec:\n  promptThreshold: 0.9\n');
    expect((await run([dir, '--config', config])).code).toBe(0);
    const strict = parseTopicSpecMd(readFileSync(join(dir, 'topic-spec.md'), 'utf8'), 'x');
    expect(strict.promptMatching.threshold).toBe(0.9);
    const count = (s: typeof strict) => s.chunks.reduce((n, c) => n + (c.prompt_hashes?.length ?? 0), 0);
    expect(count(loose)).toBeGreaterThan(count(strict));
    expect((await run([dir, '--config', config, '--prompt-threshold', '0.5'])).code).toBe(0);
    expect(parseTopicSpecMd(readFileSync(join(dir, 'topic-spec.md'), 'utf8'), 'x').promptMatching.threshold).toBe(0.5);
  });

  it.each([
    ['--prompt-threshold', '1.5'],
    ['--prompt-threshold', 'x'],
    ['--prompt-threshold', '0x1'],
    ['--prompt-threshold', ' 0.5'],
    ['--prompt-threshold', '5e-1'],
    ['--prompt-threshold', '-0.5'],
    ['--bogus'],
    // Issue 15: it was exit 1 "/dev/null: is a file where a folder is expected (ENOTDIR); remove or rename it".
    ['--cache-dir', '/dev/null'],
    // Issue 15 probe: --cache-dir '' made the embedding cache in the current folder.
    ['--cache-dir', ''],
  ])('rejects %j with exit 2', async (...args) => {
    const dir = await builtTopic();
    const r = await run([dir, ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^topic-spec: /);
    // Issue 15: a negative value got util.parseArgs's "ambiguous" instead of the range message.
    if (args[0] === '--prompt-threshold') expect(r.stderr).toContain(`--prompt-threshold: expected a number from 0 to 1, got ${JSON.stringify(args[1])}`);
    if (args[0] === '--cache-dir' && args[1] === '') expect(r.stderr).toContain('topic-spec: --cache-dir: empty; give a value, or leave --cache-dir out\n');
    else if (args[0] === '--cache-dir') expect(r.stderr).toBe('topic-spec: --cache-dir /dev/null: a character device, not a folder; give a folder (or one not yet made)\n');
    expect(existsSync(join(dir, 'topic-spec.md'))).toBe(false);
  });

  // Issue 15 probe (s55): a one-chunk topic with one question printed "1 chunks, 1 questions".
  it('counts in the singular for one chunk and one question', async () => {
    const dir = await builtTopic('one', { 'golden-reference.md': '# One\n\nA single short paragraph.\n', 'qa-pairs.md': '## Is there one?\n\nYes.\n' });
    const r = await run([dir, '--config', config]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/: 1 chunk, 1 question \(\d matched\); embedded \d+, cached \d+ -> /);
  });

  it('prints help and refuses a non-topic folder with exit 2', async () => {
    expect((await run(['--help'])).stdout).toBe(HELP);
    const r = await run([root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not a topic (no golden-reference.md in it)');
  });

  it('reports a config error with its file and line, writing nothing', async () => {
    const dir = await builtTopic();
    writeFileSync(config, 'chunking:\n  maxTokens: 512\nembeddings:\n  provider: gpt\n');
    const r = await run([dir, '--config', config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${config}:4: embeddings.provider: expected one of local, ollama, openai`);
    expect(existsSync(join(dir, 'topic-spec.md'))).toBe(false);
  });

  it.runIf(process.platform === 'linux')('a generated input that is a FIFO or device says to rebuild it, not "point it at a markdown file" (s37 probe)', async () => {
    for (const [file, step] of [
      ['_chunks/golden-reference.json', 'run chunking-tool on the topic again (nx run <topic>:chunk)'],
      ['_keywords/words.md', 'run keyword-extractor on the topic again (nx run <topic>:keywords)'],
    ] as const) {
      const dir = await builtTopic(`fifo-${file.split('/')[0]}`);
      rmSync(join(dir, file));
      symlinkSync('/dev/zero', join(dir, file));
      const r = await run([dir, '--config', config]);
      expect(r.code, file).toBe(1);
      expect(r.stderr, file).toContain(`${join(dir, file)}: a character device, not a regular file; ${step}\n`);
    }
  });

  it('names the missing build step when _chunks or words.md is absent', async () => {
    const dir = join(root, 'bare');
    mkdirSync(dir);
    writeFileSync(join(dir, 'golden-reference.md'), GOLDEN);
    let r = await run([dir, '--config', config]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(dir, '_chunks/golden-reference.json')}: no chunk manifest; run chunking-tool`);
    await chunk([dir, '--config', config], quiet);
    r = await run([dir, '--config', config]);
    expect(r.stderr).toContain(`${join(dir, '_keywords/words.md')}: no keyword table; run keyword-extractor`);
  });

  // Issue 15 probe (s55): both were looked for with existsSync, which says no for a dangling
  // link and for a path it may not stat, so each read as "no chunk manifest; run chunking-tool"
  // (or "no keyword table"), a step that did not help.
  it('a manifest or words.md that is a dangling symlink is named as one, not taken for a missing build step', async () => {
    for (const [file, step] of [
      ['_chunks/golden-reference.json', 'no chunk manifest'],
      ['_keywords/words.md', 'no keyword table'],
    ] as const) {
      const dir = await builtTopic(`dangling-${file.split('/')[0]}`);
      rmSync(join(dir, file));
      symlinkSync(join(root, 'gone.json'), join(dir, file));
      const r = await run([dir, '--config', config]);
      expect(r.code, file).toBe(1);
      expect(r.stderr, file).toBe(`topic-spec: ${dir}: ${join(dir, file)}: a dangling symlink (its target does not exist); fix or remove the link\n`);
      expect(r.stderr).not.toContain(step);
    }
  });

  // Issue 15 probe (s66): a file or FIFO where _chunks/ or _keywords/ goes (ENOTDIR for the
  // file in it), or a dangling link for the folder itself (ENOENT), read as "no chunk manifest;
  // run chunking-tool" (or "no keyword table"), as if the topic were never built.
  it('a _chunks/ or _keywords/ that is a file, a FIFO or a dangling link is named as what it is', async () => {
    for (const [folder, step] of [
      ['_chunks', 'no chunk manifest'],
      ['_keywords', 'no keyword table'],
    ] as const) {
      for (const [kind, make, said] of [
        ['file', (p: string) => writeFileSync(p, 'x'), 'not a folder (a regular file); remove or rename it, then build the topic again'],
        ['fifo', (p: string) => spawnSync('mkfifo', [p]), 'not a folder (a FIFO (named pipe)); remove or rename it, then build the topic again'],
        ['dangling', (p: string) => symlinkSync(join(root, 'gone'), p), 'a dangling symlink (its target does not exist); fix or remove the link'],
      ] as const) {
        const dir = await builtTopic(`not-folder-${folder}-${kind}`);
        rmSync(join(dir, folder), { recursive: true });
        make(join(dir, folder));
        const r = await run([dir, '--config', config]);
        expect(r.stderr, `${folder} ${kind}`).toBe(`topic-spec: ${dir}: ${join(dir, folder)}: ${said}\n`);
        expect(r.stderr).not.toContain(step);
        expect(r.code, `${folder} ${kind}`).toBe(1);
      }
    }
  });

  // Root reads any folder, so the built bin runs as nobody (setpriv), as the other EACCES tests do.
  const canSetpriv = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v setpriv']).status === 0;
  it.runIf(canSetpriv)('a _chunks/ or _keywords/ that may not be searched (EACCES) is named with the reason, not "run chunking-tool"', async () => {
    const bin = join(fileURLToPath(new URL('.', import.meta.url)), '../bin/topic-spec.js');
    for (const folder of ['_chunks', '_keywords']) {
      const dir = await builtTopic(`eacces-${folder}`);
      spawnSync('chmod', ['-R', 'a+rwX', root]);
      spawnSync('chmod', ['000', join(dir, folder)]);
      const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, bin, dir, '--config', config], { cwd: root, encoding: 'utf8', timeout: 60_000 });
      spawnSync('chmod', ['755', join(dir, folder)]);
      expect(r.stderr, folder).toBe(`topic-spec: ${dir}: ${join(dir, folder)}: permission denied (EACCES); check its permissions or choose another location\n`);
      expect(r.status, folder).toBe(1);
      expect(existsSync(join(dir, 'topic-spec.md'))).toBe(false);
    }
  });

  it.each([
    ['qa-pairs.md', '## Not a question\n\nanswer\n', 'qa-pairs.md:1: a question heading must end with "?"'],
    ['_keywords/words.md', '| keyword | score |\n| --- | --- |\n| json | 11 |\n', 'words.md:3: score "11" of keyword "json" is not a whole number from 1 to 10'],
    ['_chunks/golden-reference.json', '{"schemaVersion": 1, "chunks": [', 'golden-reference.json: not valid JSON'],
    ['_chunks/golden-reference.json', '{"schemaVersion": 2}', 'golden-reference.json: schemaVersion 2 is not 1'],
    // JSON.parse's own message quoted the file (`"password=h"...`), a secret when the manifest is a planted link (issue 15).
    ['_chunks/golden-reference.json', 'password=hunter2-secret', 'golden-reference.json: not valid JSON (unexpected character at line 1, column 1); rebuild it with chunking-tool'],
  ])('a malformed %s fails its topic with file, line and problem, and leaves the previous spec', async (file, text, message) => {
    const dir = await builtTopic();
    const other = await builtTopic('other');
    expect((await run([dir, '--config', config])).code).toBe(0);
    const before = readFileSync(join(dir, 'topic-spec.md'), 'utf8');
    writeFileSync(join(dir, file), text);
    const r = await run([dir, other, '--config', config]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/hunter2|password/);
    expect(readFileSync(join(dir, 'topic-spec.md'), 'utf8')).toBe(before);
    expect(existsSync(join(other, 'topic-spec.md'))).toBe(true);
  });

  describe('with a remote provider (ollama client against a local /api/embed)', () => {
    let server: TestServer | null = null;
    afterEach(async () => {
      await server?.close();
      server = null;
    });

    /** Answers like Ollama until `failFrom` requests have been served, then with HTTP 500. */
    async function ollama(failFrom = Infinity): Promise<TestServer> {
      server = await startServer((req, res, n) => {
        if (n >= failFrom) return sendJson(res, 500, { error: 'model runner crashed' });
        const input = (req.body as { input: string[] }).input;
        sendJson(res, 200, { model: 'mxbai-embed-large', embeddings: input.map((t) => fakeVector(t, 16)) });
      });
      writeFileSync(config, `embeddings:\n  provider: ollama\n  host: ${server.origin}\n  batchSize: 4\n  concurrency: 1\n  maxRetries: 0\n`);
      return server;
    }

    it('fails clearly when the provider dies mid-topic, keeps the old spec and the embeddings done, and the rerun resumes', async () => {
      const dir = await builtTopic();
      const texts = JSON.parse(readFileSync(join(dir, '_chunks/golden-reference.json'), 'utf8')).chunks.length as number;
      const healthy = await ollama();
      expect((await run([dir, '--config', config])).code).toBe(0);
      const before = readFileSync(join(dir, 'topic-spec.md'), 'utf8');
      expect(parseTopicSpecMd(before, 'x').embedding).toEqual({ provider: 'ollama', model: 'mxbai-embed-large', dimensions: 16 });
      expect(healthy.requests.length).toBeGreaterThan(1);
      await healthy.close();

      // Edit the document so every chunk needs embedding again; the server fails on its 3rd batch.
      writeFileSync(join(dir, 'golden-reference.md'), GOLDEN.replaceAll('source generation', 'source-generation'));
      await chunk([dir, '--config', config], quiet);
      const failing = await ollama(2);
      const r = await run([dir, '--config', config]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('ollama');
      expect(r.stderr).toContain(`${failing.origin}/api/embed`);
      expect(r.stderr).toContain('500');
      expect(readFileSync(join(dir, 'topic-spec.md'), 'utf8')).toBe(before);
      expect(failing.requests).toHaveLength(3);
      await failing.close();

      const resumed = await ollama();
      const again = await run([dir, '--config', config, '--json']);
      expect(again.code).toBe(0);
      const inputs = (q: { body: unknown }) => (q.body as { input: string[] }).input;
      const sentAgain = resumed.requests.flatMap(inputs);
      // The two batches that succeeded were kept: none of their texts is sent again, the failed one's are.
      const kept = failing.requests.slice(0, 2).flatMap(inputs);
      expect(kept).toHaveLength(8);
      expect(sentAgain.filter((t) => kept.includes(t))).toEqual([]);
      expect(sentAgain).toEqual(expect.arrayContaining(inputs(failing.requests[2]!)));
      expect(summaryOf(again).topics[0]!.embedded).toBe(sentAgain.length);
      expect(sentAgain.length).toBeLessThanOrEqual(texts - 8);
      expect(readFileSync(join(dir, 'topic-spec.md'), 'utf8')).not.toBe(before);
    });

    it('a renamed topic, run with a --cache-dir of its own as the Nx plugin runs it, embeds nothing: the vectors come from the old folder beside it, which is left as it was', async () => {
      // Under the Nx plugin each topic has `.embedding-cache/<project>`, named after its folder:
      // a renamed topic got an empty one and every chunk was embedded again.
      const alpha = await builtTopic('alpha');
      const server = await ollama();
      const caches = join(root, '.embedding-cache');
      const spec = (dir: string, project: string) => run([dir, '--config', config, '--cache-dir', join(caches, project), '--prune-cache', '--json']);
      const first = await spec(alpha, 'topic-alpha');
      expect(first.code).toBe(0);
      const paid = summaryOf(first).topics[0]!.embedded;
      expect(paid).toBeGreaterThan(20);
      const requests = server.requests.length;
      const written = readFileSync(join(alpha, 'topic-spec.md'), 'utf8');
      const oldFolder = snapshot(join(caches, 'topic-alpha'));

      const beta = join(root, 'beta');
      renameSync(alpha, beta);
      const renamed = await spec(beta, 'topic-beta');
      expect(renamed.stderr).toBe('');
      expect(renamed.code).toBe(0);
      expect(summaryOf(renamed).topics[0]).toMatchObject({ embedded: 0 });
      expect(server.requests.length).toBe(requests);
      expect(readFileSync(join(beta, 'topic-spec.md'), 'utf8')).toBe(written);
      expect(snapshot(join(caches, 'topic-alpha'))).toEqual(oldFolder);

      // The new folder holds what it used: with the old one removed, a rerun still embeds nothing.
      rmSync(join(caches, 'topic-alpha'), { recursive: true });
      const alone = await spec(beta, 'topic-beta');
      expect(summaryOf(alone).topics[0]).toMatchObject({ embedded: 0 });
      expect(server.requests.length).toBe(requests);
    });

    it('without --cache-dir the default cache reuses nothing from folders beside it', async () => {
      const dir = await builtTopic();
      const server = await ollama();
      // The default cache, .embedding-cache beside the config, is shared by every topic: the
      // folders beside it are the workspace's, not other caches, and are not looked in.
      expect((await run([dir, '--config', config, '--cache-dir', join(root, 'other-cache')])).code).toBe(0);
      const requests = server.requests.length;
      const r = await run([dir, '--config', config, '--json']);
      expect(r.code).toBe(0);
      expect(summaryOf(r).topics[0]!.embedded).toBeGreaterThan(0);
      expect(server.requests.length).toBeGreaterThan(requests);
    });

    it('names the provider, the URL and the fix when the server is down', async () => {
      const dir = await builtTopic();
      const s = await ollama();
      await s.close();
      server = null;
      const r = await run([dir, '--config', config]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/ollama embeddings \(http:\/\/127\.0\.0\.1:\d+\/api\/embed\): cannot reach the server/);
      expect(r.stderr).toContain('ollama serve');
      expect(existsSync(join(dir, 'topic-spec.md'))).toBe(false);
    });
  });
});

describe('a symlink where topic-spec.md goes (probe: a docs tree with the link wrote the spec over the file it pointed to)', () => {
  it('refused by the built bin: exit 1, one line naming the link and where it points, no stack trace; the decoy outside untouched, the other topic still written', async () => {
    const dir = await builtTopic();
    const other = await builtTopic('other');
    // A file outside the docs standing for any file the user can write (~/.npmrc, a git hook).
    const decoy = join(root, 'outside', 'decoy.txt');
    mkdirSync(join(root, 'outside'));
    writeFileSync(decoy, 'decoy\n');
    symlinkSync(decoy, join(dir, 'topic-spec.md'));
    const bin = join(fileURLToPath(new URL('.', import.meta.url)), '../bin/topic-spec.js');
    const r = spawnSync(process.execPath, [bin, dir, other, '--config', config], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe(`topic-spec: ${join(dir, 'topic-spec.md')}: is a symlink (it points to ${decoy}); a generated output is never written through a link, so nothing was written; remove the link and run again\n`);
    expect(r.status).toBe(1);
    // Before: exit 0, and the decoy held the topic's spec.
    expect(readFileSync(decoy, 'utf8')).toBe('decoy\n');
    expect(readdirSync(join(root, 'outside'))).toEqual(['decoy.txt']);
    expect(lstatSync(join(dir, 'topic-spec.md')).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect(parseTopicSpecMd(readFileSync(join(other, 'topic-spec.md'), 'utf8'), 'topic-spec.md').chunks.length).toBeGreaterThan(0);
    // The link removed, as the message says: the spec is written as a regular file.
    rmSync(join(dir, 'topic-spec.md'));
    expect((await run([dir, '--config', config])).code).toBe(0);
    expect(lstatSync(join(dir, 'topic-spec.md')).isFile()).toBe(true);
    expect(readFileSync(decoy, 'utf8')).toBe('decoy\n');
  });
});

describe('a qa-pairs.md that gives no question (it was silent)', () => {
  it('is named on stderr with the reason, and the spec is written without questions (exit 0)', async () => {
    for (const [text, why] of [
      ['', 'empty'],
      [' \n\n\t\n', 'empty'],
      ['# Questions\n\nSome notes, no question.\n', 'no question in it (a question is a "## " heading ending with "?")'],
    ] as const) {
      const dir = await builtTopic('t', { 'qa-pairs.md': text });
      const r = await run([dir, '--config', config]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(`topic-spec: ${join(dir, 'qa-pairs.md')}: ${why}, so the spec has no prompt questions\n`);
      expect(parseTopicSpecMd(readFileSync(join(dir, 'topic-spec.md'), 'utf8'), 'x').questions).toEqual([]);
      rmSync(dir, { recursive: true, force: true });
    }
    // No file at all, or one with questions: nothing said.
    const none = await builtTopic('none', {});
    expect((await run([none, '--config', config])).stderr).toBe('');
    const some = await builtTopic('some');
    expect((await run([some, '--config', config])).stderr).toBe('');
  });
});

describe('a qa-pairs.md symlink whose target is gone (probe: read as "no questions", exit 0)', () => {
  it('fails its topic by the built bin, naming the link; the previous topic-spec.md kept, the other topic still written', async () => {
    const dir = await builtTopic();
    const other = await builtTopic('other');
    rmSync(join(dir, 'qa-pairs.md'));
    symlinkSync(join(root, 'moved', 'qa-pairs.md'), join(dir, 'qa-pairs.md'));
    writeFileSync(join(dir, 'topic-spec.md'), 'previous\n');
    const bin = join(fileURLToPath(new URL('.', import.meta.url)), '../bin/topic-spec.js');
    const r = spawnSync(process.execPath, [bin, dir, other, '--config', config], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    // Before: exit 0, a spec with no questions, the link never mentioned.
    expect(r.stderr).toBe(`topic-spec: ${dir}: ${join(dir, 'qa-pairs.md')}: a dangling symlink (its target does not exist); fix or remove the link\n`);
    expect(r.status).toBe(1);
    expect(readFileSync(join(dir, 'topic-spec.md'), 'utf8')).toBe('previous\n');
    expect(parseTopicSpecMd(readFileSync(join(other, 'topic-spec.md'), 'utf8'), 'topic-spec.md').questions).toHaveLength(2);
  });
});

describe('--help under CHUNKYARD_TOPIC_MARKER (probe: it named golden-reference.md whatever the marker)', () => {
  it('the built bin names the marker a topic folder holds, as the other tools\' help does', () => {
    const bin = join(fileURLToPath(new URL('.', import.meta.url)), '../bin/topic-spec.js');
    const r = spawnSync(process.execPath, [bin, '--help'], { cwd: root, encoding: 'utf8', timeout: 60_000, env: { ...process.env, CHUNKYARD_TOPIC_MARKER: 'faq.md' } });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Each argument is a topic folder (a folder holding faq.md) whose _chunks/');
    expect(r.stdout).not.toContain('golden-reference');
    // And what it says is what it does: a folder holding faq.md is a topic, one holding only golden-reference.md is not.
    mkdirSync(join(root, 'plain'));
    writeFileSync(join(root, 'plain', 'golden-reference.md'), '# A\n\nBody.\n');
    const plain = spawnSync(process.execPath, [bin, join(root, 'plain')], { cwd: root, encoding: 'utf8', timeout: 60_000, env: { ...process.env, CHUNKYARD_TOPIC_MARKER: 'faq.md' } });
    expect(plain.stderr).toBe(`topic-spec: ${join(root, 'plain')}: a folder, but not a topic (no faq.md in it)\n`);
    expect(plain.status).toBe(2);
  });
});
