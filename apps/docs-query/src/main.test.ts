// Tests of the docs-query CLI: `main(argv, io)` in-process against a real fixture workspace
// (real chunking-tool output, index.json per the contract), plus the built bin run as a user
// would. No mocks: real files, the real local embedder, the real embedding cache.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureDocs, SAMPLE_QUESTIONS, type FixtureDocs } from '../../../packages/retrieval/src/test-fixture-docs.js';
import { escapeControl } from '@chunkyard/fs-atomic';
import { createBackend, DEFAULT_MAX_HAMMING_DISTANCE, discloseTopics, DocsClient, FolderSource, search } from '@chunkyard/retrieval';
import { DEFAULT_DISCLOSE_N, formatDisclosure, formatSearch, HELP, main } from './main.js';
import { run } from './test-run.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const BIN = join(REPO, 'apps/docs-query/bin/docs-query.js');

let fx: FixtureDocs;
beforeAll(async () => {
  fx = await buildFixtureDocs({ technical: ['libraries/system-text-json-polymorphism'], questions: SAMPLE_QUESTIONS });
});
afterAll(() => fx?.cleanup());

/**
 * Makes `dir` unwritable: chmod for a normal user; root ignores modes, so chattr +i there.
 * Returns the undo, or null when neither works (checked by trying to write).
 */
function lockFolder(dir: string): (() => void) | null {
  const tries: [lock: () => void, unlock: () => void][] = [
    [() => execFileSync('chmod', ['555', dir]), () => execFileSync('chmod', ['755', dir])],
    [() => execFileSync('chattr', ['+i', dir], { stdio: 'ignore' }), () => execFileSync('chattr', ['-i', dir], { stdio: 'ignore' })],
  ];
  for (const [lock, unlock] of tries) {
    try {
      lock();
    } catch {
      continue;
    }
    try {
      writeFileSync(join(dir, 'probe'), '');
    } catch {
      return unlock;
    }
    unlock();
    execFileSync('rm', ['-f', join(dir, 'probe')]);
  }
  return null;
}

const chunkFile = (topic: string, i: number) => readFileSync(join(fx.docs, topic, `_chunks/golden-reference-${i}.md`), 'utf8');
const stripeOrder = (topic: string, key = 'stripe_order') =>
  (JSON.parse(readFileSync(join(fx.docs, topic, 'index.json'), 'utf8')) as { _embedded: { chunks: Record<string, Record<string, number[]>> } })._embedded.chunks['golden-reference']![key]!;

describe('docs-query', () => {
  it('--help names every option it accepts', async () => {
    const r = await run('--help');
    expect(r).toMatchObject({ code: 0, stdout: HELP });
    for (const opt of ['--query', '--topic', '--n', '--technical', '--baseline', '--k', '--max-distance', '--no-embeddings', '--ranking', '--config', '--base-url', '--list', '--json']) {
      expect(HELP).toContain(opt);
    }
  });

  it('--list --json lists every topic with its chunk count', async () => {
    const r = await run(fx.docs, '--list', '--json');
    expect(r.code).toBe(0);
    const { topics } = JSON.parse(r.stdout) as { topics: { id: string; documents: Record<string, number> }[] };
    expect(topics).toHaveLength(7);
    for (const t of topics) {
      const manifest = JSON.parse(readFileSync(join(fx.docs, t.id, '_chunks/golden-reference.json'), 'utf8')) as { chunks: unknown[] };
      expect(t.documents['golden-reference']).toBe(manifest.chunks.length);
    }
  });

  it('discloses the first n of the stripe order, as JSON and as text', async () => {
    const topic = 'libraries/system-text-json-source-generation';
    const j = await run(fx.docs, '--topic', topic, '--json');
    expect(j.code).toBe(0);
    const { documents } = JSON.parse(j.stdout) as { documents: { chunks: { index: number; text: string }[] }[] };
    expect(documents[0]!.chunks.map((c) => c.index)).toEqual(stripeOrder(topic).slice(0, DEFAULT_DISCLOSE_N));
    for (const c of documents[0]!.chunks) expect(c.text).toBe(chunkFile(topic, c.index));

    const t = await run(fx.docs, '-t', topic, '-n', '2', '--baseline');
    expect(t.code).toBe(0);
    expect(t.stdout).toContain(`${topic} — How to use source generation in System.Text.Json`);
    // The stripe order leaves out the baseline, chunk 0.
    expect(t.stdout).toContain(`conceptual order, 3 of ${stripeOrder(topic).length + 1} chunks`);
    const shown = [...t.stdout.matchAll(/^── \S+ #(\d+) /gm)].map((m) => Number(m[1]));
    expect(shown).toEqual([0, ...stripeOrder(topic).slice(0, 2)]);
  });

  it('--technical uses the technical order where present and says where it is not', async () => {
    const r = await run(fx.docs, '-t', 'libraries', '--technical', '-n', '4', '--json');
    const { documents } = JSON.parse(r.stdout) as { documents: { topic: string; order: string; technicalUnavailable: boolean; chunks: { index: number }[] }[] };
    const poly = documents.find((d) => d.topic === 'libraries/system-text-json-polymorphism')!;
    expect(poly.order).toBe('technical');
    expect(poly.chunks.map((c) => c.index)).toEqual(stripeOrder(poly.topic, 'stripe_order_technical').slice(0, 4));
    expect(documents.filter((d) => d !== poly).every((d) => d.order === 'conceptual' && d.technicalUnavailable)).toBe(true);
    const text = await run(fx.docs, '-t', 'libraries/system-text-json-collections', '--technical');
    expect(text.stdout).toContain('no technical baseline, so the conceptual order');
  });

  it('-q finds a stored question by SimHash and expands it with -k', async () => {
    const q = SAMPLE_QUESTIONS[1]!;
    const where = fx.questionChunks.get(q.question)!;
    const r = await run(fx.docs, '-q', q.question, '-k', '1', '--json', '--no-embeddings');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { method: string; chunks: { topic: string; index: number; text: string; span: { from: number; to: number } }[] };
    expect(out.method).toBe('prompt');
    expect(out.chunks[0]).toMatchObject({ topic: where.topic, index: where.index, span: { from: where.index - 1 } });
    expect(out.chunks[0]!.text).toContain('\n[CHUNK BOUNDARY]\n');
    const human = await run(fx.docs, '-q', q.question, '--no-embeddings');
    expect(human.stdout).toMatch(new RegExp(`prompt match: \\d+ chunk\\(s\\) with a stored question within ${DEFAULT_MAX_HAMMING_DISTANCE} bits`));
    expect(human.stdout).toContain(`── ${where.topic} #${where.index} `);
  });

  it('-q falls back to the embedding search, caching chunk vectors in the workspace', async () => {
    const r = await run(fx.docs, '-q', 'Which runtime features does trimming remove?', '--max-distance', '0', '-n', '2', '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { method: string; model: string; chunks: { score: { kind: string; similarity: number } }[] };
    expect(out).toMatchObject({ method: 'embedding', model: 'local-lexical-v1-d512' });
    expect(out.chunks).toHaveLength(2);
    expect(out.chunks[0]!.score.similarity).toBeGreaterThanOrEqual(out.chunks[1]!.score.similarity);
    expect(existsSync(join(fx.workspace, '.embedding-cache', 'semantic-16-80-512', 'local-lexical-v1-d512'))).toBe(true);
    const none = await run(fx.docs, '-q', 'Which runtime features does trimming remove?', '--max-distance', '0', '--no-embeddings');
    expect(none.stdout).toContain('embedding fallback off: --no-embeddings');
  });

  // "!!!" embeds to a zero vector under the local model and shares no word with any chunk: it
  // printed five chunks in file order with "similarity 0.000" as if they were the best (s55 probe).
  it('-q of punctuation alone finds nothing and says so, exit 0, as text and as JSON', async () => {
    const text = await run(fx.docs, '-q', '!!!', '--max-distance', '0');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/embedding search with local-lexical-v1-d512: nothing found \(no chunk shares a word or any similarity with the query\)\n$/);
    expect(text.stdout).not.toContain('──');
    const json = await run(fx.docs, '-q', '!!!', '--max-distance', '0', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ method: 'embedding', chunks: [] });
  });

  it('-q searches a workspace whose embedding cache cannot be written, saying so once (issue 15)', async () => {
    // A read-only docs tree (installed, mounted read-only) failed the whole search: "cannot write
    // in this folder … (EROFS)", exit 1. The cache is a speed-up; reading the docs needs no write.
    const ro = await buildFixtureDocs({ topics: ['deployment/native-aot'] });
    const cache = join(ro.workspace, '.embedding-cache');
    mkdirSync(cache);
    const unlock = lockFolder(cache);
    try {
      if (unlock === null) return; // neither chmod (root) nor chattr works here: nothing to test
      const r = await run(ro.docs, '-q', 'Which runtime features does trimming remove?', '--max-distance', '0', '-n', '2', '--json');
      expect(r.code, r.stderr).toBe(0);
      // Said once, by the embedding cache itself since it gives up a write it cannot make (588766a).
      expect(r.stderr).toMatch(new RegExp(`^docs-query: warning: embedding cache ${cache} cannot be written \\(${cache}: .*\\((EACCES|EPERM)\\).*\\); the run goes on without caching the vectors it computes, and what the cache holds is still read\n$`));
      const out = JSON.parse(r.stdout) as { method: string; chunks: unknown[] };
      expect(out.method).toBe('embedding');
      expect(out.chunks.length).toBeGreaterThan(0);
      expect(readdirSync(cache)).toEqual([]);
    } finally {
      unlock?.();
      ro.cleanup();
    }
  });

  it('ranks the fallback by cosine + BM25 by default (--ranking hybrid) and prints both parts', async () => {
    const q = ['-q', 'Which runtime features does trimming remove?', '--max-distance', '0', '-n', '3'];
    const r = await run(fx.docs, ...q, '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { method: string; chunks: { score: { kind: string; score: number; similarity: number; bm25: number } }[] };
    expect(out.method).toBe('embedding');
    expect(out.chunks.map((c) => c.score.kind)).toEqual(['hybrid', 'hybrid', 'hybrid']);
    expect(out.chunks[0]!.score.score).toBeGreaterThanOrEqual(out.chunks[1]!.score.score);
    expect(out.chunks[0]!.score.bm25).toBeGreaterThan(0);
    expect(JSON.parse((await run(fx.docs, ...q, '--ranking', 'hybrid', '--json')).stdout)).toEqual(out);
    const human = await run(fx.docs, ...q);
    expect(human.stdout).toMatch(/ — hybrid \d\.\d{3} \(similarity -?\d\.\d{3}, BM25 \d+\.\d{2}\)/);
    // --ranking embedding is cosine alone.
    const plain = JSON.parse((await run(fx.docs, ...q, '--ranking', 'embedding', '--json')).stdout) as { chunks: { score: { kind: string } }[] };
    expect(plain.chunks[0]!.score.kind).toBe('cosine');
    expect(await run(fx.docs, ...q, '--ranking', 'bm25')).toMatchObject({ code: 2, stderr: expect.stringContaining('--ranking: expected embedding or hybrid, got "bm25"') });
  });

  it('a --topic that matches nothing is exit 2, naming it and the nearest topics (disclose, search and --list alike)', async () => {
    // It printed a line but exited 0 with no results, so a script could not tell a typo in
    // --topic from a search that found nothing.
    const all = (JSON.parse((await run(fx.docs, '--list', '--json')).stdout) as { topics: { id: string }[] }).topics.map((t) => t.id);
    expect(all.length).toBeGreaterThan(5);
    for (const extra of [[], ['-q', 'How do I publish an app as native AOT?'], ['--list'], ['--json']]) {
      const r = await run(fx.docs, '-t', 'nonexistent', '--no-embeddings', ...extra);
      expect(r.code, extra.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`docs-query: --topic nonexistent: no topic or section matches; topics: ${all.slice(0, 5).join(', ')} and ${all.length - 5} more (--list shows them all)\n`);
    }
    // The topics sharing a word with the one given come first: a topic given without its section.
    const near = await run(fx.docs, '--topic', 'native-aot');
    expect(near.code).toBe(2);
    expect(near.stderr).toMatch(/^docs-query: --topic native-aot: no topic or section matches; topics: deployment\/native-aot, /);
    // A section or a whole id still matches (a trailing slash too).
    expect((await run(fx.docs, '-t', 'deployment/', '--list')).code).toBe(0);
    expect((await run(fx.docs, '-t', 'deployment/native-aot', '-n', '1')).code).toBe(0);
  });

  it('reports usage errors with exit 2 and broken docs with exit 1, naming the file', async () => {
    expect(await run(fx.docs, '--n', 'three')).toMatchObject({ code: 2, stderr: expect.stringContaining('-n/--n: expected a whole number from 0 to 100000, got "three"') });
    // Issue 15: a file: URL was reported as a missing docs folder named "./file:/etc".
    expect(await run('--base-url', 'file:///etc/', '--list')).toMatchObject({
      code: 2,
      stderr: 'docs-query: --base-url: expected an http(s) URL such as http://127.0.0.1:8080/, got "file:///etc/"; for a folder, give it as <docs-dir>\nRun docs-query --help for usage.\n',
    });
    expect(await run('--base-url', 'ftp://example.com/', '--list')).toMatchObject({ code: 2, stderr: expect.stringContaining('--base-url: expected an http(s) URL') });
    // s45 probe: fetch refuses a URL with credentials, and that was exit 1 "request failed (Request
    // cannot be constructed from a URL that includes credentials: http://user:s3cret@…); is the
    // server running?", the password printed twice. A usage error, the password never shown.
    // s45 probe: fetch refuses the Fetch standard's "bad ports" (6666, 6000, 10080 …) without trying:
    // `docs-serve --port 6666` served, and docs-query said "request failed (fetch failed); is the
    // server running?".
    for (const port of ['6666', '6000', '10080', '22']) {
      expect(await run('--base-url', `http://127.0.0.1:${port}/`, '--list'), port).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `docs-query: --base-url: port ${port} is one that fetch refuses to connect to (a "bad port" of the Fetch standard, as browsers refuse it too); serve the docs on another port\nRun docs-query --help for usage.\n`,
      });
    }
    for (const url of ['http://user:s3cret@127.0.0.1:1/', 'http://s3cret@127.0.0.1:1/', 'https://:s3cret@docs.example/']) {
      const r = await run('--base-url', url, '--list');
      expect(r, url).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr, url).toContain('--base-url: a user name or password in the URL is not sent (fetch refuses such URLs); leave it out');
      expect(r.stderr, url).not.toContain('s3cret');
    }
    expect(await run(fx.docs, '--bogus')).toMatchObject({ code: 2, stderr: expect.stringContaining("Unknown option '--bogus'") });
    expect(await run(fx.docs, 'a question without -q')).toMatchObject({ code: 2, stderr: expect.stringContaining('quote a query: -q') });
    expect(await run(fx.docs, '--base-url', 'http://127.0.0.1:1/')).toMatchObject({ code: 2, stderr: expect.stringContaining('not both') });
    expect(await run(join(fx.docs, 'nope'))).toMatchObject({ code: 2, stderr: expect.stringContaining('no such folder') });
    // s39 probe: an empty value (an unset variable) was ": no such folder", "cannot read config: :
    // no such file …", "not both" for --base-url '', and --topic '' disclosed every topic.
    for (const [argv, said] of [
      [['', '--list'], 'an empty argument (""); give a path'],
      [[fx.docs, '--base-url', '', '--list'], '--base-url: empty; give a value, or leave --base-url out'],
      [[fx.docs, '-q', 'x', '--config', ''], '--config: empty; give a value, or leave --config out'],
      [[fx.docs, '-t', '', '-n', '1'], '--topic: empty; give a value, or leave --topic out'],
    ] as const) {
      expect(await run(...argv), argv.join(' ')).toEqual({ code: 2, stdout: '', stderr: `docs-query: ${said}\nRun docs-query --help for usage.\n` });
    }
    // Issue 15: a dangling symlink was "no such folder", though it is there to fix.
    const dangling = join(fx.workspace, 'dangling-docs');
    symlinkSync(join(fx.workspace, 'nowhere'), dangling);
    expect(await run(dangling, '--list')).toMatchObject({ code: 2, stderr: `docs-query: ${dangling}: a dangling symlink (its target does not exist); fix or remove the link\n` });
    // A file or a FIFO given as the docs folder was "<it>/index.json: cannot read (ENOTDIR)", exit 1.
    const indexFile = join(fx.docs, 'index.json');
    expect(await run(indexFile, '--list')).toMatchObject({ code: 2, stderr: `docs-query: ${indexFile}: not a folder (a regular file); give the built docs root, the folder holding the root index.json\nRun docs-query --help for usage.\n` });
    const fifo = join(fx.workspace, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect(await run(fifo, '--list')).toMatchObject({ code: 2, stderr: expect.stringContaining(`${fifo}: not a folder (a FIFO (named pipe)); give the built docs root`) });
    // Issue 15 probe: a FIFO as --config was "not a regular file (a FIFO, device or socket); give
    // a YAML file", where every other CLI says what fs-atomic's fileProblem says.
    expect(await run(fx.docs, '-q', 'x', '--config', fifo)).toMatchObject({ code: 2, stderr: expect.stringContaining(`${fifo}: a FIFO (named pipe), not a regular file; point it at a regular file\n`) });
    // Issue 15 probe: a missing, dangling or folder --config in every other CLI's words (it was
    // "--config <it>: no such file" for the first two, and no "cannot read config" for a folder).
    expect(await run(fx.docs, '-q', 'x', '--config', join(fx.workspace, 'nope.yaml'))).toMatchObject({ code: 2, stderr: `docs-query: cannot read config: ${join(fx.workspace, 'nope.yaml')}: no such file or folder (ENOENT); check the path\n` });
    expect(await run(fx.docs, '-q', 'x', '--config', dangling)).toMatchObject({ code: 2, stderr: `docs-query: cannot read config: ${dangling}: a dangling symlink (its target does not exist); fix or remove the link\n` });
    expect(await run(fx.docs, '-q', 'x', '--config', fx.docs)).toMatchObject({ code: 2, stderr: `docs-query: cannot read config: ${fx.docs}: a directory, not a regular file; point it at a regular file\n` });
    // Issue 15 probe: a name too long got the same message as the other CLIs (it was one of its own).
    const long = join(fx.workspace, 'x'.repeat(300));
    expect(await run(long, '--list')).toMatchObject({ code: 2, stderr: `docs-query: ${long}: name too long (ENAMETOOLONG); use a shorter path\n` });
    // Issue 15 probe: a folder with no index.json (not built, or not the docs root) said only "<dir>/index.json: no such file".
    const unbuilt = mkdtempSync(join(fx.workspace, 'unbuilt-'));
    expect(await run(unbuilt, '--list')).toMatchObject({ code: 1, stderr: `docs-query: ${join(unbuilt, 'index.json')}: no such file; is ${unbuilt} the built docs root? Build it first: npx nx run-many -t index (or index-tool)\n` });
    const r = await run(join(fx.docs, 'libraries'));
    expect(r).toMatchObject({ code: 1, stderr: `docs-query: ${join(fx.docs, 'libraries/index.json')}: _links.self says /libraries/index.json, but it was loaded from /index.json\n` });
  });

  it('an option of another mode is a usage error naming it and the mode, not ignored (s40 probe)', async () => {
    // `-k 2 --list`, `--max-distance 3` without -q, `--technical -q …` ran as if the option had
    // not been given, so a typo in the mode (a forgotten -q) went unnoticed.
    const listing = 'listing topics (--list)';
    const disclosing = 'disclosing (no -q, no --list)';
    const searching = 'searching (-q)';
    for (const [argv, option, mode, belongs] of [
      [['--list', '-k', '2'], '-k/--k', listing, `${disclosing} and ${searching}`],
      [['--list', '-n', '2'], '-n/--n', listing, `${disclosing} and ${searching}`],
      [['--list', '--technical'], '--technical', listing, disclosing],
      [['--list', '--baseline'], '--baseline', listing, disclosing],
      [['--list', '--ranking', 'hybrid'], '--ranking', listing, searching],
      [['--max-distance', '3'], '--max-distance', disclosing, searching],
      [['-n', '1', '--ranking', 'embedding'], '--ranking', disclosing, searching],
      [['--config', join(REPO, 'chunkyard.config.yaml')], '--config', disclosing, searching],
      [['-q', 'x', '--technical'], '--technical', searching, disclosing],
      [['-q', 'x', '--baseline', '--no-embeddings'], '--baseline', searching, disclosing],
    ] as const) {
      expect(await run(fx.docs, ...argv), argv.join(' ')).toEqual({
        code: 2,
        stdout: '',
        stderr: `docs-query: ${option} does not apply to ${mode}; it is for ${belongs}\nRun docs-query --help for usage.\n`,
      });
    }
    // What each mode takes still runs; --no-embeddings only forbids, so it is taken everywhere.
    for (const argv of [
      ['--list', '-t', 'deployment', '--json', '--no-embeddings'],
      ['-t', 'deployment', '-n', '1', '-k', '1', '--technical', '--baseline', '--json', '--no-embeddings'],
      ['-q', 'x', '-t', 'deployment', '-n', '1', '-k', '1', '--max-distance', '3', '--ranking', 'embedding', '--config', join(REPO, 'chunkyard.config.yaml'), '--no-embeddings'],
    ]) {
      expect((await run(fx.docs, ...argv)).code, argv.join(' ')).toBe(0);
    }
  });

  it('a huge query is echoed cut, with its length, not whole (issue 15 probe)', async () => {
    const long = 'zzq '.repeat(5000);
    const r = await run(fx.docs, '-q', long, '--no-embeddings');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`query: ${JSON.stringify(long.slice(0, 200) + '…')} (20000 characters) (SimHash ${/SimHash ([0-9a-f]+)/.exec(r.stdout)![1]})`);
    expect(r.stdout.length).toBeLessThan(1000);
  });

  it('a negative number for a numeric option gets the range message, not parseArgs\'s "ambiguous" (issue 15)', async () => {
    // parseArgs read `-n -1` as -n followed by an option and answered "Option '-n' argument is ambiguous ... use '--n=-XYZ'".
    for (const [argv, message] of [
      // The message names the option with its short form, as -n was typed (it said "--n").
      [['-n', '-1'], 'docs-query: -n/--n: expected a whole number from 0 to 100000, got "-1"'],
      [['--n', '-1'], 'docs-query: -n/--n: expected a whole number from 0 to 100000, got "-1"'],
      [['-k', '-5'], 'docs-query: -k/--k: expected a whole number from 0 to '],
      [['--max-distance', '1e3'], 'docs-query: --max-distance: expected a whole number from 0 to 64, got "1e3"'],
      [['--max-distance', '-Infinity'], '--max-distance: expected a whole number from 0 to 64, got "-Infinity"'],
      [['--max-distance', '-NaN'], 'got "-NaN"'],
    ] as const) {
      const r = await run(fx.docs, '-q', 'x', ...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toContain('ambiguous');
      expect(r.stdout).toBe('');
    }
  });

  it('writes each result as it comes, waiting for the reader: -n 100000 -k 1000 is bounded by one result, not n × k texts (s40 probe)', async () => {
    // On a topic of ~3,150 chunks this built every expanded text (each the whole document) into
    // one string: "Invalid string length" after 14 s, 3.3 GB with --json. The output must go
    // out a result at a time, each write waited for, so no write (no string held) is much
    // bigger than one result, and still be byte for byte what the whole-string form printed.
    const topic = 'deployment/native-aot';
    const client = new DocsClient(new FolderSource(fx.docs));
    const docs = await discloseTopics(client, { topic, n: 100_000, k: 1000 });
    const hits = await search(client, { query: 'Which runtime features does trimming remove?', topic, n: 100_000, k: 1000, maxDistance: 0, embeddings: () => createBackend({ folder: fx.docs }) });
    const texts = [...docs.flatMap((d) => d.chunks), ...hits.chunks].map((c) => c.text);
    expect(texts.length).toBeGreaterThan(20);
    const longest = Math.max(...texts.map((t) => JSON.stringify(t).length));
    const search_ = ['-q', 'Which runtime features does trimming remove?', '--max-distance', '0'];
    for (const [extra, expected] of [
      [[], escapeControl(formatDisclosure(docs))],
      [['--json'], `${JSON.stringify({ mode: 'disclose', documents: docs }, null, 2)}\n`],
      [search_, escapeControl(formatSearch(hits, false))],
      [[...search_, '--json'], `${JSON.stringify({ mode: 'search', ...hits }, null, 2)}\n`],
    ] as const) {
      const writes: string[] = [];
      let pending = false;
      let overlapped = false;
      const code = await main([fx.docs, '-t', topic, '-n', '100000', '-k', '1000', ...extra], {
        stdout: (s) => {
          if (pending) overlapped = true;
          writes.push(s);
          pending = true;
          return new Promise<void>((done) => setImmediate(() => ((pending = false), done())));
        },
        stderr: () => {},
      });
      expect(code, extra.join(' ')).toBe(0);
      expect(writes.join(''), extra.join(' ')).toBe(expected);
      expect(Math.max(...writes.map((w) => w.length)), extra.join(' ')).toBeLessThan(longest + 1000);
      expect(overlapped, 'a write before the one before it was taken').toBe(false);
    }
  });

  it('the built bin runs as a user would', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, fx.docs, '--list'], { cwd: fx.workspace });
    expect(stdout.split('\n').filter(Boolean)).toHaveLength(7);
  });
});
