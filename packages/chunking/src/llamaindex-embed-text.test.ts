/**
 * What a LlamaIndex.TS vector store embeds of ChunkyardNodeParser's nodes (and of docs-export's
 * `textNodesOf` JSON): LlamaIndex keeps "what is embedded" apart from "what is shown" itself,
 * `getContent(MetadataMode.EMBED)` being the metadata lines the node does not exclude, a blank
 * line and the text. So chunkyard's breadcrumb reaches the embedding as metadata lines
 * (`fileTitle: …`, `headerBreadcrumb: …`) while `text` stays the chunk. Checked with llamaindex's
 * own VectorStoreIndex and a BaseEmbedding that records every text it is given.
 */
import { BaseEmbedding, Document, jsonToNode, MetadataMode, Settings, TextNode, VectorStoreIndex } from 'llamaindex';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument, type ChunkOptions, type ChunkRecord } from './index.js';
import { textNodesOf } from './interop.js';
import { ChunkyardNodeParser } from './llamaindex.js';
import { wordVector } from './test-helpers.js';

/** A deterministic offline embedding (word hashes into 64 buckets) that keeps the texts it embedded. */
class RecordingEmbedding extends BaseEmbedding {
  readonly texts: string[] = [];
  constructor() {
    super();
  }
  async getTextEmbedding(text: string): Promise<number[]> {
    this.texts.push(text);
    return this.vector(text);
  }
  override async getQueryEmbedding(query: Parameters<BaseEmbedding['getQueryEmbedding']>[0]): Promise<number[] | null> {
    return this.vector(typeof query === 'string' ? query : JSON.stringify(query));
  }
  private vector(text: string): number[] {
    return wordVector(text, 64);
  }
}

/** The texts VectorStoreIndex.init embeds for these nodes. */
async function embedded(nodes: TextNode[]): Promise<string[]> {
  const embedding = new RecordingEmbedding();
  await Settings.withEmbedModel(embedding, () => VectorStoreIndex.init({ nodes }));
  return embedding.texts;
}

/** The parts of chunkyard's breadcrumb in a record's embedText (`A > B > C` before the chunk). */
function breadcrumbParts(r: ChunkRecord): string[] {
  const prefix = r.embedText.slice(0, r.embedText.length - r.originalText.length);
  return prefix.trim() === '' ? [] : prefix.trim().split(' > ');
}

const filler = Array.from({ length: 14 }, (_, i) => `Paragraph ${i} about prerequisites explains one more detail of the setup, with enough words to fill a chunk of its own.`).join('\n\n');
const STEP = 'Run `npm install` from the project folder, wait for it to finish, then restart the terminal before you go on.';
const GUIDE = `# Installing\n\nHow to get the tool.\n\n## Windows\n\n${filler}\n\n${STEP}\n\n## Linux\n\n${filler}\n\n${STEP}\n`;
const SIZES = { maxTokens: 120, targetTokens: 60, minTokens: 16 } as const;

describe('ChunkyardNodeParser nodes: what LlamaIndex embeds', () => {
  it('VectorStoreIndex embeds each chunk behind its breadcrumb lines, not the bare text, and a query naming the section finds its step', async () => {
    const nodes = new ChunkyardNodeParser(SIZES).getNodesFromDocuments([new Document({ id_: 'guide', text: GUIDE })]);
    const texts = await embedded(nodes);
    expect(texts).toEqual(nodes.map((n) => `headerBreadcrumb: ${String(n.metadata.headerBreadcrumb)}\n\n${n.text}`.trim()));
    const steps = texts.filter((t) => t.includes(STEP));
    expect(steps.map((t) => t.split('\n')[0])).toEqual(['headerBreadcrumb: Installing > Windows', 'headerBreadcrumb: Installing > Linux']);
    // The node's text is the chunk: the LLM reads it with the same lines, NONE has it bare.
    for (const n of nodes) {
      expect(n.getContent(MetadataMode.LLM)).toBe(n.getContent(MetadataMode.EMBED));
      expect(n.getContent(MetadataMode.NONE)).toBe(n.text.trim());
    }
    const index = await Settings.withEmbedModel(new RecordingEmbedding(), () => VectorStoreIndex.init({ nodes }));
    for (const os of ['Windows', 'Linux']) {
      const [top] = await Settings.withEmbedModel(new RecordingEmbedding(), () => index.asRetriever({ similarityTopK: 1 }).retrieve({ query: `npm install restart the terminal on ${os}` }));
      expect((top!.node as TextNode).text).toContain(STEP);
      expect(top!.node.metadata.headerBreadcrumb).toBe(`Installing > ${os}`);
    }
  });

  it("a title that is not the first heading (front matter, a text without headings) is embedded too, as chunkyard's embedText has it; no empty headerBreadcrumb line (issue: 'Synopsis' alone, and 'headerBreadcrumb:' on every chunk of a heading-less text)", async () => {
    const npm = '---\ntitle: npm-install\n---\n\n### Synopsis\n\n```bash\nnpm install [<package-spec> ...]\n```\n\n### Description\n\nThis command installs a package.\n';
    const plain = 'Just text with no heading at all, a few words here.\n';
    const nodes = new ChunkyardNodeParser().getNodesFromDocuments([new Document({ id_: 'npm-install', text: npm }), new Document({ id_: 'plain', text: plain })]);
    const texts = await embedded(nodes);
    expect(texts[0]).toBe(`fileTitle: npm-install\nheaderBreadcrumb: Synopsis\n\n${nodes[0]!.text}`.trim());
    expect(texts.at(-1)).toBe(`fileTitle: plain\n\n${plain.trim()}`);
    const [record] = chunkDocument(plain, { docName: 'plain' }).chunks;
    expect(record!.embedText).toBe(`plain\n\n${record!.originalText}`);
    for (const t of texts) expect(t).not.toMatch(/^headerBreadcrumb:\s*$/m);
    // A document whose title is its first heading shows no fileTitle line: the breadcrumb starts with it.
    expect(await embedded(new ChunkyardNodeParser().getNodesFromDocuments([new Document({ id_: 'g', text: '# Guide\n\n## Part\n\nWords.\n' })]))).toEqual(['headerBreadcrumb: Guide\n\n# Guide\n\n## Part\n\nWords.']);
  });

  it("breadcrumbMode 'none': chunkyard embeds the bare chunk, and so does LlamaIndex; the LLM still reads the breadcrumb", async () => {
    const nodes = new ChunkyardNodeParser({ ...SIZES, breadcrumbMode: 'none' }).getNodesFromDocuments([new Document({ id_: 'guide', text: GUIDE })]);
    expect(await embedded(nodes)).toEqual(nodes.map((n) => n.text.trim()));
    expect(nodes.every((n) => n.getContent(MetadataMode.LLM).startsWith(`headerBreadcrumb: ${String(n.metadata.headerBreadcrumb)}\n\n`))).toBe(true);
  });

  it("every part of chunkyard's breadcrumb (breadcrumbMode 'always') is in what LlamaIndex embeds, nothing else but the text, for the parser's nodes and docs-export's JSON alike", async () => {
    const markdown = fc
      .tuple(
        fc.constantFrom('', '---\ntitle: Front title\n---\n\n'),
        fc.array(fc.oneof(fc.constantFrom('# Guide', '## Install', '### Windows', '## Linux', '```ts\nconst x = 1;\n```', '| a | b |\n| - | - |\n| 1 | 2 |', '- item\n- item two'), fc.lorem({ maxCount: 40 })), { maxLength: 10 }),
      )
      .map(([front, parts]) => front + parts.join('\n\n'));
    await fc.assert(
      fc.asyncProperty(markdown, fc.constantFrom<ChunkOptions['strategy']>('semantic', 'hierarchical', 'token-window', 'paginate'), async (text, strategy) => {
        const options = { ...SIZES, strategy, breadcrumbMode: 'always' } as const;
        const nodes = new ChunkyardNodeParser(options).getNodesFromDocuments([new Document({ id_: 'guide', text, metadata: { file_name: 'guide.md' } })]);
        const { chunks } = chunkDocument(text, { ...options, docName: 'guide', sourceFile: 'guide.md' });
        const json = textNodesOf(chunks, { id: 'guide.md' }).map((j) => jsonToNode(JSON.parse(JSON.stringify(j)) as never) as TextNode);
        expect(nodes).toHaveLength(chunks.length);
        const texts = await embedded(nodes);
        expect(await embedded(json)).toEqual(texts.map((t) => t.replace(/^file_name: guide\.md\n/m, '')));
        for (const [i, r] of chunks.entries()) {
          const [head, body] = [texts[i]!.slice(0, texts[i]!.length - nodes[i]!.text.trim().length), nodes[i]!.text.trim()];
          expect(texts[i]!.endsWith(body)).toBe(true);
          // Semantic records carry the breadcrumb in embedText; the others' (a hierarchical
          // [DOC][PATH][CONCEPTS] prefix, none for windows and pages) are checked by their fields.
          const parts = strategy === 'semantic' ? breadcrumbParts(r) : [...(r.fileTitle !== '' && r.headerPath[0] !== r.fileTitle ? [r.fileTitle] : []), ...r.headerPath];
          for (const part of parts) expect(head, `${r.id}: ${part}`).toContain(part);
          const lines = head.split('\n').filter(Boolean);
          for (const line of lines) expect(line, r.id).toMatch(/^(file_name|fileTitle|headerBreadcrumb): /);
        }
      }),
      { numRuns: 40 },
    );
  });
});
