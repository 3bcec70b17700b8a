/**
 * Where the two block producers read a document apart, which follows CommonMark? The judge is
 * commonmark.js, CommonMark's reference implementation. Each document here is one session 57's
 * fuzzing (`npm run fuzz -- --conform`) cut down to a minimal one: `fast` gives the blocks
 * commonmark.js gives, and `remark` (micromark 4) does not. The chunking README names these
 * classes; if a micromark release reads one as CommonMark does, its test fails here and the
 * README should say so.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { fastBlocks } from './fast-blocks.js';
import { flatten } from './flatten.js';
import { parse } from './parse.js';
import type { Block } from './types.js';

/** The part of commonmark.js's node API read here (the package has no types). */
interface CmNode {
  type: string;
  firstChild: CmNode | null;
  next: CmNode | null;
}
const require = createRequire(import.meta.url);
const commonmark = require('commonmark') as { Parser: new () => { parse(text: string): CmNode } };

const CONTAINERS = new Set(['block_quote', 'list', 'item']);
const TYPES: Record<string, string> = { paragraph: 'paragraph', heading: 'heading', code_block: 'code', block_quote: 'blockquote', list: 'list', item: 'listItem', thematic_break: 'thematicBreak', html_block: 'html' };

/** Block types and nesting, as one string: `blockquote(list(listItem()))`. */
function cmShape(node: CmNode): string {
  const out: string[] = [];
  for (let c = node.firstChild; c; c = c.next) {
    const type = TYPES[c.type];
    if (type === undefined) continue;
    out.push(CONTAINERS.has(c.type) ? `${type}(${cmShape(c)})` : type);
  }
  return out.join(',');
}
const shape = (blocks: readonly Block[]): string =>
  blocks.map((b) => (['blockquote', 'list', 'listItem'].includes(b.type) ? `${b.type}(${shape(b.children ?? [])})` : b.type)).join(',');

function readings(text: string) {
  return { commonmark: cmShape(new commonmark.Parser().parse(text)), fast: shape(fastBlocks(text).blocks), remark: shape(flatten(parse(text))) };
}

describe('where fast and remark read a document apart, fast reads it as commonmark.js does', () => {
  const classes: [string, string[]][] = [
    // After indented code an item that may not interrupt a paragraph (empty, or ordered not
    // from 1) still starts a list: there is no paragraph. micromark makes it a paragraph.
    ['an item after indented code', ['    x\n-', '    ~\n*', '    #\n2)', '\t*\n0.']],
    // Likewise inside a quote or an item opened after a paragraph (micromark's interrupt state
    // carries over into the new container).
    ['an empty item opening a quote or an item after a paragraph', [':\n>1.', 'x\n>2)', '=\n>-', ')\n* *', ':\r1. *', 'ב\n1. -']],
    // Indented code after an empty quote or item is one block: micromark cuts it per line.
    ['indented code after an empty quote or item', ['>\n    b\n    c', '>\r    b\r    😀', '   *\n    :\n    /', '  1.\n    -\n    x', '>___\n    #\n    t']],
    // A tag cannot interrupt a paragraph, so in a quote it is a lazy line of it.
    ['a tag on a lazy line of a quote', ['>[\n<b>', '>:\r<a>', '><\n<s>']],
  ];
  for (const [name, texts] of classes) {
    it(name, () => {
      for (const text of texts) {
        const r = readings(text);
        expect({ text, fast: r.fast }).toEqual({ text, fast: r.commonmark });
        expect({ text, remark: r.remark }).not.toEqual({ text, remark: r.commonmark });
      }
    });
  }
});
