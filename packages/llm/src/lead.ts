/**
 * Seed 000's lead-in and lead-out sentences written by a model:
 *
 *   Lead-in:  'Continuing from {prev_id}: {one-sentence summary}'   (of the page before)
 *   Lead-out: 'Upcoming in {next_id}: {one-sentence preview}'       (of the page after)
 *
 * "Generate summaries and previews with an LLM in low-temperature (T=0.2) mode." The chunking
 * library stays pure and offline: it lays out pages with its extractive lead lines (whose room,
 * LEAD_MAX_TOKENS each, is reserved before packing), and `applyLeadSentences` swaps in the
 * model's sentences through the same `leadLine`, which cuts them to the same cap — so every page
 * stays within Nmax, and the CT comment, the exact source text and the offsets are unchanged.
 */
import { countTokens, ctComment, leadLine, type ChunkDocumentResult, type ChunkRecord } from '@chunkyard/chunking';
import { cachedChat, type LlmCache, type PromptTemplate } from './cache.js';
import type { ChatClient } from './client.js';

const SYSTEM =
  'You write one sentence about a part of a technical document, for a reader moving between its parts. ' +
  'Reply with that single plain sentence only: at most 25 words, no markdown, no quotes, no preamble.';

export const LEAD_PROMPTS = {
  /** The lead-in of page i+1 recaps page i. */
  summary: {
    id: 'chunkyard-lead-summary-v1',
    system: SYSTEM,
    user: (page: string) => `Summarize what this part covered, for a reader who has just finished it:\n\n${page}`,
  },
  /** The lead-out of page i-1 previews page i. */
  preview: {
    id: 'chunkyard-lead-preview-v1',
    system: SYSTEM,
    user: (page: string) => `Say what this part covers, for a reader about to start it:\n\n${page}`,
  },
} as const satisfies Record<string, PromptTemplate>;

/**
 * A model's reply as one sentence of plain text: whitespace collapsed, control characters
 * (C0, DEL, C1, bidirectional controls) dropped, wrapping quotes and a "Summary:" label
 * dropped. The sentence goes into a page's text and its `_chunks/*.md` file: a NUL from the
 * server made that file "binary" to every tool that reads it, an ESC sequence reached the
 * terminal of whoever printed it, and U+202E reversed the words after it.
 */
export function oneLine(reply: string): string {
  // eslint-disable-next-line no-control-regex
  let s = reply.replace(/\s+/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim();
  s = s.replace(/^(?:summary|preview|recap|sentence)\s*:\s*/i, '');
  const quoted = /^["'“‘](.*)["'”’]$/.exec(s);
  if (quoted) s = quoted[1]!.trim();
  return s;
}

export interface LeadSentences {
  /** Per page: the recap used by the next page's lead-in (null when no page follows, or lead lines are off). */
  summaries: (string | null)[];
  /** Per page: the preview used by the previous page's lead-out (null when no page precedes). */
  previews: (string | null)[];
  /** Requests made (0 on a rerun served from the cache). */
  requests: number;
}

/**
 * The sentences a paginated result needs: a summary of every page that has a lead-in after it,
 * a preview of every page that has a lead-out before it. One request per sentence not cached.
 */
export async function generateLeadSentences(result: ChunkDocumentResult, client: ChatClient, cache: LlmCache | null): Promise<LeadSentences> {
  const pages = result.chunks;
  const summaries: (string | null)[] = pages.map(() => null);
  const previews: (string | null)[] = pages.map(() => null);
  let requests = 0;
  for (let i = 0; i < pages.length; i++) {
    const page = pages[i]!;
    if (pages[i + 1]?.page?.leadIn) {
      const r = await cachedChat(client, cache, LEAD_PROMPTS.summary, page.originalText);
      summaries[i] = oneLine(r.text);
      if (!r.cached) requests++;
    }
    if (pages[i - 1]?.page?.leadOut) {
      const r = await cachedChat(client, cache, LEAD_PROMPTS.preview, page.originalText);
      previews[i] = oneLine(r.text);
      if (!r.cached) requests++;
    }
  }
  return { summaries, previews, requests };
}

/**
 * The result with each page's lead lines rewritten from `sentences`; pure. A page whose
 * neighbour has no sentence (empty reply) keeps its extractive line. Only paginate results
 * have pages; any other result is returned as it is.
 */
export function applyLeadSentences<T extends ChunkDocumentResult>(result: T, sentences: Pick<LeadSentences, 'summaries' | 'previews'>): T {
  if (result.strategy !== 'paginate') return result;
  const chunks = result.chunks.map((c, i): ChunkRecord => {
    const page = c.page;
    if (!page) return c;
    const summary = sentences.summaries[i - 1];
    const preview = sentences.previews[i + 1];
    const leadIn = page.leadIn && page.ct.prev && summary ? leadLine('in', page.ct.prev, summary) : page.leadIn;
    const leadOut = page.leadOut && page.ct.next && preview ? leadLine('out', page.ct.next, preview) : page.leadOut;
    const body = [leadIn, c.originalText, leadOut].filter((x): x is string => x !== null).join('\n\n');
    const text = `${ctComment(page.ct)}\n${body}\n`;
    return {
      ...c,
      embedText: body,
      tokenStats: { ...c.tokenStats, embedTokens: countTokens(body) },
      page: { ...page, leadIn, leadOut, text, tokens: countTokens(text) },
    };
  });
  return { ...result, chunks };
}
