/**
 * A manifest holding a lone UTF-16 surrogate (`"\ud800"` in its JSON; helper-81 probe, session
 * 60). No UTF-8 source holds one, so chunking-tool never writes one: the manifest was edited or
 * damaged. It was exported as it was, exit 0, and JSON readers then disagree on the text (Python
 * keeps a str its own UTF-8 encoder refuses, Go reads U+FFFD, serde_json refuses the line), where
 * the README promises every JSON reader the same strings and a damaged manifest is refused, as a
 * non-UTF-8 one is. Topics built by the real chunker in a temp tree; the real CLI and the real
 * LangChain Document.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Document } from '@langchain/core/documents';
import fc from 'fast-check';
import { chunkDocument } from '@chunkyard/chunking';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './main.js';

const ws = mkdtempSync(join(tmpdir(), 'docs-export-surrogate-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));
writeFileSync(join(ws, 'nx.json'), '{}\n');

const text = '# Guide\n\nIntro text here, long enough to stand alone.\n\n## Install\n\nRun the installer and follow it.\n';
const built = chunkDocument(text, { docName: 'golden-reference', sourceFile: 'golden-reference.md' });
const manifest = { schemaVersion: 1, source: 'golden-reference.md', sourceSha256: 'x', strategy: built.strategy, strategyKey: built.strategyKey, options: built.options, fileTitle: built.fileTitle, frontMatter: built.frontMatter, chunks: built.chunks };

let n = 0;
/** A docs root with one topic whose last chunk is changed by `edit`; its manifest file. */
function tree(edit: (chunk: Record<string, unknown>) => void): { root: string; file: string } {
  const root = join(ws, `t${n++}`);
  mkdirSync(join(root, 'topic/_chunks'), { recursive: true });
  writeFileSync(join(root, 'topic/golden-reference.md'), text);
  const m = JSON.parse(JSON.stringify(manifest)) as typeof manifest;
  edit(m.chunks.at(-1) as unknown as Record<string, unknown>);
  const file = join(root, 'topic/_chunks/golden-reference.json');
  // JSON.stringify writes a lone surrogate as its \uXXXX escape, the only way a UTF-8 file holds one.
  writeFileSync(file, JSON.stringify(m));
  return { root, file };
}

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), cwd: ws, stdoutIsTTY: true });
  return { code, stdout, stderr };
}

const last = manifest.chunks.length - 1;

describe('a lone surrogate in a manifest', () => {
  it.each([
    ['originalText', 'high', (c: Record<string, unknown>) => (c.originalText = 'Run \ud800 it'), `chunk ${last}: "originalText" holds a lone surrogate (\\ud800) at character 4`],
    ['embedText', 'low', (c: Record<string, unknown>) => (c.embedText = `${c.embedText as string}\udc00`), `chunk ${last}: "embedText" holds a lone surrogate (\\udc00) at character`],
    ['headerPath', 'reversed pair', (c: Record<string, unknown>) => (c.headerPath = ['ok', '\ude00\ud83d']), `chunk ${last}: "headerPath.1" holds a lone surrogate (\\ude00) at character 0`],
  ])('in %s (%s): exit 1 naming the file, chunk and field, nothing written, in every format', async (_field, _kind, edit, reason) => {
    const { root, file } = tree(edit);
    for (const format of ['langchain', 'llamaindex', 'jsonl']) {
      const r = await run([root, '--format', format]);
      expect(r, format).toMatchObject({ code: 1, stdout: '' });
      expect(r.stderr.startsWith(`docs-export: ${file}: not a chunk manifest: ${reason}`), r.stderr).toBe(true);
      expect(r.stderr).toMatch(/no UTF-8 text holds one.*\n$/);
      expect(r.stderr.split('\n')).toHaveLength(2);
    }
  });

  it('a pair written as escapes (\\ud83d\\ude00) is a character like any other', async () => {
    // JSON.stringify writes a pair raw: the escapes are put in by hand, as an editor might.
    const { root, file } = tree((c) => (c.originalText = 'smile PAIR'));
    writeFileSync(file, readFileSync(file, 'utf8').replace('smile PAIR', 'smile \\ud83d\\ude00'));
    expect(readFileSync(file, 'utf8')).toContain('smile \\ud83d\\ude00');
    const r = await run([root, '--format', 'langchain']);
    expect(r.code, r.stderr).toBe(0);
    const docs = r.stdout.split('\n').filter(Boolean).map((l) => new Document(JSON.parse(l) as { pageContent: string; metadata: Record<string, unknown> }));
    expect(docs.at(-1)!.pageContent).toBe('smile 😀');
  });

  it('any UTF-16 text: well-formed is exported exactly (LangChain reads it back), a lone surrogate is a one-line refusal', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.integer({ min: 0xd7f0, max: 0xe010 }), fc.integer({ min: 0, max: 0xffff })), { maxLength: 12 }), async (units) => {
        const s = String.fromCharCode(...units);
        const { root, file } = tree((c) => (c.originalText = s));
        const r = await run([root, '--format', 'langchain']);
        if (!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)) {
          expect(r.code, r.stderr).toBe(0);
          const lines = r.stdout.split('\n').filter(Boolean);
          expect(new Document(JSON.parse(lines.at(-1)!) as { pageContent: string; metadata: Record<string, unknown> }).pageContent).toBe(s);
          // No surrogate escape in the output: every reader gets the same string.
          expect(r.stdout).not.toMatch(/\\u[dD][89a-fA-F]/);
        } else {
          expect(r.code).toBe(1);
          expect(r.stdout).toBe('');
          expect(r.stderr.startsWith(`docs-export: ${file}: not a chunk manifest: chunk ${last}: "originalText" holds a lone surrogate`)).toBe(true);
          expect(r.stderr.split('\n')).toHaveLength(2);
        }
        rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
