// Tests of the index-tool CLI over real topics built by the real chunking-tool,
// keyword-extractor and topic-spec (local embedder), in a temp docs tree.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { main as spec } from '../../topic-spec/src/main.js';
import { DocsClient, openSource, walkTopics } from '@chunkyard/retrieval';
import { SIMHASH_VERSION } from '@chunkyard/simhash';
import type { IndexJson } from '@chunkyard/topic-index';
import { HELP, main } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const quiet = { stdout: () => {}, stderr: () => {} };

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}

let root: string;
let docs: string;
const TOPICS = ['libraries/system-text-json-source-generation', 'libraries/system-text-json-polymorphism', 'deployment/native-aot'];
const read = (rel: string) => JSON.parse(readFileSync(join(docs, rel, 'index.json'), 'utf8')) as IndexJson;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-index-cli-'));
  docs = join(root, 'docs');
  const config = join(root, 'chunkyard.config.yaml');
  writeFileSync(config, 'chunking:\n  maxTokens: 512\n');
  for (const t of TOPICS) {
    const dir = join(docs, t);
    mkdirSync(dir, { recursive: true });
    for (const f of ['golden-reference.md', 'qa-pairs.md']) cpSync(join(REPO, 'docs', t, f), join(dir, f));
    expect(await chunk([dir, '--config', config], quiet)).toBe(0);
    expect(await keywords([dir], quiet)).toBe(0);
    expect(await spec([dir, '--config', config], quiet)).toBe(0);
  }
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('index-tool', () => {
  it('writes a topic index.json from topic-spec.md, with chunk hrefs that resolve to the chunk files', async () => {
    const t = TOPICS[0]!;
    const r = await run([join(docs, t), '--root', docs]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const index = read(t);
    expect(index.id).toBe(t);
    expect(index._links).toEqual({ self: { href: `/${t}/index.json` }, parent: { href: '/libraries/index.json' } });
    const d = index._embedded.chunks!['golden-reference']!;
    const manifest = JSON.parse(readFileSync(join(docs, t, d.manifest), 'utf8')) as { chunks: { originalText: string }[] };
    expect(d.count).toBe(manifest.chunks.length);
    d.items.forEach((item, i) => expect(readFileSync(join(docs, t, item.href), 'utf8')).toBe(manifest.chunks[i]!.originalText));
    expect(d.items.some((i) => i.prompt_hashes?.length)).toBe(true);
    // Every prompt hash has its question text beside it, from qa-pairs.md.
    const qa = readFileSync(join(docs, t, 'qa-pairs.md'), 'utf8');
    const known = new Map((index._embedded.questions ?? []).map((q) => [q.hash, q.question]));
    for (const h of d.items.flatMap((i) => i.prompt_hashes ?? [])) expect(qa).toContain(known.get(h));
  });

  it('needs children first, then lists them; the root is titled after the docs folder', async () => {
    const early = await run([join(docs, 'libraries'), '--root', docs]);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain(`${join(docs, TOPICS[1]!, 'index.json')}: missing; build the child's index first`);
    expect(existsSync(join(docs, 'libraries/index.json'))).toBe(false);

    expect((await run([...TOPICS.map((t) => join(docs, t)), '--root', docs])).code).toBe(0);
    expect((await run([join(docs, 'libraries'), join(docs, 'deployment'), '--root', docs])).code).toBe(0);
    expect((await run([docs, '--root', docs, '--json'])).code).toBe(0);
    const top = read('.');
    expect(top).toMatchObject({ id: '', kind: 'section', title: 'docs' });
    expect(top._links.parent).toBeUndefined();
    expect(top._embedded.topics.map((c) => [c.id, c.kind, c._links.self.href])).toEqual([
      ['deployment', 'section', '/deployment/index.json'],
      ['libraries', 'section', '/libraries/index.json'],
    ]);
    const libraries = read('libraries');
    expect(libraries._embedded.topics.map((c) => [c.id, c.title])).toEqual([
      [TOPICS[1], read(TOPICS[1]!).title],
      [TOPICS[0], read(TOPICS[0]!).title],
    ]);
  });

  it('builds the folders of one call children first, in whatever order they are given (issue 15 probe: parents first failed them, "build the child\'s index first")', async () => {
    // The reference: every index.json as the test above built them, children first by hand.
    const folders = ['.', 'libraries', 'deployment', ...TOPICS];
    const want = new Map(folders.map((f) => [f, readFileSync(join(docs, f, 'index.json'), 'utf8')]));
    const copy = mkdtempSync(join(tmpdir(), 'chunkyard-index-order-'));
    try {
      await fc.assert(
        fc.asyncProperty(fc.shuffledSubarray(folders, { minLength: folders.length }), async (order) => {
          const tree = join(copy, 'docs');
          rmSync(tree, { recursive: true, force: true });
          cpSync(docs, tree, { recursive: true });
          for (const f of folders) rmSync(join(tree, f, 'index.json'));
          const r = await run([...order.map((f) => join(tree, f)), '--root', tree]);
          expect(r.stderr).toBe('');
          expect(r.code).toBe(0);
          for (const f of folders) expect(readFileSync(join(tree, f, 'index.json'), 'utf8')).toBe(want.get(f));
        }),
        { numRuns: 8 },
      );
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("a child's index.json that is a folder or a FIFO fails the section with what to do, not a link's advice (issue 15 probe)", async () => {
    const copy = mkdtempSync(join(tmpdir(), 'chunkyard-index-child-'));
    try {
      const tree = join(copy, 'docs');
      cpSync(docs, tree, { recursive: true });
      const section = join(tree, 'libraries');
      expect((await run([...TOPICS.map((t) => join(tree, t)), section, '--root', tree])).code).toBe(0);
      const before = readFileSync(join(section, 'index.json'), 'utf8');
      const child = join(tree, TOPICS[1]!, 'index.json');
      for (const make of [() => mkdirSync(child), () => execFileSync('mkfifo', [child])]) {
        rmSync(child, { recursive: true, force: true });
        make();
        const kind = lstatSync(child).isDirectory() ? 'a directory' : 'a FIFO (named pipe)';
        const r = await run([section, '--root', tree]);
        expect(r.code).toBe(1);
        // It said "…: a directory, not a regular file; point it at a regular file", as for a symlink.
        expect(r.stderr).toBe(`index-tool: ${child}: ${kind}, not a regular file; remove or rename it, then build the child's index first (nx run-many -t index builds children before parents)\n`);
        expect(readFileSync(join(section, 'index.json'), 'utf8')).toBe(before);
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('writes what the retrieval client reads: every index validates and every chunk is reached', async () => {
    const client = new DocsClient(openSource(docs));
    const topics = await walkTopics(client.source);
    expect(topics.map((t) => t.id).sort()).toEqual([...TOPICS].sort());
    for (const topic of topics) {
      const manifest = JSON.parse(readFileSync(join(docs, topic.id, '_chunks/golden-reference.json'), 'utf8')) as { chunks: { originalText: string }[] };
      for (let i = 0; i < manifest.chunks.length; i++) expect(await client.chunkText(topic, 'golden-reference', i)).toBe(manifest.chunks[i]!.originalText);
      // Each item carries its chunk file's hash (issue 15), which chunkText checked above.
      for (const item of topic.index._embedded.chunks['golden-reference']!.items) {
        expect(item.sha256).toBe(createHash('sha256').update(readFileSync(join(docs, topic.id, item.href))).digest('hex'));
      }
    }
  });

  it('--llms-txt writes llms.txt from the built indexes: every topic linked to its markdown, with its first sentence', async () => {
    const r = await run([docs, '--root', docs, '--llms-txt', '--llms-title', 'Sample .NET docs']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const text = readFileSync(join(docs, 'llms.txt'), 'utf8');
    const lines = text.split('\n');
    expect(lines[0]).toBe('# Sample .NET docs');
    expect(lines[2]).toMatch(/^> 3 topics, each linked to its markdown source/);
    expect(lines.filter((l) => l.startsWith('## '))).toEqual(['## deployment', '## libraries']);
    const links = lines.filter((l) => l.startsWith('- ['));
    expect(links).toHaveLength(TOPICS.length);
    for (const t of TOPICS) {
      const index = read(t);
      // The description is in the topic's index.json, taken from its first chunk.
      expect(index.description!.length).toBeGreaterThan(20);
      expect(links).toContain(`- [${index.title}](${t}/golden-reference.md): ${index.description}`);
      expect(existsSync(join(docs, t, 'golden-reference.md'))).toBe(true);
    }
  });

  it('a blank --llms-title or --llms-summary is refused, exit 2, llms.txt left as it was (issue 15 probe: "# " with no title)', async () => {
    expect((await run([docs, '--root', docs, '--llms-txt'])).code).toBe(0);
    const before = readFileSync(join(docs, 'llms.txt'), 'utf8');
    for (const [opt, value] of [['--llms-title', '   '], ['--llms-summary', '\t\n'], ['--llms-title', '\u001b\u0007']] as const) {
      const r = await run([docs, '--root', docs, '--llms-txt', opt, value]);
      expect(r, `${opt} ${JSON.stringify(value)}`).toEqual({ code: 2, stdout: '', stderr: `index-tool: ${opt}: blank; give some text, or leave ${opt} out\nRun index-tool --help for usage.\n` });
    }
    expect(readFileSync(join(docs, 'llms.txt'), 'utf8')).toBe(before);
  });

  it('--llms-full also writes llms-full.txt: every topic, every chunk verbatim, in stripe reading order', async () => {
    expect((await run([docs, '--root', docs, '--llms-full'])).code).toBe(2);
    // --llms-title and --llms-summary without --llms-txt were ignored while index.json was written.
    for (const [opt, what] of [['--llms-title', 'title'], ['--llms-summary', 'summary']] as const) {
      const r = await run([docs, '--root', docs, opt, 'X']);
      expect(r, opt).toMatchObject({ code: 2, stdout: '', stderr: `index-tool: ${opt} goes with --llms-txt (it is llms.txt's ${what})\nRun index-tool --help for usage.\n` });
    }
    const r = await run([docs, '--root', docs, '--llms-txt', '--llms-full', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ llmsFullTxt: expect.stringMatching(/llms-full\.txt$/), topics: TOPICS.length });
    const full = readFileSync(join(docs, 'llms-full.txt'), 'utf8');
    expect(full.split('\n').filter((l) => l.startsWith('Source: '))).toEqual([...TOPICS].sort().map((t) => `Source: ${t}/golden-reference.md`));
    for (const t of TOPICS) {
      const doc = read(t)._embedded.chunks!['golden-reference']!;
      const section = full.slice(full.indexOf(`Source: ${t}/`));
      // Each chunk's file appears whole, and the stripe's first pick comes before its second.
      const positions = [0, ...doc.stripe_order].map((i) => section.indexOf(readFileSync(join(docs, t, `_chunks/golden-reference-${i}.md`), 'utf8').trimEnd()));
      expect(positions.every((p) => p >= 0)).toBe(true);
      expect(positions[1]!).toBeGreaterThan(positions[0]!);
      expect(positions[2]!).toBeGreaterThan(positions[1]!);
    }
  });

  it('--llms-full: llms.txt and llms-full.txt land together or not at all (issue 15 probe)', async () => {
    // A folder where llms-full.txt goes: llms.txt was replaced, then the second write failed.
    expect((await run([docs, '--root', docs, '--llms-txt'])).code).toBe(0);
    const before = readFileSync(join(docs, 'llms.txt'), 'utf8');
    rmSync(join(docs, 'llms-full.txt'), { force: true });
    mkdirSync(join(docs, 'llms-full.txt'));
    try {
      const r = await run([docs, '--root', docs, '--llms-txt', '--llms-full', '--llms-title', 'Another title']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${join(docs, 'llms-full.txt')}: is a folder where a file is expected (EISDIR); remove or rename that folder`);
      expect(readFileSync(join(docs, 'llms.txt'), 'utf8')).toBe(before);
      expect(readdirSync(docs).filter((n) => n.includes('.tmp-'))).toEqual([]);
    } finally {
      rmSync(join(docs, 'llms-full.txt'), { recursive: true });
    }
    expect((await run([docs, '--root', docs, '--llms-txt', '--llms-full', '--llms-title', 'Another title'])).code).toBe(0);
    expect(readFileSync(join(docs, 'llms.txt'), 'utf8')).toMatch(/^# Another title\n/);
  });

  it('--llms-txt takes the root only, and names a missing index.json', async () => {
    expect((await run([join(docs, 'libraries'), '--root', docs, '--llms-txt'])).code).toBe(2);
    const bare = mkdtempSync(join(tmpdir(), 'chunkyard-llms-'));
    mkdirSync(join(bare, 't'));
    writeFileSync(join(bare, 't/golden-reference.md'), '# T\n');
    const r = await run([bare, '--root', bare, '--llms-txt']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(bare, 'index.json')}: missing; build the indexes first`);
    rmSync(bare, { recursive: true, force: true });
  });

  it('--llms-txt names a malformed index.json and what is wrong, and reads nothing outside the root (issue 15 probe)', async () => {
    // null, [] or an index without _embedded was a TypeError with a stack trace; a child id or a
    // chunk href with .. was read from outside the docs root.
    const bare = mkdtempSync(join(tmpdir(), 'chunkyard-llms-'));
    const self = { self: { href: '/index.json' } };
    const topic = (items: unknown) => ({ id: 't', kind: 'topic', title: 'T', _links: self, _embedded: { topics: [], chunks: { d: { source: 'd.md', count: 1, stripe_order: [0], items } } } });
    mkdirSync(join(bare, 't'));
    for (const [root, child, problem] of [
      ['null', null, 'not an index.json object'],
      ['[]', null, 'not an index.json object'],
      [JSON.stringify({ id: '', kind: 'section', title: 'x', _links: self }), null, '"_embedded.topics" is not a list'],
      [JSON.stringify({ id: '', kind: 'section', title: 'x', _links: self, _embedded: { topics: 'x' } }), null, '"_embedded.topics" is not a list'],
      [JSON.stringify({ id: '', kind: 'section', title: 'x', _links: self, _embedded: { topics: [{ id: '../../etc' }] } }), null, '_embedded.topics[0].id is not a folder path below the docs root'],
      [JSON.stringify({ id: '', kind: 'section', title: 7, _links: self, _embedded: { topics: [] } }), null, '"title" is not a string'],
      [JSON.stringify({ id: '', kind: 'section', title: 'x', _links: self, _embedded: { topics: [{ id: 't' }] } }), topic([{ index: 0, href: '../../../etc/passwd' }]), '_embedded.chunks.d.items[0] is not { index, href } with href below the topic'],
      // Else read as a chunk file rewritten since the build, which it is not.
      [JSON.stringify({ id: '', kind: 'section', title: 'x', _links: self, _embedded: { topics: [{ id: 't' }] } }), topic([{ index: 0, href: 'd-0.md', sha256: 'AB'.repeat(32) }]), '_embedded.chunks.d.items[0].sha256 is not 64 lowercase hex digits'],
    ] as const) {
      writeFileSync(join(bare, 'index.json'), root);
      if (child) writeFileSync(join(bare, 't/index.json'), JSON.stringify(child));
      const r = await run([bare, '--root', bare, '--llms-txt', '--llms-full']);
      const file = join(bare, child ? 't/index.json' : 'index.json');
      expect(r, root).toEqual({ code: 1, stdout: '', stderr: `index-tool: ${file}: ${problem}; rebuild it with index-tool\n` });
    }
    expect(existsSync(join(bare, 'llms.txt'))).toBe(false);
    rmSync(bare, { recursive: true, force: true });
  });

  it('--llms-full names a topic index.json whose chunk count is not its number of items (issue 15 probe: 1e308 was a RangeError stack trace)', async () => {
    // The reading order walks 0..count: a hand-edited count of 1e308 or 2^60 filled a Set until
    // V8 gave up ("Set maximum size exceeded", a stack trace), a count of 1e9 spun for minutes,
    // and a count below the items left chunks out of llms-full.txt without a word.
    const bare = mkdtempSync(join(tmpdir(), 'chunkyard-llms-'));
    const self = { self: { href: '/index.json' } };
    mkdirSync(join(bare, 't/_chunks'), { recursive: true });
    writeFileSync(join(bare, 't/_chunks/d-0.md'), '# T\n\nOne.\n');
    writeFileSync(join(bare, 't/_chunks/d-1.md'), '# T\n\nTwo.\n');
    writeFileSync(join(bare, 'index.json'), JSON.stringify({ id: '', kind: 'section', title: 'x', _links: self, _embedded: { topics: [{ id: 't' }] } }));
    const items = [{ index: 0, href: '_chunks/d-0.md' }, { index: 1, href: '_chunks/d-1.md' }];
    const topic = (count: unknown) => ({ id: 't', kind: 'topic', title: 'T', _links: self, _embedded: { topics: [], chunks: { d: { source: 'd.md', count, stripe_order: [0, 1], items } } } });
    for (const count of [1e308, 2 ** 60, 1e9, 1, -1, 3]) {
      writeFileSync(join(bare, 't/index.json'), JSON.stringify(topic(count)));
      const started = Date.now();
      const r = await run([bare, '--root', bare, '--llms-txt', '--llms-full']);
      expect(Date.now() - started, String(count)).toBeLessThan(5000);
      expect(r, String(count)).toEqual({ code: 1, stdout: '', stderr: `index-tool: ${join(bare, 't/index.json')}: _embedded.chunks.d.count is ${count}, not its number of items (2); rebuild it with index-tool\n` });
    }
    expect(existsSync(join(bare, 'llms-full.txt'))).toBe(false);
    writeFileSync(join(bare, 't/index.json'), JSON.stringify(topic(2)));
    expect((await run([bare, '--root', bare, '--llms-txt', '--llms-full'])).code).toBe(0);
    expect(readFileSync(join(bare, 'llms-full.txt'), 'utf8')).toMatch(/One\.[\s\S]*Two\./);
    rmSync(bare, { recursive: true, force: true });
  });

  it('an index.json that is a link to a secret is named as not JSON without quoting it (issue 15: JSON.parse quoted the file)', async () => {
    // A child's index.json and the root's (for --llms-txt) are read through whatever link the
    // docs tree holds; JSON.parse's message printed the file's first characters into CI logs.
    const bare = mkdtempSync(join(tmpdir(), 'chunkyard-json-secret-'));
    const secret = join(bare, 'outside/npmrc');
    mkdirSync(join(bare, 'outside'));
    writeFileSync(secret, 'password=hunter2-secret\n');
    mkdirSync(join(bare, 'docs/section/t'), { recursive: true });
    writeFileSync(join(bare, 'docs/section/t/golden-reference.md'), '# T\n');
    symlinkSync(secret, join(bare, 'docs/section/t/index.json'));
    const child = await run([join(bare, 'docs/section'), '--root', join(bare, 'docs')]);
    const file = join(bare, 'docs/section/t/index.json');
    expect(child).toEqual({ code: 1, stdout: '', stderr: `index-tool: ${file}: not valid JSON (unexpected character at line 1, column 1); rebuild it with index-tool\n` });
    symlinkSync(secret, join(bare, 'docs/index.json'));
    const llms = await run([join(bare, 'docs'), '--root', join(bare, 'docs'), '--llms-txt']);
    expect(llms).toEqual({ code: 1, stdout: '', stderr: `index-tool: ${join(bare, 'docs/index.json')}: not valid JSON (unexpected character at line 1, column 1); rebuild it with index-tool\n` });
    expect(readFileSync(secret, 'utf8')).toBe('password=hunter2-secret\n');
    rmSync(bare, { recursive: true, force: true });
  });

  it('keeps the previous index.json when topic-spec.md is broken, naming the file', async () => {
    const t = TOPICS[2]!;
    expect((await run([join(docs, t), '--root', docs])).code).toBe(0);
    const before = readFileSync(join(docs, t, 'index.json'), 'utf8');
    const specFile = join(docs, t, 'topic-spec.md');
    const good = readFileSync(specFile, 'utf8');
    writeFileSync(specFile, good.replace(/similarity_conceptual: [0-9.]+/, 'similarity_conceptual: high'));
    const r = await run([join(docs, t), '--root', docs]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${specFile}: front matter: chunks[0].similarity_conceptual: expected a number`);
    expect(readFileSync(join(docs, t, 'index.json'), 'utf8')).toBe(before);
    rmSync(specFile);
    expect((await run([join(docs, t), '--root', docs])).stderr).toContain('topic-spec.md: missing; run topic-spec on the topic first');
    writeFileSync(specFile, good);
  });

  it('refuses a topic-spec.md whose prompt hashes are of another SimHash version, keeping the previous index.json', async () => {
    const t = TOPICS[2]!;
    expect((await run([join(docs, t), '--root', docs])).code).toBe(0);
    const before = readFileSync(join(docs, t, 'index.json'), 'utf8');
    const specFile = join(docs, t, 'topic-spec.md');
    const good = readFileSync(specFile, 'utf8');
    expect(good).toContain(`simhash: ${SIMHASH_VERSION}`);
    writeFileSync(specFile, good.replace(`simhash: ${SIMHASH_VERSION}`, 'simhash: simhash64-lexical-v0'));
    const r = await run([join(docs, t), '--root', docs]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`index-tool: ${specFile}: its prompt hashes are simhash64-lexical-v0, but queries are hashed with ${SIMHASH_VERSION}; run topic-spec on the topic again (nx run <topic>:spec)\n`);
    expect(readFileSync(join(docs, t, 'index.json'), 'utf8')).toBe(before);
    writeFileSync(specFile, good);
    expect((await run([join(docs, t), '--root', docs])).code).toBe(0);
  });

  it('refuses the filesystem root as the docs root, and writes nothing (review leftover c)', async () => {
    // It was accepted: topic "tmp/…/docs/deployment/native-aot", its links under "/tmp/…", which
    // no server of the docs answers; `--root / /` would walk the whole disk for topics.
    const topic = join(docs, 'deployment/native-aot');
    await run([topic, '--root', docs]);
    const before = readFileSync(join(topic, 'index.json'), 'utf8');
    for (const args of [[topic, '--root', '/'], ['/', '--root', '/'], ['/', '--root', '/', '--llms-txt']]) {
      const r = await run(args);
      expect(r, args.join(' ')).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toContain('index-tool: --root /: the filesystem root cannot be the docs root (ids and links would carry the absolute path of every topic); give the folder the docs are served from, e.g. --root docs\n');
    }
    expect(readFileSync(join(topic, 'index.json'), 'utf8')).toBe(before);
    expect(existsSync('/index.json')).toBe(false);
    // Without --root, a missing default root says it was the default.
    const cwd = process.cwd();
    mkdirSync(join(root, 'elsewhere'), { recursive: true });
    process.chdir(join(root, 'elsewhere'));
    try {
      const r = await run([topic]);
      expect(r).toMatchObject({ code: 2, stderr: expect.stringContaining('--root docs: no such folder (the default root; give --root DOCS_DIR)') });
    } finally {
      process.chdir(cwd);
    }
  });

  it('refuses folders outside the root or without topics, and unknown options, with exit 2', async () => {
    const empty = join(docs, 'empty');
    mkdirSync(empty, { recursive: true });
    for (const [args, msg] of [
      [[empty, '--root', docs], 'neither a topic'],
      [[REPO, '--root', docs], 'outside the docs root'],
      [[docs, '--root', join(root, 'nope')], `--root ${join(root, 'nope')}: no such folder\n`],
      [[docs, '--root', join(docs, 'index.json')], 'not a folder (a regular file)'],
      // s37 probe: a folder argument that does not exist, or is a FIFO, was "not a folder", where --root says what it is.
      [[join(docs, 'nope'), '--root', docs], `index-tool: ${join(docs, 'nope')}: no such folder\n`],
      [[join(docs, 'index.json'), '--root', docs], `index-tool: ${join(docs, 'index.json')}: not a folder (a regular file); give a topic or section folder\n`],
      // Issue 15 probe: --root '' took the current folder as the docs root.
      [[docs, '--root', ''], '--root: empty; give a value, or leave --root out'],
      [[docs, '--bogus'], "Unknown option '--bogus'"],
      [[], 'no topic or section folder given'],
    ] as const) {
      const r = await run([...args]);
      expect(r.code, msg).toBe(2);
      expect(r.stderr, msg).toContain(msg);
    }
    expect((await run(['--help'])).stdout).toBe(HELP);
  });

  // s39 probe: a topic folder that is a symlink was indexed (its index.json written through the
  // link, outside the docs tree), but the section walk never follows a link, so no section
  // listed it: a topic built and reached by nothing. The Nx plugin refuses such a folder too.
  it('refuses a topic reached through a symlink, inside or outside the root, writing nothing there', async () => {
    const outside = join(root, 'outside-topic');
    cpSync(join(docs, TOPICS[2]!), outside, { recursive: true });
    rmSync(join(outside, 'index.json'), { force: true });
    const linked = join(docs, 'libraries', 'linked');
    const alias = join(docs, 'alias');
    symlinkSync(outside, linked);
    symlinkSync(join(docs, TOPICS[2]!), alias);
    try {
      for (const [dir, real] of [[linked, outside], [alias, join(docs, TOPICS[2]!)]] as const) {
        const r = await run([dir, '--root', docs]);
        expect(r, dir).toEqual({
          code: 2,
          stdout: '',
          stderr: `index-tool: ${dir}: a symlinked folder (it leads to ${real}); sections list only the folders inside the docs root, so its index would be linked from nowhere: move the folder there instead of linking it\nRun index-tool --help for usage.\n`,
        });
      }
      expect(existsSync(join(outside, 'index.json'))).toBe(false);
    } finally {
      rmSync(linked);
      rmSync(alias);
    }
  });
});

describe('symlinked folders in a section walk', () => {
  // s40 probe: a symlinked topic below a section was left out of its index without a word
  // (the walk does not follow links), so the topic looked built and was reachable from nothing.
  it('says once, on stderr, which linked folder holding topics it skipped and why; other links stay quiet', async () => {
    expect((await run([...TOPICS.map((t) => join(docs, t)), '--root', docs])).code).toBe(0);
    const outside = join(root, 'outside-topic-walk');
    cpSync(join(docs, TOPICS[2]!), outside, { recursive: true });
    const plain = mkdtempSync(join(root, 'no-topics-'));
    const linked = join(docs, 'libraries', 'linked');
    const links = [linked, join(docs, 'libraries', 'images'), join(docs, 'libraries', '_hidden-by-name'), join(docs, 'libraries', 'dangling')];
    symlinkSync(outside, linked);
    symlinkSync(plain, links[1]!);
    symlinkSync(outside, links[2]!);
    symlinkSync(join(root, 'nowhere'), links[3]!);
    try {
      const r = await run([join(docs, 'libraries'), '--root', docs]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(`index-tool: ${linked}: a symlinked folder (it leads to ${outside}), skipped: sections list only the folders inside the docs root; move the folder there instead of linking it\n`);
      expect(read('libraries')._embedded.topics.map((c) => c.id)).toEqual(TOPICS.filter((t) => t.startsWith('libraries/')).sort());
    } finally {
      for (const l of links) rmSync(l);
    }
  });
});

describe('names holding line breaks', () => {
  it('a topic folder whose name holds a newline is named on one line, escaped (it printed as two lines)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunkyard-index-nl-'));
    try {
      const topic = join(dir, 'docs', 'a\nb');
      mkdirSync(topic, { recursive: true });
      writeFileSync(join(topic, 'golden-reference.md'), '# A\n\nBody.\n');
      const r = await run(['--root', join(dir, 'docs'), topic]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`index-tool: ${join(dir, 'docs')}/a\\u000ab/topic-spec.md: missing; run topic-spec on the topic first (nx run <topic>:spec)\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a symlink where index.json, llms.txt or llms-full.txt goes (probe: written through to the file it pointed to)', () => {
  const BIN = join(fileURLToPath(new URL('.', import.meta.url)), '../bin/index-tool.js');
  const refused = (link: string, to: string) =>
    `index-tool: ${link}: is a symlink (it points to ${to}); a generated output is never written through a link, so nothing was written; remove the link and run again\n`;

  it('refused by the built bin: exit 1, one line per link naming it and where it points, no stack trace; the decoys outside untouched, the other folders still written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunkyard-index-link-'));
    try {
      const mine = join(dir, 'docs');
      cpSync(docs, mine, { recursive: true });
      const [topic, section] = [join(mine, TOPICS[0]!), join(mine, 'libraries')];
      expect((await run([...TOPICS.map((t) => join(mine, t)), section, join(mine, 'deployment'), mine, '--root', mine])).code).toBe(0);
      // Files outside the docs standing for any file the user can write (~/.npmrc, a git hook).
      mkdirSync(join(dir, 'outside'));
      const decoy = (name: string) => {
        const file = join(dir, 'outside', name);
        writeFileSync(file, `decoy ${name}\n`);
        return file;
      };
      const [topicDecoy, sectionDecoy, llmsDecoy, fullDecoy] = ['topic', 'section', 'llms', 'full'].map(decoy) as [string, string, string, string];
      // One run each: a section reads its children's index.json, so a link at the topic's would fail the section's too.
      const rootIndex = readFileSync(join(mine, 'index.json'), 'utf8');
      for (const [folder, file, target] of [
        [topic, topicDecoy, topicDecoy],
        [section, sectionDecoy, relative(section, sectionDecoy)],
      ] as const) {
        const before = readFileSync(join(folder, 'index.json'), 'utf8');
        rmSync(join(folder, 'index.json'));
        symlinkSync(target, join(folder, 'index.json'));
        const r = spawnSync(process.execPath, [BIN, folder, join(mine, 'deployment'), '--root', mine], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
        expect(r.stderr).toBe(refused(join(folder, 'index.json'), target));
        expect(r.status).toBe(1);
        // The other folder is still written.
        expect(r.stdout).toBe(`${join(mine, 'deployment')}: section "deployment", 1 child -> ${relative(dir, join(mine, 'deployment/index.json'))}\n`);
        // Before: exit 0, and the decoy held the folder's index.json.
        expect(readFileSync(file, 'utf8')).toBe(`decoy ${file === topicDecoy ? 'topic' : 'section'}\n`);
        expect(lstatSync(join(folder, 'index.json')).isSymbolicLink()).toBe(true);
        expect(readdirSync(folder).filter((n) => n.includes('.tmp-'))).toEqual([]);
        rmSync(join(folder, 'index.json'));
        writeFileSync(join(folder, 'index.json'), before);
      }
      expect(readFileSync(join(mine, 'index.json'), 'utf8')).toBe(rootIndex);
      let r: ReturnType<typeof spawnSync>;

      // llms.txt, and llms-full.txt with it: one link leaves both files as they were.
      // (The tests above may have written both into the docs copied here.)
      writeFileSync(join(mine, 'llms.txt'), 'old llms\n');
      rmSync(join(mine, 'llms-full.txt'), { force: true });
      symlinkSync(fullDecoy, join(mine, 'llms-full.txt'));
      r = spawnSync(process.execPath, [BIN, mine, '--root', mine, '--llms-txt', '--llms-full'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      expect(r.stderr).toBe(refused(join(mine, 'llms-full.txt'), fullDecoy));
      expect(r.status).toBe(1);
      expect(readFileSync(fullDecoy, 'utf8')).toBe('decoy full\n');
      expect(readFileSync(join(mine, 'llms.txt'), 'utf8')).toBe('old llms\n');
      rmSync(join(mine, 'llms.txt'));
      symlinkSync(llmsDecoy, join(mine, 'llms.txt'));
      r = spawnSync(process.execPath, [BIN, mine, '--root', mine, '--llms-txt'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      expect(r.stderr).toBe(refused(join(mine, 'llms.txt'), llmsDecoy));
      expect(r.status).toBe(1);
      expect(readFileSync(llmsDecoy, 'utf8')).toBe('decoy llms\n');
      expect(readdirSync(join(dir, 'outside')).sort()).toEqual(['full', 'llms', 'section', 'topic']);
      expect(readdirSync(mine).filter((n) => n.includes('.tmp-'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a folder whose name is not valid UTF-8 (probe: "no such file or folder (ENOENT); check the path")', () => {
  const BIN = join(fileURLToPath(new URL('.', import.meta.url)), '../bin/index-tool.js');

  it('fails the sections above it by the built bin, naming it with its bad byte: exit 1, their previous index.json kept', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunkyard-index-latin1-'));
    try {
      const mine = join(dir, 'docs');
      // docs/sec holds a built topic and a Latin-1 "café"; docs/only holds nothing but such a folder.
      mkdirSync(join(mine, 'sec', 'ok'), { recursive: true });
      writeFileSync(join(mine, 'sec', 'ok', 'golden-reference.md'), '# OK\n\nBody.\n');
      writeFileSync(join(mine, 'sec', 'ok', 'index.json'), '{"title":"OK"}\n');
      const bad = Buffer.concat([Buffer.from(join(mine, 'sec', 'caf')), Buffer.from([0xe9])]);
      const badOnly = Buffer.concat([Buffer.from(join(mine, 'only', 'x')), Buffer.from([0xff])]);
      for (const folder of [bad, badOnly]) {
        mkdirSync(folder, { recursive: true });
        writeFileSync(Buffer.concat([folder, Buffer.from('/golden-reference.md')]), '# Café\n\nBody.\n');
      }
      for (const section of ['sec', 'only', '.']) writeFileSync(join(mine, section, 'index.json'), 'previous\n');
      const message = (shown: string) => `index-tool: ${shown}: a folder whose name is not valid UTF-8; ids and links of index.json are UTF-8 text, so it cannot be listed: rename it\n`;
      for (const [args, shown] of [
        [['docs/sec'], 'docs/sec/caf\\xe9'],
        [['docs/only'], 'docs/only/x\\xff'],
        [['docs'], 'docs/only/x\\xff'],
      ] as const) {
        const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
        // Before: "index-tool: …/docs/sec/caf\ufffd: no such file or folder (ENOENT); check the path".
        expect(r.stderr).toBe(message(shown));
        expect(r.status).toBe(1);
      }
      for (const section of ['sec', 'only', '.']) expect(readFileSync(join(mine, section, 'index.json'), 'utf8')).toBe('previous\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('many links to one folder outside the tree (probe: each link walked it again)', () => {
  const BIN = join(fileURLToPath(new URL('.', import.meta.url)), '../bin/index-tool.js');

  it('the built bin looks through the folder once: 500 links to a folder of 4,000 subfolders are a quick run, the section written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunkyard-index-links-'));
    try {
      const mine = join(dir, 'docs');
      mkdirSync(join(mine, 'sec', 't'), { recursive: true });
      writeFileSync(join(mine, 'sec', 't', 'golden-reference.md'), '# T\n\nBody.\n');
      writeFileSync(join(mine, 'sec', 't', 'index.json'), '{"title":"T"}\n');
      // A shared folder outside the docs (assets, a build cache) with no topics in it.
      const shared = join(dir, 'shared');
      for (let i = 0; i < 4000; i++) mkdirSync(join(shared, `d${i}`), { recursive: true });
      for (let i = 0; i < 500; i++) symlinkSync(shared, join(mine, 'sec', `link${i}`));
      // Before: 2,000,000 folder reads, past the 60 s test limit (50 links to 2,000 folders took 11 s).
      const r = spawnSync(process.execPath, [BIN, '--root', mine, join(mine, 'sec')], { cwd: dir, encoding: 'utf8', timeout: 90_000 });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect((JSON.parse(readFileSync(join(mine, 'sec', 'index.json'), 'utf8')) as IndexJson)._embedded.topics.map((c) => c.id)).toEqual(['sec/t']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the summary counts in the singular where it is one (probe: "1 topics", "1 chunks", "1 children")', () => {
  it('a one-chunk topic, a section of one child and a root of one topic; and the plural for more', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunkyard-index-counts-'));
    try {
      const docsRoot = join(dir, 'docs');
      const topic = join(docsRoot, 'guide', 'one');
      mkdirSync(topic, { recursive: true });
      writeFileSync(join(topic, 'golden-reference.md'), '# One\n\nA topic short enough to be one chunk.\n');
      const config = join(dir, 'chunkyard.config.yaml');
      writeFileSync(config, 'chunking:\n  maxTokens: 512\n');
      expect(await chunk([topic, '--config', config], quiet)).toBe(0);
      expect(await keywords([topic], quiet)).toBe(0);
      expect(await spec([topic, '--config', config], quiet)).toBe(0);
      const r = await run([topic, join(docsRoot, 'guide'), docsRoot, '--root', docsRoot]);
      expect(r.stderr).toBe('');
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/: topic "guide\/one", 1 chunk -> /);
      expect(lines[1]).toMatch(/: section "guide", 1 child -> /);
      expect(lines[2]).toMatch(/: section "", 1 child -> /);
      const llms = await run([docsRoot, '--root', docsRoot, '--llms-txt']);
      expect(llms.stdout).toBe(`${docsRoot}: 1 topic -> ${relative(process.cwd(), join(docsRoot, 'llms.txt'))}\n`);
      // The plural: a second, longer topic in the same section.
      const two = join(docsRoot, 'guide', 'two');
      mkdirSync(two);
      cpSync(join(REPO, 'docs', 'deployment/native-aot', 'golden-reference.md'), join(two, 'golden-reference.md'));
      expect(await chunk([two, '--config', config], quiet)).toBe(0);
      expect(await keywords([two], quiet)).toBe(0);
      expect(await spec([two, '--config', config], quiet)).toBe(0);
      const more = await run([two, join(docsRoot, 'guide'), '--root', docsRoot]);
      expect(more.stdout).toMatch(/: topic "guide\/two", ([2-9]|\d\d+) chunks -> .*\n.*: section "guide", 2 children -> /);
      const many = await run([docsRoot, '--root', docsRoot, '--llms-txt']);
      expect(many.stdout).toMatch(/: 2 topics -> /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a document whose chunk hrefs are percent-encoded ("my guide #1 café%20.md")', () => {
  it('gives the topic its description, and --llms-full reads its chunks; an href that decodes to ".." is refused (issue 15 probe)', async () => {
    // hrefs are URLs (_chunks/my%20guide%20%231%20caf%C3%A9%2520-0.md); joined as paths they
    // named no file: the description was left out and --llms-full failed, "…: missing".
    const dir = mkdtempSync(join(tmpdir(), 'chunkyard-index-encoded-'));
    try {
      const docsRoot = join(dir, 'docs');
      const topic = join(docsRoot, 'guide', 'one');
      mkdirSync(topic, { recursive: true });
      const name = 'my guide #1 café%20.md';
      writeFileSync(join(topic, name), '# Spaced guide\n\nThe first sentence of the spaced guide. More words follow.\n');
      writeFileSync(join(topic, 'golden-reference.md'), '# One\n\nA topic short enough to be one chunk.\n');
      writeFileSync(join(topic, 'topic.yaml'), `sources:\n  - "${name}"\n  - golden-reference.md\n`);
      const config = join(dir, 'chunkyard.config.yaml');
      writeFileSync(config, 'chunking:\n  maxTokens: 512\n');
      expect(await chunk([topic, '--config', config], quiet)).toBe(0);
      expect(await keywords([topic], quiet)).toBe(0);
      expect(await spec([topic, '--config', config], quiet)).toBe(0);
      const r = await run([topic, join(docsRoot, 'guide'), docsRoot, '--root', docsRoot]);
      expect(r.stderr).toBe('');
      const index = JSON.parse(readFileSync(join(topic, 'index.json'), 'utf8')) as IndexJson;
      expect(index._embedded.chunks!['my guide #1 café%20']!.items[0]!.href).toBe('_chunks/my%20guide%20%231%20caf%C3%A9%2520-0.md');
      expect(index.description).toBe('The first sentence of the spaced guide.');
      const llms = await run([docsRoot, '--root', docsRoot, '--llms-txt', '--llms-full']);
      expect(llms.stderr).toBe('');
      expect(llms.code).toBe(0);
      const full = readFileSync(join(docsRoot, 'llms-full.txt'), 'utf8');
      expect(full).toContain('The first sentence of the spaced guide. More words follow.');
      expect(full).toContain('A topic short enough to be one chunk.');
      // Decoded, an href must still name a file below the topic.
      writeFileSync(join(dir, 'secret'), 'not for llms-full');
      for (const bad of ['_chunks/%2E%2E/%2E%2E/%2E%2E/%2E%2E/secret', '_chunks%2F..%2F..%2F..%2F..%2Fsecret', '_chunks/%E0%A4%A.md']) {
        const edited = structuredClone(index);
        edited._embedded.chunks!['my guide #1 café%20']!.items[0]!.href = bad;
        writeFileSync(join(topic, 'index.json'), JSON.stringify(edited));
        const refused = await run([docsRoot, '--root', docsRoot, '--llms-txt', '--llms-full']);
        expect(refused.code, bad).toBe(1);
        expect(refused.stderr, bad).toContain('.items[0] is not { index, href } with href below the topic; rebuild it with index-tool');
        expect(readFileSync(join(docsRoot, 'llms-full.txt'), 'utf8')).toBe(full);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a topic whose golden-reference.md is past PATH_MAX (4,096 bytes) as an absolute path', () => {
  const BIN = join(fileURLToPath(new URL('.', import.meta.url)), '../bin/index-tool.js');

  it('is named by the built bin as a path too long, not as "neither a topic (no golden-reference.md)" (issue 15 probe)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunkyard-index-long-'));
    try {
      // The folder's absolute path fits (4,085 bytes); with /golden-reference.md it does not.
      // Given relative to the cwd, the file itself is reachable (its path is 4,070 bytes or so).
      const absolute = (rel: string) => dir.length + 1 + rel.length;
      let rel = 'docs';
      while (absolute(rel) < 3880) rel = `${rel}/${'p'.repeat(200)}`;
      rel = `${rel}/${'t'.repeat(4085 - absolute(rel) - 1)}`;
      mkdirSync(join(dir, rel), { recursive: true });
      execFileSync('sh', ['-c', 'printf "# T\\n\\nText.\\n" > "$1"', 'sh', `${rel}/golden-reference.md`], { cwd: dir });
      const r = spawnSync(process.execPath, [BIN, rel, '--root', 'docs'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      expect(r.stderr).not.toContain('neither a topic');
      expect(r.stderr).toMatch(/^index-tool: \/.*\/golden-reference\.md: name too long \(ENAMETOOLONG\); use a shorter path\n$/);
      expect(r.status).toBe(1);
    } finally {
      // rm walks by descriptor; rmSync's absolute paths are past PATH_MAX here.
      execFileSync('rm', ['-rf', dir]);
    }
  });
});
