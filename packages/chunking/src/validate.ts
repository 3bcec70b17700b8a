/**
 * Stage 8: the invariants every strategy promises, checked on the final
 * records. A violation is a bug in the pipeline, never a property of the
 * input, so it throws rather than filtering chunks out silently.
 *
 * With `recount`, token counts are recomputed from scratch instead of trusted
 * (the tests run that way; the default path trusts the exact counts the
 * packer computed, which the tests prove equal).
 */
import { hasNonJsSpace, skipWhitespace, trimEndOffset } from './lines.js';
import { anchorEmpty } from './shape-anchor.js';
import { countTokens } from './tokens.js';
import type { Block, ChunkRecord } from './types.js';

export class ChunkingInvariantError extends Error {
  constructor(
    readonly violations: string[],
    docName: string,
  ) {
    super(`chunking ${docName}: ${violations.length} invariant violation(s): ${violations.slice(0, 5).join('; ')}`);
    this.name = 'ChunkingInvariantError';
  }
}

export interface ValidateOptions {
  maxTokens: number;
  /** Per-chunk cap, for strategies whose chunks have different caps (hierarchical's tiers). */
  maxTokensOf?: (c: ChunkRecord) => number;
  recount?: boolean;
  docName: string;
  /**
   * The document's blocks, for strategies that keep atomic units whole (semantic): then no
   * chunk without `splitUnit` may start or end inside a code block or table that fits the cap
   * (for a fenced block, that is a chunk with an unbalanced fence).
   */
  blocks?: readonly Block[];
}

/** Code blocks and tables anywhere in the block tree, in document order (they never nest). */
function atomicBlocks(blocks: readonly Block[]): Block[] {
  const out: Block[] = [];
  const walk = (bs: readonly Block[]): void => {
    for (let k = 0; k < bs.length; k++) {
      const b = bs[k]!;
      if (b.type === 'code' || b.type === 'table') out.push(b);
      else if (b.children) walk(b.children);
    }
  };
  walk(blocks);
  return out.sort((a, b) => a.start - b.start);
}

/** The atomic block with `start < p < end`, if any (binary search over disjoint ranges). */
function blockAround(atomic: readonly Block[], p: number): Block | undefined {
  let lo = 0;
  let hi = atomic.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (atomic[mid]!.start < p) lo = mid + 1;
    else hi = mid;
  }
  const b = atomic[lo - 1];
  return b && p < b.end ? b : undefined;
}

export function validate(source: string, chunks: ChunkRecord[], opts: ValidateOptions): ChunkRecord[] {
  const checker = new RecordChecker(source, opts);
  chunks.forEach((c, i) => checker.check(c, i));
  checker.finish();
  return chunks;
}

/**
 * validate one record at a time (stream.ts checks each window's records as they are made);
 * `finish` throws what was found.
 */
export class RecordChecker {
  private readonly problems: string[] = [];
  private readonly atomic: Block[];
  private readonly fitting = new Map<Block, boolean>();

  /** The options without `blocks` (atomic holds what check needs of them), in one literal of this class's. */
  private readonly opts: Omit<ValidateOptions, 'blocks'>;

  constructor(
    private readonly source: string,
    opts: ValidateOptions,
  ) {
    this.opts = { maxTokens: opts.maxTokens, maxTokensOf: opts.maxTokensOf, recount: opts.recount, docName: opts.docName };
    this.atomic = opts.blocks ? atomicBlocks(opts.blocks) : [];
    // Its hidden class outlives the document, and with it check()'s optimized code: one made over
    // an empty document, not this one, which holds the document's source and blocks (shape-anchor.ts).
    anchorEmpty('record checker', () => new RecordChecker('', { maxTokens: 1, docName: '' }));
  }

  private fits(b: Block, c: ChunkRecord): boolean {
    const { opts, fitting } = this;
    let f = fitting.get(b);
    if (f === undefined) {
      f = countTokens(this.source.slice(b.start, b.end)) <= (opts.maxTokensOf ? opts.maxTokensOf(c) : opts.maxTokens);
      fitting.set(b, f);
    }
    return f;
  }

  check(c: ChunkRecord, i: number): void {
    const { source, opts, problems, atomic } = this;
    // `chunk ${i}` is built only where a problem is reported: built for every record, it was a
    // string per chunk (issue 15: tens of thousands of records per MB of tiny headings).
    if (c.chunkNumber !== i) problems.push(`chunk ${i}: chunkNumber ${c.chunkNumber}`);
    if (!hasNonJsSpace(c.originalText, 0, c.originalText.length)) problems.push(`chunk ${i}: empty`);
    const { charStart, charEnd } = c.sourcePosition;
    if (!(charStart >= 0 && charEnd <= source.length && charStart < charEnd)) problems.push(`chunk ${i}: bad range ${charStart}-${charEnd}`);
    // Compared through a slice, not `startsWith` at the offset: startsWith compares a character
    // at a time, the slice's equality by blocks (+35M instructions per pass of the npm docs, 12%).
    if (!c.splitUnit && source.slice(charStart, charEnd) !== c.originalText) {
      problems.push(`chunk ${i}: text is not source.slice(${charStart}, ${charEnd})`);
    }
    const tokens = opts.recount ? countTokens(c.originalText) : c.tokenStats.tokens;
    const embedTokens = opts.recount ? countTokens(c.embedText) : c.tokenStats.embedTokens;
    if (opts.recount && tokens !== c.tokenStats.tokens) problems.push(`chunk ${i}: tokens ${c.tokenStats.tokens} recorded, ${tokens} counted`);
    if (opts.recount && embedTokens !== c.tokenStats.embedTokens) problems.push(`chunk ${i}: embedTokens ${c.tokenStats.embedTokens} recorded, ${embedTokens} counted`);
    const max = opts.maxTokensOf ? opts.maxTokensOf(c) : opts.maxTokens;
    if (tokens > max) problems.push(`chunk ${i}: ${tokens} tokens > max ${max}`);
    if (embedTokens > max) problems.push(`chunk ${i}: embedText ${embedTokens} tokens > max ${max}`);
    if (atomic.length && !c.splitUnit) {
      for (const [p, side] of [[charStart, 'starts'], [charEnd, 'ends']] as const) {
        const b = blockAround(atomic, p);
        // Only text is cut: a chunk trimmed to the first character of an indented code block
        // whose range opens on whitespace (a list item's tab-indented code) starts at the code.
        if (b && this.fits(b, c) && (side === 'starts' ? skipWhitespace(source, b.start, b.end) < p : trimEndOffset(source, b.start, b.end) > p)) {
          const what = b.type === 'table' ? 'a table' : b.fenced ? 'a fenced code block (unbalanced fence)' : 'a code block';
          problems.push(`chunk ${i}: ${side} inside ${what} at lines ${b.startLine + 1}-${b.endLine + 1} that fits, without splitUnit`);
        }
      }
    }
  }

  finish(): void {
    if (this.problems.length) throw new ChunkingInvariantError(this.problems, this.opts.docName);
  }
}
