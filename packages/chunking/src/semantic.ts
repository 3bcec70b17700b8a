/**
 * The `semantic` strategy, seed 002's pipeline, one stage per module:
 *
 *   parse → flatten → splitOversized → pack → overlap → normalize → attachMetadata → validate
 *
 * (`fastBlocks` stands in for parse + flatten on the default path; both give
 * the same blocks.)
 */
import { headingLabel } from './heading-label.js';
import type { BlockPool } from './block-pool.js';
import { chunkerBlocks, fastBlocks } from './fast-blocks.js';
import type { FrontMatter } from './front-matter.js';
import { lineTable, type LineTable } from './lines.js';
import type { Headings } from './headings.js';
import { attachMetadata, breadcrumbOf } from './metadata.js';
import { normalize } from './normalize.js';
import { addOverlap } from './overlap.js';
import { pack, type PackContext } from './pack.js';
import { remarkBlocks } from './remark-windows.js';
import { grown, NO_PIECES, type DraftChunk } from './pieces.js';
import { anchor, anchorEmpty, exemplars } from './shape-anchor.js';
import { splitOversizedBlocks } from './split-oversized.js';
import { newUnitsState } from './units.js';
import { countTokens, TokenIndex } from './tokens.js';
import type { Block, ChunkRecord, ParserName, RecordedOptions, ResolvedChunkOptions } from './types.js';
import { validate } from './validate.js';

/** One heading text's node in chunkSemantic's budget trie; `budget` is -1 until asked for. */
interface BudgetNode {
  budget: number;
  next: Map<string, BudgetNode> | null;
}

export interface DocumentBlocks {
  frontMatter: FrontMatter | null;
  blocks: Block[];
  lines: LineTable;
}

/** Stages 1–2 with the chosen block producer (every list item with its paragraph block: public). */
export function documentBlocks(source: string, parser: ParserName): DocumentBlocks {
  return blocksOf(source, parser, false);
}

/**
 * documentBlocks for chunkDocument's own stages: on the fast path a top-level list's items
 * may hold fast-lists' DEFERRED_PARAGRAPH or DEFERRED_NESTED (see chunkerBlocks). Never returned
 * to a caller.
 */
export function chunkerDocumentBlocks(source: string, parser: ParserName, pool: BlockPool | null = null): DocumentBlocks {
  return blocksOf(source, parser, true, pool);
}

function blocksOf(source: string, parser: ParserName, deferred: boolean, pool: BlockPool | null = null): DocumentBlocks {
  // Its columns lent to the pool: only chunkDocument's own parse has one, and nothing reads its
  // line table once the pool is handed back.
  const lines = lineTable(source, pool);
  if (parser === 'remark') return { ...remarkBlocks(source, lines), lines };
  return { ...(deferred ? chunkerBlocks(source, lines, pool) : fastBlocks(source, lines)), lines };
}

/**
 * The title seed 002 asks the caller for: front matter `title`, else the first H1, else the
 * fallback; as a label (headingLabel), so a caller need not label it again.
 */
export function deriveFileTitle(doc: DocumentBlocks, fallback: string): string {
  if (doc.frontMatter?.title) return headingLabel(doc.frontMatter.title);
  // Indexed, not `.find`: a document without an H1 is read to its end, and `.find`'s callback
  // took 1.1 ms over the 204,000 blocks of 1 MB of one-line paragraphs where this loop takes a
  // quarter of that (issue 15).
  const { blocks } = doc;
  for (let k = 0; k < blocks.length; k++) {
    const b = blocks[k]!;
    if (b.type !== 'heading' || b.depth !== 1) continue;
    const text = b.text?.trim();
    if (text) return headingLabel(text);
  }
  return headingLabel(fallback);
}

/** What every strategy takes: the parsed document and the resolved options. */
export interface StrategyInput {
  source: string;
  doc: DocumentBlocks;
  fileTitle: string;
  sourceFile: string;
  options: ResolvedChunkOptions;
  /** `metadata.chunkingOptions` as chunkDocument records it (recordedOptions), when known. */
  recorded?: RecordedOptions;
  /** Recount every token from scratch when validating (the tests run that way). */
  recount?: boolean;
  /** The caller's id of the source document (token-window's artifact id is derived from it). */
  sourceId?: string;
  sourceSystem?: string;
}

/**
 * Seed 001 §7: a section titled Quick Reference, API Reference, Cheat Sheet (or
 * Reference as a word) is the technical baseline, looked for in chunk 1. The
 * same pattern as @chunkyard/spec's `TECHNICAL_TITLE`, which reads chunk 1's title.
 */
export const TECHNICAL_TITLE = /\b(?:quick\s+reference|api\s+reference|cheat[\s-]?sheet|reference)\b/i;

/**
 * Such a section starts its own chunk. Otherwise a short overview merges
 * forward into it (the common case in real docs), chunk 0 holds both, and the
 * topic has no technical baseline.
 */
export const opensTechnicalBaseline = (heading: Block): boolean => {
  const text = heading.text ?? '';
  // Every title the pattern matches has at least 9 characters (`reference`): shorter ones skip
  // the regex, asked of every heading piece (a document of tiny headings has one per line).
  return text.length >= 9 && TECHNICAL_TITLE.test(text);
};

/**
 * The largest originalText a chunk may have under each heading path: the cap less the room its
 * breadcrumb prefix may take (`prefixTokens`: exact tokens of a prefix as prepended).
 */
export function pathBudget(
  fileTitle: string,
  options: Pick<ResolvedChunkOptions, 'breadcrumbMode' | 'maxTokens'>,
  headings: Headings,
  prefixTokens: (prefix: string) => number,
): (heading: number) => number {
  let titleTokens = -1;
  // Room is reserved for the largest prefix conditional mode could prepend for a path. Each
  // path's breadcrumb is built and counted once (the trie below), so it goes to prefixTokens
  // as it is: interning it and caching its count (two Map entries a path) paid for every
  // heading of a document of distinct headings, where only the few that start chunks are asked
  // again, by the records (issue 15).
  const budgetOfBreadcrumb = (breadcrumb: string): number => {
    if (options.breadcrumbMode !== 'none' && titleTokens < 0) titleTokens = prefixTokens(fileTitle);
    const reserve = options.breadcrumbMode === 'none' ? 0 : Math.max(prefixTokens(breadcrumb), titleTokens);
    // A breadcrumb may be longer than the cap (a heading that is a whole
    // figure caption): reserving all of it would leave no room for text.
    // At most half the cap is held back; attachMetadata shortens a prefix
    // that still does not fit.
    return Math.max(1, options.maxTokens - Math.min(reserve, Math.floor(options.maxTokens / 2)));
  };
  // A path's budget depends only on its heading texts (its breadcrumb), so budgets live in a
  // trie of heading texts: a document of thousands of tiny headings repeating a few names asks
  // a few Map lookups per path, instead of joining, hashing and caching a breadcrumb string for
  // every path (issue 15). A path is an index in `headings` (units.ts); consecutive pieces
  // mostly share it: the last answer is kept.
  const root: BudgetNode = { budget: -1, next: null };
  let lastHeading = -2; // no path's index
  let lastBudget = 0;
  // Each heading's answer, by index (0: not asked yet; a budget is at least 1): the splitter and
  // then pack ask for every piece's path in turn, and on a document of tiny headings each piece
  // has a path of its own, so the second pass walked the trie again for every one.
  let known = new Float64Array(0);
  return (heading: number): number => {
    if (heading === lastHeading) return lastBudget;
    if (heading >= 0 && heading < known.length && known[heading] !== 0) {
      lastHeading = heading;
      lastBudget = known[heading]!;
      return lastBudget;
    }
    let node = root;
    const n = headings.pathLength(heading);
    for (let i = 0; i < n; i++) {
      const text = headings.text(headings.at(heading, i));
      let next = node.next?.get(text);
      if (next === undefined) {
        next = { budget: -1, next: null };
        (node.next ??= new Map()).set(text, next);
      }
      node = next;
    }
    if (node.budget < 0) node.budget = budgetOfBreadcrumb(breadcrumbOf(fileTitle, headings, heading));
    if (heading >= 0) {
      if (heading >= known.length) {
        // Room for every heading the table has room for: visitUnits reserves a slot per block
        // ahead, so a document of tiny headings grows this once, not by doubling from 64.
        known = grown(known, Math.max(64, headings.capacity, heading + 1, known.length * 2));
      }
      known[heading] = node.budget;
    }
    lastHeading = heading;
    lastBudget = node.budget;
    return node.budget;
  };
}

/**
 * A document's breadcrumb helpers, shared by chunkSemantic and the stream: the token count of a
 * retrieval prefix (with its blank line), cached per prefix, and `intern`, which keeps one
 * string object per breadcrumb text. The cache compares a key it already holds by identity but
 * an equal string built again by its characters, which under a heading of a whole document is
 * megabytes per chunk.
 */
/** The exact tokens of a retrieval prefix as prepended (with its blank line), uncached: for pathBudget, which asks once a path. */
export const countPrefix = (prefix: string): number => countTokens(`${prefix}\n\n`);

export function breadcrumbPrefixes(): { prefixTokens: (prefix: string) => number; intern: (breadcrumb: string) => string } {
  const prefixCache = new Map<string, number>();
  const prefixTokens = (prefix: string): number => {
    let n = prefixCache.get(prefix);
    if (n === undefined) {
      n = countTokens(`${prefix}\n\n`);
      prefixCache.set(prefix, n);
    }
    return n;
  };
  const canonical = new Map<string, string>();
  const intern = (breadcrumb: string): string => {
    const known = canonical.get(breadcrumb);
    if (known !== undefined) return known;
    canonical.set(breadcrumb, breadcrumb);
    return breadcrumb;
  };
  return { prefixTokens, intern };
}

const typeOf = (block: Block): string => block.type;

/** Blocks a block may hold (its descendants) and still be anchored itself. */
const ANCHORED_DESCENDANTS = 64;

/**
 * The longest heading text an anchored block may hold, itself or below it. anchor() copies each
 * anchored string (detachStrings), and a heading of a whole document (10 MB of emphasis) was
 * copied whole in every call, only for the block pool to empty its text at hand-back (issue 15).
 */
const ANCHORED_TEXT_MOST = 1024;

/**
 * Whether `block` holds at most `most` blocks below it (counted until there are more), and no
 * heading text (its own or below it) longer than ANCHORED_TEXT_MOST.
 */
function holdsAtMost(block: Block, most: number): boolean {
  const stack: Block[] = [block];
  let seen = 0;
  while (stack.length) {
    const { children, text } = stack.pop()!;
    if (text !== undefined && text.length > ANCHORED_TEXT_MOST) return false;
    if (!Array.isArray(children)) continue;
    seen += children.length;
    if (seen > most) return false;
    for (let k = 0; k < children.length; k++) stack.push(children[k]!);
  }
  return true;
}

/**
 * exemplars of a document's blocks that hold a bounded part of it: a kept block with more than
 * ANCHORED_DESCENDANTS blocks below it (a list of a thousand items is one block), or a heading
 * text longer than ANCHORED_TEXT_MOST, is replaced by exemplars of its children, which keep their
 * own hidden classes; its own class may then die (a pooled heading's lives on in the pool).
 * Exported for its test.
 */
export function blockExemplars(blocks: readonly Block[]): Block[] {
  const kept: Block[] = [];
  // A worklist, not recursion: lists nest thousands deep.
  const lists: (readonly Block[])[] = [blocks];
  while (lists.length) {
    for (const block of exemplars(lists.pop()!, typeOf)) {
      if (holdsAtMost(block, ANCHORED_DESCENDANTS)) kept.push(block);
      else if (Array.isArray(block.children)) lists.push(block.children);
    }
  }
  return kept;
}

/**
 * A few of `drafts`, each let go of its pieces (a draft's table holds the whole document's
 * units) and of its text (a slice of the document, which V8 keeps as a view of the whole: the
 * anchored drafts kept the last document chunked alive in a long-running host, 21 MB after a
 * 21 MB document, found in session 62): what the anchor needs of a draft is its hidden class.
 * Only once the records are made.
 */
function detachedExemplars(drafts: DraftChunk[]): DraftChunk[] {
  const kept = exemplars(drafts, undefined, 2);
  for (const draft of kept) {
    draft.table = NO_PIECES;
    draft.from = 0;
    draft.to = 0;
    draft.text = '';
  }
  return kept;
}

/** chunkSemantic's PackContext; one literal, so that the empty one anchored has the same hidden class. */
function packContext(source: string, tokens: TokenIndex, options: ResolvedChunkOptions, budget: (heading: number) => number): PackContext {
  return { source, tokens, minTokens: options.minTokens, targetTokens: options.targetTokens, budget, opensChunk: opensTechnicalBaseline };
}

export function chunkSemantic(input: StrategyInput): ChunkRecord[] {
  const { source, doc, options, fileTitle } = input;
  const { lines } = doc;
  // One scan of the document; any slice's exact count is cheap after it.
  const tokens = new TokenIndex(source);

  const { prefixTokens, intern } = breadcrumbPrefixes();
  const units = newUnitsState();
  const budget = pathBudget(fileTitle, options, units.headings, countPrefix);
  const ctx = packContext(source, tokens, options, budget);
  anchorEmpty('semantic pack context', () => packContext('', new TokenIndex(''), options, () => 1));

  // The units are made into pieces as they are found (no Unit object per unit: issue 15).
  const pieces = splitOversizedBlocks(doc.blocks, { source, lines, tokens, target: options.targetTokens, budget, wholeCap: options.maxTokens }, units);
  const packed = pack(pieces, ctx);
  const drafts = addOverlap(packed, options.overlapSentences, ctx);
  const normalized = normalize(drafts, source, tokens);
  const records = attachMetadata(normalized, {
    source,
    fileTitle,
    options,
    sourceFile: input.sourceFile,
    prefixTokens,
    intern,
    headings: units.headings,
    recorded: input.recorded,
  });
  // Keeps the hidden classes of this document's objects alive until the next (shape-anchor.ts):
  // a few of each array; the token index and the contexts, which hold the document's source and
  // columns, are anchored empty where they are made.
  anchor('semantic working set', {
    blocks: blockExemplars(doc.blocks),
    // Two of each end suffice; normalize's are the drafts themselves, refilled.
    packed: detachedExemplars(packed),
    drafts: detachedExemplars(drafts),
    records: exemplars(records, undefined, 2),
  });
  // Nothing reads the pieces, the headings or the token index now: the drafts above let go of
  // the pieces, and the records hold none of them.
  pieces.release();
  units.headings.release();
  tokens.release();
  return validate(source, records, { maxTokens: options.maxTokens, docName: options.docName, recount: input.recount === true, blocks: doc.blocks });
}
