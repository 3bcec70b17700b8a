// The CLI end to end on a real workspace in a temp dir: real files, a real SQLite file at the
// default path, the real local provider (and a real unreachable ollama for failures).
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main as chunkingTool } from '../../chunking-tool/src/main.js';
import { main as indexTool } from '../../index-tool/src/main.js';
import { main as keywordExtractor } from '../../keyword-extractor/src/main.js';
import { main as topicSpec } from '../../topic-spec/src/main.js';
import { formatScore, HELP, main } from './main.js';
import { BIN, ensureBuilt } from './test-build.js';
import { createBackend, DocsClient, openSource, search as retrievalSearch } from '@chunkyard/retrieval';
import { SCHEMA_VERSION } from '@chunkyard/store';
import { projectCacheFolderName } from '@chunkyard/embedding-cache';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const TOPICS = ['docs/libraries/system-text-json-collections', 'docs/deployment/native-aot', 'docs/libraries/system-text-json-reflection-vs-source-generation'];

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  for (const t of TOPICS) cpSync(join(REPO, t), join(ws, t), { recursive: true, filter: (p) => !/_chunks|_keywords|index\.json|topic-spec/.test(p) });
  mkdirSync(join(ws, 'deep', 'er'), { recursive: true });
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

async function run(args: string[], cwd = ws, env: Record<string, string | undefined> = { CI: '1' }) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), cwd, env });
  return { code, stdout, stderr };
}

const dbPath = () => join(ws, '.chunkyard', 'store.db');
const count = (table: string, db = dbPath()) => {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    d.close();
  }
};

describe('ingest', () => {
  it('ingests topic folders into <workspace>/.chunkyard/store.db, found from a subfolder; a rerun is a no-op', async () => {
    const first = await run(['ingest', ...TOPICS.map((t) => join(ws, t)), '--json'], join(ws, 'deep', 'er'));
    expect(first.code, first.stderr).toBe(0);
    const out = JSON.parse(first.stdout) as { db: string; artifacts: { sourceFile: string; status: string; isChunked: boolean; artifactId: string }[] };
    expect(out.db).toBe(dbPath());
    expect(out.artifacts.map((a) => [a.sourceFile, a.status, a.isChunked])).toEqual([
      [`${TOPICS[0]}/golden-reference.md`, 'created', true],
      [`${TOPICS[1]}/golden-reference.md`, 'created', true],
      [`${TOPICS[2]}/golden-reference.md`, 'created', false],
    ]);
    expect(count('artifacts')).toBe(3);
    const again = await run(['ingest', ...TOPICS]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/0 written, 3 unchanged, 0 failed/);
  });

  it('reports each bad document by name, stores the good ones (a 50,000-character line is one) and none of the bad', async () => {
    writeFileSync(join(ws, 'binary.md'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
    writeFileSync(join(ws, 'empty.md'), '');
    writeFileSync(join(ws, 'latin1.md'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    writeFileSync(join(ws, 'minified.md'), `${'x'.repeat(50_000)}\n`);
    const r = await run(['ingest', 'binary.md', 'empty.md', TOPICS[1]!, 'latin1.md', 'minified.md', 'missing.md']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('docs-store: binary.md: binary file (contains NUL bytes), not text');
    expect(r.stderr).toContain('docs-store: empty.md: empty file');
    expect(r.stderr).toContain('docs-store: latin1.md: not valid UTF-8 (first bad byte at offset 3); save it as UTF-8\n');
    // A 50,000-character line is a document like any other (chunking-tool chunks it): stored.
    expect(r.stderr).not.toContain('minified.md');
    // --help and the README still listed "a huge single line" among the documents left out (s47
    // probe), after a1fb1e4 made a line of any length a document like any other.
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    for (const text of [HELP, readme]) {
      expect(text.replace(/\s+/g, ' ')).not.toMatch(/huge single line/);
      expect(text.replace(/\s+/g, ' ')).toMatch(/binary, empty, not UTF-8, over 32 MiB/);
    }
    expect(r.stderr).toMatch(/missing\.md: no such file or folder/);
    // Issue 15: a dangling or looping symlink was "no such file or folder", though it is there to fix.
    symlinkSync('nowhere.md', join(ws, 'dangling.md'));
    symlinkSync('loop-b.md', join(ws, 'loop-a.md'));
    symlinkSync('loop-a.md', join(ws, 'loop-b.md'));
    const links = await run(['ingest', 'dangling.md', 'loop-a.md']);
    expect(links.code).toBe(1);
    expect(links.stderr).toContain('dangling.md: a dangling symlink (its target does not exist); fix or remove the link');
    expect(links.stderr).toContain('loop-a.md: a symlink loop (it never reaches a file); fix or remove the link');
    // Issue 15 probe: a name too long was "no such file or folder".
    const long = await run(['ingest', 'x'.repeat(300)]);
    expect(long.code).toBe(1);
    expect(long.stderr).toContain(`${'x'.repeat(300)}: name too long (ENAMETOOLONG); use a shorter path`);
    expect(r.stdout).toMatch(/2 written, 0 unchanged, 4 failed/);
    expect(count('artifacts')).toBe(2);
  });

  it('writes nothing when the embedding provider fails', async () => {
    writeFileSync(join(ws, 'chunkyard.config.yaml'), 'embeddings:\n  provider: ollama\n  host: http://127.0.0.1:9\n  maxRetries: 0\n');
    const r = await run(['ingest', ...TOPICS]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/docs-store: .*ollama.*127\.0\.0\.1:9/is);
    expect(count('artifacts')).toBe(0);
    expect(count('artifact_chunks')).toBe(0);
  });

  it('draws progress bars for embedding and writing on a TTY, and nothing with CI set', async () => {
    const drawn = (env: Record<string, string | undefined>) => {
      let text = '';
      const stream = Object.assign(new Writable({ write: (chunk: Buffer, _enc, done) => ((text += chunk.toString()), done()) }), { isTTY: true, columns: 120 });
      return { stream, text: () => text, env };
    };
    const tty = drawn({});
    const r1 = await main(['ingest', TOPICS[0]!, '--db', 'a.db'], { stdout: () => {}, stderr: () => {}, cwd: ws, env: tty.env, progressStream: tty.stream });
    expect(r1).toBe(0);
    expect(tty.text()).toMatch(/embedding \[.*\] \d+\/\d+/);
    // Whatever the chunker's defaults make of the topic: the bar ends full.
    expect(tty.text()).toMatch(/writing {3}\[.*\] (\d+)\/\1 100%/);
    const ci = drawn({ CI: 'true' });
    expect(await main(['ingest', TOPICS[0]!, '--db', 'b.db'], { stdout: () => {}, stderr: () => {}, cwd: ws, env: ci.env, progressStream: ci.stream })).toBe(0);
    expect(ci.text()).toBe('');
  });

  it('--built loads _chunks/ manifests, taking vectors from .embedding-cache/ on the second store', async () => {
    for (const t of TOPICS) expect(await chunkingTool([join(ws, t)], { stdout: () => {}, stderr: () => {} })).toBe(0);
    const first = await run(['ingest', '--built', ...TOPICS, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const a = JSON.parse(first.stdout) as { cache: { documentHits: number; embedded: number }; artifacts: { numChunks: number }[] };
    expect(a.cache.documentHits).toBe(0);
    expect(a.cache.embedded).toBeGreaterThan(0);
    const second = await run(['ingest', '--built', ...TOPICS, '--db', 'other.db', '--json']);
    const b = JSON.parse(second.stdout) as { cache: { documentHits: number; embedded: number; textHits: number } };
    expect(b.cache).toEqual({ documentHits: 3, textHits: 0, embedded: 0 });
    expect(count('artifact_chunks', join(ws, 'other.db'))).toBe(a.artifacts.reduce((n, x) => n + x.numChunks, 0));
  });

  it('--built after an Nx build takes every vector from the per-topic caches (.embedding-cache/<project>/), as docs-query does', async () => {
    // What `nx run-many -t spec` runs per topic: the Nx plugin gives topic-spec a cache of the topic's own.
    const quiet = { stdout: () => {}, stderr: () => {} };
    const cwd = process.cwd();
    process.chdir(ws);
    try {
      for (const t of TOPICS) {
        const dir = join(ws, t);
        expect(await chunkingTool([dir], quiet)).toBe(0);
        expect(await keywordExtractor([dir], quiet)).toBe(0);
        expect(await topicSpec([dir, '--cache-dir', join('.embedding-cache', projectCacheFolderName(`topic-${t.replace(/\//g, '-')}`)), '--prune-cache'], quiet)).toBe(0);
      }
    } finally {
      process.chdir(cwd);
    }
    const r = await run(['ingest', '--built', ...TOPICS, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { cache: unknown }).cache).toEqual({ documentHits: 3, textHits: 0, embedded: 0 });
  });
});

describe('ingest names inputs on one line', () => {
  it('a file whose name holds a newline is shown escaped in its error line (it printed as two lines)', async () => {
    // 0xff alone: not UTF-8 (FF FE would be a UTF-16 byte order mark, reported as such since abd0c12).
    writeFileSync(join(ws, 'bad\nname.md'), Buffer.from([0xff, 0x41]));
    const r = await run(['ingest', 'bad\nname.md']);
    expect(r.code).toBe(1);
    // Refused by its name before it is read (it would go into every chunk id, 0f1b2ec).
    expect(r.stderr.split('\n')[0]).toBe('docs-store: bad\\u000aname.md: its name goes into every chunk id (doc:<name>::ch<n>) and holds a control character (U+000A); rename the file without it');
    writeFileSync(join(ws, 'bad2.md'), Buffer.from([0xff, 0x41]));
    expect((await run(['ingest', 'bad2.md'])).stderr.split('\n')[0]).toBe('docs-store: bad2.md: not valid UTF-8 (first bad byte at offset 0); save it as UTF-8');
  });

  it('a stored file, topic or --db whose name holds a newline is one line in ingest, search and stats (s46 probe: each printed as two)', async () => {
    // A file whose name holds one is refused since 0f1b2ec (the name goes into every chunk id),
    // on one line; its source id (an MCP client's) is stored as given and shown escaped.
    writeFileSync(join(ws, 'b\nfake.md'), '# Doc B\n\nWombats dig burrows.\n');
    const refused = await run(['ingest', 'b\nfake.md', '--db', 'refused.db']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.split('\n')).toHaveLength(2);
    writeFileSync(join(ws, 'b-fake.md'), '# Doc B\n\nWombats dig burrows.\n');
    const db = ['--db', 'x\ny.db'];
    const ingested = await run(['ingest', 'b-fake.md', '--topic', 'evil\nfake: 1', ...db]);
    expect(ingested).toMatchObject({ code: 0, stderr: '' });
    expect(ingested.stdout.split('\n')).toEqual([expect.stringMatching(/^b-fake\.md: created art_\w+ \(stored whole, \d+ tokens\)$/), 'x\\u000ay.db: 1 written, 0 unchanged, 0 failed', '']);
    const stats = await run(['stats', ...db]);
    expect(stats.code).toBe(0);
    expect(stats.stdout.split('\n')[0]).toMatch(/^x\\u000ay\.db \(schema v\d+, \d+ KiB\)$/);
    expect(stats.stdout).toContain('  evil\\u000afake: 1: 1\n');
    expect(stats.stdout.split('\n')).toHaveLength(5);
    const found = await run(['search', 'wombats', '--mode', 'fts', ...db]);
    expect(found.code).toBe(0);
    expect(found.stdout.split('\n')[0]).toMatch(/^1\. b-fake\.md {2}art_\w+$/);
    // A stored source whose name holds a newline (an MCP client's source_id) is one line too.
    const d0 = new Database(join(ws, 'x\ny.db'));
    d0.prepare('UPDATE artifacts SET source_id = ?, source_file = ?').run('b\nfake.md', 'b\nfake.md');
    d0.close();
    const escaped = await run(['search', 'wombats', '--mode', 'fts', ...db]);
    expect(escaped.stdout.split('\n')[0]).toMatch(/^1\. b\\u000afake\.md {2}art_\w+$/);
    // A topic of a megabyte (MCP's ingest_artifact takes one) is cut in stats, its length said.
    const store = join(ws, 'x\ny.db');
    const d = new Database(store);
    d.prepare('UPDATE artifacts SET topic = ?').run('t'.repeat(1_000_000));
    d.close();
    const long = await run(['stats', ...db]);
    expect(long.stdout).toContain(`  ${'t'.repeat(200)}… (1000000 characters): 1\n`);
    expect(long.stdout.length).toBeLessThan(2_000);
  });
});

describe('ingest skips what chunkyard generated', () => {
  it('a built topic and its section, passed as the README\'s globs, ingest only the sources', async () => {
    // Build the topic with the real pipeline: _chunks/, _keywords/, topic-spec.md, index.json
    // for the topic, then index.json for the section folder above it.
    const topic = join(ws, TOPICS[0]!);
    let log = '';
    const quiet = { stdout: () => {}, stderr: (t: string) => void (log += t) };
    const cwd = process.cwd();
    process.chdir(ws);
    try {
      // Every topic of the section, since the section's index.json is built from its children's.
      const section = [TOPICS[0]!, TOPICS[2]!].map((t) => join(ws, t));
      expect(await chunkingTool(section, quiet), log).toBe(0);
      expect(await keywordExtractor(section, quiet), log).toBe(0);
      expect(await topicSpec(section, quiet), log).toBe(0);
      expect(await indexTool([...section, join(ws, 'docs/libraries')], quiet), log).toBe(0);
    } finally {
      process.chdir(cwd);
    }
    for (const built of ['_chunks', '_keywords', 'topic-spec.md', 'index.json']) expect(existsSync(join(topic, built)), built).toBe(true);
    expect(existsSync(join(ws, 'docs/libraries/index.json'))).toBe(true);
    // What `docs-store ingest docs/libraries/* docs/libraries/<topic>/*` passes after the shell's glob.
    const glob = (dir: string) => readdirSync(join(ws, dir)).map((name) => `${dir}/${name}`);
    const r = await run(['ingest', ...glob('docs/libraries'), ...glob(TOPICS[0]!), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { artifacts: { sourceFile: string }[]; skipped: string[]; errors: unknown[] };
    expect(out.errors).toEqual([]);
    expect(out.artifacts.map((a) => a.sourceFile).sort()).toEqual([`${TOPICS[0]}/golden-reference.md`, `${TOPICS[0]}/qa-pairs.md`, `${TOPICS[2]}/golden-reference.md`]);
    expect(out.skipped.sort()).toEqual(['docs/libraries/index.json', `${TOPICS[0]}/_chunks`, `${TOPICS[0]}/_keywords`, `${TOPICS[0]}/index.json`, `${TOPICS[0]}/topic-spec.md`].sort());
    expect(r.stderr).toMatch(/^docs-store: skipped 5 generated paths \(index\.json, topic-spec\.md, _chunks\/, _keywords\/\): /);
    // Nothing generated turns up in a search for words only the build output holds.
    const hits = JSON.parse((await run(['search', 'stripe_order baselines similarity_conceptual', '--mode', 'fts', '--json'])).stdout) as { hits: { sourceFile: string }[] };
    for (const h of hits.hits) expect(h.sourceFile).toMatch(/(golden-reference|qa-pairs)\.md$/);
  });
});

describe('search retrieves as docs-query does (issue 17 routes)', () => {
  it('ingest --built of a built section, then search: the units, chunk ranges and texts of retrieval search() on the same folder', async () => {
    const section = TOPICS.map((t) => join(ws, t));
    const quiet = { stdout: () => {}, stderr: () => {} };
    const cwd = process.cwd();
    process.chdir(ws);
    try {
      expect(await chunkingTool(section, quiet)).toBe(0);
      expect(await keywordExtractor(section, quiet)).toBe(0);
      expect(await topicSpec(section, quiet)).toBe(0);
      expect(await indexTool([...section, join(ws, 'docs/libraries'), join(ws, 'docs/deployment'), join(ws, 'docs')], quiet)).toBe(0);
    } finally {
      process.chdir(cwd);
    }
    expect((await run(['ingest', '--built', ...section])).code).toBe(0);
    const client = new DocsClient(openSource(join(ws, 'docs')));
    const backend = createBackend({ folder: join(ws, 'docs') });
    for (const q of ['How do I serialize a dictionary with non-string keys?', 'Which collection types are supported?', 'reflection versus source generation: which is faster at startup', 'JsonSerializerContext']) {
      for (const limit of [1, 4]) {
        const expected = await retrievalSearch(client, { query: q, n: limit, maxDistance: 0, embeddings: () => backend });
        expect(expected.method).toBe('embedding');
        const r = await run(['search', q, '--limit', String(limit), '--json']);
        expect(r.code, r.stderr).toBe(0);
        const hits = (JSON.parse(r.stdout) as { hits: { sourceFile: string; chunkIndex: number; unit: { chunks: { from: number; to: number }; text: string } }[] }).hits;
        expect(hits.map((h) => [h.sourceFile, h.chunkIndex, h.unit.chunks, h.unit.text]), q).toEqual(
          expected.chunks.map((c) => [`docs/${c.topic}/${c.doc}.md`, c.index, c.span, c.text]),
        );
      }
    }
    // The text output names each unit's chunk range.
    const text = await run(['search', 'Which collection types are supported?', '--limit', '2']);
    expect(text.stdout).toMatch(/^ {3}.*\[score \d+\.\d{4}; chunks? \d+(-\d+, \d+ hits?)?\]$/m);
  }, 60_000);
});

describe('--index', () => {
  it('ingest --index ivf builds and persists the IVF index; search --index ivf finds what exact search finds', async () => {
    const ing = await run(['ingest', ...TOPICS, '--index', 'ivf']);
    expect(ing.code, ing.stderr).toBe(0);
    expect(ing.stdout).toMatch(/vector index: ivf, \d+ lists over \d+ units, built \(no persisted index\)/);
    expect(count('vector_ann')).toBe(1);
    expect((await run(['stats'])).stdout).toMatch(/\n  vector index: ivf, \d+ lists over \d+ units \(\d+ KiB\), built 20/);
    const query = ['search', 'source generation options', '--mode', 'vector', '--limit', '5', '--json'];
    const exact = JSON.parse((await run([...query, '--index', 'exact'])).stdout) as { index: string; hits: { unitId: string }[] };
    const ivf = JSON.parse((await run([...query, '--index', 'ivf', '--probes', '4096'])).stdout) as { index: string; hits: { unitId: string }[] };
    expect([exact.index, ivf.index]).toEqual(['exact', 'ivf']);
    expect(ivf.hits.map((h) => h.unitId)).toEqual(exact.hits.map((h) => h.unitId));
    // A small store: auto is exact search, and ingest leaves the index as it was.
    const auto = JSON.parse((await run([...query])).stdout) as { index: string };
    expect(auto.index).toBe('exact');
    expect((await run(['ingest', ...TOPICS])).stdout).not.toMatch(/vector index/);
    // Routed hybrid search (the default) and fts use no vector index: --index ivf and --probes
    // were ignored without a word. They still are (routed search is exact), and stderr says so.
    const routed = await run(['search', 'source generation options', '--limit', '5', '--json']);
    for (const [extra, given] of [[['--index', 'ivf'], '--index ivf'], [['--probes', '8'], '--probes'], [['--index', 'ivf', '--probes', '8'], '--index ivf and --probes']] as const) {
      const r = await run(['search', 'source generation options', '--limit', '5', '--json', ...extra]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(routed.stdout);
      expect(r.stderr).toBe(`docs-store: ${given} not used: routed hybrid search scores every chunk exactly; the ivf index serves --mode vector and hybrid --no-routes\n`);
    }
    expect((await run(['search', 'options', '--mode', 'fts', '--index', 'ivf'])).stderr).toBe(
      'docs-store: --index ivf not used: fts search uses no vectors; the ivf index serves --mode vector and hybrid --no-routes\n',
    );
    for (const used of [['--mode', 'vector'], ['--no-routes']]) expect((await run(['search', 'options', ...used, '--index', 'ivf', '--probes', '8'])).stderr).toBe('');
    expect((await run(['search', 'options', '--index', 'exact'])).stderr).toBe('');
  });

  it('a bad --index or --probes is a usage error (exit 2)', async () => {
    const bad = await run(['search', 'x', '--index', 'hnsw']);
    expect(bad).toMatchObject({ code: 2, stderr: 'docs-store: --index must be exact, ivf or auto, got "hnsw"\n' });
    const probes = await run(['search', 'x', '--probes', '0']);
    expect(probes).toMatchObject({ code: 2, stderr: 'docs-store: --probes: expected a whole number from 1 to 4096, got "0"\n' });
    expect((await run(['ingest', TOPICS[2]!, '--index', 'fast'])).code).toBe(2);
  });
});

describe('environment errors are messages naming the path', () => {
  it('search and stats on a file that is not a database: exit 1, the file named, no trace', async () => {
    writeFileSync(join(ws, 'notes.txt'), 'not a database\n'.repeat(200));
    for (const args of [['search', 'x', '--mode', 'fts'], ['stats'], ['expand', 'art_00000000']]) {
      const r = await run([...args, '--db', 'notes.txt']);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toBe(`docs-store: ${join(ws, 'notes.txt')}: not a docs-store database (file is not a database); pass --db with the store's path, or move this file away\n`);
    }
  });

  it('a corrupt page SQLite finds only mid-query names the database and what to do; a newer schema says upgrade, not migrate', async () => {
    // Found by probing: the open-time checks pass (header and schema intact) and the query
    // then failed with "the store failed: database disk image is malformed (SQLITE_CORRUPT)",
    // naming neither the file nor a way out.
    const db = join(ws, 'corrupt.db');
    expect((await run(['ingest', TOPICS[1]!, '--db', db])).code).toBe(0);
    const size = statSync(db).size;
    const junk = Buffer.alloc(5 * 4096, 0);
    for (let i = 0; i < junk.length; i++) junk[i] = (i * 131 + 7) & 255;
    const fd = openSync(db, 'r+');
    writeSync(fd, junk, 0, junk.length, size - 6 * 4096);
    closeSync(fd);
    for (const args of [['search', 'native', '--mode', 'fts'], ['search', 'native']]) {
      const r = await run([...args, '--db', db]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toBe(`docs-store: ${db}: the database is corrupt (database disk image is malformed); rebuild it with "docs-store ingest" into a new --db\n`);
    }
    // A reader met a newer schema with "open it once for writing to migrate"; a write says upgrade.
    const newer = join(ws, 'newer.db');
    const d = new Database(newer);
    // A newer store still has the tables every version has (else it is another program's database).
    d.exec('CREATE TABLE artifacts (x); CREATE TABLE store_meta (k); PRAGMA user_version = 7');
    d.close();
    for (const args of [['stats'], ['search', 'x', '--mode', 'fts']]) {
      const r = await run([...args, '--db', newer]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`docs-store: ${newer}: schema version 7 is newer than this docs-store knows (${SCHEMA_VERSION}); upgrade chunkyard\n`);
    }
  }, 30_000);

  it.runIf(process.platform !== 'win32')('a --db or --config that is a FIFO, a device or a folder is refused at once, naming it', async () => {
    execFileSync('mkfifo', [join(ws, 'db.pipe')]);
    mkdirSync(join(ws, 'db.dir'));
    for (const [db, kind] of [['db.pipe', 'a FIFO (named pipe)'], ['/dev/zero', 'a device'], ['db.dir', 'a folder']] as const) {
      for (const args of [['stats'], ['search', 'x', '--mode', 'fts'], ['ingest', TOPICS[2]!]]) {
        const r = await run([...args, '--db', db]);
        expect(r.code, `${args[0]} --db ${db}`).toBe(1);
        expect(r.stderr).toBe(`docs-store: ${db.startsWith('/') ? db : join(ws, db)}: ${kind}, not a database file; pass --db with the path of a store file (one that does not exist yet is created)\n`);
      }
    }
    execFileSync('mkfifo', [join(ws, 'config.pipe')]);
    const c = await run(['search', 'x', '--config', 'config.pipe']);
    expect(c.code).toBe(2);
    expect(c.stderr).toBe(`docs-store: cannot read config: ${join(ws, 'config.pipe')}: a FIFO (named pipe), not a regular file; point it at a regular file\n`);
    // Issue 15 probe: a missing --config was "cannot read config (ENOENT)", the errno and nothing to do.
    const missing = await run(['search', 'x', '--config', 'typo.yaml']);
    expect(missing).toMatchObject({ code: 2, stderr: `docs-store: cannot read config: ${join(ws, 'typo.yaml')}: no such file or folder (ENOENT); check the path\n` });
  }, 30_000);

  it.runIf(process.platform !== 'win32')('a FIFO or a device is refused at once, and the rest is stored', async () => {
    execFileSync('mkfifo', [join(ws, 'pipe.md')]);
    const r = await run(['ingest', 'pipe.md', '/dev/zero', TOPICS[2]!]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('docs-store: pipe.md: a FIFO (named pipe), not a regular file; left out');
    expect(r.stderr).toMatch(/docs-store: \S*dev\/zero: a character device, not a regular file; left out/);
    expect(r.stdout).toMatch(/1 written, 0 unchanged, 2 failed/);
  }, 20_000);

  it.runIf(process.platform !== 'win32')('a topic.yaml that is a FIFO, a device, a folder or a dangling link: a config error at once (it hung, or was ignored)', async () => {
    const yaml = join(ws, TOPICS[2]!, 'topic.yaml');
    const cases: [string, () => void, string][] = [
      ['FIFO', () => execFileSync('mkfifo', [yaml]), 'a FIFO (named pipe), not a regular file; point it at a regular file'],
      ['device', () => symlinkSync('/dev/zero', yaml), 'a character device, not a regular file; point it at a regular file'],
      ['folder', () => mkdirSync(yaml), 'a directory, not a regular file; point it at a regular file'],
      ['dangling', () => symlinkSync('nowhere.yaml', yaml), 'a dangling symlink (its target does not exist); fix or remove the link'],
    ];
    for (const [what, make, reason] of cases) {
      rmSync(yaml, { recursive: true, force: true });
      make();
      const r = await run(['ingest', TOPICS[2]!]);
      expect(r, what).toMatchObject({ code: 2, stderr: `docs-store: cannot read config: ${yaml}: ${reason}\n` });
    }
  }, 30_000);

  it.runIf(process.platform !== 'win32')('--built with a manifest that is a FIFO: exit 1 at once, the path named', async () => {
    expect(await chunkingTool([join(ws, TOPICS[2]!)], { stdout: () => {}, stderr: () => {} })).toBe(0);
    const manifest = join(ws, TOPICS[2]!, '_chunks/golden-reference.json');
    rmSync(manifest);
    execFileSync('mkfifo', [manifest]);
    const r = await run(['ingest', '--built', TOPICS[2]!]);
    expect(r.code).toBe(1);
    // With what to do about it (it gave none).
    expect(r.stderr).toMatch(/^docs-store: [^\n]*: a FIFO \(named pipe\), not a regular file; remove it and rebuild the topic's chunks \(nx run <topic>:chunk, or chunking-tool\)\n$/);
    expect(r.stderr).toContain(`${manifest}: a FIFO`);
  }, 20_000);

  it.runIf(process.platform !== 'win32')('--built with a source that is a FIFO: exit 1 at once, the path named, with what to do', async () => {
    expect(await chunkingTool([join(ws, TOPICS[2]!)], { stdout: () => {}, stderr: () => {} })).toBe(0);
    const source = join(ws, TOPICS[2]!, 'golden-reference.md');
    const text = readFileSync(source);
    rmSync(source);
    execFileSync('mkfifo', [source]);
    try {
      const r = await run(['ingest', '--built', TOPICS[2]!]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /^docs-store: [^\n]*golden-reference\.md: a FIFO \(named pipe\), not a regular file; make it a regular markdown file, then rebuild the topic's chunks \(nx run <topic>:chunk, or chunking-tool\)\n$/,
      );
    } finally {
      rmSync(source);
      writeFileSync(source, text);
    }
  }, 20_000);

  // Root reads any file whatever its mode, so the bin runs as nobody (setpriv).
  const canSetpriv = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v setpriv']).status === 0;
  it.runIf(canSetpriv)('a source or manifest that cannot be read (EACCES): the file named with what to do, not Node\'s words (s39 probe)', async () => {
    expect(await chunkingTool([join(ws, TOPICS[2]!)], { stdout: () => {}, stderr: () => {} })).toBe(0);
    await ensureBuilt();
    spawnSync('chmod', ['-R', 'a+rwX', ws]);
    const asNobody = (args: string[]) =>
      spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN, ...args], { cwd: ws, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '', CI: '1' } });
    const source = join(ws, TOPICS[2]!, 'golden-reference.md');
    const manifest = join(ws, TOPICS[2]!, '_chunks/golden-reference.json');
    const denied = 'permission denied (EACCES); check its permissions';
    for (const [file, args, said] of [
      [source, ['ingest', TOPICS[2]!], `docs-store: ${TOPICS[2]}/golden-reference.md: ${denied}`],
      [source, ['ingest', `${TOPICS[2]}/golden-reference.md`], `docs-store: ${TOPICS[2]}/golden-reference.md: ${denied}`],
      [manifest, ['ingest', '--built', TOPICS[2]!], `${manifest}: ${denied}`],
      [source, ['ingest', '--built', TOPICS[2]!], `${source}: ${denied}`],
    ] as const) {
      execFileSync('chmod', ['000', file]);
      try {
        const r = asNobody([...args]);
        expect(r.status, r.stderr).toBe(1);
        expect(r.stderr, args.join(' ')).toContain(said);
        expect(r.stderr).not.toContain('EACCES:');
      } finally {
        execFileSync('chmod', ['644', file]);
      }
    }
  }, 60_000);

  // s43 probe: as another user, a store in a folder that user cannot write (SQLite's
  // SQLITE_READONLY_DIRECTORY: -wal and -shm go beside the store) was "cannot open the store
  // (SQLITE_READONLY_DIRECTORY: attempt to write a readonly database)" for every command,
  // naming neither the folder nor what to do.
  it.runIf(canSetpriv)('a store whose folder this user cannot write (EACCES): the folder named with what to do, reading and writing', async () => {
    expect((await run(['ingest', TOPICS[2]!])).code).toBe(0);
    await ensureBuilt();
    spawnSync('chmod', ['-R', 'a+rX', ws]);
    const dir = join(ws, '.chunkyard');
    expect(readdirSync(dir)).toEqual(['store.db']);
    const asNobody = (args: string[]) =>
      spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN, ...args], { cwd: ws, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '', CI: '1' } });
    for (const args of [['stats'], ['search', 'json', '--mode', 'fts']]) {
      const r = asNobody(args);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toBe(
        `docs-store: ${dbPath()}: cannot open the store for reading: ${dir} is not writable (EACCES), and SQLite must make store.db-shm beside a store (WAL mode) even to read it; copy the store to a writable folder and pass --db with the copy\n`,
      );
    }
    writeFileSync(join(ws, TOPICS[2]!, 'golden-reference.md'), '# Changed\n\nNew text.\n');
    const w = asNobody(['ingest', TOPICS[2]!]);
    expect(w.status, w.stderr).toBe(1);
    expect(w.stderr).toBe(`docs-store: ${dbPath()}: cannot open the store for writing: ${dir} is not writable (EACCES); choose another --db\n`);
  }, 60_000);

  // s46 probe: SQLite opens a store file this user may only read read-only, without a word,
  // and refuses at the first write: ingest embedded every document first (a paid provider's
  // calls, here an unreachable one's error) and then said "attempt to write a readonly database".
  it.runIf(canSetpriv)('a store file this user may only read: ingest says so before embedding anything, naming the file', async () => {
    expect((await run(['ingest', TOPICS[2]!])).code).toBe(0);
    await ensureBuilt();
    spawnSync('chmod', ['-R', 'a+rwX', ws]);
    execFileSync('chmod', ['444', dbPath()]);
    writeFileSync(join(ws, TOPICS[2]!, 'golden-reference.md'), '# Changed\n\nNew text.\n');
    // An unreachable provider under the store's model name: embedding first fails with its error.
    writeFileSync(join(ws, 'chunkyard.config.yaml'), 'embeddings:\n  provider: ollama\n  model: local-lexical-v1-d512\n  host: http://127.0.0.1:9\n  maxRetries: 0\n');
    const before = readFileSync(dbPath());
    const w = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN, 'ingest', TOPICS[2]!], { cwd: ws, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '', CI: '1' } });
    expect(w.status, w.stderr).toBe(1);
    expect(w.stderr).toBe(`docs-store: ${dbPath()}: cannot write the store: the file is read-only to this user (EACCES); check its permissions or choose another --db\n`);
    expect(readFileSync(dbPath()).equals(before)).toBe(true);
  }, 60_000);

  it('--built with an .embedding-cache that is a file, not a folder: exit 1, the path named, no trace', async () => {
    expect(await chunkingTool([join(ws, TOPICS[2]!)], { stdout: () => {}, stderr: () => {} })).toBe(0);
    writeFileSync(join(ws, '.embedding-cache'), 'not a folder');
    const r = await run(['ingest', '--built', TOPICS[2]!]);
    expect(r.code).toBe(1);
    expect(r.stderr.startsWith(`docs-store: ${join(ws, '.embedding-cache')}/`), r.stderr).toBe(true);
    expect(r.stderr).toMatch(/: a part of the path is a file, not a folder \(ENOTDIR\)\n$/);
    expect(r.stderr.split('\n')).toHaveLength(2);
  });

  // A read-only folder needs a mount, and chmod does not bind root: an unprivileged mount
  // namespace (unshare) gives a read-only bind of the folder to the bin alone.
  const canBindReadOnly = process.platform === 'linux' && spawnSync('unshare', ['--mount', '--map-root-user', 'true']).status === 0;
  it.runIf(canBindReadOnly)('a store in a read-only folder: reads and writes name the folder and what to do (s37 probe: "check its permissions")', async () => {
    expect((await run(['ingest', TOPICS[2]!, '--db', 'ro/store.db'])).code).toBe(0);
    await ensureBuilt();
    const ro = join(ws, 'ro');
    const db = join(ro, 'store.db');
    const readOnly = (args: string[]) =>
      spawnSync('unshare', ['--mount', '--map-root-user', 'sh', '-c', 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"', 'sh', ro, process.execPath, BIN, ...args], {
        cwd: ws,
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', CI: '1' },
      });
    for (const args of [['stats'], ['search', 'native', '--mode', 'fts']]) {
      const r = readOnly([...args, '--db', db]);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toBe(
        `docs-store: ${db}: cannot open the store for reading: ${ro} is on a read-only file system (EROFS), and SQLite must make store.db-shm beside a store (WAL mode) even to read it; copy the store to a writable folder and pass --db with the copy\n`,
      );
    }
    const w = readOnly(['ingest', TOPICS[2]!, '--db', db]);
    expect(w.status, w.stderr).toBe(1);
    expect(w.stderr).toBe(`docs-store: ${db}: cannot open the store for writing: ${ro} is on a read-only file system (EROFS); choose another --db\n`);
  }, 60_000);

  it.runIf(canBindReadOnly)('a disk too full for the shared-memory file is a full disk, not "check that the folder exists and is writable" (s37 probe: SQLITE_IOERR_SHMSIZE)', async () => {
    await ensureBuilt();
    const mnt = join(ws, 'small');
    mkdirSync(mnt);
    // A 200 KiB file system with 20 KiB left: room for the store's first page, not for its -shm.
    const r = spawnSync(
      'unshare',
      ['--mount', '--map-root-user', 'sh', '-c', 'mount -t tmpfs -o size=200k tmpfs "$1" && head -c 180k /dev/zero > "$1/filler" && shift && exec "$@"', 'sh', mnt, process.execPath, BIN, 'ingest', TOPICS[2]!, '--db', join(mnt, 'store.db')],
      { cwd: ws, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', CI: '1' } },
    );
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^docs-store: ${join(mnt, 'store.db')}: the disk is full \\([^)]*\\); free some space and run again\n$`));
  }, 60_000);

  it('ingest into a folder that cannot exist, or cannot be written: exit 1, the path named', async () => {
    writeFileSync(join(ws, 'plain'), 'x');
    const under = await run(['ingest', TOPICS[2]!, '--db', 'plain/store.db']);
    expect(under.code).toBe(1);
    // s37 probe: it said "cannot create the folder … (EEXIST); … fix the folder's permissions", and stats "run docs-store ingest first".
    const said = `docs-store: ${join(ws, 'plain/store.db')}: ${join(ws, 'plain')} is a file, not a folder, so no store can be there; choose another --db, or move ${join(ws, 'plain')} away\n`;
    expect(under.stderr).toBe(said);
    const read = await run(['stats', '--db', 'plain/store.db']);
    expect(read.code).toBe(1);
    expect(read.stderr).toBe(said);
    if (process.platform === 'linux') {
      const proc = await run(['ingest', TOPICS[2]!, '--db', '/proc/chunkyard-docs-store-test.db']);
      expect(proc.code).toBe(1);
      expect(proc.stderr).toMatch(/^docs-store: \/proc\/chunkyard-docs-store-test\.db: cannot open the store for writing \(SQLITE_CANTOPEN/);
    }
  });
});

describe('a default store path that is a symlink (issue 15: a planted .chunkyard/store.db was opened through SQLite)', () => {
  // <workspace>/.chunkyard/store.db is derived, inside a docs repo that may be someone else's
  // (a pull request in CI): a link committed there made ingest create, or write a schema into,
  // whatever file it led to. A --db the user names is the user's choice, link or not.
  let outside: string;
  beforeEach(() => {
    outside = join(ws, 'outside');
    mkdirSync(outside);
  });
  const refused = (link: string, target: string) =>
    `docs-store: ${link}: is a symlink (it points to ${target}); a store path not given with --db is never opened through a link, so nothing was read or written; remove the link, or pass --db with the store you mean\n`;

  it.each([
    ['an empty file', () => writeFileSync(join(outside, 'target'), '')],
    ['a file with content', () => writeFileSync(join(outside, 'target'), 'password=hunter2-secret\n')],
    ['nothing (a dangling link)', () => {}],
  ])('store.db linked to %s: every command refuses it, exit 1, nothing written there', async (_what, make) => {
    make();
    const target = join(outside, 'target');
    const before = existsSync(target) ? readFileSync(target) : null;
    mkdirSync(join(ws, '.chunkyard'));
    symlinkSync(target, dbPath());
    for (const args of [['ingest', TOPICS[2]!], ['stats'], ['search', 'json']]) {
      const r = await run(args);
      expect(r, args.join(' ')).toEqual({ code: 1, stdout: '', stderr: refused(dbPath(), target) });
    }
    expect(existsSync(target) ? readFileSync(target) : null).toEqual(before);
    expect(readdirSync(outside)).toEqual(before === null ? [] : ['target']);
    expect(readdirSync(join(ws, '.chunkyard'))).toEqual(['store.db']);
  });

  it('a .chunkyard folder that is a link is refused too: nothing made where it leads', async () => {
    symlinkSync(outside, join(ws, '.chunkyard'));
    const r = await run(['ingest', TOPICS[2]!]);
    expect(r).toEqual({ code: 1, stdout: '', stderr: refused(join(ws, '.chunkyard'), outside) });
    expect(readdirSync(outside)).toEqual([]);
  });

  it('--db naming the same link is the user\'s choice: the store is made where it leads', async () => {
    mkdirSync(join(ws, '.chunkyard'));
    symlinkSync(join(outside, 'mine.db'), dbPath());
    const r = await run(['ingest', TOPICS[2]!, '--db', '.chunkyard/store.db']);
    expect(r.code, r.stderr).toBe(0);
    expect(count('artifacts', join(outside, 'mine.db'))).toBe(1);
  });
});

describe('mcp --http environment errors', () => {
  it('a port already in use: exit 1, the address named, no trace', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (blocker.address() as AddressInfo).port;
      const r = await run(['mcp', '--http', '--port', String(port)]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`docs-store: 127.0.0.1:${port}: the port is in use; pick another --port (0 picks a free one)\n`);
    } finally {
      blocker.close();
    }
  });
});

describe('search, expand, stats', () => {
  beforeEach(async () => {
    expect((await run(['ingest', ...TOPICS])).code).toBe(0);
  });

  it('names the source file and chunk id of every hit, in text and JSON', async () => {
    const text = await run(['search', 'Native', 'AOT', 'limitations', '--limit', '3']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^1\. docs\/deployment\/native-aot\/golden-reference\.md {2}art_[0-9a-f]{8}::chunk::\d{3}::[0-9a-f]{8}$/m);
    const json = await run(['search', 'Native AOT limitations', '--json', '--mode', 'fts', '--limit', '4']);
    const out = JSON.parse(json.stdout) as { mode: string; hits: { sourceFile: string; unitId: string; ranks: object }[] };
    expect(out.mode).toBe('fts');
    expect(out.hits).toHaveLength(4);
    for (const h of out.hits) {
      expect(h.sourceFile).toMatch(/golden-reference\.md$/);
      expect(h.unitId).toMatch(/^art_[0-9a-f]{8}(::chunk::\d{3}::[0-9a-f]{8})?$/);
      expect(Object.keys(h.ranks)).toEqual(['fts']);
    }
  });

  it('filters and expands', async () => {
    const r = await run(['search', 'serialize', '--topic', 'system-text-json-collections', '--hint', 'table', '--expand', '1', '--json', '--no-routes']);
    expect(r.code, r.stderr).toBe(0);
    const hits = (JSON.parse(r.stdout) as { routes: boolean; hits: { topic: string; contentHints: string; expanded: string; content: string }[] }).hits;
    expect(JSON.parse(r.stdout)).toMatchObject({ mode: 'hybrid', routes: false });
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) {
      expect(h.topic).toBe(TOPICS[0]);
      expect(h.contentHints).toBe('table');
      expect(h.expanded).toContain(h.content);
      expect(h.expanded).toContain('[CHUNK BOUNDARY]');
    }
    // Routed (the default): the same filters; each unit with its neighbours in its text.
    const routed = await run(['search', 'serialize', '--topic', 'system-text-json-collections', '--hint', 'table', '--expand', '1', '--json']);
    expect(routed.code, routed.stderr).toBe(0);
    const out = JSON.parse(routed.stdout) as { routes: boolean; hits: { topic: string; contentHints: string; chunkIndex: number; unit: { chunks: { from: number; to: number }; text: string } }[] };
    expect(out.routes).toBe(true);
    expect(out.hits.length).toBeGreaterThan(0);
    for (const h of out.hits) {
      expect(h.topic).toBe(TOPICS[0]);
      expect(h.contentHints).toBe('table');
      expect(h.unit.chunks.from).toBeLessThan(h.unit.chunks.to);
      expect(h.unit.text.split('\n[CHUNK BOUNDARY]\n')).toHaveLength(h.unit.chunks.to - h.unit.chunks.from + 1);
    }
    // s39 probe: a --topic that names no stored topic (a typo, a section, a ./ path) said
    // "no results", exit 0, as if the docs did not cover the question; docs-query says so, exit 2.
    for (const mode of ['hybrid', 'fts', 'vector']) {
      const typo = await run(['search', 'serialize', '--topic', 'system-text-json-colections', '--mode', mode]);
      expect(typo, mode).toEqual({
        code: 2,
        stdout: '',
        stderr: `docs-store: --topic "system-text-json-colections": no stored topic matches (topics: ${[...TOPICS].sort().join(', ')}); give a topic's path or its last segments\n`,
      });
    }
    // Likewise a --content-type no stored document has.
    expect(await run(['search', 'serialize', '--content-type', 'api'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `docs-store: --content-type "api": no stored document has this content type (content types: doc)\n`,
    });
    const misuse = await run(['search', 'serialize', '--mode', 'fts', '--no-routes']);
    expect(misuse).toMatchObject({ code: 2, stderr: 'docs-store: --no-routes is for hybrid search; --mode fts has no routes\n' });
  });

  it('expand prints a chunk with its neighbours', async () => {
    const hit = (JSON.parse((await run(['search', 'limitations', '--topic', 'native-aot', '--json', '--mode', 'fts', '--limit', '1'])).stdout) as { hits: { unitId: string; numChunks: number }[] }).hits[0]!;
    const id = hit.unitId;
    const r = await run(['expand', id, '--k', '1', '--json']);
    expect(r.code).toBe(0);
    const e = JSON.parse(r.stdout) as { chunkIndices: number[]; text: string };
    const index = Number(id.split('::')[2]);
    expect(e.chunkIndices).toEqual([index - 1, index, index + 1].filter((i) => i >= 0 && i < hit.numChunks));
    expect(e.text.split('\n[CHUNK BOUNDARY]\n')).toHaveLength(e.chunkIndices.length);
    const missing = await run(['expand', 'art_00000000::chunk::000::00000000']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('docs-store: no chunk or artifact with id art_00000000::chunk::000::00000000\n');
  });

  it('stats counts what is stored', async () => {
    const r = await run(['stats', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ schemaVersion: SCHEMA_VERSION, artifacts: 3, chunkedArtifacts: 2, embeddingModel: 'local-lexical-v1-d512', dimensions: 512, ann: null });
  });

  it('escapes control characters from documents before they reach the terminal (C1 CSI, OSC, ST), in text and JSON', async () => {
    const file = join(ws, 'c1.md');
    writeFileSync(file, '# Title \u009b2J end\n\nThe zanzibar widget keeps \u009d0;PWNED\u009c things.\n');
    expect((await run(['ingest', file])).code).toBe(0);
    const controls = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
    const text = await run(['search', 'zanzibar', '--mode', 'fts']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Title \\u009b2J end');
    expect(text.stdout).not.toMatch(controls);
    const json = await run(['search', 'zanzibar', '--mode', 'fts', '--json']);
    expect(json.stdout).not.toMatch(controls);
    const hit = (JSON.parse(json.stdout) as { hits: { content: string; unitId: string }[] }).hits[0]!;
    expect(hit.content).toContain('\u009d0;PWNED\u009c');
    const expanded = await run(['expand', hit.unitId]);
    expect(expanded.code).toBe(0);
    expect(expanded.stdout).toContain('\\u009d0;PWNED');
    expect(expanded.stdout).not.toMatch(controls);
    // Issue 15 probe: a page whose C0 escapes are over 1% of its characters was refused as
    // "binary content", where chunking-tool chunks it; one rule now (only NUL is binary).
    const ansi = join(ws, 'ansi.md');
    writeFileSync(ansi, '# Colours\n\nThe quokka log:\n\n```console\n\u001b[31mERROR\u001b[0m \u001b[1mquokka\u001b[0m\u001b]0;PWNED\u0007\f\n```\n');
    expect((await run(['ingest', ansi])).code).toBe(0);
    const colours = await run(['search', 'quokka', '--mode', 'fts']);
    expect(colours.stdout).toContain('\\u001b[31mERROR');
    expect(colours.stdout).not.toMatch(controls);
  });

  it('refuses a query embedding of another dimension clearly; fts still works', async () => {
    writeFileSync(join(ws, 'chunkyard.config.yaml'), 'embeddings:\n  provider: local\n  dimensions: 256\n');
    const r = await run(['search', 'trimming']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/query embedding has 256 dimensions \(model local-lexical-v1-d256\), but .*store\.db holds 512-dimension vectors of model local-lexical-v1-d512/);
    expect((await run(['search', 'trimming', '--mode', 'fts'])).code).toBe(0);
  });
});

describe('search output', () => {
  it('an fts hit in a small store shows its score, not "score 0.0000" (issue 15 probe)', async () => {
    writeFileSync(join(ws, 'a.md'), '# Alpha\n\nSome words about trimming the output.\n');
    writeFileSync(join(ws, 'b.md'), '# Beta\n\nOther words entirely.\n');
    expect((await run(['ingest', 'a.md', 'b.md'])).code).toBe(0);
    const r = await run(['search', 'words', '--mode', 'fts']);
    expect(r.code, r.stderr).toBe(0);
    const scores = [...r.stdout.matchAll(/\[score ([^;]+);/g)].map((m) => m[1]!);
    expect(scores).toHaveLength(2);
    for (const s of scores) {
      expect(s).not.toBe('0.0000');
      expect(Number(s)).toBeGreaterThan(0);
    }
    // A pasted huge query came back whole in "no results for …" (80 KB on the terminal).
    const long = 'zzq'.repeat(20_000);
    const none = await run(['search', long, '--mode', 'fts']);
    expect(none).toEqual({ code: 0, stdout: `no results for "${long.slice(0, 200)}…" (60000 characters)\n`, stderr: '' });
    expect(formatScore(6)).toBe('6.0000');
    expect(formatScore(0)).toBe('0.0000');
    expect(formatScore(0.0000012345)).toBe('0.00000123');
    expect(formatScore(-0.00002)).toBe('-0.0000200');
  });

  it('an unknown --topic or --content-type is quoted, escaped and cut short (a 1 MB value went back whole to the terminal)', async () => {
    writeFileSync(join(ws, 'a.md'), '# Alpha\n\nSome words about trimming the output.\n');
    expect((await run(['ingest', 'a.md'])).code).toBe(0);
    const huge = `\u001b]0;PWNED\u0007${'x'.repeat(1_000_000)}`;
    for (const option of ['--topic', '--content-type']) {
      const r = await run(['search', 'words', '--mode', 'fts', option, huge]);
      expect(r.code, option).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.startsWith(`docs-store: ${option} "\\u001b]0;PWNED\\u0007${'x'.repeat(50)}`), r.stderr.slice(0, 200)).toBe(true);
      expect(r.stderr).toContain(`…" (${huge.length} characters): `);
      expect(r.stderr.length).toBeLessThan(1000);
      expect(r.stderr.split('\n')).toHaveLength(2);
    }
  });
});

describe('usage', () => {
  // s46 probe: as --topic did, each of these usage errors quoted the value whole (a megabyte
  // in process; 128 KiB, the most one argument can hold, from a shell).
  it.each([
    [(v: string) => [v]],
    [(v: string) => ['search', 'x', '--index', v]],
    [(v: string) => ['search', 'x', '--mode', v]],
    [(v: string) => ['search', 'x', '--hint', v]],
    [(v: string) => ['stats', v]],
  ])('a huge bad value is quoted cut short (%#)', async (args) => {
    const huge = `q${'\u001b[2J'.repeat(250_000)}`;
    const r = await run(args(huge));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`"q\\u001b[2J`);
    expect(r.stderr).toContain(`(${huge.length} characters)`);
    expect(r.stderr.length).toBeLessThan(1_000);
  });

  it.each([
    [['frobnicate'], /unknown command "frobnicate"/],
    [['search'], /search: no query given/],
    [['search', ''], /search: the query is blank; give the words to search for/],
    [['search', ' ', '\t'], /search: the query is blank/],
    [['search', 'x', '--limit', '0'], /--limit: expected a whole number from 1 to 100, got "0"/],
    [['search', 'x', '--limit', '1e9'], /--limit: expected a whole number from 1 to 100, got "1e9"/],
    [['search', 'x', '--limit', '1e8'], /--limit: expected a whole number from 1 to 100, got "1e8"/],
    [['search', 'x', '--limit', '101'], /--limit: expected a whole number from 1 to 100, got "101"/],
    [['search', 'x', '--limit', '0x10'], /--limit: expected a whole number from 1 to 100, got "0x10"/],
    [['search', 'x', '--limit', ''], /--limit: expected a whole number from 1 to 100, got ""/],
    [['search', 'x', '--expand', '11'], /--expand: expected a whole number from 0 to 10, got "11"/],
    [['search', 'x', '--expand=-1'], /--expand: expected a whole number from 0 to 10, got "-1"/],
    // parseArgs took a negative value for an option and said "argument is ambiguous".
    [['search', 'x', '--limit', '-1'], /--limit: expected a whole number from 1 to 100, got "-1"/],
    [['search', 'x', '--expand', '-1'], /--expand: expected a whole number from 0 to 10, got "-1"/],
    [['expand', 'art_00000000', '--k', '21'], /--k: expected a whole number from 0 to 20, got "21"/],
    [['expand', 'art_00000000', '--k', '1.5'], /--k: expected a whole number from 0 to 20, got "1.5"/],
    [['mcp', '--http', '--port', '70000'], /--port: expected a whole number from 0 to 65535, got "70000"/],
    [['mcp', '--port', '8080'], /--port needs --http \(stdio is the default transport\)/],
    [['mcp', '--token', 'x'], /--token needs --http/],
    [['mcp', '--http', '--token', ' '], /the bearer token \(--token or DOCS_STORE_MCP_TOKEN\) is empty/],
    [['search', 'x', '--hint', 'poem'], /--hint must be one of prose, table, code, list, quote, mixed/],
    // Issue 15 probe: an empty --topic searched (or stored) the topic "", and every search came back empty.
    [['search', 'x', '--topic', ''], /--topic: empty; give a value, or leave --topic out/],
    [['search', 'x', '--content-type', ''], /--content-type: empty; give a value, or leave --content-type out/],
    [['ingest', 'deep', '--topic', ''], /--topic: empty; give a value, or leave --topic out/],
    [['stats', '--db', ''], /--db: empty; give a value, or leave --db out/],
    // s37 probe: only '' was empty; a value of spaces went on (--host ' ' to the resolver).
    [['mcp', '--http', '--host', ' '], /--host: empty; give a value, or leave --host out/],
    [['search', 'x', '--topic', '  '], /--topic: empty; give a value, or leave --topic out/],
    [['mcp', '--http', '--token', ''], /the bearer token \(--token or DOCS_STORE_MCP_TOKEN\) is empty/],
    // s39 probe: a token no Authorization header can carry as it is got the server started, and
    // every request refused: a newline (400 from Node's parser), a non-ASCII letter (header bytes
    // are read as latin1), a space at an end (trimmed from the header).
    [['mcp', '--http', '--token', 'a\nb'], /^docs-store: the bearer token \(--token or DOCS_STORE_MCP_TOKEN\) holds a control character, which no Authorization header carries as it is; use printable ASCII with no space at either end \(openssl rand -hex 16 makes one\)\n$/],
    [['mcp', '--http', '--token', 'tökén'], /holds a character outside ASCII, which no Authorization header carries as it is/],
    [['mcp', '--http', '--token', 'abc '], /holds a space at an end, which no Authorization header carries as it is/],
    [['ingest', 'deep'], /deep: a folder, but not a topic \(no golden-reference\.md in it\)/],
    [['ingest', '--nope'], /Unknown option '--nope'/],
    // Found by probing: `stats extra` ignored the word and printed the default store's stats.
    [['stats', 'other.db'], /stats: takes no arguments, got "other\.db" \(the database is --db PATH\)/],
    // Issue 15 probe: `stats --config other.yaml` printed the default store's stats as if the
    // config counted; an option a command does not read was ignored without a word.
    [['stats', '--config', 'other.yaml'], /^docs-store: --config: stats does not use it \(stats takes --db, --json\); leave it out\n$/],
    [['expand', 'art_00000000', '--limit', '3'], /--limit: expand does not use it \(expand takes --db, --json, --k\); leave it out/],
    [['ingest', 'deep', '--mode', 'fts'], /--mode: ingest does not use it/],
    [['search', 'x', '--built'], /--built: search does not use it/],
    [['mcp', '--json'], /--json: mcp does not use it/],
    [['mcp', '--hint', 'code'], /--hint: mcp does not use it/],
    // Issue 15: fts never read --config, so a missing or broken file passed without a word
    // (and a user could think its embeddings: section counted).
    [['search', 'x', '--mode', 'fts', '--config', 'bad.yaml'], /^docs-store: --config: search --mode fts does not use it \(fts matches the stored text; the config's embeddings: section serves --mode hybrid and vector\); leave it out\n$/],
  ])('%j exits 2 with a clear message', async (args, message) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(dbPath())).toBe(false);
  });

  it('searching a store that does not exist says how to make one', async () => {
    const r = await run(['search', 'x', '--mode', 'fts']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/store\.db: cannot open the store .*run "docs-store ingest" first/);
  });

  it('--help lists every command and option the parser accepts', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const word of ['ingest', 'search', 'expand', 'stats', 'mcp', '--db', '--config', '--json', '--built', '--topic', '--content-type', '--mode', '--limit', '--expand', '--hint', '--k', '--http', '--port', '--host', '--token', 'DOCS_STORE_MCP_TOKEN']) {
      expect(HELP).toContain(word);
    }
  });
});
