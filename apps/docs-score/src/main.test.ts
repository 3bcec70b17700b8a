// docs-score over real topics built by the real tools (chunking-tool, keyword-extractor,
// topic-spec, index-tool; local embedder), then over copies corrupted one way at a time.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as index } from '../../index-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { main as spec } from '../../topic-spec/src/main.js';
import { EXIT_CONTINUITY, HELP, main, type ScoreResult } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const quiet = { stdout: () => {}, stderr: () => {} };
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const TOPICS = ['libraries/system-text-json-source-generation', 'deployment/native-aot'];

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}
async function json(argv: string[]) {
  const r = await run([...argv, '--json']);
  return { code: r.code, result: JSON.parse(r.stdout) as ScoreResult };
}

let root: string;
let pristine: string;
let n = 0;
/** A fresh copy of the built docs tree to corrupt. */
function copy(): string {
  const dir = join(root, `copy-${n++}`);
  cpSync(pristine, dir, { recursive: true });
  return dir;
}
const manifestPath = (docs: string, t: string) => join(docs, t, '_chunks/golden-reference.json');
type Manifest = { chunks: { id: string; originalText: string; prevId: string | null; nextId: string | null; sourcePosition: { charStart: number } }[] };
const readManifest = (docs: string, t: string) => JSON.parse(readFileSync(manifestPath(docs, t), 'utf8')) as Manifest;
const writeManifest = (docs: string, t: string, m: Manifest) => writeFileSync(manifestPath(docs, t), JSON.stringify(m, null, 2));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-docs-score-'));
  pristine = join(root, 'docs');
  const config = join(root, 'chunkyard.config.yaml');
  writeFileSync(config, 'chunking:\n  maxTokens: 512\n');
  for (const t of TOPICS) {
    const dir = join(pristine, t);
    mkdirSync(dir, { recursive: true });
    for (const f of ['golden-reference.md', 'qa-pairs.md']) cpSync(join(REPO, 'docs', t, f), join(dir, f));
    expect(await chunk([dir, '--config', config], quiet)).toBe(0);
    expect(await keywords([dir], quiet)).toBe(0);
    expect(await spec([dir, '--config', config], quiet)).toBe(0);
  }
  expect(await index([...TOPICS.map((t) => join(pristine, t)), '--root', pristine], quiet)).toBe(0);
  expect(await index([join(pristine, 'libraries'), join(pristine, 'deployment'), '--root', pristine], quiet)).toBe(0);
  expect(await index([pristine, '--root', pristine], quiet)).toBe(0);
}, 180_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('docs-score on a clean build', () => {
  it('scores a topic reached twice once: given twice, or as a topic and within its docs folder (issue 15 probe)', async () => {
    const once = await json([pristine]);
    const t = join(pristine, TOPICS[0]!);
    for (const argv of [[pristine, pristine], [t, pristine], [pristine, t, `${t}/`]]) {
      const twice = await json(argv);
      expect(twice.result.topics, argv.join(' ')).toHaveLength(once.result.topics.length);
      // Every tally as with the folder once: they were doubled, "2 topic(s)" for one topic given twice.
      expect(twice.result.checks.tallies, argv.join(' ')).toEqual(once.result.checks.tallies);
    }
  });

  it('passes every check on a docs tree, with PIS 100 and every href checked', async () => {
    const { code, result } = await json([pristine]);
    expect(result.checks.findings).toEqual([]);
    expect(code).toBe(0);
    expect(result.topics).toHaveLength(2);
    expect(result.checks.pis).toBe(100);
    const checked = Object.fromEntries(result.checks.tallies.map((t) => [t.check, t.checked]));
    const chunks = TOPICS.reduce((s, t) => s + readManifest(pristine, t).chunks.length, 0);
    // prev and next of every chunk, and per document: its record ids unique across the topic
    expect(checked.continuity).toBe(2 * chunks + TOPICS.length);
    expect(checked.markdown).toBe(chunks);
    expect(checked.hrefs).toBeGreaterThan(chunks); // every chunk href, manifests, self/parent links
  });

  it('prints a table and the PIS for one topic folder', async () => {
    const r = await run([join(pristine, TOPICS[0]!)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^continuity\s+\d+\s+0\s+pass$/m);
    expect(r.stdout).toMatch(/^hrefs\s+\d+\s+0\s+pass$/m);
    expect(r.stdout).toContain('Pagination Integrity Score: 100.0');
  });

  it('accepts other strategies: hierarchical passes (per-tier graphs); token-window is caught cutting code and tables', async () => {
    const results: Record<string, ScoreResult> = {};
    for (const strategy of ['hierarchical', 'token-window']) {
      const docs = copy();
      const dir = join(docs, TOPICS[1]!);
      expect(await chunk([dir, '--strategy', strategy], quiet)).toBe(0);
      // Rebuild the topic's spec and index so its hrefs name the new chunk files.
      expect(await spec([dir], quiet)).toBe(0);
      expect(await index([dir, '--root', docs], quiet)).toBe(0);
      results[strategy] = (await json([dir])).result;
    }
    expect(results.hierarchical!.checks.findings).toEqual([]);
    expect(results.hierarchical!.exitCode).toBe(0);
    // Seed 004's fixed windows cut wherever the token count says: the scorer must notice.
    const tw = results['token-window']!;
    expect(tw.exitCode).toBe(1);
    expect(new Set(tw.checks.findings.map((f) => f.check))).toEqual(new Set(['markdown']));
    expect(tw.checks.findings.map((f) => f.message).join('\n')).toMatch(/never closed|without a header/);
  });

  it('checks paginate pages: CT comments, chunks.json checksum and page hashes; a dangling CT exits 13', async () => {
    const docs = copy();
    const dir = join(docs, TOPICS[1]!);
    const config = join(docs, 'paginate.yaml');
    writeFileSync(config, 'chunking:\n  strategy: paginate\n  ctxSize: 1024\n  bufSize: 0\n  pageOverlapTokens: 40\n');
    expect(await chunk([dir, '--config', config], quiet)).toBe(0);
    expect(await spec([dir, '--config', config], quiet)).toBe(0);
    expect(await index([dir, '--root', docs], quiet)).toBe(0);
    const clean = await json([dir]);
    expect(clean.result.checks.findings).toEqual([]);
    expect(clean.code).toBe(0);
    expect(clean.result.checks.graphs).toBe(4); // prevId/nextId, page CT, CT comments, chunks.json
    // Edit the manifest: its checksum no longer matches.
    const pagesFile = join(dir, '_chunks/chunks.json');
    const pages = readFileSync(pagesFile, 'utf8');
    writeFileSync(pagesFile, pages.replace('"tokens": ', '"tokens": 1'));
    expect((await run([dir])).stdout).toContain('is not the SHA-256 of JSON.stringify(documents)');
    writeFileSync(pagesFile, pages);
    // A page whose CT comment points to a page that does not exist.
    const page = join(dir, '_chunks/golden-reference-1.md');
    writeFileSync(page, readFileSync(page, 'utf8').replace('"next":"golden-reference:chunk-003"', '"next":"golden-reference:chunk-404"'));
    const broken = await run([dir]);
    expect(broken.code).toBe(EXIT_CONTINUITY);
    expect(broken.stdout).toContain('CT comments: dangling: golden-reference:chunk-002: next points to golden-reference:chunk-404, which does not exist');
    expect(broken.stdout).toContain('sha256 does not match the file');
  });

  // Issue 15 probe (s55): chunks.json was looked for with existsSync alone, so a paginate topic
  // whose chunks.json was deleted (or was a dangling link) had nothing to check its pages
  // against and passed: exit 0, one continuity graph fewer, no finding.
  it('a paginate topic without its chunks.json (deleted, or a dangling link) fails the checksum check, naming it', async () => {
    const docs = copy();
    const dir = join(docs, TOPICS[1]!);
    const config = join(docs, 'paginate.yaml');
    writeFileSync(config, 'chunking:\n  strategy: paginate\n  ctxSize: 1024\n  bufSize: 0\n  pageOverlapTokens: 40\n');
    expect(await chunk([dir, '--config', config], quiet)).toBe(0);
    rmSync(join(dir, 'index.json'));
    expect((await json([dir])).code).toBe(0);
    const pagesFile = join(dir, '_chunks/chunks.json');
    for (const [make, why] of [
      [() => rmSync(pagesFile), 'unreadable: missing: golden-reference.json was chunked with paginate, whose pages it checks (continuity-token graph, SHA-256 per page); chunk the topic again (nx run <topic>:chunk)'],
      [() => symlinkSync('no-such.json', pagesFile), 'unreadable: a dangling symlink (its target does not exist); fix or remove the link'],
    ] as const) {
      make();
      const r = await json([dir]);
      expect(r.code).toBe(1);
      expect(r.result.checks.findings.map((f) => `${f.check}: ${f.file}: ${f.message}`)).toEqual([`checksum: ${pagesFile}: ${why}`]);
    }
  });

  it('passes a paged topic with two sources, and exits 13 when their CT ids collide (seed 000: CT collision in merged docs)', async () => {
    const docs = copy();
    const dir = join(docs, TOPICS[1]!);
    cpSync(join(docs, TOPICS[0]!, 'golden-reference.md'), join(dir, 'guide.md'));
    writeFileSync(join(dir, 'topic.yaml'), 'sources: [golden-reference.md, guide.md]\n');
    const config = join(docs, 'paginate.yaml');
    writeFileSync(config, 'chunking:\n  strategy: paginate\n  ctxSize: 1024\n  bufSize: 0\n  pageOverlapTokens: 40\n');
    expect(await chunk([dir, '--config', config], quiet)).toBe(0);
    rmSync(join(dir, 'index.json'));
    const clean = await json([dir]);
    expect(clean.result.checks.findings).toEqual([]);
    expect(clean.code).toBe(0);
    // What chunking-tool wrote before ids were unique: chunk-001… in both documents, each
    // document's graph intact, every hash and checksum consistent.
    const out = join(dir, '_chunks');
    const legacy = (s: string) => s.replace(/(?:golden-reference|guide):chunk-/g, 'chunk-');
    for (const f of readdirSync(out)) writeFileSync(join(out, f), legacy(readFileSync(join(out, f), 'utf8')));
    const pagesFile = join(out, 'chunks.json');
    const pages = JSON.parse(readFileSync(pagesFile, 'utf8')) as { checksum: { value: string }; documents: { chunks: { file: string; sha256: string }[] }[] };
    for (const d of pages.documents) for (const c of d.chunks) c.sha256 = sha256(readFileSync(join(out, c.file), 'utf8'));
    pages.checksum.value = sha256(JSON.stringify(pages.documents));
    writeFileSync(pagesFile, JSON.stringify(pages, null, 2));
    const collided = await json([dir]);
    expect(collided.code).toBe(EXIT_CONTINUITY);
    const messages = collided.result.checks.findings.map((f) => `${f.check}: ${f.message}`);
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.every((m) => m.startsWith('continuity: ') && m.includes('ids must be unique across the topic'))).toBe(true);
    expect(messages.join('\n')).toMatch(/page CT ids chunk-001, chunk-002, chunk-003.* also used by .*guide\.json/);
  });

  it('measures retrieval on qa-pairs.md with the Chroma metric', async () => {
    const { code, result } = await json([pristine, '--qa', '--k', '3']);
    expect(code).toBe(0);
    const r = result.retrieval!;
    const qa = TOPICS.map((t) => readFileSync(join(pristine, t, 'qa-pairs.md'), 'utf8'));
    expect(r.questions).toBe(qa.reduce((s, text) => s + (text.match(/^## /gm) ?? []).length, 0)); // every sample question has an excerpt
    expect(Object.keys(r.corpora).sort()).toEqual([...TOPICS].sort());
    for (const q of r.perQuestion) {
      for (const v of [q.recall, q.precision, q.iou, q.precisionOmega]) expect(v >= 0 && v <= 1).toBe(true);
      expect(q.iou).toBeLessThanOrEqual(q.precision + 1e-12);
    }
    expect(r.all.recall.mean).toBeGreaterThan(0.5);
    const strict = await run([pristine, '--qa', '--min-iou', '0.99']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('Retrieval below threshold');
  });

  // An empty qa-pairs.md, or one without questions or excerpts, gave no questions without a word:
  // the topic dropped out of the retrieval score unnoticed (issue 15).
  it('names each qa-pairs.md that gives no question, and the files read when none gives one', async () => {
    const docs = copy();
    const [a, b] = TOPICS.map((t) => join(docs, t, 'qa-pairs.md')) as [string, string];
    const full = readFileSync(b, 'utf8');
    const perTopic = (full.match(/^## /gm) ?? []).length;
    const cases: [string, string][] = [
      ['', 'empty'],
      [' \n\t\n\n', 'empty'],
      ['# Questions: nothing yet\n\nSome text, no heading.\n', 'no question in it (a question is a "## " heading ending with "?")'],
      ['## Is there an excerpt?\n\nNo.\n\n## Or here?\n\nNo.\n', '2 question(s), none with a reference excerpt (a "> " quote of golden-reference.md)'],
    ];
    for (const [text, why] of cases) {
      writeFileSync(a, text);
      const r = await run([docs, '--qa', '--json']);
      expect(r.code, JSON.stringify(text)).toBe(0);
      expect(r.stderr).toBe(`docs-score: ${a}: ${why}, so its topic adds no question to the retrieval score\n`);
      expect((JSON.parse(r.stdout) as ScoreResult).retrieval!.questions).toBe(perTopic);
    }
    // None at all: the error stands, and names the files read.
    writeFileSync(b, '\n');
    const none = await run([docs, '--qa']);
    expect(none.code).toBe(2);
    expect(none.stderr.split('\n').filter((l) => l.startsWith('docs-score: ') && l.endsWith('to the retrieval score')).sort()).toEqual(
      [a, b].map((f) => `docs-score: ${f}: ${f === a ? '2 question(s), none with a reference excerpt (a "> " quote of golden-reference.md)' : 'empty'}, so its topic adds no question to the retrieval score`).sort(),
    );
    const error = none.stderr.split('\n').at(-3)!;
    expect(error).toMatch(/^docs-score: no qa-pairs\.md with reference excerpts in the scored topics \(read 2: .+\)$/);
    for (const f of [a, b]) expect(error).toContain(f);
    expect(none.stderr.endsWith(`${error}\nRun docs-score --help for usage.\n`)).toBe(true);
    // No qa-pairs.md at all: the message as it was.
    rmSync(a);
    rmSync(b);
    expect(await run([docs, '--qa'])).toEqual({ code: 2, stdout: '', stderr: 'docs-score: no qa-pairs.md with reference excerpts in the scored topics\nRun docs-score --help for usage.\n' });
  });

  // Issue 15 probe (s55): qa-pairs.md was looked for with existsSync, which follows links, so a
  // dangling or looping one read as none: "no qa-pairs.md with reference excerpts" (exit 2), as
  // if the topic had no questions file, where keyword-extractor and topic-spec name the link.
  it('--qa: a qa-pairs.md that is a dangling or looping symlink is named as such, not taken for none', async () => {
    const docs = copy();
    const qa = join(docs, TOPICS[0]!, 'qa-pairs.md');
    for (const [target, why] of [
      ['no-such.md', 'a dangling symlink (its target does not exist); fix or remove the link'],
      ['qa-pairs.md', 'a symlink loop (it never reaches a file); fix or remove the link'],
    ] as const) {
      rmSync(qa, { force: true });
      symlinkSync(target, qa);
      expect(await run([docs, '--qa'])).toEqual({ code: 1, stdout: '', stderr: `docs-score: ${qa}: ${why}\n` });
    }
  });

  // Issue 15 probe (s55): the failures and the retrieval table printed paths and corpus ids as
  // they were, so a folder named with a line break split a line in two, the second half free
  // to pass for a line of the report; every other message escapes them (oneLine).
  it('a folder name holding a line break is escaped in the failures and the retrieval table', async () => {
    const docs = copy();
    const renamed = 'deploy\nment';
    renameSync(join(docs, 'deployment'), join(docs, renamed));
    const r = await run([docs, '--qa']);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain(renamed);
    expect(r.stdout).toContain(`  hrefs: ${join(docs, 'deploy\\u000ament')}/`);
    expect(r.stdout).toContain('| deploy\\u000ament/native-aot | ');
    for (const line of r.stdout.split('\n')) expect(line.startsWith('ment')).toBe(false);
  });

  it('reads questions from a Chroma-format CSV whose corpus_id names a topic', async () => {
    const t = TOPICS[1]!;
    const first = readManifest(pristine, t).chunks[0]!;
    const start = first.sourcePosition.charStart;
    const excerpt = first.originalText.slice(0, 40);
    const csv = join(root, 'q.csv');
    writeFileSync(csv, `question,references,corpus_id\n"What is it?","${JSON.stringify([{ content: excerpt, start_index: start, end_index: start + 40 }]).replace(/"/g, '""')}",${t}\n`);
    const { code, result } = await json([pristine, '--questions', csv, '--k', '50']);
    expect(code).toBe(0);
    expect(result.retrieval!.questions).toBe(1);
    expect(result.retrieval!.all.recall.mean).toBe(1); // k covers every chunk
  });
});

describe('docs-score and symlinked folders', () => {
  // s40 probe: a symlinked topic folder inside the docs given was left out without a word (the
  // walk does not follow links), so "all checks pass" covered less than the tree seemed to hold.
  it('names each linked folder holding topics that the walk skipped, once; the rest is scored as before', async () => {
    const docs = copy();
    const elsewhere = copy();
    const linked = join(docs, 'libraries', 'linked');
    symlinkSync(join(elsewhere, TOPICS[1]!), linked);
    symlinkSync(mkdtempSync(join(root, 'no-topics-')), join(docs, 'libraries', 'images'));
    symlinkSync(join(elsewhere, TOPICS[1]!), join(docs, '_hidden-by-name'));
    const before = await json([pristine]);
    const r = await run([docs, docs, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`docs-score: ${linked}: a symlinked folder (it leads to ${join(elsewhere, TOPICS[1]!)}), skipped: the walk does not follow links (one could lead back into the tree or out of it); give the folder itself to score it\n`);
    expect((JSON.parse(r.stdout) as ScoreResult).checks.tallies).toEqual(before.result.checks.tallies);
  });
});

describe('docs-score on corrupted builds', () => {
  const t = TOPICS[0]!;

  it('an offset that no longer matches the source: exit 1, naming the chunk', async () => {
    const docs = copy();
    const m = readManifest(docs, t);
    m.chunks[2]!.sourcePosition.charStart += 1;
    writeManifest(docs, t, m);
    const r = await run([docs]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/offsets: .*golden-reference\.json: chunk 2 \(.*::ch2\): source\.slice\(\d+, \d+\) is not the chunk's originalText/);
  });

  it('a chunk file with its closing fence cut: exit 1, markdown names the line', async () => {
    const docs = copy();
    const dir = join(docs, t, '_chunks');
    const file = readdirSync(dir).find((f) => f.endsWith('.md') && /\n```\s*$/m.test(readFileSync(join(dir, f), 'utf8')))!;
    expect(file).toBeDefined();
    const text = readFileSync(join(dir, file), 'utf8');
    const lines = text.split('\n');
    const last = lines.map((l) => /^\s*```\s*$/.test(l)).lastIndexOf(true);
    writeFileSync(join(dir, file), lines.filter((_, i) => i !== last).join('\n'));
    const r = await run([docs]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`markdown: .*${file.replace('.', '\\.')}: line \\d+: code fence opened on line \\d+ is never closed`));
  });

  it('a table cut from its header: exit 1', async () => {
    const docs = copy();
    const file = join(docs, t, '_chunks/golden-reference-0.md');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n| a | b |\n| c | d |\n`);
    const r = await run([docs]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('table rows without a header and delimiter row');
  });

  it('--qa over topics never built says they are not built, naming them, not only that no qa-pairs.md was found (issue 15 probe)', async () => {
    const docs = copy();
    for (const topic of TOPICS) rmSync(join(docs, topic, '_chunks'), { recursive: true });
    const r = await run([docs, '--qa']);
    expect(r.code).toBe(2);
    const dirs = TOPICS.map((topic) => join(docs, topic)).sort();
    expect(r.stderr).toBe(
      `docs-score: no qa-pairs.md with reference excerpts in the scored topics; 2 topics are not built (${dirs.join(', ')}): build them first (npx nx run-many -t index)\nRun docs-score --help for usage.\n`,
    );
    // One built, one not: the built one is scored; the other fails the checks, as before.
    const one = copy();
    rmSync(join(one, TOPICS[0]!, '_chunks'), { recursive: true });
    const mixed = await json([one, '--qa']);
    expect(mixed.code).toBe(1);
    expect(Object.keys(mixed.result.retrieval!.corpora)).toEqual([TOPICS[1]]);
  });

  it('a topic never built: the PIS is n/a, not 100 of nothing (issue 15 probe)', async () => {
    const docs = mkdtempSync(join(root, 'unbuilt-'));
    mkdirSync(join(docs, 'topic'));
    writeFileSync(join(docs, 'topic/golden-reference.md'), '# Topic\n\nText.\n');
    const r = await run([docs]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Pagination Integrity Score: n/a (no continuity graph: no built chunks to check)');
    expect(r.stdout).not.toContain('Pagination Integrity Score: 100.0');
    expect(r.stdout).toContain('not built: no _chunks/<doc>.json manifest');
  });

  // Issue 15 probe (s66): a dangling or looping link, a file or a FIFO where _chunks/ goes read
  // "not built: … (run chunking-tool first)", the link taken for a build never made.
  it('a _chunks/ that is a dangling or looping link, a file or a FIFO is named as what it is, not as not built', async () => {
    for (const [kind, make, said] of [
      ['dangling', (p: string) => symlinkSync(join(root, 'gone'), p), 'a dangling symlink (its target does not exist); fix or remove the link'],
      ['loop', (p: string) => symlinkSync(p, p), 'a symlink loop (it never reaches a file); fix or remove the link'],
      ['file', (p: string) => writeFileSync(p, 'x'), 'not a folder (a regular file)'],
      ['fifo', (p: string) => execFileSync('mkfifo', [p]), 'not a folder (a FIFO (named pipe))'],
    ] as const) {
      const docs = mkdtempSync(join(root, `chunks-${kind}-`));
      mkdirSync(join(docs, 'topic'));
      writeFileSync(join(docs, 'topic/golden-reference.md'), '# Topic\n\nText.\n');
      make(join(docs, 'topic/_chunks'));
      const r = await run([docs]);
      expect(r.code, kind).toBe(1);
      expect(r.stdout, kind).toContain(`offsets: ${join(docs, 'topic')}: _chunks/: ${said}\n`);
      expect(r.stdout, kind).not.toContain('not built');
    }
  });

  it('a dangling prevId: exit 13 (seed 000)', async () => {
    const docs = copy();
    const m = readManifest(docs, t);
    m.chunks[1]!.prevId = 'doc:golden-reference::ch99';
    writeManifest(docs, t, m);
    const r = await run([docs]);
    expect(r.code).toBe(EXIT_CONTINUITY);
    expect(r.stdout).toContain('dangling: doc:golden-reference::ch1: prev points to doc:golden-reference::ch99, which does not exist');
    expect(r.stderr).toContain('exit 13');
    expect(r.stdout).not.toContain('Pagination Integrity Score: 100.0');
  });

  it('a cycle of next links: exit 13, with the cycle spelled out', async () => {
    const docs = copy();
    const m = readManifest(docs, t);
    const last = m.chunks[m.chunks.length - 1]!;
    last.nextId = m.chunks[1]!.id;
    writeManifest(docs, t, m);
    const r = await run([docs]);
    expect(r.code).toBe(EXIT_CONTINUITY);
    expect(r.stdout).toMatch(/circular: next links form a cycle: doc:golden-reference::ch1 -> .* -> doc:golden-reference::ch1/);
  });

  it('a broken href in index.json: exit 1', async () => {
    const docs = copy();
    const file = join(docs, t, 'index.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('_chunks/golden-reference-1.md', '_chunks/golden-reference-1000.md'));
    const r = await run([docs]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('_chunks/golden-reference-1000.md does not resolve to a file');
  });

  it('a manifest and an index.json that are links to a secret: named as not JSON without quoting it (issue 15: JSON.parse quoted the file)', async () => {
    const docs = copy();
    const secret = join(root, `secret-${n}`);
    writeFileSync(secret, 'password=hunter2-secret');
    rmSync(manifestPath(docs, t));
    symlinkSync(secret, manifestPath(docs, t));
    rmSync(join(docs, t, 'index.json'));
    symlinkSync(secret, join(docs, t, 'index.json'));
    const r = await run([docs]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${manifestPath(docs, t)}: manifest unreadable: not valid JSON (unexpected character at line 1, column 1)`);
    expect(r.stdout).toContain(`${join(docs, t, 'index.json')}: unreadable: not valid JSON (unexpected character at line 1, column 1)`);
    expect(r.stdout + r.stderr).not.toMatch(/hunter2|password/);
  });

  it('a source changed after the build: the manifest checksum fails', async () => {
    const docs = copy();
    const src = join(docs, t, 'golden-reference.md');
    writeFileSync(src, `${readFileSync(src, 'utf8')}\nOne more line.\n`);
    const r = await run([docs]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/checksum: .*golden-reference\.json: sourceSha256 .* does not match golden-reference\.md/);
  });

  it('a source that is there but unreadable is said what it is, not "missing"; an emptied one fails its checksum (s37 probe)', async () => {
    const docs = copy();
    const src = join(docs, t, 'golden-reference.md');
    const named = `source golden-reference.md named by ${manifestPath(docs, t)}`;
    rmSync(src);
    execFileSync('mkfifo', [src]);
    let r = await run([docs]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`checksum: ${src}: ${named}: a FIFO (named pipe), not a regular file; point it at a markdown file\n`);
    rmSync(src);
    writeFileSync(src, Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a]));
    r = await run([docs]);
    expect(r.stdout).toContain(`checksum: ${src}: ${named}: not valid UTF-8 (first bad byte at offset 2); save it as UTF-8\n`);
    writeFileSync(src, '');
    r = await run([docs]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/checksum: .*golden-reference\.json: sourceSha256 .* does not match golden-reference\.md/);
  });

  it('a changed manifest: recorded token counts and chunk files no longer agree', async () => {
    const docs = copy();
    const m = readManifest(docs, t);
    m.chunks[0]!.originalText += ' extra words';
    writeManifest(docs, t, m);
    const r = await run([docs, '--json']);
    expect(r.code).toBe(1);
    const failed = (JSON.parse(r.stdout) as ScoreResult).checks.tallies.filter((x) => x.failed > 0).map((x) => x.check);
    expect(failed).toEqual(['tokens', 'offsets']);
  });
});

describe('docs-score --qa over a damaged manifest (issue 15 probe)', () => {
  // Retrieval read every manifest the loader parsed, whatever its shape: a chunk without
  // sourcePosition stopped --qa with "Cannot read properties of undefined (reading 'charStart')"
  // and no file named, and a manifest that was not JSON made it blame qa-pairs.md. The damaged
  // document is left out of the scores and named; the other topic is scored; the checks fail it.
  const t = TOPICS[0]!;
  type Damage = (m: Record<string, unknown> & { chunks: Record<string, unknown>[] }, i: number) => unknown;
  const damages: [string, Damage, RegExp][] = [
    ['a chunk without sourcePosition', (m, i) => delete m.chunks[i]!.sourcePosition, /not a chunk manifest: chunk \d+: no sourcePosition/],
    ['a chunk that is null', (m, i) => ((m.chunks as unknown[])[i] = null), /not a chunk manifest: chunk \d+: no id\/originalText\/embedText/],
    ['an embedText that is null', (m, i) => (m.chunks[i]!.embedText = null), /not a chunk manifest: chunk \d+: no id\/originalText\/embedText/],
    ['a charStart that is a string', (m, i) => ((m.chunks[i]!.sourcePosition as Record<string, unknown>).charStart = '3'), /not a chunk manifest: chunk \d+: no sourcePosition/],
    ['chunks that are an object', (m) => (m.chunks = { a: 1 } as never), /not a chunk manifest: no "chunks" array/],
  ];
  const damaged = (damage: Damage | 'not-json', i: number): string => {
    const docs = copy();
    if (damage === 'not-json') {
      writeFileSync(manifestPath(docs, t), readFileSync(manifestPath(docs, t), 'utf8').replace(/"charStart": \d+/, '"charStart": Infinity'));
    } else {
      const m = readManifest(docs, t) as unknown as Parameters<Damage>[0];
      damage(m, i % m.chunks.length);
      writeFileSync(manifestPath(docs, t), JSON.stringify(m));
    }
    return docs;
  };
  const expectNamed = (r: { code: number; stdout: string; stderr: string }, docs: string, problem: RegExp) => {
    expect(r.stderr).not.toMatch(/Cannot read|is not a function|TypeError|\n\s+at /);
    const line = r.stderr.split('\n').find((l) => l.startsWith(`docs-score: ${manifestPath(docs, t)}: `));
    expect(line, r.stderr).toMatch(problem);
    expect(line).toMatch(/so its document adds nothing to the scores \(rebuild: npx nx run-many -t index\)$/);
    expect(r.stderr).toContain(`docs-score: ${join(docs, t, 'qa-pairs.md')}: golden-reference.md has no usable chunk manifest (see above), so its topic adds no question to the retrieval score`);
    // The other topic is still scored; the checks fail the damaged one (exit 1, not a crash).
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout) as ScoreResult;
    expect(Object.keys(result.retrieval!.corpora)).toEqual([TOPICS[1]]);
    expect(result.checks.findings.some((f) => f.file === manifestPath(docs, t))).toBe(true);
  };

  it.each(damages)('%s: named, left out of the scores, the rest scored', async (_what, damage, problem) => {
    const docs = damaged(damage, 3);
    expectNamed(await run([docs, '--qa', '--json']), docs, problem);
  });

  it('a manifest that is not valid JSON: named as such, not blamed on qa-pairs.md', async () => {
    const docs = damaged('not-json', 0);
    expectNamed(await run([docs, '--qa', '--json']), docs, /manifest unreadable: not valid JSON/);
    // Alone, the topic's questions cannot be scored: the usage error follows the lines naming why.
    const alone = await run([join(docs, t), '--qa']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/golden-reference\.json: manifest unreadable: not valid JSON.*\n.*qa-pairs\.md: golden-reference\.md has no usable chunk manifest/);
  });
});

describe('docs-score usage', () => {
  it('exits 2 on usage errors and prints truthful help', async () => {
    expect((await run([])).code).toBe(2);
    expect((await run([join(root, 'nope')])).code).toBe(2);
    // Issue 15: a dangling symlink was "no such folder", though it is there to fix.
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling-docs'));
    expect(await run([join(root, 'dangling-docs')])).toMatchObject({ code: 2, stderr: expect.stringContaining(`${join(root, 'dangling-docs')}: a dangling symlink (its target does not exist); fix or remove the link`) });
    // Issue 15 probe: '' scored the current folder, --config '' was ignored.
    expect(await run([''])).toMatchObject({ code: 2, stderr: expect.stringContaining('an empty argument (""); give a path') });
    expect(await run([pristine, '--config', ''])).toMatchObject({ code: 2, stderr: expect.stringContaining('--config: empty; give a value, or leave --config out') });
    // Issue 15 probe: a name too long was "no such folder"; a dangling --queries link "no such file".
    const long = join(root, 'x'.repeat(300));
    expect(await run([long])).toMatchObject({ code: 2, stderr: expect.stringContaining(`${long}: name too long (ENAMETOOLONG); use a shorter path`) });
    expect(await run([pristine, '--queries', join(root, 'dangling-docs')])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`--queries ${join(root, 'dangling-docs')}: a dangling symlink (its target does not exist); fix or remove the link`),
    });
    expect((await run([pristine, '--k', '0'])).code).toBe(2);
    // Issue 15: a negative number got util.parseArgs's "ambiguous" instead of the range message.
    for (const argv of [['--k', '-1'], ['--min-f1', '-0.5']]) {
      const neg = await run([pristine, ...argv]);
      expect(neg.code, argv.join(' ')).toBe(2);
      expect(neg.stderr).toContain(`${argv[0]}: expected a`);
      expect(neg.stderr).toContain(`got "${argv[1]}"`);
    }
    expect((await run([pristine, '--min-iou', '2'])).code).toBe(2);
    // Only plain decimals: Number() would read these as 1, 16, 0.5 and 0.
    for (const [name, v] of [['--min-recall', '0x1'], ['--min-pis', '0x10'], ['--min-f1', '5e-1'], ['--min-iou', '-0'], ['--min-pis', ' 50']]) {
      const bad = await run([pristine, `${name}=${v}`]);
      expect(bad.code, `${name}=${v}`).toBe(2);
      expect(bad.stderr).toContain(`${name}: expected a number from`);
    }
    expect((await run([pristine, '--qa', '--min-recall=.5', '--min-iou=0'])).code).not.toBe(2);
    expect((await run([pristine, '--min-pis=50.5'])).stderr).not.toContain('--min-pis: expected');
    expect((await run([pristine, '--bogus'])).code).toBe(2);
    // A folder or FIFO for --questions/--queries is a bad question file: exit 2 at once, before
    // the checks and any embedding (it was exit 1 "a directory, not a regular file" after them).
    const fifo = join(root, 'questions.fifo');
    execFileSync('mkfifo', [fifo]);
    for (const [opt, file, kind] of [['--questions', root, 'a directory'], ['--queries', root, 'a directory'], ['--questions', fifo, 'a FIFO (named pipe)']] as const) {
      const bad = await run([pristine, opt, file]);
      expect(bad, `${opt} ${kind}`).toEqual({ code: 2, stdout: '', stderr: `docs-score: ${opt} ${file}: ${kind}, not a regular file; give ${opt === '--queries' ? 'a queries.yaml file' : 'a CSV file (question,references,corpus_id)'}\nRun docs-score --help for usage.\n` });
    }
    // Question files and qa-pairs.md that are not UTF-8 say so (issue 15 probe): decoded with
    // replacement characters, a UTF-16 CSV was "Invalid Record Length: columns length is 3, got
    // 1 on line 2", a UTF-16 queries.yaml "expected a mapping with a `queries:` list".
    const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const advice = 'UTF-16 (little-endian) text (it starts with that byte order mark), not UTF-8; save it as UTF-8';
    const csv16 = join(root, 'q16.csv');
    writeFileSync(csv16, utf16('question,references,corpus_id\n'));
    const queries16 = join(root, 'q16.yaml');
    writeFileSync(queries16, utf16('queries:\n  - question: x\n'));
    for (const [opt, file] of [['--questions', csv16], ['--queries', queries16]] as const) {
      expect(await run([pristine, opt, file]), opt).toEqual({ code: 2, stdout: '', stderr: `docs-score: ${file}: ${advice}\nRun docs-score --help for usage.\n` });
    }
    const latin1 = copy();
    const qa = join(latin1, TOPICS[0]!, 'qa-pairs.md');
    writeFileSync(qa, Buffer.concat([readFileSync(qa), Buffer.from('\n## Caf\xe9?\n', 'latin1')]));
    const bad = await run([latin1, '--qa']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`docs-score: ${qa}: not valid UTF-8 (first bad byte at offset `);
    expect(bad.stderr).toContain('); save it as UTF-8\n');
    const empty = mkdtempSync(join(root, 'empty-'));
    const r = await run([empty]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no topic folder');
    const h = await run(['--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toBe(HELP);
  });
});

describe('docs-score options that need another', () => {
  // s39 probe: "--provider nope" was read as a provider after the checks ran and failed with
  // exit 1, "local embeddings: unknown provider "nope". Set embeddings.provider …", which
  // pointed at the config file for a word typed on the command line.
  it('--provider other than local, ollama or openai is a usage error, exit 2, before any work', async () => {
    for (const bad of ['nope', 'OLLAMA']) {
      expect(await run([pristine, '--qa', '--provider', bad])).toEqual({
        code: 2,
        stdout: '',
        stderr: `docs-score: --provider: expected local, ollama or openai, got "${bad}"\nRun docs-score --help for usage.\n`,
      });
    }
  });

  // s39 probe: a gate without the measurement it gates was ignored, exit 0, so a CI step
  // "docs-score docs --min-recall 0.9" (no --qa) passed whatever the retrieval.
  it.each([
    [['--min-recall', '0.9'], '--min-recall needs --qa or --questions FILE (the retrieval it gates)'],
    [['--min-iou', '0.1'], '--min-iou needs --qa or --questions FILE (the retrieval it gates)'],
    [['--provider', 'local'], '--provider needs --qa, --questions FILE or --queries FILE (the embedding it chooses)'],
    [['--min-f1', '0.5'], '--min-f1 needs --queries FILE (the evaluation it gates)'],
    [['--min-context-recall', '0.5'], '--min-context-recall needs --queries FILE (the evaluation it gates)'],
    [['--min-pis', '50'], '--min-pis needs --queries FILE (the evaluation it gates)'],
    [['--max-latency-delta', '20'], '--max-latency-delta needs --queries FILE (the evaluation it gates)'],
  ])('%s without what it applies to: exit 2', async (args, message) => {
    expect(await run([pristine, ...args])).toEqual({ code: 2, stdout: '', stderr: `docs-score: ${message}\nRun docs-score --help for usage.\n` });
  });
});

describe('docs-score --config', () => {
  it('a --config that is not a valid chunkyard config is a config error, exit 2 as the help says, naming file:line', async () => {
    // Found by probing: a parse or schema error in --config exited 1, as if a check had failed.
    const bad = join(root, 'bad-config.yaml');
    writeFileSync(bad, 'chunking:\n  maxTokens: 1e309\n');
    const r = await run([pristine, '--qa', '--config', bad]);
    expect(r.stderr).toContain(`${bad}:2`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(2);
    const foreign = join(root, 'foreign.yaml');
    writeFileSync(foreign, 'name: x\n');
    expect((await run([pristine, '--qa', '--config', foreign])).code).toBe(2);
    expect(HELP).toContain('2 usage or config error');
    expect(HELP).toContain('-100..10000');
  });

  it('a --config given is read and checked without --qa, --questions or --queries too: missing or invalid is exit 2', async () => {
    // Found by probing: the checks alone never opened --config, so a typo in its path or a
    // broken file passed silently (exit 0), and only a later --qa run reported it.
    const missing = join(root, 'no-such-config.yaml');
    const m = await run([pristine, '--config', missing]);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain(missing);
    expect(m.stderr).not.toMatch(/\n\s+at /);
    expect(m.stdout).toBe('');
    const bad = join(root, 'bad-config-checks.yaml');
    writeFileSync(bad, 'chunking:\n  maxTokens: 1e309\n');
    const b = await run([pristine, '--config', bad]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain(`${bad}:2`);
    expect(b.stdout).toBe('');
    // A valid one changes nothing for the checks.
    expect((await run([pristine, '--config', join(root, 'chunkyard.config.yaml')])).code).toBe(0);
  });
});
