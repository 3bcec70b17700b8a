// A source id (or source file) holding a control character: MCP's ingest_artifact takes any
// source_id, an id in another system the agent cannot rename. planArtifact derives the chunks'
// docName from it, and since chunkDocument refuses a control character in a docName (3b8ba08)
// every such ingest failed with "docName must hold no control character …", naming a parameter
// the caller never gave. The derived name now shows the character as U+FFFD (as the LangChain
// and LlamaIndex adapters do); the source id is stored as given. Real SQLite, the real local
// provider, real chunking.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { planArtifact } from './plan.js';
import { DocStore } from './store.js';
import { DOCS, localProvider, makeTempDir, readDoc } from './test-helpers.js';

const CONTROLS = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

describe('a source id holding a control character', () => {
  const tmp = makeTempDir();
  afterAll(() => tmp.cleanup());

  it('is stored, whole and chunked, and found; the chunks record ids show U+FFFD', async () => {
    const store = DocStore.open(`${tmp.dir}/store.db`);
    try {
      const small = await store.ingest([{ content: '# Hi\n\nThe reindex command rebuilds a page.\n', sourceSystem: 'mcp', sourceId: 'notes/a\u001b[2Jb', sourceFile: 'notes/a\u001b[2Jb' }], localProvider());
      expect(small[0]!.status).toBe('created');
      const big = await store.ingest([{ content: readDoc(DOCS.nativeAot), sourceSystem: 'mcp', sourceId: 'page\nid\u202e', sourceFile: 'page\nid\u202e' }], localProvider());
      expect(big[0]!.isChunked).toBe(true);
      const rows = store.db.prepare('SELECT record_id FROM artifact_chunks WHERE artifact_id = ? ORDER BY chunk_index').all(big[0]!.artifactId) as { record_id: string }[];
      expect(rows.length).toBeGreaterThan(1);
      rows.forEach((r, i) => expect(r.record_id).toBe(`doc:page\ufffdid\ufffd::ch${i}`));
      const stored = store.db.prepare('SELECT source_id, source_file FROM artifacts WHERE id = ?').get(big[0]!.artifactId) as { source_id: string; source_file: string };
      expect(stored).toEqual({ source_id: 'page\nid\u202e', source_file: 'page\nid\u202e' });
      const hits = await store.search('reindex command', { mode: 'fts', limit: 3 });
      expect(hits[0]!.sourceFile).toBe('notes/a\u001b[2Jb');
    } finally {
      store.close();
    }
  });

  it('property: planArtifact plans any source id; its record ids hold no control character and keep the rest of the name', () => {
    const char = fc.constantFrom('a', 'b', '.', '/', ':', ' ', '\t', '\n', '\u0000', '\u001b', '\u007f', '\u0085', '\u061c', '\u200e', '\u202e', '\u2069', 'é');
    fc.assert(
      fc.property(fc.array(char, { minLength: 1, maxLength: 12 }).map((c) => c.join('')), (sourceId) => {
        const plan = planArtifact({ content: `# T\n\n${'Words about the topic. '.repeat(400)}\n\n## U\n\n${'More words here. '.repeat(400)}`, sourceSystem: 'mcp', sourceId, sourceFile: sourceId });
        expect(plan.isChunked).toBe(true);
        for (const u of plan.units) {
          expect(u.recordId).not.toMatch(CONTROLS);
          const base = sourceId.split(/[\\/]/).pop() || sourceId;
          const name = base.replace(/\.[^.]*$/, '') || base;
          expect(u.recordId).toBe(`doc:${name.replace(new RegExp(CONTROLS.source, 'gu'), '\ufffd')}::ch${u.chunkIndex}`);
        }
      }),
      { numRuns: 40 },
    );
  });
});
