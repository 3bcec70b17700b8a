// Proves the Nx caching contract of @chunkyard/nx in chunkyard's own repo (tools are workspace
// projects, built by Nx), with real Nx runs over a temp copy of the workspace (real plugin, real
// tool builds and CLIs; no mocks). e2e/installed.test.ts does the same for a user's repo that
// installs packed tarballs.
//   (a) a first run chunks every topic; (b) a rerun is served from cache; (c) deleted outputs
//   are restored byte-identical; (d) editing one topic reruns only that topic; (e) a config
//   change reruns every topic; (f) a tool source change rebuilds the tool and reruns every
//   topic (they hash the build's inputs), a test file does not; (g) a topic.yaml override reruns only its topic and
//   files that later steps write (topic-spec.md, _keywords/) are not chunk inputs.
// The keywords target, on the same workspace: (k1) a first run writes _keywords/words.md for
//   every topic; (k2) a rerun is cached and restores deleted outputs; (k3) editing one topic
//   reruns only its keywords; (k4) a config change reruns chunk but not keywords; (k5) adding
//   or editing a topic's hand-written keywords.md reruns only that topic.
// The spec and index targets and the section indexes: (i1) `-t index` builds every topic's
//   spec and index.json and an index.json for every folder above a topic, and a client walks
//   from docs/index.json to every chunk by links alone; (i2) a rerun is cached and restores
//   deleted outputs; (i3) editing one topic reruns that topic and the section indexes above
//   it, nothing beside it; (i4) an embeddings setting in the config reruns every spec, no keywords; (i6) a
//   model server address in the environment reruns every chunk and spec, no keywords.
// Every step waits for the build of every tool, so a first run of any target builds all four.
// Ran-vs-cached comes from Nx's own run record (.nx/cache/run.json, `cacheStatus` per task),
// cross-checked against the `--outputStyle=static` log; see runMany() in temp-workspace.mjs.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempWorkspace, nextMtimeSecond, readTree, runMany, runNx, type TempWorkspace } from './temp-workspace.mjs';

const section = (title: string, words: string) =>
  `## ${title}\n\n${`${words} `.repeat(12).trim()}.\n\n` +
  `The ${title.toLowerCase()} section explains one idea in plain sentences. It keeps each ` +
  `sentence short so that the chunker has clear boundaries. A reader can follow it without the rest.\n`;

const doc = (title: string, sections: string[]) =>
  `# ${title}\n\nAn introduction to ${title} with enough prose to form a chunk of its own.\n\n` +
  sections.map((s) => section(s, `${s} covers ${title}`)).join('\n');

// Folder -> golden-reference.md. One topic is nested two levels below a section folder.
const TOPICS: Record<string, string> = {
  'docs/alpha': doc('Alpha', ['Install', 'Configure', 'Troubleshoot']),
  'docs/libraries/beta': doc('Beta library', ['Overview', 'API', 'Examples']),
  'docs/guides/deep/gamma': doc('Gamma guide', ['Concepts', 'Walkthrough', 'FAQ']),
};
const PROJECTS = ['topic-alpha', 'topic-libraries-beta', 'topic-guides-deep-gamma'];
const CHUNK_TASKS = PROJECTS.map((p) => `${p}:chunk`);
const KEYWORD_TASKS = PROJECTS.map((p) => `${p}:keywords`);
const BUILD = 'chunking-tool:build';
// Every pipeline step waits for every tool's build (plugin.cjs, everyBuild), so the pipeline
// is one Nx batch: the first run of any target builds all four tools.
const BUILDS = [BUILD, 'keyword-extractor:build', 'topic-spec:build', 'index-tool:build'];
const sorted = (s: Iterable<string>) => [...s].sort();

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
let ws: TempWorkspace;

const chunksDir = (folder: string) => join(ws.root, folder, '_chunks');
const bundleHash = () =>
  createHash('sha256')
    .update(readFileSync(join(ws.root, 'apps/chunking-tool/dist/main.js')))
    .digest('hex');

// One workspace for both describe blocks: the keywords tests run after the chunk tests, on
// the state they leave behind (which is also what a real workspace looks like).
beforeAll(() => {
  ws = createTempWorkspace({ topics: TOPICS });
});
afterAll(() => {
  if (ws && !KEEP) rmSync(ws.root, { recursive: true, force: true });
  else if (ws) console.log(`temp workspace kept at ${ws.root}`);
});

describe('@chunkyard/nx in its own workspace: Nx cache behaviour of the chunk target', () => {
  it('infers one project per topic and exactly one project per tool app', () => {
    const all = runNx(ws, ['show', 'projects', '--json']);
    expect(all.status, all.output).toBe(0);
    const names: string[] = JSON.parse(all.output.slice(all.output.indexOf('[')));
    expect(names).toEqual(expect.arrayContaining(['chunking-tool', 'keyword-extractor']));
    // apps/<tool>/package.json must merge into the project.json project, not add a twin.
    expect(names).not.toContain('@chunkyard/chunking-tool');
    expect(names).not.toContain('@chunkyard/keyword-extractor');
    // Only topics carry the pipeline targets (no package.json script sneaks into run-many -t chunk).
    for (const target of ['chunk', 'keywords']) {
      const withTarget = runNx(ws, ['show', 'projects', '--with-target', target, '--json']);
      expect(withTarget.status, withTarget.output).toBe(0);
      expect(sorted(JSON.parse(withTarget.output.slice(withTarget.output.indexOf('[')))), target).toEqual(sorted(PROJECTS));
    }
  });

  it('(a) first run chunks every topic', () => {
    const r = runMany(ws, ['-t', 'chunk']);
    expect(sorted(r.ran)).toEqual(sorted([...BUILDS, ...CHUNK_TASKS]));
    expect(r.cached.size).toBe(0);
    for (const folder of Object.keys(TOPICS)) {
      expect(existsSync(chunksDir(folder)), folder).toBe(true);
      expect(Object.keys(readTree(chunksDir(folder))).length, folder).toBeGreaterThan(0);
    }
  });

  it('(b) second run is served entirely from cache', () => {
    const r = runMany(ws, ['-t', 'chunk']);
    expect(sorted(r.ran)).toEqual([]);
    expect(sorted(r.cached)).toEqual(sorted([...BUILDS, ...CHUNK_TASKS]));
  });

  it('(c) deleted outputs are restored from cache, byte-identical', () => {
    const folder = 'docs/guides/deep/gamma';
    const before = readTree(chunksDir(folder));
    rmSync(chunksDir(folder), { recursive: true });
    const r = runMany(ws, ['-t', 'chunk']);
    expect(sorted(r.ran)).toEqual([]);
    expect(r.cached.has('topic-guides-deep-gamma:chunk')).toBe(true);
    expect(readTree(chunksDir(folder))).toEqual(before);
  });

  // Every edit below first waits for the next wall-clock second: Nx 22 without the daemon
  // would otherwise reuse the file's previous hash (see nextMtimeSecond).
  it('(d) editing one topic reruns exactly that topic', async () => {
    await nextMtimeSecond(ws);
    appendFileSync(
      join(ws.root, 'docs/libraries/beta/golden-reference.md'),
      '\n## Changelog\n\nA new section was added to the beta library page, so its chunks change.\n',
    );
    const r = runMany(ws, ['-t', 'chunk']);
    expect(sorted(r.ran)).toEqual(['topic-libraries-beta:chunk']);
    expect(sorted(r.cached)).toEqual(sorted([...BUILDS, 'topic-alpha:chunk', 'topic-guides-deep-gamma:chunk']));
  });

  it('(e) a config change reruns every topic (the tool build stays cached)', async () => {
    await nextMtimeSecond(ws);
    const file = join(ws.root, 'chunkyard.config.yaml');
    const text = readFileSync(file, 'utf8');
    const edited = text.replace(/^(\s*targetTokens:\s*)(\d+)/m, (_m, key: string, n: string) => `${key}${Number(n) - 50}`);
    expect(edited, 'chunkyard.config.yaml has a chunking.targetTokens value to change').not.toBe(text);
    writeFileSync(file, edited);
    const r = runMany(ws, ['-t', 'chunk']);
    expect(sorted(r.ran)).toEqual(sorted(CHUNK_TASKS));
    expect(sorted(r.cached)).toEqual(sorted(BUILDS));
  });

  it('(f) a tool source change rebuilds the tool and reruns every topic', async () => {
    const main = join(ws.root, 'apps/chunking-tool/src/main.ts');

    // f1: topics hash what the tool's build hashes (its sources), not the built bundle, so
    // even an edit that leaves the bundle unchanged (a comment: esbuild drops it) reruns
    // them: never a stale topic, and no topic task re-reads the bundle to hash it.
    await nextMtimeSecond(ws);
    appendFileSync(main, '\n// cache test: comment-only edit\n');
    const f1 = runMany(ws, ['-t', 'chunk']);
    expect(sorted(f1.ran)).toEqual(sorted([BUILD, ...CHUNK_TASKS]));

    // f2: a code edit that survives bundling (an exported binding of the entry point).
    const bundleBeforeF2 = bundleHash();
    await nextMtimeSecond(ws);
    appendFileSync(main, '\nexport const chunkyardCacheTestMarker = 1;\n');
    const f2 = runMany(ws, ['-t', 'chunk']);
    expect(bundleHash()).not.toBe(bundleBeforeF2);
    expect(sorted(f2.ran)).toEqual(sorted([BUILD, ...CHUNK_TASKS]));
    expect(sorted(f2.cached)).toEqual(sorted(BUILDS.filter((b) => b !== BUILD)));

    // f3: a test file is not a build input, so it is not a topic input either.
    await nextMtimeSecond(ws);
    writeFileSync(join(ws.root, 'apps/chunking-tool/src/cache-probe.test.ts'), 'export {};\n');
    const f3 = runMany(ws, ['-t', 'chunk']);
    expect(sorted(f3.ran)).toEqual([]);
    rmSync(join(ws.root, 'apps/chunking-tool/src/cache-probe.test.ts'));
  });

  it('(g) a topic.yaml override reruns only its topic; files of later steps are not inputs', async () => {
    await nextMtimeSecond(ws);
    writeFileSync(join(ws.root, 'docs/libraries/beta/topic.yaml'), 'chunking:\n  overlapSentences: 1\n');
    // What the keywords/spec/index steps will write must never feed back into `chunk`.
    writeFileSync(join(ws.root, 'docs/alpha/topic-spec.md'), '---\nchunks: []\n---\n# Alpha\n');
    mkdirSync(join(ws.root, 'docs/guides/deep/gamma/_keywords'), { recursive: true });
    writeFileSync(join(ws.root, 'docs/guides/deep/gamma/_keywords/words.md'), '| keyword | score |\n');
    const r = runMany(ws, ['-t', 'chunk']);
    expect(sorted(r.ran)).toEqual(['topic-libraries-beta:chunk']);
    expect(sorted(r.cached)).toEqual(sorted([...BUILDS, 'topic-alpha:chunk', 'topic-guides-deep-gamma:chunk']));
  });
});

const keywordsDir = (folder: string) => join(ws.root, folder, '_keywords');
/** The keyword names in a topic's words.md (the table rows, first column). */
const keywordNames = (folder: string) =>
  readFileSync(join(keywordsDir(folder), 'words.md'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| keyword') && !l.startsWith('| ---'))
    .map((l) => l.split('|')[1]!.trim());

describe('@chunkyard/nx in its own workspace: Nx cache behaviour of the keywords target', () => {
  it('(k1) a first run writes _keywords/words.md, and nothing else there, for every topic', () => {
    const r = runMany(ws, ['-t', 'keywords']);
    expect(sorted(r.ran)).toEqual(sorted(KEYWORD_TASKS));
    expect(sorted(r.cached)).toEqual(sorted(BUILDS));
    for (const folder of Object.keys(TOPICS)) {
      expect(readdirSync(keywordsDir(folder)), folder).toEqual(['words.md']);
      expect(keywordNames(folder).length, folder).toBeGreaterThan(3);
    }
    // (g) left a hand-made words.md in gamma: the step replaced it.
    expect(keywordNames('docs/guides/deep/gamma')).toContain('gamma guide');
  });

  it('(k2) a rerun is served from cache, and a deleted _keywords/ is restored byte-identical', () => {
    const before = readTree(keywordsDir('docs/alpha'));
    rmSync(keywordsDir('docs/alpha'), { recursive: true });
    const r = runMany(ws, ['-t', 'keywords']);
    expect(sorted(r.ran)).toEqual([]);
    expect(sorted(r.cached)).toEqual(sorted([...BUILDS, ...KEYWORD_TASKS]));
    expect(readTree(keywordsDir('docs/alpha'))).toEqual(before);
  });

  it('(k3) editing one topic reruns only that topic\'s keywords', async () => {
    await nextMtimeSecond(ws);
    appendFileSync(join(ws.root, 'docs/alpha/golden-reference.md'), '\n## Zeppelin mooring\n\nZeppelin mooring needs a mast.\n');
    const r = runMany(ws, ['-t', 'keywords']);
    expect(sorted(r.ran)).toEqual(['topic-alpha:keywords']);
    expect(sorted(r.cached)).toEqual(sorted([...BUILDS, 'topic-libraries-beta:keywords', 'topic-guides-deep-gamma:keywords']));
    expect(keywordNames('docs/alpha')).toContain('zeppelin mooring');
  });

  it('(k4) a chunking config change reruns every chunk task but no keywords task', async () => {
    // Bring chunk up to date with (k3)'s edit first, so the next run shows the config's effect alone.
    runMany(ws, ['-t', 'chunk']);
    await nextMtimeSecond(ws);
    const file = join(ws.root, 'chunkyard.config.yaml');
    const text = readFileSync(file, 'utf8');
    const edited = text.replace(/^(\s*targetTokens:\s*)(\d+)/m, (_m, key: string, n: string) => `${key}${Number(n) + 25}`);
    expect(edited).not.toBe(text);
    writeFileSync(file, edited);
    const r = runMany(ws, ['-t', 'chunk,keywords']);
    expect(sorted(r.ran)).toEqual(sorted(CHUNK_TASKS));
    expect(sorted(r.cached)).toEqual(sorted([...BUILDS, ...KEYWORD_TASKS]));
  });

  it('(k5) adding, then editing, a topic\'s keywords.md reruns only that topic\'s keywords', async () => {
    const handWritten = join(ws.root, 'docs/libraries/beta/keywords.md');
    await nextMtimeSecond(ws);
    writeFileSync(handWritten, '| keyword | score |\n| --- | --- |\n| beta tuning | 2 |\n');
    const added = runMany(ws, ['-t', 'keywords']);
    expect(sorted(added.ran)).toEqual(['topic-libraries-beta:keywords']);
    expect(sorted(added.cached)).toEqual(sorted([...BUILDS, 'topic-alpha:keywords', 'topic-guides-deep-gamma:keywords']));
    expect(readFileSync(join(keywordsDir('docs/libraries/beta'), 'words.md'), 'utf8')).toContain('| beta tuning | 2 |');

    await nextMtimeSecond(ws);
    writeFileSync(handWritten, '| keyword | score |\n| --- | --- |\n| beta tuning | 9 |\n');
    const edited = runMany(ws, ['-t', 'keywords']);
    expect(sorted(edited.ran)).toEqual(['topic-libraries-beta:keywords']);
    expect(readFileSync(join(keywordsDir('docs/libraries/beta'), 'words.md'), 'utf8')).toContain('| beta tuning | 9 |');
  });
});

const SECTION_INDEXES = ['docs:llms-txt', 'docs:index-json', 'section-libraries:index-json', 'section-guides:index-json', 'section-guides-deep:index-json'];
const SPEC_TASKS = PROJECTS.map((p) => `${p}:spec`);
const INDEX_TASKS = PROJECTS.map((p) => `${p}:index-json`);

interface IndexJson {
  id: string;
  title: string;
  _links: { self: { href: string }; parent?: { href: string } };
  _embedded: { topics: { id: string; kind: string; title: string; _links: { self: { href: string } } }[]; chunks?: Record<string, { manifest: string; count: number; stripe_order: number[]; items: { href: string }[] }> };
}

/** Follows links from docs/index.json the way a client would; returns chunk files reached per topic id. */
function walk(): Map<string, string[]> {
  const reached = new Map<string, string[]>();
  const visit = (href: string, parentHref: string | null) => {
    const url = new URL(href, 'http://docs.test/');
    const file = join(ws.root, 'docs', decodeURIComponent(url.pathname));
    const index = JSON.parse(readFileSync(file, 'utf8')) as IndexJson;
    expect(index._links.self.href).toBe(href);
    expect(index._links.parent?.href ?? null).toBe(parentHref);
    for (const [doc, d] of Object.entries(index._embedded.chunks ?? {})) {
      const manifest = JSON.parse(readFileSync(join(ws.root, 'docs', new URL(d.manifest, url).pathname), 'utf8')) as { chunks: { originalText: string }[] };
      expect(d.items).toHaveLength(manifest.chunks.length);
      expect(d.count).toBe(manifest.chunks.length);
      expect([...d.stripe_order].sort((a, b) => a - b)).toEqual(d.items.map((_, i) => i).slice(1));
      const files = d.items.map((item, i) => {
        const path = join(ws.root, 'docs', new URL(item.href, url).pathname);
        expect(readFileSync(path, 'utf8'), `${doc} chunk ${i}`).toBe(manifest.chunks[i]!.originalText);
        return path;
      });
      reached.set(index.id, files);
    }
    for (const child of index._embedded.topics) visit(child._links.self.href, href);
  };
  visit('/index.json', null);
  return reached;
}

describe('@chunkyard/nx in its own workspace: the spec and index targets, and section indexes', () => {
  it('(i1) -t index builds every spec and index.json, and a client reaches every chunk from docs/index.json', () => {
    const r = runMany(ws, ['-t', 'index']);
    for (const task of [...SPEC_TASKS, ...INDEX_TASKS, ...SECTION_INDEXES]) {
      expect(r.ran.has(task), task).toBe(true);
    }
    // Built in (a), before any step ran.
    for (const task of ['topic-spec:build', 'index-tool:build']) expect(r.cached.has(task), task).toBe(true);
    const reached = walk();
    expect(sorted(reached.keys())).toEqual(sorted(Object.keys(TOPICS).map((f) => f.slice('docs/'.length))));
    for (const files of reached.values()) expect(files.length).toBeGreaterThanOrEqual(1);
    const root = JSON.parse(readFileSync(join(ws.root, 'docs/index.json'), 'utf8')) as IndexJson;
    expect(root._embedded.topics.map((t) => [t.id, t.kind])).toEqual([
      ['alpha', 'topic'],
      ['guides', 'section'],
      ['libraries', 'section'],
    ]);
  });

  it('(i2) a rerun is served from cache, and deleted outputs are restored byte-identical', () => {
    const files = ['docs/index.json', 'docs/libraries/beta/topic-spec.md', 'docs/libraries/beta/index.json', 'docs/guides/index.json'];
    const before = files.map((f) => readFileSync(join(ws.root, f), 'utf8'));
    for (const f of files) rmSync(join(ws.root, f));
    const r = runMany(ws, ['-t', 'index']);
    expect(sorted(r.ran)).toEqual([]);
    expect(files.map((f) => readFileSync(join(ws.root, f), 'utf8'))).toEqual(before);
  });

  it('(i3) editing one topic reruns that topic and the section indexes above it, nothing beside it', async () => {
    const before = walk().get('guides/deep/gamma')!.length;
    await nextMtimeSecond(ws);
    appendFileSync(join(ws.root, 'docs/guides/deep/gamma/golden-reference.md'), `\n## Glossary\n\n${'A glossary of gamma terms, added late. '.repeat(40)}\n`);
    const r = runMany(ws, ['-t', 'index']);
    const gamma = ['chunk', 'keywords', 'spec', 'index-json'].map((t) => `topic-guides-deep-gamma:${t}`);
    // Every folder index hashes the sources below it (not its children's index.json: the whole
    // pipeline is one Nx batch, which hashes every task before any runs), so each index.json on
    // the edited path reruns, in milliseconds, as does the root's llms.txt. Nothing beside the
    // path reruns.
    const path = ['section-guides-deep:index-json', 'section-guides:index-json', 'docs:index-json', 'docs:llms-txt'];
    expect(sorted(r.ran)).toEqual(sorted([...gamma, ...path]));
    expect(sorted(r.cached)).toEqual(expect.arrayContaining(['section-libraries:index-json', 'topic-alpha:index-json', 'topic-libraries-beta:spec']));
    expect(walk().get('guides/deep/gamma')!.length).toBeGreaterThan(before);
  });

  it('(i3b) retitling a topic reruns the index.json files above it, which list the new title; a rerun is cached', async () => {
    await nextMtimeSecond(ws);
    const file = join(ws.root, 'docs/guides/deep/gamma/golden-reference.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace('# Gamma guide', '# Gamma handbook'));
    const r = runMany(ws, ['-t', 'index']);
    const gamma = ['chunk', 'keywords', 'spec', 'index-json'].map((t) => `topic-guides-deep-gamma:${t}`);
    expect(sorted(r.ran)).toEqual(sorted([...gamma, 'section-guides-deep:index-json', 'section-guides:index-json', 'docs:index-json', 'docs:llms-txt']));
    const deep = JSON.parse(readFileSync(join(ws.root, 'docs/guides/deep/index.json'), 'utf8')) as IndexJson;
    expect(deep._embedded.topics.map((t) => t.title)).toEqual(['Gamma handbook']);
    expect(readFileSync(join(ws.root, 'docs/llms.txt'), 'utf8')).toContain('Gamma handbook');
    // Hashed from sources, not from the previous run's outputs: the next run computes the same
    // hashes, so nothing reruns.
    expect(sorted(runMany(ws, ['-t', 'index']).ran)).toEqual([]);
  });

  it('(i5) an author adds a topic and runs only its index: its section and the root now link it', async () => {
    await nextMtimeSecond(ws);
    mkdirSync(join(ws.root, 'docs/libraries/delta'), { recursive: true });
    writeFileSync(join(ws.root, 'docs/libraries/delta/golden-reference.md'), doc('Delta library', ['Setup', 'Usage']));
    const run = runNx(ws, ['run', 'topic-libraries-delta:index', '--outputStyle=static']);
    expect(run.status, run.output).toBe(0);
    const libraries = JSON.parse(readFileSync(join(ws.root, 'docs/libraries/index.json'), 'utf8')) as IndexJson;
    expect(libraries._embedded.topics.map((t) => t.id)).toEqual(['libraries/beta', 'libraries/delta']);
    // Every link resolves: the walk reaches the new topic's chunks from the root.
    expect(walk().get('libraries/delta')!.length).toBeGreaterThanOrEqual(1);
  });

  it('(i4) an embeddings setting reruns every spec (the model is an input), but no keywords', async () => {
    await nextMtimeSecond(ws);
    appendFileSync(join(ws.root, 'chunkyard.config.yaml'), '\nembeddings:\n  provider: local\n  dimensions: 256\n');
    const r = runMany(ws, ['-t', 'index']);
    for (const task of SPEC_TASKS) expect(r.ran.has(task), task).toBe(true);
    for (const task of KEYWORD_TASKS) expect(r.cached.has(task), task).toBe(true);
    expect(readFileSync(join(ws.root, 'docs/alpha/topic-spec.md'), 'utf8')).toContain('model: local-lexical-v1-d256');
  });

  it('(i6) a model server address from the environment (OLLAMA_HOST) reruns every chunk and spec, no keywords; the same address again is cached', () => {
    // Another server may serve other weights under the same model name (chunk's LLM lead
    // lines, spec's vectors): its output must not be served from the cache of the first.
    const before = ws.env.OLLAMA_HOST;
    ws.env.OLLAMA_HOST = 'http://127.0.0.1:9/';
    try {
      const r = runMany(ws, ['-t', 'index']);
      for (const task of [...CHUNK_TASKS, ...SPEC_TASKS]) expect(r.ran.has(task), task).toBe(true);
      for (const task of KEYWORD_TASKS) expect(r.cached.has(task), task).toBe(true);
      const again = runMany(ws, ['-t', 'index']);
      for (const task of [...CHUNK_TASKS, ...KEYWORD_TASKS, ...SPEC_TASKS]) expect(again.cached.has(task), task).toBe(true);
    } finally {
      if (before === undefined) delete ws.env.OLLAMA_HOST;
      else ws.env.OLLAMA_HOST = before;
    }
  });

  it('(i7) a folder named with glob characters ([ ] { } ( ) !) is cached and rerun like any other', async () => {
    // Nx reads inputs and outputs as globs: before globLiteral, such a topic's edits reran
    // nothing and its outputs were cached empty (a deleted _chunks/ was never restored).
    await nextMtimeSecond(ws);
    const dir = 'docs/odd [v2] {x} (beta)!/t';
    const project = 'topic-odd [v2] {x} (beta)!-t';
    mkdirSync(join(ws.root, dir), { recursive: true });
    writeFileSync(join(ws.root, dir, 'golden-reference.md'), doc('Odd folder', ['Setup', 'Usage']));
    const first = runMany(ws, ['-t', 'index']);
    for (const t of ['chunk', 'keywords', 'spec', 'index-json']) expect(first.ran.has(`${project}:${t}`), t).toBe(true);
    const chunks = readTree(join(ws.root, dir, '_chunks'));
    expect(Object.keys(chunks).length).toBeGreaterThan(1);
    rmSync(join(ws.root, dir, '_chunks'), { recursive: true });
    rmSync(join(ws.root, dir, 'topic-spec.md'));
    const restored = runMany(ws, ['-t', 'index']);
    expect(sorted(restored.ran)).toEqual([]);
    expect(readTree(join(ws.root, dir, '_chunks'))).toEqual(chunks);
    expect(existsSync(join(ws.root, dir, 'topic-spec.md'))).toBe(true);
    await nextMtimeSecond(ws);
    appendFileSync(join(ws.root, dir, 'golden-reference.md'), '\n## Limits\n\nThe odd folder gained a section on limits in this edit.\n');
    const edited = runMany(ws, ['-t', 'index']);
    for (const t of ['chunk', 'keywords', 'spec', 'index-json']) expect(edited.ran.has(`${project}:${t}`), t).toBe(true);
    expect(edited.ran.has('section-odd [v2] {x} (beta)!:index-json')).toBe(true);
  });
});
