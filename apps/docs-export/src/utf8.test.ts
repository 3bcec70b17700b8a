/**
 * A manifest that is not UTF-8 (a byte damaged or re-saved after the build): docs-export read it
 * with replacement characters and exported U+FFFD in the chunk's text, exit 0, so a vector store
 * loaded the altered chunk (issue 15 probe). Real files in a temp tree, the real CLI.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Document } from '@langchain/core/documents';
import { chunkDocument } from '@chunkyard/chunking';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './main.js';

const ws = mkdtempSync(join(tmpdir(), 'docs-export-utf8-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));
writeFileSync(join(ws, 'nx.json'), '{}\n');

const SOURCE = '# Café\n\nThe first paragraph, with an accent: é.\n\n## Next\n\nThe second one.\n';

/** A topic `t` under a fresh docs root whose manifest is `bytes(json)`. */
function docsWith(name: string, bytes: (json: string) => Buffer): { root: string; manifest: string; json: string } {
  const root = join(ws, name);
  mkdirSync(join(root, 't/_chunks'), { recursive: true });
  writeFileSync(join(root, 't/golden-reference.md'), SOURCE);
  const r = chunkDocument(SOURCE, { docName: 'golden-reference', sourceFile: 'golden-reference.md', strategy: 'semantic' });
  const json = JSON.stringify({ schemaVersion: 1, source: 'golden-reference.md', sourceSha256: 'ab', strategy: r.strategy, strategyKey: r.strategyKey, options: r.options, fileTitle: r.fileTitle, chunks: r.chunks });
  const manifest = join(root, 't/_chunks/golden-reference.json');
  writeFileSync(manifest, bytes(json));
  return { root, manifest, json };
}

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), cwd: ws, stdoutIsTTY: true });
  return { code, stdout, stderr };
}

describe('docs-export: a manifest that is not UTF-8', () => {
  it('is refused, naming the file and the first bad byte, with nothing written (it exported U+FFFD, exit 0)', async () => {
    let offset = -1;
    const { root, manifest } = docsWith('latin1', (json) => {
      // "é" as Latin-1 (one byte, E9), as a Windows editor re-saving the file writes it.
      const good = Buffer.from(json);
      offset = good.indexOf(Buffer.from('é'));
      return Buffer.concat([good.subarray(0, offset), Buffer.from([0xe9]), good.subarray(offset + 2)]);
    });
    expect(offset).toBeGreaterThan(0);
    for (const format of ['langchain', 'llamaindex', 'jsonl']) {
      const r = await run([root, '--format', format]);
      expect(r, format).toEqual({
        code: 1,
        stdout: '',
        stderr: `docs-export: ${manifest}: not valid UTF-8 (first bad byte at offset ${offset}); chunking-tool writes UTF-8, so it was damaged or replaced after the build (rebuild it with chunking-tool)\n`,
      });
    }
  });

  it('a UTF-16 manifest is named as UTF-16', async () => {
    const { root, manifest } = docsWith('utf16', (json) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(json.replace('é', '\u00e9'), 'utf16le')]));
    const r = await run([root, '--format', 'jsonl']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`docs-export: ${manifest}: UTF-16 (little-endian) text (it starts with that byte order mark), not UTF-8; chunking-tool writes UTF-8, so it was damaged or replaced after the build (rebuild it with chunking-tool)\n`);
  });

  it('valid UTF-8 is exported as it is: a LangChain Document holds the exact chunk text', async () => {
    const { root, json } = docsWith('good', (j) => Buffer.from(j));
    const r = await run([root, '--format', 'langchain']);
    expect(r.code, r.stderr).toBe(0);
    const chunks = (JSON.parse(json) as { chunks: { originalText: string }[] }).chunks;
    const docs = r.stdout.split('\n').filter(Boolean).map((l) => new Document(JSON.parse(l) as ConstructorParameters<typeof Document>[0]));
    expect(docs.map((d) => d.pageContent)).toEqual(chunks.map((c) => c.originalText));
    expect(docs.some((d) => d.pageContent.includes('é'))).toBe(true);
    expect(r.stdout).not.toContain('\ufffd');
  });
});
