// docs-query reading a topic while it is rebuilt (issue 15 probe, "two at once"): the chunk
// step rewrites _chunks/ first and the index step rewrites index.json last, so between them
// index.json describes other chunks than the files hold. The probe's readers (from the folder
// and over HTTP from docs-serve, while a loop rebuilt two topics) printed a document with the
// old index's titles and order over the new chunks' text, exit 0. Real tools build a real
// workspace; a real docs-serve serves it.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main as chunkingTool } from '../../chunking-tool/src/main.js';
import { main as indexTool } from '../../index-tool/src/main.js';
import { main as keywordExtractor } from '../../keyword-extractor/src/main.js';
import { main as topicSpec } from '../../topic-spec/src/main.js';
import { startServer, type RunningServer } from '../../docs-serve/src/server.js';
import { run } from './test-run.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const TOPIC = 'docs/deployment/native-aot';
const quiet = { stdout: () => {}, stderr: () => {} };

let ws: string;
let server: RunningServer;
beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-query-rebuilt-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  mkdirSync(join(ws, TOPIC), { recursive: true });
  // qa-pairs.md gives the items prompt_hashes, for the prompt-match mode.
  for (const f of ['golden-reference.md', 'qa-pairs.md']) cpSync(join(REPO, TOPIC, f), join(ws, TOPIC, f));
  await build('chunk', 'keywords', 'spec', 'index');
  server = await startServer({ root: join(ws, 'docs'), port: 0, inspector: false, log: () => {} });
});
afterAll(async () => {
  await server?.close();
  rmSync(ws, { recursive: true, force: true });
});

/** The pipeline's steps, as `nx run-many -t index` runs them for the topic. */
async function build(...steps: ('chunk' | 'keywords' | 'spec' | 'index')[]): Promise<void> {
  const cwd = process.cwd();
  process.chdir(ws);
  try {
    for (const step of steps) {
      const code =
        step === 'chunk'
          ? await chunkingTool([TOPIC], quiet)
          : step === 'keywords'
            ? await keywordExtractor([TOPIC], quiet)
            : step === 'spec'
              ? await topicSpec([TOPIC], quiet)
              : await indexTool([TOPIC, 'docs/deployment', 'docs'], quiet);
      expect(code, step).toBe(0);
    }
  } finally {
    process.chdir(cwd);
  }
}

const searchFolder = () => run(join(ws, 'docs'), '-q', 'Which platforms does Native AOT support?', '-k', '1', '--config', join(ws, 'chunkyard.config.yaml'));
const searchHttp = () => run('--base-url', server.url, '-q', 'Which platforms does Native AOT support?', '-k', '1', '--config', join(ws, 'chunkyard.config.yaml'));

it('a topic whose chunks were rebuilt but not yet its index.json is one line naming the manifest and saying so; after the index step it reads whole', async () => {
  const first = await searchFolder();
  expect(first.code, first.stderr).toBe(0);
  // An edit that keeps the number of chunks: the index's count cannot tell the two apart.
  const path = join(ws, TOPIC, 'golden-reference.md');
  const old = readFileSync(path, 'utf8');
  const edited = old.replace('faster startup time', 'much faster startup time (REBUILT)');
  expect(edited).not.toBe(old);
  writeFileSync(path, edited);
  const count = () => (JSON.parse(readFileSync(join(ws, TOPIC, '_chunks/golden-reference.json'), 'utf8')) as { chunks: unknown[] }).chunks.length;
  const before = count();
  await build('chunk');
  expect(count()).toBe(before);
  for (const [how, r, manifest] of [
    ['folder', await searchFolder(), join(ws, TOPIC, '_chunks/golden-reference.json')],
    ['http', await searchHttp(), `${server.url}deployment/native-aot/_chunks/golden-reference.json`],
  ] as const) {
    // Before: exit 0, the old index's titles over the new chunks' text.
    expect(r.code, `${how}: ${r.stdout.slice(0, 300)}`).toBe(1);
    expect(r.stdout, how).toBe('');
    expect(r.stderr, how).toBe(
      `docs-query: ${manifest}: holds other chunks than ${how === 'folder' ? join(ws, TOPIC, 'index.json') : `${server.url}deployment/native-aot/index.json`} was built from (its sourceSha256 differs from the index's source_sha256): the topic is being rebuilt, or its index step has not run since its chunk step; read it again when the build has finished\n`,
    );
  }
  await build('keywords', 'spec', 'index');
  for (const r of [await searchFolder(), await searchHttp()]) {
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('(REBUILT)');
  }
}, 60_000);

it('an index.json built before source_sha256 existed is read as before (no check)', async () => {
  const indexPath = join(ws, TOPIC, 'index.json');
  const saved = readFileSync(indexPath, 'utf8');
  try {
    const index = JSON.parse(saved) as { _embedded: { chunks: Record<string, { source_sha256?: string }> } };
    for (const g of Object.values(index._embedded.chunks)) {
      expect(g.source_sha256).toMatch(/^[0-9a-f]{64}$/);
      delete g.source_sha256;
    }
    writeFileSync(indexPath, `${JSON.stringify(index, null, 2)}\n`);
    const r = await searchFolder();
    expect(r.code, r.stderr).toBe(0);
  } finally {
    writeFileSync(indexPath, saved);
  }
});

const JIT_QUESTION = 'Does a Native AOT app use the JIT compiler at run time?';

it('the modes that read chunk files without the manifest (disclosure; a prompt match without -k) refuse a chunk file the index was not built from, naming it; after the index step they read whole', async () => {
  const path = join(ws, TOPIC, 'golden-reference.md');
  const old = readFileSync(path, 'utf8');
  const edited = old.replace('restricted environments where a JIT', 'restricted environments (EDITED AGAIN) where a JIT');
  expect(edited).not.toBe(old);
  const folderIndex = join(ws, TOPIC, 'index.json');
  const httpIndex = `${server.url}deployment/native-aot/index.json`;
  const disclose = (base: string[]) => run(...base, '-t', 'deployment/native-aot', '-n', '1000', '--baseline');
  const prompt = (base: string[]) => run(...base, '-q', JIT_QUESTION, '-n', '100', '--no-embeddings');
  const folder = [join(ws, 'docs')];
  const http = ['--base-url', server.url];
  for (const r of [await disclose(folder), await prompt(folder)]) {
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/where a JIT/);
  }
  const prompted = await prompt(folder);
  // The edit lands in a chunk the prompt match shows, so the probe reads the chunk it changes.
  expect(prompted.stdout).toContain('restricted environments where a JIT');
  writeFileSync(path, edited);
  try {
    await build('chunk');
    for (const [how, r, index] of [
      ['folder disclosure', await disclose(folder), folderIndex],
      ['folder prompt', await prompt(folder), folderIndex],
      ['http disclosure', await disclose(http), httpIndex],
      ['http prompt', await prompt(http), httpIndex],
    ] as const) {
      // Before: exit 0, the old index's titles and order over the new chunk's text.
      expect(r.stdout, how).not.toContain('EDITED AGAIN');
      expect(r.code, `${how}: ${r.stdout.slice(0, 300)}`).toBe(1);
      expect(r.stderr, how).toMatch(
        new RegExp(
          `^docs-query: (\\S+/_chunks/golden-reference-\\d+\\.md): holds other text than ${escape(index)} was built from \\(its SHA-256 differs from the index item's sha256\\): the topic is being rebuilt, or its index step has not run since its chunk step; read it again when the build has finished\n$`,
        ),
      );
      const chunkFile = /^docs-query: (\S+\.md):/.exec(r.stderr)![1]!;
      expect(chunkFile.startsWith(how.startsWith('folder') ? join(ws, TOPIC, '_chunks/') : `${server.url}deployment/native-aot/_chunks/`), how).toBe(true);
    }
    // An index built before items had sha256 is read as before: unchecked.
    const saved = readFileSync(folderIndex, 'utf8');
    try {
      const index = JSON.parse(saved) as { _embedded: { chunks: Record<string, { items: { sha256?: string }[] }> } };
      for (const item of Object.values(index._embedded.chunks).flatMap((g) => g.items)) {
        expect(item.sha256).toMatch(/^[0-9a-f]{64}$/);
        delete item.sha256;
      }
      writeFileSync(folderIndex, `${JSON.stringify(index, null, 2)}\n`);
      const r = await disclose(folder);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('(EDITED AGAIN)');
    } finally {
      writeFileSync(folderIndex, saved);
    }
    await build('keywords', 'spec', 'index');
    for (const r of [await disclose(folder), await prompt(folder), await disclose(http), await prompt(http)]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('(EDITED AGAIN)');
    }
  } finally {
    writeFileSync(path, old);
  }
}, 60_000);

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
