// The items' sha256 and the check that topic-spec.md and _chunks/ are of one build (issue 15).
// A topic built by the real chunking-tool, keyword-extractor and topic-spec (local embedder);
// the hash read back through retrieval's real FolderSource, as docs-query reads it.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { main as spec } from '../../topic-spec/src/main.js';
import { FolderSource } from '@chunkyard/retrieval';
import type { IndexJson } from '@chunkyard/topic-index';
import { chunkFileSha256, manifestSourceSha256 } from './chunk-hashes.js';
import { main } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const TOPIC = 'deployment/native-aot';
const quiet = { stdout: () => {}, stderr: () => {} };

let root: string;
let docs: string;
let dir: string;
let config: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-index-hashes-'));
  docs = join(root, 'docs');
  dir = join(docs, TOPIC);
  config = join(root, 'chunkyard.config.yaml');
  writeFileSync(config, 'chunking:\n  maxTokens: 512\n');
  mkdirSync(dir, { recursive: true });
  cpSync(join(REPO, 'docs', TOPIC, 'golden-reference.md'), join(dir, 'golden-reference.md'));
  await steps('chunk', 'keywords', 'spec');
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function steps(...names: ('chunk' | 'keywords' | 'spec')[]): Promise<void> {
  for (const s of names) expect(await (s === 'chunk' ? chunk([dir, '--config', config], quiet) : s === 'keywords' ? keywords([dir], quiet) : spec([dir, '--config', config], quiet)), s).toBe(0);
}

/**
 * Runs `run` with the topic's chunk file `chunkFile`, then its whole _chunks/ (moved to `aside`),
 * replaced by a dangling link, expecting each run to fail naming the link; puts both back.
 */
async function expectDanglingLinksNamed(chunkFile: string, aside: string, run: () => Promise<{ code: number; stderr: string }>): Promise<void> {
  const chunks = join(dir, '_chunks');
  const file = join(chunks, chunkFile);
  const saved = readFileSync(file);
  try {
    rmSync(file);
    symlinkSync(join(root, 'gone.md'), file);
    expect(await run()).toEqual({ code: 1, stderr: `index-tool: ${file}: a dangling symlink (its target does not exist); fix or remove the link\n` });
    rmSync(file);
    writeFileSync(file, saved);
    renameSync(chunks, aside);
    symlinkSync(join(root, 'gone'), chunks);
    expect(await run()).toEqual({ code: 1, stderr: `index-tool: ${chunks}: a dangling symlink (its target does not exist); fix or remove the link\n` });
  } finally {
    if (existsSync(aside)) {
      rmSync(chunks, { force: true });
      renameSync(aside, chunks);
    }
    rmSync(file, { force: true });
    writeFileSync(file, saved);
  }
}

async function index(): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await main([dir, '--root', docs], { stdout: () => {}, stderr: (s) => void (stderr += s) });
  return { code, stderr };
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const indexText = () => readFileSync(join(dir, 'index.json'), 'utf8');

describe('index-tool and the chunk files', () => {
  it('gives every item the SHA-256 of its chunk file', async () => {
    expect(await index()).toEqual({ code: 0, stderr: '' });
    const items = (JSON.parse(indexText()) as IndexJson)._embedded.chunks!['golden-reference']!.items;
    expect(items.length).toBeGreaterThan(3);
    for (const item of items) expect(item.sha256).toBe(sha256(readFileSync(join(dir, item.href), 'utf8')));
  });

  it('refuses a topic whose chunks were rebuilt after its topic-spec.md, naming the manifest; index.json is left as it was', async () => {
    expect((await index()).code).toBe(0);
    const before = indexText();
    const source = join(dir, 'golden-reference.md');
    const old = readFileSync(source, 'utf8');
    // Before: exit 0, an index of the spec's titles with the new chunk files' hashes.
    writeFileSync(source, old.replace('faster startup time', 'much faster startup time (REBUILT)'));
    try {
      await steps('chunk');
      const r = await index();
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `index-tool: ${join(dir, '_chunks/golden-reference.json')}: holds other chunks than ${join(dir, 'topic-spec.md')} was built from (it differs from the manifest the spec read): the chunk step ran after the spec step (a build under way, or one run by hand); run topic-spec again (nx run <topic>:spec), then index-tool; nothing written\n`,
      );
      expect(indexText()).toBe(before);
      await steps('keywords', 'spec');
      expect(await index()).toEqual({ code: 0, stderr: '' });
      expect(indexText()).not.toBe(before);
    } finally {
      writeFileSync(source, old);
      await steps('chunk', 'keywords', 'spec');
    }
  });

  // Session 56: the same source chunked again with other settings kept sourceSha256, and the
  // index (exit 0) gave the spec's old titles and token counts the new chunk files' hashes.
  it.each([
    ['overlapSentences: 2', 'chunk texts'],
    ['maxTokens: 300', 'chunk sizes'],
  ])('refuses a topic chunked again with %s after its topic-spec.md (other %s, same source)', async (setting) => {
    expect((await index()).code).toBe(0);
    const before = indexText();
    const topicYaml = join(dir, 'topic.yaml');
    writeFileSync(topicYaml, `chunking:\n  ${setting}\n`);
    try {
      await steps('chunk');
      const r = await index();
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${join(dir, '_chunks/golden-reference.json')}: holds other chunks than ${join(dir, 'topic-spec.md')} was built from (it differs from the manifest the spec read)`);
      expect(indexText()).toBe(before);
      await steps('keywords', 'spec');
      expect(await index()).toEqual({ code: 0, stderr: '' });
    } finally {
      rmSync(topicYaml);
      await steps('chunk', 'keywords', 'spec');
    }
  });

  it('reads a topic-spec.md written before manifestSha256 as before: the source hash is checked', async () => {
    const specFile = join(dir, 'topic-spec.md');
    const written = readFileSync(specFile, 'utf8');
    expect(written).toMatch(/^    manifestSha256: [0-9a-f]{64}\n/m);
    writeFileSync(specFile, written.replace(/^    manifestSha256: [0-9a-f]{64}\n/gm, ''));
    const source = join(dir, 'golden-reference.md');
    const old = readFileSync(source, 'utf8');
    try {
      expect(await index()).toEqual({ code: 0, stderr: '' });
      writeFileSync(source, old.replace('faster startup time', 'much faster startup time (REBUILT)'));
      await steps('chunk');
      const r = await index();
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("(its sourceSha256 differs from the spec's)");
    } finally {
      writeFileSync(source, old);
      await steps('chunk', 'keywords', 'spec');
    }
  });

  it('refuses a topic whose chunk file is missing, naming it and the fix', async () => {
    expect((await index()).code).toBe(0);
    const before = indexText();
    const file = join(dir, '_chunks/golden-reference-2.md');
    const saved = readFileSync(file);
    rmSync(file);
    try {
      const r = await index();
      expect(r).toEqual({ code: 1, stderr: `index-tool: ${file}: missing, though ${join(dir, 'topic-spec.md')} lists it; run the chunk step again, then spec (nx run <topic>:index runs both)\n` });
      expect(indexText()).toBe(before);
    } finally {
      writeFileSync(file, saved);
    }
  });

  // Issue 15 probe (s66): a chunk file, or the _chunks/ folder, that is a dangling link was
  // "missing, though topic-spec.md lists it", the file looked for where a link stood.
  it('a chunk file or _chunks/ that is a dangling symlink is named as one, not as missing', async () => {
    expect((await index()).code).toBe(0);
    const before = indexText();
    await expectDanglingLinksNamed('golden-reference-2.md', join(root, 'chunks-aside'), index);
    expect(indexText()).toBe(before);
  });
});

describe('--llms-full and the chunk files', () => {
  const llms = async () => {
    let stderr = '';
    const code = await main([docs, '--root', docs, '--llms-txt', '--llms-full'], { stdout: () => {}, stderr: (s) => void (stderr += s) });
    return { code, stderr };
  };
  it('refuses a chunk file rewritten since its index.json was built, naming it; llms.txt and llms-full.txt are left as they were', async () => {
    expect((await main([dir, join(docs, 'deployment'), docs, '--root', docs], quiet))).toBe(0);
    expect(await llms()).toEqual({ code: 0, stderr: '' });
    const before = [readFileSync(join(docs, 'llms.txt'), 'utf8'), readFileSync(join(docs, 'llms-full.txt'), 'utf8')];
    const source = join(dir, 'golden-reference.md');
    const old = readFileSync(source, 'utf8');
    writeFileSync(source, old.replace('faster startup time', 'much faster startup time (REBUILT)'));
    try {
      await steps('chunk');
      // Before: exit 0, the old index's stripe order over the new chunks' text.
      const r = await llms();
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `^index-tool: ${escape(join(dir, '_chunks/golden-reference-'))}\\d+\\.md: holds other text than ${escape(join(dir, 'index.json'))} was built from \\(its SHA-256 differs from the index item's sha256\\): the topic is being rebuilt, or its index step has not run since its chunk step; run --llms-txt again when the build has finished \\(nothing written\\)\n$`,
        ),
      );
      expect([readFileSync(join(docs, 'llms.txt'), 'utf8'), readFileSync(join(docs, 'llms-full.txt'), 'utf8')]).toEqual(before);
      await steps('keywords', 'spec');
      expect((await main([dir, join(docs, 'deployment'), docs, '--root', docs], quiet))).toBe(0);
      expect(await llms()).toEqual({ code: 0, stderr: '' });
      expect(readFileSync(join(docs, 'llms-full.txt'), 'utf8')).toContain('(REBUILT)');
    } finally {
      writeFileSync(source, old);
      await steps('chunk', 'keywords', 'spec');
    }
  });

  // Issue 15 probe (s66): as for the index step, a dangling link was "missing, but its topic's
  // index.json links it".
  it('a chunk file or _chunks/ that is a dangling symlink is named as one, not as missing; nothing written', async () => {
    expect((await main([dir, join(docs, 'deployment'), docs, '--root', docs], quiet))).toBe(0);
    expect(await llms()).toEqual({ code: 0, stderr: '' });
    const before = [readFileSync(join(docs, 'llms.txt'), 'utf8'), readFileSync(join(docs, 'llms-full.txt'), 'utf8')];
    await expectDanglingLinksNamed('golden-reference-0.md', join(root, 'llms-chunks-aside'), llms);
    expect([readFileSync(join(docs, 'llms.txt'), 'utf8'), readFileSync(join(docs, 'llms-full.txt'), 'utf8')]).toEqual(before);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Hostile texts: a leading BOM (one or two), CRLF, NULs, lone surrogates (written as U+FFFD), astral characters.
const text = fc
  .tuple(
    fc.constantFrom('', '\ufeff', '\ufeff\ufeff', '\r\n', '\0'),
    fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ unit: fc.constantFrom('\ufeff', '\r', '\n', '\0', '\ud800', '\udc00', 'é', '😀', '"', '\\', 'a'), maxLength: 30 })),
  )
  .map(([h, b]) => h + b);

describe('chunkFileSha256', () => {
  it("is the SHA-256 of the text retrieval's FolderSource reads from the file, whatever it holds", async () => {
    const at = mkdtempSync(join(tmpdir(), 'chunkyard-index-hash-prop-'));
    try {
      mkdirSync(join(at, '_chunks'));
      const source = new FolderSource(at);
      await fc.assert(
        fc.asyncProperty(text, async (t) => {
          writeFileSync(join(at, '_chunks/d-0.md'), t);
          const read = await source.readText(new URL('chunkyard-docs://folder/_chunks/d-0.md'));
          expect(chunkFileSha256(at, '_chunks/d-0.md', 'spec')).toBe(sha256(read));
        }),
        { numRuns: 100 },
      );
    } finally {
      rmSync(at, { recursive: true, force: true });
    }
  });
});

describe('manifestSourceSha256', () => {
  it("finds the hash in chunking-tool's layout whatever the source name, and in any other key order", () => {
    const at = mkdtempSync(join(tmpdir(), 'chunkyard-index-manifest-'));
    try {
      const file = join(at, 'm.json');
      fc.assert(
        fc.property(text, fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }), fc.boolean(), (name, sha, reorder) => {
          const m = { schemaVersion: 1, source: name, sourceSha256: sha, strategy: 'semantic', chunks: [{ originalText: '"sourceSha256": "' + 'f'.repeat(64) + '"' }] };
          writeFileSync(file, JSON.stringify(reorder ? { chunks: m.chunks, sourceSha256: sha, source: name } : m, null, 2));
          expect(manifestSourceSha256(file, 'spec')).toBe(sha);
        }),
        { numRuns: 100 },
      );
    } finally {
      rmSync(at, { recursive: true, force: true });
    }
  });
});
