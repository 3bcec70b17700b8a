// docs-score on a topic of many sources: each document's chunk files are found in one pass over
// the _chunks/ folder, not by testing every entry once per document (issue 15).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { chunkFilesByDocument, loadTopic } from './load.js';

const quiet = { stdout: () => {}, stderr: () => {} };
const root = mkdtempSync(join(tmpdir(), 'chunkyard-docs-score-many-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What loadTopic did per document: a pattern of its name, tested against every entry. */
const oneByOne = (entries: readonly string[], name: string): string[] => {
  const pattern = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d+\\.md$`);
  return entries.filter((e) => pattern.test(e));
};

describe('a topic of many sources', () => {
  it('tests a bounded number of patterns an entry of _chunks/, not one per document', async () => {
    const topic = join(root, 't');
    mkdirSync(topic);
    const names = Array.from({ length: 300 }, (_, i) => (i === 0 ? 'golden-reference.md' : `doc-${i}.md`));
    for (const [i, f] of names.entries()) writeFileSync(join(topic, f), `# Doc ${i}\n\nSource generation reads the options of document ${i}.\n\n## More ${i}\n\nIt writes the code.\n`);
    writeFileSync(join(topic, 'topic.yaml'), `sources:\n${names.map((f) => `  - ${f}\n`).join('')}`);
    expect(await chunk([topic], quiet)).toBe(0);
    const exec = vi.spyOn(RegExp.prototype, 'exec');
    const test = vi.spyOn(RegExp.prototype, 'test');
    try {
      const loaded = loadTopic(topic)!;
      expect(loaded.documents).toHaveLength(300);
      const files = loaded.documents.reduce((n, d) => n + d.chunkFiles.size, 0);
      expect(files).toBeGreaterThanOrEqual(300);
      // Every document has its own chunk files: doc-1's are not doc-10's or doc-1x's.
      for (const d of loaded.documents) for (const f of d.chunkFiles.keys()) expect(f).toMatch(new RegExp(`/${d.name}-\\d+\\.md$`));
      // One pattern per document over ~3 entries a document was 300 × 900 = 270,000 tests.
      expect(exec.mock.calls.length + test.mock.calls.length).toBeLessThan(20 * 300);
    } finally {
      exec.mockRestore();
      test.mockRestore();
    }
  }, 120_000);

  it('groups entries as a pattern per document name did, for hostile names', () => {
    const piece = fc.constantFrom('a', 'b', '-', '1', '12', '.md', '.json', '\n', '.', '*', '(', '\\', '$', ' ');
    const name = fc.array(piece, { minLength: 1, maxLength: 6 }).map((p) => p.join(''));
    fc.assert(
      fc.property(fc.array(name, { maxLength: 30 }), fc.array(name, { minLength: 1, maxLength: 8 }), (entries, docs) => {
        const grouped = chunkFilesByDocument(entries);
        // The names asked, and every name an entry was grouped under (each entry's own prefixes too).
        const asked = [...docs, ...grouped.keys(), ...entries.flatMap((e) => [...e].map((_, i) => e.slice(0, i)))];
        for (const d of asked) expect(grouped.get(d) ?? [], JSON.stringify(d)).toEqual(oneByOne(entries, d));
      }),
      { numRuns: 500 },
    );
  });
});
