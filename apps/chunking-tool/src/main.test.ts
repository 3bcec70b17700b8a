// Tests of the chunking-tool CLI: `main(argv, io)` in-process against real temp folders
// (absolute paths and an explicit --config, so neither the working directory nor the
// repository's own chunkyard.config.yaml matter), plus the built bin run as a user would.
// No mocks: real config files, real chunking, real atomic writes.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { chunkDocument, chunkDocumentStream } from '@chunkyard/chunking';
import { HELP, main, MANIFEST_SCHEMA_VERSION } from './main.js';
import { outputSeam, type OutputPhase } from './seam.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const CORPUS_DOC = '/work/shared/corpora/dotnet-docs/docs/standard/serialization/system-text-json/source-generation.md';

const TABLE_SECTION = `
## Option reference

The table lists the options that matter most when you configure source generation.

| Option | Type | Default | Effect |
| ------ | ---- | ------- | ------ |
| \`GenerationMode\` | enum | \`Default\` | Chooses metadata, serialization or both. |
| \`WriteIndented\` | bool | \`false\` | Pretty-prints the JSON output. |
| \`PropertyNamingPolicy\` | enum | \`Unspecified\` | Renames properties, for example to camel case. |
| \`UseStringEnumConverter\` | bool | \`false\` | Writes enum values as strings. |

Each option can also be set on a \`JsonSerializerOptions\` instance at run time.
`;

/** A generated stand-in for the corpus document: headings, prose, fenced code and a table. */
function generatedDoc(): string {
  const sections = ['Install', 'Configure', 'Serialize', 'Deserialize', 'Troubleshoot', 'Performance'];
  const prose = (topic: string, n: number) =>
    Array.from(
      { length: n },
      (_, i) =>
        `The ${topic.toLowerCase()} step ${i + 1} explains one part of the workflow in plain sentences. ` +
        `It names the types involved, says when to use them, and points out the usual mistakes. ` +
        `Readers who skip ahead can come back to this paragraph later without losing the thread.`,
    ).join('\n\n');
  return (
    `# Generated reference guide\n\nAn introduction that says what this guide covers and who it is for.\n\n` +
    sections
      .map(
        (s) =>
          `## ${s}\n\n${prose(s, 5)}\n\n\`\`\`csharp\n// ${s} example\nvar options = new JsonSerializerOptions { WriteIndented = true };\n` +
          `string json = JsonSerializer.Serialize(value, options);\nConsole.WriteLine(json);\n\`\`\`\n\n${prose(`${s} follow-up`, 2)}\n`,
      )
      .join('\n')
  );
}

/** The golden reference used throughout: a real docs page (plus a table) when available. */
const GOLDEN = `${existsSync(CORPUS_DOC) ? readFileSync(CORPUS_DOC, 'utf8').trimEnd() : generatedDoc().trimEnd()}\n${TABLE_SECTION}`;

/** A smaller document for plain-file and multi-document tests (2+ chunks). */
const SMALL = [
  '# Small guide',
  '',
  'A short introduction paragraph that explains what the small guide is about and why anyone would read it.',
  '',
  '## Usage',
  '',
  ...Array.from({ length: 12 }, (_, i) => `Usage sentence ${i + 1} describes another detail of running the tool on a folder of markdown files.`),
  '',
  '```sh',
  'chunking-tool docs/guide --json',
  '```',
  '',
  '## Notes',
  '',
  ...Array.from({ length: 12 }, (_, i) => `Note ${i + 1} keeps the section long enough that it becomes a chunk of its own in the output.`),
  '',
].join('\n');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(argv: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}

/** Every file below `dir` as relative path → bytes (hex), for byte-exact comparisons. */
/**
 * `root/x/settings.md`, whose `_chunks` is a symlink to `root/decoy` (holding a file and a
 * `settings-1.md` file mode would otherwise write over or remove), and the decoy's snapshot.
 */
function linkedChunksFolder(): { x: string; decoy: string; before: Record<string, string> } {
  const x = join(root, 'x');
  const decoy = join(root, 'decoy');
  mkdirSync(x);
  mkdirSync(decoy);
  writeFileSync(join(x, 'settings.md'), SMALL);
  writeFileSync(join(decoy, 'guide.json'), '{"keep": true}\n');
  writeFileSync(join(decoy, 'settings-1.md'), 'not ours to remove');
  symlinkSync(decoy, join(x, '_chunks'));
  return { x, decoy, before: snapshot(decoy) };
}

function snapshot(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const rel = `${prefix}${e.name}`;
    if (e.isDirectory()) Object.assign(out, snapshot(join(dir, e.name), `${rel}/`));
    else out[rel] = readFileSync(join(dir, e.name)).toString('hex');
  }
  return out;
}

const sorted = (a: Iterable<string>) => [...a].sort();
const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

interface Manifest {
  schemaVersion: number;
  source: string;
  sourceSha256: string;
  strategy: string;
  strategyKey: string;
  options: Record<string, unknown>;
  fileTitle: string;
  frontMatter: { start: number; end: number } | null;
  chunks: {
    id: string;
    chunkNumber: number;
    contentType: string;
    originalText: string;
    embedText: string;
    splitUnit: boolean;
    containsTable: boolean;
    nodeTypes: string[];
    prevId: string | null;
    nextId: string | null;
    sourcePosition: { charStart: number; charEnd: number; totalChars: number };
    tokenStats: { tokens: number; estimatedTokens: number; embedTokens: number };
    metadata: { sourceFile: string; chunkingOptions: Record<string, unknown> };
    source: { filePath: string; startLine: number; endLine: number };
  }[];
}
const readManifest = (file: string): Manifest => JSON.parse(readFileSync(file, 'utf8')) as Manifest;

/** Expected output names of document `name` with `n` chunks. */
const outputNames = (name: string, n: number) => sorted([...Array.from({ length: n }, (_, i) => `${name}-${i}.md`), `${name}.json`]);

let root: string;
let config: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-cli-'));
  config = join(root, 'chunkyard.config.yaml');
  writeFileSync(config, 'chunking:\n  strategy: semantic\n');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** Creates a topic folder `name` in the temp root holding golden-reference.md (and extra files). */
function makeTopic(name = 'topic', files: Record<string, string | Buffer> = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'golden-reference.md'), GOLDEN);
  for (const [f, data] of Object.entries(files)) writeFileSync(join(dir, f), data);
  return dir;
}

describe('names holding line breaks', () => {
  it('a topic or file whose name holds a newline or tab is shown on one line, escaped, in results and errors', async () => {
    const topic = makeTopic('line\nbreak\tx');
    const ok = await run([topic]);
    expect(ok.code).toBe(0);
    expect(ok.stdout.split('\n')).toHaveLength(2); // one line and the final newline
    expect(ok.stdout).toContain('line\\u000abreak\\u0009x/golden-reference.md: ');
    // A file so named is refused before it is read (its name would go into every chunk id,
    // b420e31), in one line naming it escaped.
    const bad = join(topic, 'bad\nname.md');
    writeFileSync(bad, Buffer.from([0x23, 0x20, 0xff, 0xfe]));
    const failed = await run([bad]);
    expect(failed.code).toBe(2);
    expect(failed.stderr.split('\n')).toHaveLength(2);
    expect(failed.stderr).toMatch(/^chunking-tool: .*line\\u000abreak\\u0009x\/bad\\u000aname\.md: its name goes into every chunk id .* \(U\+000A\); rename the file without it$/m);
  });
});

describe('the title of a document that names none', () => {
  it("a topic's golden-reference.md without front matter title or H1 is titled by the topic's folder; other documents keep their own name", async () => {
    const body = 'Install the tool with npm, then run it once on your docs folder.\n\nEach topic folder gets its own chunks.\n';
    const topic = makeTopic('install-guide', { 'topic.yaml': 'sources:\n  - golden-reference.md\n  - extra-notes.md\n', 'extra-notes.md': body });
    writeFileSync(join(topic, 'golden-reference.md'), body);
    expect((await run(['--config', config, topic])).code).toBe(0);
    const golden = readManifest(join(topic, '_chunks', 'golden-reference.json'));
    expect(golden.fileTitle).toBe('install-guide');
    // (Whether the title opens a chunk's embedText is breadcrumbMode's call; it is never the file's name.)
    for (const c of golden.chunks) expect(c.embedText).not.toContain('golden-reference');
    expect(readManifest(join(topic, '_chunks', 'extra-notes.json')).fileTitle).toBe('extra-notes');
    // Named as a file, the same document gets the same title.
    const out = join(root, 'as-file');
    expect((await run(['--config', config, '--out', out, join(topic, 'golden-reference.md')])).code).toBe(0);
    expect(readManifest(join(out, 'golden-reference.json')).fileTitle).toBe('install-guide');
    // An H1 (or a front matter title) still names it.
    writeFileSync(join(topic, 'golden-reference.md'), `# Installing the CLI\n\n${body}`);
    expect((await run(['--config', config, topic])).code).toBe(0);
    expect(readManifest(join(topic, '_chunks', 'golden-reference.json')).fileTitle).toBe('Installing the CLI');
  });
});

describe('chunking a topic folder', () => {
  it('writes golden-reference-0..N.md and golden-reference.json into <topic>/_chunks', async () => {
    const topic = makeTopic();
    const r = await run(['--config', config, topic]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);

    const outDir = join(topic, '_chunks');
    const manifest = readManifest(join(outDir, 'golden-reference.json'));
    const n = manifest.chunks.length;
    expect(n).toBeGreaterThanOrEqual(3);
    expect(sorted(readdirSync(outDir))).toEqual(outputNames('golden-reference', n));
    // Nothing else appears in the topic folder (no temp dirs left over).
    expect(sorted(readdirSync(topic))).toEqual(['_chunks', 'golden-reference.md']);

    // Each chunk file holds exactly that chunk's original text.
    manifest.chunks.forEach((c, i) => {
      expect(readFileSync(join(outDir, `golden-reference-${i}.md`), 'utf8')).toBe(c.originalText);
    });

    // The text summary names the document, the chunk count and the strategy key.
    expect(r.stdout).toContain(`${topic}/golden-reference.md: ${n} chunks`);
    expect(r.stdout).toContain('(semantic-16-80-512)');
  });

  it('counts one chunk and one token in the singular (it printed "1 chunks, 1 tokens")', async () => {
    const one = join(root, 'one');
    mkdirSync(one, { recursive: true });
    writeFileSync(join(one, 'golden-reference.md'), 'x\n');
    const r = await run(['--config', config, one]);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(`${one}/golden-reference.md: 1 chunk, 1 token (semantic-16-80-512) -> `)).toBe(true);
  });

  it('writes a manifest with the schema fields, options, title and exact source positions', async () => {
    const topic = makeTopic();
    expect((await run(['--config', config, topic])).code).toBe(0);
    const source = readFileSync(join(topic, 'golden-reference.md'), 'utf8');
    const raw = readFileSync(join(topic, '_chunks', 'golden-reference.json'), 'utf8');
    expect(raw.endsWith('}\n')).toBe(true);
    const m = JSON.parse(raw) as Manifest;

    expect(Object.keys(m)).toEqual(['schemaVersion', 'source', 'sourceSha256', 'strategy', 'strategyKey', 'options', 'fileTitle', 'frontMatter', 'headingDetection', 'removed', 'chunks']);
    expect(m.schemaVersion).toBe(1);
    expect(MANIFEST_SCHEMA_VERSION).toBe(1);
    expect(m.source).toBe('golden-reference.md');
    expect(m.sourceSha256).toBe(sha256(source));
    expect(m.sourceSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(m.strategy).toBe('semantic');
    expect(m.strategyKey).toBe('semantic-16-80-512');
    expect(m.options).toEqual({
      docName: 'golden-reference',
      contentType: 'doc',
      strategy: 'semantic',
      minTokens: 16,
      targetTokens: 80,
      maxTokens: 512,
      overlapSentences: 0,
      breadcrumbMode: 'conditional',
      parser: 'fast',
    });
    if (existsSync(CORPUS_DOC)) {
      expect(m.fileTitle).toBe('How to use source generation in System.Text.Json');
      // The YAML front matter is recorded and not chunked.
      expect(m.frontMatter).not.toBeNull();
      expect(source.slice(m.frontMatter!.start, m.frontMatter!.end)).toMatch(/^---\n[\s\S]*\n---/);
      expect(m.chunks.every((c) => c.sourcePosition.charStart >= m.frontMatter!.end)).toBe(true);
    } else {
      expect(m.fileTitle).toBe('Generated reference guide');
    }

    let exact = 0;
    m.chunks.forEach((c, i) => {
      expect(c.id).toBe(`doc:golden-reference::ch${i}`);
      expect(c.chunkNumber).toBe(i);
      expect(c.contentType).toBe('doc');
      expect(c.prevId).toBe(i === 0 ? null : `doc:golden-reference::ch${i - 1}`);
      expect(c.nextId).toBe(i === m.chunks.length - 1 ? null : `doc:golden-reference::ch${i + 1}`);
      expect(c.sourcePosition.totalChars).toBe(source.length);
      expect(c.sourcePosition.charStart).toBeLessThan(c.sourcePosition.charEnd);
      expect(c.sourcePosition.charEnd).toBeLessThanOrEqual(source.length);
      expect(c.metadata.sourceFile).toBe('golden-reference.md');
      expect(c.metadata.chunkingOptions).toEqual(m.options);
      expect(c.tokenStats.tokens).toBeGreaterThan(0);
      expect(c.tokenStats.tokens).toBeLessThanOrEqual(512);
      if (!c.splitUnit) {
        expect(source.slice(c.sourcePosition.charStart, c.sourcePosition.charEnd)).toBe(c.originalText);
        exact++;
      }
      // Seed 002's source lines: 1-based, inclusive, the lines of the file holding the chunk.
      expect(c.source.filePath).toBe('golden-reference.md');
      const lines = source.split('\n');
      expect(source.slice(0, c.sourcePosition.charStart).split('\n').length).toBe(c.source.startLine);
      if (!c.splitUnit) expect(lines.slice(c.source.startLine - 1, c.source.endLine).join('\n')).toContain(c.originalText.replace(/\n$/, ''));
    });
    expect(exact).toBeGreaterThanOrEqual(3);
    // Chunks appear in document order.
    for (let i = 1; i < m.chunks.length; i++) {
      expect(m.chunks[i]!.sourcePosition.charStart).toBeGreaterThan(m.chunks[i - 1]!.sourcePosition.charStart);
    }
    // The document's code block and table both made it into chunks.
    expect(m.chunks.some((c) => c.nodeTypes.includes('code'))).toBe(true);
    expect(m.chunks.some((c) => c.containsTable && c.originalText.includes('| `WriteIndented` | bool |'))).toBe(true);
    expect(m.chunks.some((c) => c.originalText.includes('```'))).toBe(true);
  });

  it('is deterministic: a second run gives byte-identical outputs, and so does the same topic elsewhere', async () => {
    const topic = makeTopic('a');
    expect((await run(['--config', config, topic])).code).toBe(0);
    const first = snapshot(join(topic, '_chunks'));
    expect(Object.keys(first).length).toBeGreaterThanOrEqual(4);

    expect((await run(['--config', config, topic])).code).toBe(0);
    expect(snapshot(join(topic, '_chunks'))).toEqual(first);

    // No absolute paths or timestamps leak into the outputs.
    const copy = makeTopic('deeper/elsewhere/b');
    expect((await run(['--config', config, copy])).code).toBe(0);
    expect(snapshot(join(copy, '_chunks'))).toEqual(first);
    expect(readFileSync(join(topic, '_chunks', 'golden-reference.json'), 'utf8')).not.toContain(root);
  });

  it('removes stale files of an earlier run from _chunks', async () => {
    const topic = makeTopic();
    const outDir = join(topic, '_chunks');
    mkdirSync(outDir);
    writeFileSync(join(outDir, 'golden-reference-99.md'), 'stale chunk');
    writeFileSync(join(outDir, 'other.txt'), 'stale other');
    expect((await run(['--config', config, topic])).code).toBe(0);
    expect(existsSync(join(outDir, 'golden-reference-99.md'))).toBe(false);
    expect(existsSync(join(outDir, 'other.txt'))).toBe(false);
    const n = readManifest(join(outDir, 'golden-reference.json')).chunks.length;
    expect(sorted(readdirSync(outDir))).toEqual(outputNames('golden-reference', n));
  });

  it('a topic.yaml listing several sources writes all of them into _chunks', async () => {
    const topic = makeTopic('multi', { 'topic.yaml': 'sources:\n  - golden-reference.md\n  - small.md\n', 'small.md': SMALL });
    const r = await run(['--config', config, '--json', topic]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const outDir = join(topic, '_chunks');
    const g = readManifest(join(outDir, 'golden-reference.json')).chunks.length;
    const s = readManifest(join(outDir, 'small.json')).chunks.length;
    expect(sorted(readdirSync(outDir))).toEqual(sorted([...outputNames('golden-reference', g), ...outputNames('small', s)]));
    const summary = JSON.parse(r.stdout) as { documents: { source: string }[] };
    expect(summary.documents.map((d) => d.source)).toEqual([join(topic, 'golden-reference.md'), join(topic, 'small.md')]);
  });
});

describe('plain files and --out', () => {
  it('a plain file X.md without --out writes into <its folder>/_chunks', async () => {
    const dir = join(root, 'notes');
    mkdirSync(dir);
    writeFileSync(join(dir, 'X.md'), SMALL);
    const r = await run(['--config', config, join(dir, 'X.md')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const m = readManifest(join(dir, '_chunks', 'X.json'));
    expect(m.source).toBe('X.md');
    expect(m.chunks.length).toBeGreaterThanOrEqual(2);
    expect(sorted(readdirSync(join(dir, '_chunks')))).toEqual(outputNames('X', m.chunks.length));
    expect(m.chunks[0]!.id).toBe('doc:X::ch0');
  });

  it('--out DIR with X.md writes DIR/X-0.md… and DIR/X.json, drops stale X-N.md, keeps unrelated files', async () => {
    const src = join(root, 'src');
    const out = join(root, 'out');
    mkdirSync(src);
    mkdirSync(out);
    writeFileSync(join(src, 'X.md'), SMALL);
    writeFileSync(join(out, 'X-50.md'), 'stale chunk of X');
    // The manifest of the earlier run that wrote X-50.md: it listed 51 chunks.
    writeFileSync(join(out, 'X.json'), `${JSON.stringify({ schemaVersion: 1, source: 'X.md', chunks: Array.from({ length: 51 }, (_, i) => ({ chunkNumber: i })) }, null, 2)}\n`);
    writeFileSync(join(out, 'Y-0.md'), 'chunk of another document');
    writeFileSync(join(out, 'Y.json'), '{"other": true}\n');
    writeFileSync(join(out, 'X-notes.md'), 'not a chunk name');

    const r = await run(['--config', config, '--out', out, join(src, 'X.md')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);

    const m = readManifest(join(out, 'X.json'));
    const n = m.chunks.length;
    expect(n).toBeGreaterThanOrEqual(2);
    expect(sorted(readdirSync(out))).toEqual(sorted([...outputNames('X', n), 'Y-0.md', 'Y.json', 'X-notes.md']));
    expect(readFileSync(join(out, 'Y-0.md'), 'utf8')).toBe('chunk of another document');
    expect(readFileSync(join(out, 'Y.json'), 'utf8')).toBe('{"other": true}\n');
    m.chunks.forEach((c, i) => expect(readFileSync(join(out, `X-${i}.md`), 'utf8')).toBe(c.originalText));
    expect(m.sourceSha256).toBe(sha256(SMALL));
    // Nothing is written beside the source.
    expect(readdirSync(src)).toEqual(['X.md']);
  });

  it('--out DIR that does not exist yet is created', async () => {
    const out = join(root, 'new', 'out');
    writeFileSync(join(root, 'X.md'), SMALL);
    expect((await run(['--config', config, '--out', out, join(root, 'X.md')])).code).toBe(0);
    expect(readdirSync(out)).toContain('X.json');
  });

  it('--out with a topic writes the topic outputs there and leaves the topic folder alone', async () => {
    const topic = makeTopic();
    const out = join(root, 'out');
    mkdirSync(out);
    writeFileSync(join(out, 'keep.txt'), 'unrelated');
    const r = await run(['--config', config, '--out', out, topic]);
    expect(r.code).toBe(0);
    expect(readdirSync(topic)).toEqual(['golden-reference.md']);
    const n = readManifest(join(out, 'golden-reference.json')).chunks.length;
    expect(sorted(readdirSync(out))).toEqual(sorted([...outputNames('golden-reference', n), 'keep.txt']));
  });

  it('a second, shorter run of a file removes the chunk files it no longer produces', async () => {
    const out = join(root, 'out');
    const file = join(root, 'X.md');
    writeFileSync(file, GOLDEN);
    expect((await run(['--config', config, '--out', out, file])).code).toBe(0);
    const before = readManifest(join(out, 'X.json')).chunks.length;
    writeFileSync(file, SMALL);
    expect((await run(['--config', config, '--out', out, file])).code).toBe(0);
    const after = readManifest(join(out, 'X.json')).chunks.length;
    expect(after).toBeLessThan(before);
    expect(sorted(readdirSync(out))).toEqual(outputNames('X', after));
  });

  it('a file whose <folder>/_chunks is a symlink: refused before anything is written or removed where it leads; exit 1, other folders still written (issue 15 probe)', async () => {
    // A linked _chunks committed in a docs tree made file mode write settings.json and
    // settings-N.md into the folder it led to, and remove that folder's settings-*.md.
    const { x, decoy, before } = linkedChunksFolder();
    const y = join(root, 'y');
    mkdirSync(y);
    writeFileSync(join(y, 'other.md'), SMALL);

    const r = await run(['--config', config, join(x, 'settings.md'), join(y, 'other.md')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`chunking-tool: ${join(x, '_chunks')}: is a symlink (it points to ${decoy}); a generated output is never written through a link, so nothing was written; remove the link and run again\n`);
    expect(snapshot(decoy)).toEqual(before);
    expect(readdirSync(decoy).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(lstatSync(join(x, '_chunks')).isSymbolicLink()).toBe(true);
    expect(readdirSync(join(y, '_chunks'))).toContain('other.json');
    expect(r.stdout).toContain('other.md');
    expect(r.stdout).not.toContain('settings.md');

    // --out naming the same link is the user's own choice of folder: written through.
    expect((await run(['--config', config, '--out', join(x, '_chunks'), join(x, 'settings.md')])).code).toBe(0);
    expect(readdirSync(decoy)).toContain('settings.json');
  });
});

describe('a folder where an --out output goes (issue 15 probe: the renames before it landed)', () => {
  it('exit 1 naming that output; none of the new outputs land, the earlier ones stay as they were', async () => {
    const out = join(root, 'notes');
    const doc = join(root, 'guide.md');
    writeFileSync(doc, SMALL);
    expect((await run(['--config', config, doc, '--out', out])).code).toBe(0);
    const chunkFiles = readdirSync(out).filter((e) => /^guide-\d+\.md$/.test(e));
    expect(chunkFiles.length).toBeGreaterThan(1);
    // The last chunk file is a folder now (a user's, or a copy gone wrong).
    const last = `guide-${chunkFiles.length - 1}.md`;
    rmSync(join(out, last));
    mkdirSync(join(out, last));
    const before = snapshot(out);
    writeFileSync(doc, SMALL.replace(/Usage sentence/g, 'Changed sentence'));
    const r = await run(['--config', config, doc, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`chunking-tool: ${join(out, last)}: is a folder where a file is expected (EISDIR); remove or rename that folder\n`);
    // It landed guide.json and the chunk files before that one: a new manifest beside old chunks.
    expect(snapshot(out)).toEqual(before);
    expect(readdirSync(out).filter((e) => e.includes('.tmp-'))).toEqual([]);
  });
});

describe('a rename into --out that fails part-way (issue 15 probe: an immutable output left a new manifest beside old chunks)', () => {
  afterEach(() => {
    outputSeam.reached = () => {};
  });

  /** Two documents built into `notes`, then changed: what a rerun should replace whole or not at all. */
  async function builtTwice() {
    const out = join(root, 'notes');
    const docs = [join(root, 'guide.md'), join(root, 'intro.md')];
    for (const doc of docs) writeFileSync(doc, SMALL);
    expect((await run(['--config', config, ...docs, '--out', out])).code).toBe(0);
    writeFileSync(join(out, 'mine.md'), 'the user\'s own file');
    for (const doc of docs) writeFileSync(doc, `${SMALL.replace(/Usage sentence/g, 'Changed sentence')}\n## More\n\nA new section, so one more chunk file than before.\n`);
    return { out, docs };
  }

  it('a later output that cannot be replaced once the renames began: exit 1 naming it, every output as before, nothing new left', async () => {
    const { out, docs } = await builtTwice();
    const before = snapshot(out);
    // Made a folder only after the look for folders at output names, as a rename that fails
    // for any other reason would fail: after some outputs had landed.
    const blocked = join(out, 'intro-1.md');
    let renames = 0;
    outputSeam.reached = (at) => {
      if (at !== 'moved' || ++renames !== 3) return;
      rmSync(blocked);
      mkdirSync(blocked);
      writeFileSync(join(blocked, 'keep'), '');
    };
    const r = await run(['--config', config, ...docs, '--out', out]);
    // Outputs had landed before the one that failed: those are what must be undone.
    expect(renames).toBeGreaterThanOrEqual(3);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${blocked}: `);
    rmSync(blocked, { recursive: true });
    writeFileSync(blocked, Buffer.from(before['intro-1.md']!, 'hex'));
    expect(snapshot(out)).toEqual(before);
    expect(readdirSync(out).filter((e) => e.startsWith('.'))).toEqual([]);
  });

  const root0 = process.getuid?.() === 0;
  const chattr = root0 && spawnSync('chattr', ['--help']).error === undefined;
  it.skipIf(!chattr)('an immutable output (chattr +i, as root): exit 1 naming it, every output as before', async () => {
    const { out, docs } = await builtTwice();
    const before = snapshot(out);
    const immutable = join(out, 'intro-1.md');
    const set = spawnSync('chattr', ['+i', immutable]);
    if (set.status !== 0) return; // a file system without the attribute (tmpfs): nothing to show
    try {
      const r = await run(['--config', config, ...docs, '--out', out]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(immutable);
      expect(snapshot(out)).toEqual(before);
    } finally {
      spawnSync('chattr', ['-i', immutable]);
    }
  });
});

describe('stale chunk files of many documents in one folder (issue 15 probe: 3,000 files took 12 s to rerun, 1,000 took 2 s)', () => {
  afterEach(() => {
    outputSeam.reached = () => {};
  });

  it('lists the folder once, and removes exactly the stale files, names with dashes and digits included', async () => {
    const names = ['a', 'a-1', 'a-', 'a-1-2', '2', 'b-10', ...Array.from({ length: 60 }, (_, i) => `doc-${i}`)];
    const files = names.map((n) => join(root, `${n}.md`));
    for (const f of files) writeFileSync(f, SMALL);
    expect((await run(['--config', config, ...files])).code).toBe(0);
    // Every document now has one chunk: each one's other chunk files are stale.
    for (const f of files) writeFileSync(f, '# One\n\nA document short enough to be one chunk.\n');
    writeFileSync(join(root, '_chunks', 'notes.md'), 'not a chunk file of any document here');
    let listed = 0;
    outputSeam.reached = (at, dir) => {
      if (at === 'listed' && resolve(dir) === join(root, '_chunks')) listed++;
    };
    expect((await run(['--config', config, ...files])).code).toBe(0);
    expect(listed).toBe(1);
    const want = ['notes.md', ...names.flatMap((n) => [`${n}-0.md`, `${n}.json`])];
    expect(sorted(readdirSync(join(root, '_chunks')))).toEqual(sorted(want));
  });
});

describe('a file\'s _chunks swapped for a symlink after the look (issue 15: checked once, a link made later was written through)', () => {
  afterEach(() => {
    outputSeam.reached = () => {};
  });

  /**
   * `root/x/settings.md` with a previous run's `_chunks` (or none), a decoy folder holding what
   * file mode would write over or remove, and a seam that, at `phase`, moves the real
   * `_chunks` aside to `root/moved` and puts a link to the decoy in its place.
   */
  async function swapAt(phase: OutputPhase, built: boolean) {
    const x = join(root, 'x');
    const decoy = join(root, 'decoy');
    mkdirSync(x);
    mkdirSync(decoy);
    writeFileSync(join(x, 'settings.md'), SMALL);
    writeFileSync(join(decoy, 'settings.json'), '{"keep": true}\n');
    writeFileSync(join(decoy, 'settings-1.md'), 'not ours to write over');
    writeFileSync(join(decoy, 'settings-99.md'), 'not ours to remove');
    const before = snapshot(decoy);
    if (built) {
      expect((await run(['--config', config, join(x, 'settings.md')])).code).toBe(0);
      writeFileSync(join(x, '_chunks', 'settings-99.md'), 'a stale chunk of an earlier run');
    }
    const chunks = join(x, '_chunks');
    let swapped = 0;
    outputSeam.reached = (at, dir) => {
      if (at !== phase || resolve(dir) !== chunks) return;
      if (existsSync(chunks)) renameSync(chunks, join(root, 'moved'));
      symlinkSync(decoy, chunks);
      swapped++;
    };
    const r = await run(['--config', config, join(x, 'settings.md')]);
    expect(swapped).toBe(1);
    return { r, decoy, before, chunks };
  }

  const refused = (chunks: string, decoy: string) =>
    `chunking-tool: ${chunks}: is a symlink (it points to ${decoy}); a generated output is never written through a link, so nothing was written; remove the link and run again\n`;

  it.each([true, false])('a link made after the look, before anything is staged (a _chunks there before: %s): refused, nothing written through it', async (built) => {
    const { r, decoy, before, chunks } = await swapAt('checked', built);
    expect(r).toEqual({ code: 1, stdout: '', stderr: refused(chunks, decoy) });
    expect(snapshot(decoy)).toEqual(before);
    if (built) expect(sorted(readdirSync(join(root, 'moved'))).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('a link made while the outputs are staged: refused before they are moved in, nothing written through it, the stage removed', async () => {
    const { r, decoy, before, chunks } = await swapAt('staged', true);
    expect(r).toEqual({ code: 1, stdout: '', stderr: refused(chunks, decoy) });
    expect(snapshot(decoy)).toEqual(before);
    // The real folder, moved aside, keeps the previous outputs; the stage in it is removed
    // through the pin (without /proc the plain path leads to the link, and the stage is left
    // for a later run's sweep of killed runs' temps).
    const moved = readdirSync(join(root, 'moved'));
    expect(moved).toContain('settings-99.md');
    if (existsSync('/proc/self/fd')) expect(moved.filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it.runIf(existsSync('/proc/self/fd'))('a link made after the last look, right before the renames: they still land in the folder looked at, never through the link', async () => {
    const { r, decoy, before } = await swapAt('moving', true);
    expect(r.code).toBe(0);
    expect(snapshot(decoy)).toEqual(before);
    // The outputs went into the folder that was looked at (now moved aside), stale files removed there.
    const m = readManifest(join(root, 'moved', 'settings.json'));
    expect(sorted(readdirSync(join(root, 'moved')))).toEqual(outputNames('settings', m.chunks.length));
  });
});

describe('--json and --help', () => {
  it('--json prints {documents, errors} with one summary per document', async () => {
    const topic = makeTopic();
    const r = await run(['--config', config, '--json', topic]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const summary = JSON.parse(r.stdout) as { documents: Record<string, unknown>[]; errors: unknown[] };
    expect(Object.keys(summary)).toEqual(['documents', 'errors']);
    expect(summary.errors).toEqual([]);
    const m = readManifest(join(topic, '_chunks', 'golden-reference.json'));
    expect(summary.documents).toEqual([
      {
        source: join(topic, 'golden-reference.md'),
        out: relative(process.cwd(), join(topic, '_chunks')),
        chunks: m.chunks.length,
        strategyKey: 'semantic-16-80-512',
        tokens: m.chunks.reduce((n, c) => n + c.tokenStats.tokens, 0),
      },
    ]);
  });

  it('--json lists failed documents under errors', async () => {
    const good = join(root, 'good.md');
    const bad = join(root, 'bad.md');
    writeFileSync(good, SMALL);
    writeFileSync(bad, '');
    const r = await run(['--config', config, '--json', good, bad]);
    expect(r.code).toBe(1);
    const summary = JSON.parse(r.stdout) as { documents: { source: string }[]; errors: { source: string; error: string }[] };
    expect(summary.documents.map((d) => d.source)).toEqual([good]);
    expect(summary.errors).toEqual([{ source: bad, error: 'empty file; write its text, or remove it' }]);
  });

  it('--help exits 0 and documents every option', async () => {
    for (const flag of ['--help', '-h']) {
      const r = await run([flag]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(HELP);
      for (const option of ['--out', '--config', '--content-type', '--strategy', '--json', '--help']) {
        expect(r.stdout).toContain(option);
      }
      expect(r.stdout).toContain('Usage:');
      expect(r.stdout).toContain('Exit status');
    }
  });

  it('--help wins over other arguments and writes nothing', async () => {
    const topic = makeTopic();
    const r = await run(['--config', config, topic, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(HELP);
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
  });
});

describe('exit 2: usage and config errors (nothing written)', () => {
  async function expectUsage(argv: string[], ...messageParts: string[]): Promise<Run> {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.startsWith('chunking-tool: ')).toBe(true);
    for (const part of messageParts) expect(r.stderr).toContain(part);
    return r;
  }

  it('a config with several problems lists each on its own line, as file:line (s33 probe: they were joined by a literal \\u000a)', async () => {
    const topic = makeTopic();
    const config = join(root, 'two-problems.yaml');
    writeFileSync(config, 'chunking:\n  minTokens: 1000\n  targetTokens: 2000\n  maxTokens: 17\n  windowTokens: 16\n  windowOverlapTokens: 1000000\n');
    const r = await expectUsage([topic, '--config', config]);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^chunking-tool: ${config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: `));
    expect(lines[1]).toMatch(new RegExp(`^chunking-tool: ${config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: chunking.windowTokens`));
    expect(r.stderr).not.toContain('\\u000a');
  });

  it('an empty --out, --config or argument is a usage error; --out "" wrote the chunk files into the current folder (issue 15 probe)', async () => {
    const topic = makeTopic();
    const here = mkdtempSync(join(root, 'cwd-'));
    const cwd = process.cwd();
    process.chdir(here);
    try {
      await expectUsage([topic, '--out', ''], '--out: empty; give a value, or leave --out out');
      await expectUsage([topic, '--config', ''], '--config: empty; give a value, or leave --config out');
      await expectUsage([topic, ''], 'an empty argument (""); give a path');
    } finally {
      process.chdir(cwd);
    }
    expect(readdirSync(here)).toEqual([]);
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
  });

  it('no arguments', async () => {
    const r = await expectUsage([], 'no topic folder or markdown file given');
    expect(r.stderr).toContain('--help');
  });

  it('--out naming a file or a device is a usage error; it was "already exists (EEXIST); remove it", of the source itself (issue 15)', async () => {
    const topic = makeTopic();
    const source = join(topic, 'golden-reference.md');
    const before = readFileSync(source);
    await expectUsage(['--config', config, topic, '--out', source], `--out ${source}: a file, not a folder; give a folder (or one not yet made)`);
    await expectUsage(['--config', config, source, '--out', '/dev/null'], '--out /dev/null: a character device, not a folder; give a folder (or one not yet made)');
    expect(readFileSync(source).equals(before)).toBe(true);
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
  });

  it('a negative number as an option value gets the option\'s own message, not parseArgs\'s "ambiguous" (issue 15)', async () => {
    const topic = makeTopic();
    const r = await expectUsage(['--config', config, '--strategy', '-1', topic], '--strategy: unknown strategy "-1"');
    expect(r.stderr).not.toContain('ambiguous');
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
  });

  it('an unknown option', async () => {
    const topic = makeTopic();
    await expectUsage(['--config', config, '--bogus', topic], '--bogus');
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
  });

  it('an option missing its value', async () => {
    await expectUsage(['--out'], '--out');
  });

  it('--strategy bogus', async () => {
    const topic = makeTopic();
    await expectUsage(['--config', config, '--strategy', 'bogus', topic], '--strategy', '"bogus"', 'semantic');
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
  });

  it('--strategy semantic is accepted', async () => {
    const topic = makeTopic();
    expect((await run(['--config', config, '--strategy', 'semantic', topic])).code).toBe(0);
  });

  it('a folder that is not a topic', async () => {
    const folder = join(root, 'plain-folder');
    mkdirSync(folder);
    writeFileSync(join(folder, 'README.md'), SMALL);
    await expectUsage(['--config', config, folder], folder, 'not a topic', 'golden-reference.md');
    expect(readdirSync(folder)).toEqual(['README.md']);
  });

  it('a non-topic folder among good arguments writes nothing at all', async () => {
    const topic = makeTopic();
    const folder = join(root, 'plain-folder');
    mkdirSync(folder);
    await expectUsage(['--config', config, topic, folder], 'not a topic');
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
  });

  it('--out naming the folder that holds a source, which stale-file removal could damage', async () => {
    const folder = join(root, 'sources');
    mkdirSync(folder);
    writeFileSync(join(folder, 'guide.md'), SMALL);
    writeFileSync(join(folder, 'guide-2.md'), SMALL);
    await expectUsage(['--config', config, '--out', folder, join(folder, 'guide.md')], 'holds the source');
    expect(readdirSync(folder).sort()).toEqual(['guide-2.md', 'guide.md']);
  });

  it('two documents that would write the same file names into one --out folder', async () => {
    const a = join(root, 'a');
    const b = join(root, 'b');
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, 'X.md'), SMALL);
    writeFileSync(join(b, 'X.md'), SMALL);
    const out = join(root, 'out');
    await expectUsage(['--config', config, '--out', out, join(a, 'X.md'), join(b, 'X.md')], 'would both write X-N.md');
    expect(existsSync(out)).toBe(false);
  });

  it('two sources whose output names differ only in case or in accent encoding (one file on macOS and Windows) are a usage error naming both (helper-37 probe)', async () => {
    const topic = makeTopic('cased', { 'topic.yaml': 'sources:\n  - golden-reference.md\n  - Guide.md\n  - guide.md\n', 'Guide.md': SMALL, 'guide.md': SMALL });
    await expectUsage(['--config', config, topic], `${join(topic, 'Guide.md')} and ${join(topic, 'guide.md')} would write Guide-N.md and guide-N.md into ${join(topic, '_chunks')}, names that differ only in case or accent encoding: one file on macOS and Windows; rename one`);
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
    const out = join(root, 'out');
    writeFileSync(join(root, 'caf\u00e9.md'), SMALL);
    writeFileSync(join(root, 'cafe\u0301.md'), SMALL);
    await expectUsage(['--config', config, '--out', out, join(root, 'caf\u00e9.md'), join(root, 'cafe\u0301.md')], 'differ only in case or accent encoding');
    expect(existsSync(out)).toBe(false);
  });

  it('a topic or a document named twice is one usage error saying so, not one path named twice as two writers (issue 15 probe)', async () => {
    const topic = makeTopic();
    const r = await expectUsage(['--config', config, topic, `${topic}/`, join(topic, '..', 'topic')], `chunking-tool: ${topic} and ${topic}/ are the same topic; give it once\n`);
    expect(r.stderr).not.toContain('would both write');
    const file = join(root, 'guide.md');
    writeFileSync(file, SMALL);
    await expectUsage(['--config', config, file, `${root}/./guide.md`], `${file} and ${root}/./guide.md are the same document; give it once`);
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
    expect(existsSync(join(root, '_chunks'))).toBe(false);
  });

  it('a document named chunks.md, whose manifest would be paginate\'s pages manifest (every reader of _chunks/ leaves chunks.json out)', async () => {
    const topic = makeTopic('topic', { 'topic.yaml': 'sources:\n  - golden-reference.md\n  - chunks.md\n', 'chunks.md': SMALL });
    await expectUsage(['--config', config, topic], `${join(topic, 'chunks.md')}: its manifest would be chunks.json`, 'rename the file');
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
  });

  it('a config file with a bad value names the file and the line', async () => {
    const topic = makeTopic();
    writeFileSync(config, 'chunking:\n  strategy: semantic\n  minTokens: 10\n  maxTokens: -3\n');
    await expectUsage(['--config', config, topic], `${config}:4`, 'chunking.maxTokens', 'a whole number from 16');
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
  });

  it('a config file with invalid YAML or an unknown key names the file and the line', async () => {
    const topic = makeTopic();
    writeFileSync(config, 'chunking:\n  maxTokens: 300\nsources: [a.md]\n');
    await expectUsage(['--config', config, topic], `${config}:3`, 'sources', 'unknown key');
    writeFileSync(config, 'chunking:\n  maxTokens: [300\n');
    await expectUsage(['--config', config, topic], config, 'not valid YAML');
  });

  it('a missing --config file', async () => {
    const topic = makeTopic();
    const missing = join(root, 'nope.yaml');
    await expectUsage(['--config', missing, topic], missing, 'cannot read config', 'ENOENT');
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
  });

  it('a topic.yaml with a bad value names the topic.yaml and the line', async () => {
    const topic = makeTopic('topic', { 'topic.yaml': '# overrides\nchunking:\n  breadcrumbMode: sometimes\n' });
    await expectUsage(['--config', config, topic], `${join(topic, 'topic.yaml')}:3`, 'chunking.breadcrumbMode', 'one of conditional, always, none');
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
  });

  it('a topic.yaml source inside _chunks/ is named as an output, not blamed on an --out never given (s40 probe)', async () => {
    // It said "--out <topic>/_chunks: holds the source <topic>/_chunks/x.md; choose a folder of its own".
    const topic = makeTopic('sources-in-output', { 'topic.yaml': 'sources: [golden-reference.md, _chunks/x.md]\n' });
    mkdirSync(join(topic, '_chunks'));
    writeFileSync(join(topic, '_chunks/x.md'), '# X\n\nA page put where the chunks go.\n');
    const r = await expectUsage(['--config', config, topic]);
    expect(r.stderr).toBe(
      `chunking-tool: ${join(topic, 'topic.yaml')}:1: sources: "_chunks/x.md" is inside _chunks/, chunking-tool's output folder, which every build rewrites; a source cannot be an output: keep it outside _chunks/\n`,
    );
    expect(readdirSync(join(topic, '_chunks'))).toEqual(['x.md']);
  });

  // Issue 15 probe (s55): topic-spec.md was chunked as a source, so each build's spec changed
  // the next build's chunks and the pipeline never settled (keyword-extractor leaves it out).
  it('a topic.yaml source that is topic-spec.md (the spec step\'s output) is refused, naming topic.yaml; nothing written', async () => {
    for (const listed of ['topic-spec.md', './topic-spec.md']) {
      const topic = makeTopic(`spec-source-${listed.length}`, { 'topic.yaml': `sources: [golden-reference.md, ${listed}]\n`, 'topic-spec.md': '---\ntopic: x\n---\n\n# Spec\n\nA generated table.\n' });
      const r = await expectUsage(['--config', config, topic]);
      expect(r.stderr).toBe(`chunking-tool: ${join(topic, 'topic.yaml')}: sources: ${JSON.stringify(listed)} is topic-spec's output, which every build rewrites; a source cannot be an output: take it out of sources\n`);
      expect(existsSync(join(topic, '_chunks'))).toBe(false);
    }
  });

  it('topic settings that contradict the workspace config are a config error, and nothing is written', async () => {
    // maxTokens 64 alone leaves the workspace targetTokens (80) above it.
    const good = makeTopic('good');
    const bad = makeTopic('bad', { 'topic.yaml': 'chunking:\n  maxTokens: 64\n' });
    const r = await expectUsage(['--config', config, good, bad], 'minTokens <= targetTokens <= maxTokens', '16/80/64');
    expect(r.stderr).toContain(bad);
    // Issue 15 probe: the message named the document only, as if it were at fault; it names the settings' files.
    expect(r.stderr).toContain(`${join(bad, 'golden-reference.md')}: chunking settings (${config} + ${join(bad, 'topic.yaml')} + the defaults): need minTokens <= targetTokens <= maxTokens, got 16/80/64; fix them in ${config} or ${join(bad, 'topic.yaml')}\n`);
    expect(existsSync(join(good, '_chunks'))).toBe(false);
    expect(existsSync(join(bad, '_chunks'))).toBe(false);
  });
});

describe('exit 1: a document that cannot be processed', () => {
  const BAD: [what: string, content: string | Buffer, problem: string][] = [
    ['a binary file (NUL bytes)', Buffer.from([0x23, 0x20, 0x41, 0x00, 0x01, 0x02, 0x0a]), 'binary file'],
    ['invalid UTF-8', Buffer.from([0xff, 0xfe, 0x41]), 'not valid UTF-8 (first bad byte at offset 0); save it as UTF-8\n'],
    ['an empty file', '', 'empty file; write its text, or remove it'],
    ['a whitespace-only file', ' \n\t\n   \r\n', 'only whitespace); write its text, or remove it'],
    ['front matter only', '---\ntitle: Nothing else\n---\n', 'no content to chunk (only front matter); write the text below the front matter'],
  ];

  it.each(BAD)('%s: exit 1, message names the file and the problem, nothing written', async (_what, content, problem) => {
    const file = join(root, 'doc.md');
    writeFileSync(file, content);
    const r = await run(['--config', config, file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`chunking-tool: ${file}: `);
    expect(r.stderr).toContain(problem);
    expect(r.stdout).toBe('');
    expect(existsSync(join(root, '_chunks', 'doc.json'))).toBe(false);
    // Nor a new, empty _chunks/ beside it (issue 15 probe: front matter only left one), nor the
    // --out folder and the parents made for it.
    expect(existsSync(join(root, '_chunks'))).toBe(false);
    const out = await run(['--config', config, file, '--out', join(root, 'new', 'out')]);
    expect(out.code).toBe(1);
    expect(existsSync(join(root, 'new'))).toBe(false);
  });

  it.each([
    ['a file', false],
    ['a topic source', true],
  ])('%s whose output names pass 255 bytes: exit 1 naming the output, not the staging folder, and no staging folder left (issue 15 probe)', async (_what, topic) => {
    // A 252-byte name is legal, but its outputs (name.json, name-0.md) are 257 bytes: the
    // failed write named /proc/self/fd/N/.staged.tmp-…/name.json, its cleanup threw
    // ENAMETOOLONG past the folder's, and the staging folder (and the pin) stayed behind.
    const name = 'a'.repeat(252);
    const dir = topic ? makeTopic('topic', { 'topic.yaml': `sources:\n  - ${name}.md\n` }) : root;
    writeFileSync(join(dir, `${name}.md`), SMALL);
    const r = await run(['--config', config, topic ? dir : join(dir, `${name}.md`)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`chunking-tool: ${join(dir, '_chunks', `${name}.json`)}: name too long (ENAMETOOLONG); use a shorter path\n`);
    const left = (d: string) => (existsSync(d) ? readdirSync(d).filter((e) => e.includes('.tmp-')) : []);
    expect([...left(dir), ...left(join(dir, '_chunks'))]).toEqual([]);
    // The file's _chunks/ was made for the run, and nothing landed in it: it goes too.
    expect(existsSync(join(dir, '_chunks'))).toBe(false);
  });

  it('keeps an output folder that was there before, and one a good document landed in, when another document fails', async () => {
    const bad = join(root, 'bad.md');
    writeFileSync(bad, '---\ntitle: Nothing else\n---\n');
    mkdirSync(join(root, '_chunks'));
    expect((await run(['--config', config, bad])).code).toBe(1);
    expect(readdirSync(join(root, '_chunks'))).toEqual([]);
    const good = join(root, 'good.md');
    writeFileSync(good, SMALL);
    const out = join(root, 'made', 'out');
    expect((await run(['--config', config, good, bad, '--out', out])).code).toBe(1);
    expect(sorted(readdirSync(out)).filter((e) => e.startsWith('good'))[0]).toBe('good-0.md');
    expect(readdirSync(out).some((e) => e.startsWith('bad'))).toBe(false);
  });

  it('a missing file', async () => {
    const file = join(root, 'missing.md');
    const r = await run(['--config', config, file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}: no such file`);
  });

  it('a directory named as a topic source', async () => {
    const topic = makeTopic('topic', { 'topic.yaml': 'sources:\n  - golden-reference.md\n  - folder.md\n' });
    mkdirSync(join(topic, 'folder.md'));
    const r = await run(['--config', config, topic]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(topic, 'folder.md')}: is a directory`);
    // The topic's folder is replaced only when every source succeeded.
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
  });

  it('a missing topic source fails the topic and keeps its previous _chunks', async () => {
    const topic = makeTopic();
    expect((await run(['--config', config, topic])).code).toBe(0);
    const before = snapshot(join(topic, '_chunks'));
    writeFileSync(join(topic, 'topic.yaml'), 'sources: [golden-reference.md, gone.md]\n');
    const r = await run(['--config', config, topic]);
    expect(r.code).toBe(1);
    // The name came from topic.yaml, so the message says where to fix it.
    expect(r.stderr).toContain(`${join(topic, 'gone.md')}: no such file (listed in the sources of ${join(topic, 'topic.yaml')})`);
    expect(snapshot(join(topic, '_chunks'))).toEqual(before);
  });

  it('when one of two files fails, the other is still written', async () => {
    const good = join(root, 'good.md');
    const bad = join(root, 'bad.md');
    writeFileSync(good, SMALL);
    writeFileSync(bad, Buffer.from([0xff, 0xfe, 0x41]));
    const r = await run(['--config', config, bad, good]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}: not valid UTF-8 (first bad byte at offset 0)`);
    expect(r.stderr).not.toContain(good);
    expect(r.stdout).toContain(`${good}: `);
    const m = readManifest(join(root, '_chunks', 'good.json'));
    expect(sorted(readdirSync(join(root, '_chunks')))).toEqual(outputNames('good', m.chunks.length));
  });

  it('when one of two topics fails, the other topic is still written', async () => {
    const good = makeTopic('good');
    const bad = makeTopic('bad');
    writeFileSync(join(bad, 'golden-reference.md'), Buffer.from([0x23, 0x00]));
    const r = await run(['--config', config, bad, good]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(bad, 'golden-reference.md')}: binary file`);
    expect(existsSync(join(good, '_chunks', 'golden-reference.json'))).toBe(true);
    expect(existsSync(join(bad, '_chunks'))).toBe(false);
  });
});

describe('nothing is lost on failure', () => {
  it('a topic whose golden reference turns into invalid UTF-8 keeps its previous _chunks byte for byte', async () => {
    const topic = makeTopic();
    expect((await run(['--config', config, topic])).code).toBe(0);
    const before = snapshot(join(topic, '_chunks'));
    expect(Object.keys(before).length).toBeGreaterThanOrEqual(4);

    writeFileSync(join(topic, 'golden-reference.md'), Buffer.concat([Buffer.from('# Title\n\nText '), Buffer.from([0xff, 0xfe, 0x41])]));
    const r = await run(['--config', config, topic]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(topic, 'golden-reference.md')}: not valid UTF-8 (first bad byte at offset 14)`);
    expect(snapshot(join(topic, '_chunks'))).toEqual(before);
    // No temp folders were left behind next to _chunks.
    expect(sorted(readdirSync(topic))).toEqual(['_chunks', 'golden-reference.md']);
  });

  it('a plain file that turns binary keeps its previous outputs in a shared folder', async () => {
    const out = join(root, 'out');
    const file = join(root, 'X.md');
    writeFileSync(file, SMALL);
    expect((await run(['--config', config, '--out', out, file])).code).toBe(0);
    const before = snapshot(out);
    writeFileSync(file, Buffer.from([0x00, 0x01]));
    const r = await run(['--config', config, '--out', out, file]);
    expect(r.code).toBe(1);
    expect(snapshot(out)).toEqual(before);
    expect(readdirSync(out).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });
});

describe('settings: topic.yaml, workspace config and CLI overrides', () => {
  it('topic.yaml chunking overrides apply: every chunk fits maxTokens 256 and the strategy key says so', async () => {
    const plain = makeTopic('plain');
    const small = makeTopic('small', { 'topic.yaml': 'chunking: {maxTokens: 256, targetTokens: 40}\n' });
    expect((await run(['--config', config, plain, small])).code).toBe(0);
    const m = readManifest(join(small, '_chunks', 'golden-reference.json'));
    const p = readManifest(join(plain, '_chunks', 'golden-reference.json'));
    expect(m.strategyKey).toBe('semantic-16-40-256');
    expect(m.options).toMatchObject({ minTokens: 16, targetTokens: 40, maxTokens: 256 });
    for (const c of m.chunks) expect(c.tokenStats.tokens).toBeLessThanOrEqual(256);
    expect(m.chunks.length).toBeGreaterThan(p.chunks.length);
    expect(p.strategyKey).toBe('semantic-16-80-512');
    expect(sorted(readdirSync(join(small, '_chunks')))).toEqual(outputNames('golden-reference', m.chunks.length));
  });

  it('the workspace config applies to every topic, and topic.yaml wins over it', async () => {
    writeFileSync(config, 'chunking:\n  minTokens: 32\n  targetTokens: 300\n  maxTokens: 350\n  overlapSentences: 0\n  contentType: guide\n');
    const a = makeTopic('a');
    const b = makeTopic('b', { 'topic.yaml': 'chunking:\n  contentType: api\n  overlapSentences: 1\n' });
    expect((await run(['--config', config, a, b])).code).toBe(0);
    const ma = readManifest(join(a, '_chunks', 'golden-reference.json'));
    const mb = readManifest(join(b, '_chunks', 'golden-reference.json'));
    // overlapSentences 0 is the default, so the key does not name it.
    expect(ma.strategyKey).toBe('semantic-32-300-350');
    expect(ma.chunks[0]!.id).toBe('guide:golden-reference::ch0');
    expect(ma.chunks.every((c) => c.tokenStats.tokens <= 350)).toBe(true);
    expect(mb.strategyKey).toBe('semantic-32-300-350-o1');
    expect(mb.chunks[0]!.id).toBe('api:golden-reference::ch0');
  });

  it('--content-type post: every id starts with post:', async () => {
    const topic = makeTopic('topic', { 'topic.yaml': 'chunking:\n  contentType: api\n' });
    const r = await run(['--config', config, '--content-type', 'post', topic]);
    expect(r.code).toBe(0);
    const m = readManifest(join(topic, '_chunks', 'golden-reference.json'));
    expect(m.chunks.length).toBeGreaterThanOrEqual(3);
    for (const c of m.chunks) {
      expect(c.id.startsWith('post:')).toBe(true);
      expect(c.contentType).toBe('post');
    }
    expect(m.options.contentType).toBe('post');
    // The content type is not part of the cache key.
    expect(m.strategyKey).toBe('semantic-16-80-512');
  });

  it('--content-type with ":" or a newline is refused, exit 2, before anything is written (s37 probe: it went into every id)', async () => {
    const topic = makeTopic('badtype');
    for (const bad of ['api:v2', 'a\nb']) {
      const r = await run(['--config', config, '--content-type', bad, topic]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('contentType must be one word without ":" (it opens every chunk id)');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(join(topic, '_chunks'))).toBe(false);
  });

  it('--content-type applies to plain files too', async () => {
    const file = join(root, 'X.md');
    writeFileSync(file, SMALL);
    expect((await run(['--config', config, '--content-type', 'post', file])).code).toBe(0);
    const m = readManifest(join(root, '_chunks', 'X.json'));
    expect(m.chunks.every((c) => c.id.startsWith('post:X::ch'))).toBe(true);
  });
});

describe('the built bin, run as a user would', () => {
  const BIN = join(REPO, 'node_modules', '.bin', 'chunking-tool');
  const exec = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(BIN, args, { cwd: REPO, encoding: 'utf8' }, (err, stdout, stderr) => {
        done({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
      });
    });

  beforeAll(() => {
    execFileSync('node', ['tools/build.mjs', 'apps/chunking-tool'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
  });

  it('--out DIR: an X-N.md that no earlier manifest there listed is the user\'s, never removed (probe: a hand-written notes/guide-1.md was deleted)', async () => {
    const src = join(root, 'src');
    const notes = join(root, 'notes');
    mkdirSync(src);
    mkdirSync(notes);
    writeFileSync(join(src, 'guide.md'), '# Guide\n\nOne short paragraph, so one chunk.\n');
    writeFileSync(join(notes, 'guide-1.md'), 'hand-written, not a chunk\n');
    writeFileSync(join(notes, 'guide-7.md'), 'hand-written too\n');
    for (const attempt of [1, 2]) {
      const r = await exec(['--config', config, '--out', notes, join(src, 'guide.md')]);
      expect(r.stderr, `run ${attempt}`).toBe('');
      expect(r.code).toBe(0);
      // Before: the first run deleted both (one chunk written, guide-0.md; the rest "stale").
      expect(sorted(readdirSync(notes)), `run ${attempt}`).toEqual(['guide-0.md', 'guide-1.md', 'guide-7.md', 'guide.json']);
      expect(readFileSync(join(notes, 'guide-1.md'), 'utf8')).toBe('hand-written, not a chunk\n');
      expect(readFileSync(join(notes, 'guide-7.md'), 'utf8')).toBe('hand-written too\n');
    }
    // What an earlier run wrote there and this one did not is still removed: three chunks, then one.
    writeFileSync(join(src, 'guide.md'), SMALL);
    expect((await exec(['--config', config, '--out', notes, join(src, 'guide.md')])).code).toBe(0);
    const n = readManifest(join(notes, 'guide.json')).chunks.length;
    expect(n).toBeGreaterThanOrEqual(2);
    writeFileSync(join(src, 'guide.md'), '# Guide\n\nOne short paragraph, so one chunk.\n');
    expect((await exec(['--config', config, '--out', notes, join(src, 'guide.md')])).code).toBe(0);
    expect(n).toBeLessThan(7);
    // guide-1.md was overwritten by the earlier run's chunk 1 (so its manifest listed it): removed now; guide-7.md was never listed.
    expect(sorted(readdirSync(notes))).toEqual(['guide-0.md', 'guide-7.md', 'guide.json']);
    expect(readFileSync(join(notes, 'guide-7.md'), 'utf8')).toBe('hand-written too\n');
  });

  it('chunking-tool --help exits 0 and prints the usage', async () => {
    expect(statSync(join(REPO, 'apps', 'chunking-tool', 'dist', 'main.js')).isFile()).toBe(true);
    const r = await exec(['--help']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(HELP);
  });

  it('chunking-tool with no arguments exits 2', async () => {
    const r = await exec([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no topic folder or markdown file given');
  });

  it('a write that fails (a file-size limit, as on a full disk) lands none of the outputs of --out and leaves the previous set (issue 15 probe)', async () => {
    // `ulimit -f` makes every write past 16 KiB fail with EFBIG (Node ignores SIGXFSZ), the
    // nearest to a full disk a test can make without root: A's outputs are small, B's
    // manifest is not. Writing them one by one put A's new outputs beside B's old ones.
    const a = join(root, 'A.md');
    const b = join(root, 'B.md');
    const out = join(root, 'out');
    const big = ['# B', ''];
    for (let i = 0; i < 40; i++) big.push(`## Section ${i}`, '', ...Array.from({ length: 8 }, (_, j) => `Sentence ${j} of section ${i} talks about some detail of the large document in plain words.`), '');
    writeFileSync(a, '# A\n\nShort doc about a thing that is described in a single sentence here.\n');
    writeFileSync(b, big.join('\n'));
    expect((await exec(['--config', config, '--out', out, a, b])).code).toBe(0);
    const before = snapshot(out);
    expect(Buffer.from(before['B.json']!, 'hex').length).toBeGreaterThan(16 * 1024);
    writeFileSync(a, '# A\n\nAnother short doc, changed since the last run.\n');
    writeFileSync(b, `${big.join('\n')}\nOne more paragraph.\n`);
    const limited = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile('bash', ['-c', 'ulimit -f 16; exec "$0" "$@"', BIN, '--config', config, '--out', out, a, b], { cwd: REPO, encoding: 'utf8' }, (err, stdout, stderr) => {
        done({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
      });
    });
    expect(limited).toEqual({ code: 1, stdout: '', stderr: `chunking-tool: ${join(out, 'B.json')}: file too large for this file system (EFBIG); choose another location\n` });
    expect(snapshot(out)).toEqual(before);
    // Without the limit the next run writes the new set.
    expect((await exec(['--config', config, '--out', out, a, b])).code).toBe(0);
    expect(readFileSync(join(out, 'A-0.md'), 'utf8')).toContain('changed since the last run');
    expect(readdirSync(out).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('a file whose _chunks is a symlink: one line naming the link and where it points, exit 1, the linked folder untouched (issue 15 probe)', async () => {
    const { decoy, before } = linkedChunksFolder();
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(BIN, ['--config', config, 'x/settings.md'], { cwd: root, encoding: 'utf8' }, (err, stdout, stderr) => {
        done({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
      });
    });
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `chunking-tool: x/_chunks: is a symlink (it points to ${decoy}); a generated output is never written through a link, so nothing was written; remove the link and run again\n`,
    });
    expect(snapshot(decoy)).toEqual(before);
  });

  it('chunking-tool on a topic writes the same outputs as main() in-process', async () => {
    const viaBin = makeTopic('bin');
    const inProcess = makeTopic('in-process');
    const r = await exec(['--config', config, viaBin]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect((await run(['--config', config, inProcess])).code).toBe(0);
    expect(snapshot(join(viaBin, '_chunks'))).toEqual(snapshot(join(inProcess, '_chunks')));
  });
});

describe('every strategy through the tool', () => {
  it('--strategy token-window writes X-N.md with each window and seed 004 ids in the manifest', async () => {
    const topic = makeTopic();
    const r = await run(['--config', config, '--strategy', 'token-window', topic]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(token-window-900-100)');
    const m = readManifest(join(topic, '_chunks', 'golden-reference.json'));
    expect(m.strategy).toBe('token-window');
    expect(m.options).toEqual({ docName: 'golden-reference', contentType: 'doc', strategy: 'token-window', windowTokens: 900, windowOverlapTokens: 100, singlePieceMaxTokens: 1200, parser: 'fast' });
    const source = readFileSync(join(topic, 'golden-reference.md'), 'utf8');
    const artifact = `art_${sha256(source).slice(0, 8)}`;
    m.chunks.forEach((c, i) => {
      const w = (c as unknown as { window: { chunkId: string } }).window;
      expect(w.chunkId).toBe(`${artifact}::chunk::${String(i).padStart(3, '0')}::${sha256(c.originalText).slice(0, 8)}`);
      expect(readFileSync(join(topic, '_chunks', `golden-reference-${i}.md`), 'utf8')).toBe(c.originalText);
      expect(source.slice(c.sourcePosition.charStart, c.sourcePosition.charEnd)).toBe(c.originalText);
    });
    expect(existsSync(join(topic, '_chunks', 'chunks.json'))).toBe(false);
  });

  it('strategy: hierarchical in topic.yaml gives sections and snippets, and --strategy overrides it', async () => {
    const topic = makeTopic('topic', { 'topic.yaml': 'chunking:\n  strategy: hierarchical\n  snippetTargetTokens: 200\n  snippetMaxTokens: 300\n' });
    expect((await run(['--config', config, topic])).code).toBe(0);
    const m = readManifest(join(topic, '_chunks', 'golden-reference.json'));
    expect(m.strategyKey).toBe('hierarchical-1700-200-m2048.300');
    const tiers = m.chunks.map((c) => (c as unknown as { tier: { level: string } }).tier.level);
    expect(tiers[0]).toBe('section');
    expect(tiers.filter((t) => t === 'snippet').length).toBeGreaterThan(tiers.filter((t) => t === 'section').length);
    expect(m.chunks.every((c) => c.embedText.startsWith('[DOC: '))).toBe(true);
    expect((await run(['--config', config, '--strategy', 'semantic', topic])).code).toBe(0);
    expect(readManifest(join(topic, '_chunks', 'golden-reference.json')).strategy).toBe('semantic');
  });

  it('--strategy paginate writes pages with CT comments and chunks.json with the graph and its checksum', async () => {
    const topic = makeTopic('topic', { 'topic.yaml': 'chunking:\n  ctxSize: 1024\n  bufSize: 0\n  pageOverlapTokens: 40\n' });
    const r = await run(['--config', config, '--strategy', 'paginate', topic]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const outDir = join(topic, '_chunks');
    const m = readManifest(join(outDir, 'golden-reference.json'));
    const n = m.chunks.length;
    expect(n).toBeGreaterThan(2);
    expect(sorted(readdirSync(outDir))).toEqual(sorted([...outputNames('golden-reference', n), 'chunks.json']));
    const raw = readFileSync(join(outDir, 'chunks.json'), 'utf8');
    const pages = JSON.parse(raw) as {
      checksum: { algorithm: string; value: string };
      documents: { source: string; chunks: { ct: { id: string; prev: string | null; next: string | null }; file: string; tokens: number; sha256: string }[] }[];
    };
    expect(pages.checksum.algorithm).toBe('sha256');
    expect(pages.checksum.value).toBe(sha256(JSON.stringify(pages.documents)));
    const [doc] = pages.documents;
    expect(doc!.source).toBe('golden-reference.md');
    doc!.chunks.forEach((p, i) => {
      const id = (k: number) => `golden-reference:chunk-${String(k).padStart(3, '0')}`;
      expect(p.ct).toEqual({ id: id(i + 1), prev: i ? id(i) : null, next: i < n - 1 ? id(i + 2) : null });
      const file = readFileSync(join(outDir, p.file), 'utf8');
      expect(sha256(file)).toBe(p.sha256);
      expect(file.startsWith(`<!--CT ${JSON.stringify(p.ct)}-->\n`)).toBe(true);
      expect(file).toContain(m.chunks[i]!.originalText);
      expect(p.tokens).toBeLessThanOrEqual(1024);
    });
    // Byte-identical on a second run.
    const before = snapshot(outDir);
    expect((await run(['--config', config, '--strategy', 'paginate', topic])).code).toBe(0);
    expect(snapshot(outDir)).toEqual(before);
  });

  it('a .txt source gets heuristic headings and boilerplate removal, reported in its manifest', async () => {
    const page = (n: number) => `Field Guide\n\n${'The reader learns one more thing about the field on this page. '.repeat(6)}\n\n${n}\n\f`;
    const txt = `INTRODUCTION\n\n${[1, 2, 3, 4, 5].map(page).join('\n')}\n`;
    const topic = makeTopic('topic', { 'notes.txt': txt, 'topic.yaml': 'sources:\n  - golden-reference.md\n  - notes.txt\n' });
    const r = await run(['--config', config, topic]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const m = JSON.parse(readFileSync(join(topic, '_chunks', 'notes.json'), 'utf8')) as Manifest & {
      headingDetection: string;
      removed: { start: number; end: number; reason: string }[];
    };
    expect(m.headingDetection).toBe('heuristic');
    expect(m.removed.filter((x) => x.reason === 'page-number')).toHaveLength(5);
    expect(m.removed.filter((x) => x.reason === 'header-footer')).toHaveLength(5);
    expect((m.chunks[0] as unknown as { headerPath: string[] }).headerPath).toEqual(['INTRODUCTION']);
    for (const c of m.chunks) expect(c.originalText).not.toContain('Field Guide');
    expect(readManifest(join(topic, '_chunks', 'golden-reference.json')).chunks.length).toBeGreaterThan(2);
  });

  it('--strategy with an unknown name lists every strategy', async () => {
    const r = await run(['--config', config, '--strategy', 'recursive', makeTopic()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('known: semantic, token-window, hierarchical, paginate');
  });
});

describe('a big document', () => {
  // Over two of chunkDocumentStream's windows (64 Ki characters each): its records are
  // written as they come, never all held. The outputs must be what chunking it whole gives.
  const BIG = Array.from({ length: 10 }, (_, i) => GOLDEN.replace(/^# /m, `# Part ${i}: `)).join('\n\n');

  function expectedOutputs(text: string, name: string, sourceFile: string, strategy: 'semantic' | 'token-window' | 'hierarchical' = 'semantic'): Map<string, string> {
    const result = chunkDocument(text, { strategy, docName: name, sourceFile });
    const files = new Map<string, string>();
    result.chunks.forEach((c, i) => files.set(`${name}-${i}.md`, c.originalText));
    const manifest = {
      schemaVersion: MANIFEST_SCHEMA_VERSION,
      source: sourceFile,
      sourceSha256: createHash('sha256').update(text).digest('hex'),
      strategy: result.strategy,
      strategyKey: result.strategyKey,
      options: result.options,
      fileTitle: result.fileTitle,
      frontMatter: result.frontMatter,
      headingDetection: result.headingDetection,
      removed: result.removed ?? [],
      chunks: result.chunks,
    };
    files.set(`${name}.json`, `${JSON.stringify(manifest, null, 2)}\n`);
    return files;
  }

  it('is streamed: its files are byte for byte those of chunkDocument, in a topic and as a file', async () => {
    expect(BIG.length).toBeGreaterThan(2 * 64 * 1024);
    const s = chunkDocumentStream(BIG, { docName: 'golden-reference' });
    expect(s.sectioned).toBe(true);
    const expected = expectedOutputs(BIG, 'golden-reference', 'golden-reference.md');
    expect(expected.size).toBeGreaterThan(100);

    const topic = makeTopic('big');
    writeFileSync(join(topic, 'golden-reference.md'), BIG);
    mkdirSync(join(topic, '_chunks'));
    writeFileSync(join(topic, '_chunks', 'stale.md'), 'from an earlier run');
    const r = await run(['--config', config, '--json', topic]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const outDir = join(topic, '_chunks');
    expect(sorted(readdirSync(outDir))).toEqual(sorted(expected.keys()));
    for (const [name, data] of expected) expect(readFileSync(join(outDir, name), 'utf8'), name).toBe(data);
    expect(sorted(readdirSync(topic))).toEqual(['_chunks', 'golden-reference.md']);
    const summary = JSON.parse(r.stdout) as { documents: { chunks: number; tokens: number }[] };
    expect(summary.documents[0]!.chunks).toBe(expected.size - 1);

    const dir = join(root, 'loose');
    mkdirSync(dir);
    writeFileSync(join(dir, 'Big.md'), BIG);
    mkdirSync(join(dir, '_chunks'));
    writeFileSync(join(dir, '_chunks', 'Big-99999.md'), 'stale chunk');
    writeFileSync(join(dir, '_chunks', 'keep.txt'), 'unrelated');
    const f = await run(['--config', config, join(dir, 'Big.md')]);
    expect(f.code).toBe(0);
    const expectedFile = expectedOutputs(BIG, 'Big', 'Big.md');
    expect(sorted(readdirSync(join(dir, '_chunks')))).toEqual(sorted([...expectedFile.keys(), 'keep.txt']));
    for (const [name, data] of expectedFile) expect(readFileSync(join(dir, '_chunks', name), 'utf8'), name).toBe(data);
    expect(sorted(readdirSync(dir))).toEqual(['Big.md', '_chunks']);
  });

  // Fuzz seed 4003: a 20 MB document without headings (chunked whole, on the plain-text path)
  // cut at maxTokens 16 made 1.2 million records, and its manifest, built as one string, passed
  // V8's longest string: "Invalid string length" on valid input. A document chunked whole is
  // now written a record at a time, as a sectioned one is: no string ever holds every record.
  it('writes a document chunked whole a record at a time, with the bytes chunking it whole gives', async () => {
    const plain = GOLDEN.replace(/^#+ /gm, '');
    const cases = [
      { text: BIG, strategy: 'token-window' as const },
      { text: BIG, strategy: 'hierarchical' as const },
      { text: plain, strategy: 'semantic' as const },
    ];
    for (const { text, strategy } of cases) {
      expect(chunkDocumentStream(text, { docName: 'golden-reference', strategy }).sectioned).toBe(false);
      const expected = expectedOutputs(text, 'golden-reference', 'golden-reference.md', strategy);
      const topic = makeTopic(`whole-${strategy}-${text.length}`);
      writeFileSync(join(topic, 'golden-reference.md'), text);
      const stringify = vi.spyOn(JSON, 'stringify');
      let r: Run;
      try {
        r = await run(['--config', config, '--strategy', strategy, topic]);
        // The manifest is stringified with no records in it, each record on its own.
        const whole = stringify.mock.calls.filter(([value]) => Array.isArray((value as { chunks?: unknown } | null)?.chunks) && (value as { chunks: unknown[] }).chunks.length > 0);
        expect(whole, strategy).toEqual([]);
      } finally {
        stringify.mockRestore();
      }
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const outDir = join(topic, '_chunks');
      expect(sorted(readdirSync(outDir))).toEqual(sorted(expected.keys()));
      for (const [name, data] of expected) expect(readFileSync(join(outDir, name), 'utf8'), `${strategy} ${name}`).toBe(data);
      expect(sorted(readdirSync(topic))).toEqual(['_chunks', 'golden-reference.md']);
    }
  });

  it('leaves a topic’s earlier outputs and no temp folder when another document fails', async () => {
    const topic = makeTopic('bigfail');
    writeFileSync(join(topic, 'golden-reference.md'), BIG);
    writeFileSync(join(topic, 'topic.yaml'), 'sources:\n  - golden-reference.md\n  - empty.md\n');
    writeFileSync(join(topic, 'empty.md'), '');
    mkdirSync(join(topic, '_chunks'));
    writeFileSync(join(topic, '_chunks', 'earlier.md'), 'earlier output');
    const r = await run(['--config', config, topic]);
    expect(r.code).toBe(1);
    expect(readdirSync(join(topic, '_chunks'))).toEqual(['earlier.md']);
    expect(sorted(readdirSync(topic))).toEqual(['_chunks', 'empty.md', 'golden-reference.md', 'topic.yaml']);
  });
});
