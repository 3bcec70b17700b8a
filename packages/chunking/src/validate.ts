/**
 * Stage 8: the invariants every strategy promises, checked on the final
 * records. A violation is a bug in the pipeline, never a property of the
 * input, so it throws rather than filtering chunks out silently.
 *
 * With `recount`, token counts are recomputed from scratch instead of trusted
 * (the tests run that way; the default path trusts the exact counts the
 * packer computed, which the tests prove equal).
 */
import { countTokens } from './tokens.js';
import type { ChunkRecord } from './types.js';

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
}

export function validate(source: string, chunks: ChunkRecord[], opts: ValidateOptions): ChunkRecord[] {
  const problems: string[] = [];
  chunks.forEach((c, i) => {
    const where = `chunk ${i}`;
    if (c.chunkNumber !== i) problems.push(`${where}: chunkNumber ${c.chunkNumber}`);
    if (!c.originalText.trim()) problems.push(`${where}: empty`);
    const { charStart, charEnd } = c.sourcePosition;
    if (!(charStart >= 0 && charEnd <= source.length && charStart < charEnd)) problems.push(`${where}: bad range ${charStart}-${charEnd}`);
    if (!c.splitUnit && source.slice(charStart, charEnd) !== c.originalText) problems.push(`${where}: text is not source.slice(${charStart}, ${charEnd})`);
    const tokens = opts.recount ? countTokens(c.originalText) : c.tokenStats.tokens;
    const embedTokens = opts.recount ? countTokens(c.embedText) : c.tokenStats.embedTokens;
    if (opts.recount && tokens !== c.tokenStats.tokens) problems.push(`${where}: tokens ${c.tokenStats.tokens} recorded, ${tokens} counted`);
    if (opts.recount && embedTokens !== c.tokenStats.embedTokens) problems.push(`${where}: embedTokens ${c.tokenStats.embedTokens} recorded, ${embedTokens} counted`);
    const max = opts.maxTokensOf ? opts.maxTokensOf(c) : opts.maxTokens;
    if (tokens > max) problems.push(`${where}: ${tokens} tokens > max ${max}`);
    if (embedTokens > max) problems.push(`${where}: embedText ${embedTokens} tokens > max ${max}`);
  });
  if (problems.length) throw new ChunkingInvariantError(problems, opts.docName);
  return chunks;
}
