/**
 * A chunk record holding a value nested 200,000 levels deep (a hand-edited or damaged manifest;
 * helper-81 probe, session 60). JSON.parse reads it, but --format jsonl, which writes the whole
 * record, was JSON.stringify's RangeError, a stack trace after the lines of the topics before it
 * had gone out; with a lone surrogate escape anywhere in the file, the check for those overflowed
 * the same way in every format. It is refused before anything is written, naming the file and
 * the chunk; a record nested as deep as a real one, or somewhat deeper, is exported as it is.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkDocument } from '@chunkyard/chunking';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './main.js';

const ws = mkdtempSync(join(tmpdir(), 'docs-export-deep-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));
writeFileSync(join(ws, 'nx.json'), '{}\n');

const text = '# Guide\n\nIntro text here, long enough to stand alone.\n\n## Install\n\nRun the installer and follow it.\n';
const built = chunkDocument(text, { docName: 'golden-reference', sourceFile: 'golden-reference.md' });
const manifest = { schemaVersion: 1, source: 'golden-reference.md', sourceSha256: 'x', strategy: built.strategy, strategyKey: built.strategyKey, options: built.options, fileTitle: built.fileTitle, frontMatter: built.frontMatter, chunks: built.chunks };

let n = 0;
/** Topics `a` (as built) and `b`, whose last chunk gets `"extra": <extra>` spliced in as JSON text. */
function tree(extra: string): { root: string; file: string } {
  const root = join(ws, `t${n++}`);
  for (const topic of ['a', 'b']) {
    mkdirSync(join(root, topic, '_chunks'), { recursive: true });
    writeFileSync(join(root, topic, 'golden-reference.md'), text);
    let json = JSON.stringify(manifest);
    if (topic === 'b') {
      const at = json.lastIndexOf('"originalText":');
      json = `${json.slice(0, at)}"extra":${extra},${json.slice(at)}`;
    }
    writeFileSync(join(root, topic, '_chunks/golden-reference.json'), json);
  }
  return { root, file: join(root, 'b/_chunks/golden-reference.json') };
}

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), cwd: ws, stdoutIsTTY: true });
  return { code, stdout, stderr };
}

const nested = (depth: number, inner = '0') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
const last = manifest.chunks.length - 1;

describe('a chunk record nested deeper than JSON.stringify can write', () => {
  it.each([
    ['an array 200,000 deep', nested(200_000)],
    ['an array 200,000 deep holding a lone surrogate', nested(200_000, '"\\ud800"')],
    ['objects 100,000 deep', `${'{"k":'.repeat(100_000)}0${'}'.repeat(100_000)}`],
  ])('%s: exit 1 naming the file and the chunk, nothing written, in every format', async (_name, extra) => {
    const { root, file } = tree(extra);
    for (const format of ['langchain', 'llamaindex', 'jsonl']) {
      const r = await run([root, '--format', format]);
      expect(r, format).toMatchObject({ code: 1, stdout: '' });
      expect(r.stderr).toBe(`docs-export: ${file}: not a chunk manifest: chunk ${last} nests values more than 64 levels deep, where chunking-tool writes a few (rebuild it with chunking-tool)\n`);
    }
  }, 60_000);

  it('a record 60 levels deep is exported as it is (jsonl writes it whole)', async () => {
    const { root } = tree(nested(58, '"x"'));
    const r = await run([root, '--format', 'jsonl']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { chunk: { extra?: unknown } });
    expect(JSON.stringify(lines.at(-1)!.chunk.extra)).toBe(nested(58, '"x"'));
  });
});
