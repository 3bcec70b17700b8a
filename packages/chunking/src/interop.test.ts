/**
 * The interop JSON read back by the real llamaindex (issue 15's library probe): what the
 * README promises of `new TextNode(json)` / `jsonToNode(json)`, and the one place llamaindex
 * 0.12 loses a field, pinned so that the README's note goes when a llamaindex upgrade fixes it.
 */
import { jsonToNode, TextNode } from 'llamaindex';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { textNodesOf } from './interop.js';

describe('textNodesOf JSON read back by llamaindex', () => {
  it('keeps ids, text, metadata, relationships and offsets, but for a start offset of 0 (llamaindex drops it)', () => {
    const source = '# Guide\n\nFirst part.\n\n## Install\n\n' + 'Install words here. '.repeat(200);
    const { chunks } = chunkDocument(source, { docName: 'guide', strategy: 'hierarchical' });
    const lines = textNodesOf(chunks, { id: 'guide.md' }).map((json) => JSON.parse(JSON.stringify(json)) as Record<string, unknown>);
    for (const json of lines) {
      for (const node of [jsonToNode(json as never), new TextNode(json as never)]) {
        expect(node.id_).toBe(json.id_);
        expect((node as TextNode).text).toBe(json.text);
        expect(node.metadata).toEqual(json.metadata);
        expect(Object.keys(node.relationships).sort()).toEqual(Object.keys(json.relationships as object).sort());
        expect((node as TextNode).endCharIdx).toBe(json.endCharIdx);
        // The README's note: llamaindex 0.12 tests startCharIdx for truthiness.
        expect((node as TextNode).startCharIdx).toBe(json.startCharIdx === 0 ? undefined : json.startCharIdx);
      }
    }
    expect(lines[0]!.startCharIdx).toBe(0);
  });
});
