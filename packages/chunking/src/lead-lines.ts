/**
 * Seed 000's lead-in and lead-out lines, extractive (the offline default): a
 * page's lead-in recaps the page before it, its lead-out previews the page
 * after it, each as that page's heading and first sentence. Deterministic and
 * bounded in tokens, so the room they take can be reserved before packing.
 */
import { sentenceStarts } from './sentences.js';
import { countTokens } from './tokens.js';
import type { Block } from './types.js';

/** Most tokens one lead line may take, template included. */
export const LEAD_MAX_TOKENS = 60;

const MIN_SENTENCE_CHARS = 60;

/** The heading in effect and the first sentence of prose in `[start, end)` of the source. */
export function pageGist(source: string, blocks: Block[], start: number, end: number, heading: string): string {
  // The first prose in the page, clipped to it: a page may start or end inside a paragraph.
  const para = blocks.find((b) => b.type === 'paragraph' && b.end > start && b.start < end);
  let sentence = '';
  if (para) {
    const text = source.slice(Math.max(para.start, start), Math.min(para.end, end)).trimStart();
    // The segmenter also breaks inside names such as ".NET" ("available in .");
    // taking segments up to a useful length keeps such a sentence whole.
    const starts = [...sentenceStarts(text), text.length];
    const cut = starts.find((s) => s >= MIN_SENTENCE_CHARS) ?? text.length;
    sentence = text.slice(0, cut);
  }
  const gist = [heading, sentence].map(flatten).filter(Boolean).join(' — ');
  return gist || flatten(source.slice(start, Math.min(end, start + 200)));
}

/** One line of plain text: whitespace collapsed, markdown emphasis and code marks dropped. */
function flatten(s: string): string {
  return s.replace(/[`*_]+/g, '').replace(/\s+/g, ' ').trim();
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * `<p>[Lead-in] Continuing from {id}: {gist}</p>` or `<p>[Lead-out] Upcoming
 * in {id}: {gist}</p>` (seed 000's templates in its HTML form), with the gist
 * cut at a word so that the line stays within LEAD_MAX_TOKENS. The id is escaped here, not by
 * callers, so every writer of lead lines (extractive or a model's) shows a document name with
 * `<`, `>` or `&` the same way.
 */
export function leadLine(kind: 'in' | 'out', id: string, gist: string): string {
  const shownId = escapeHtml(id);
  const make = (g: string): string =>
    kind === 'in' ? `<p>[Lead-in] Continuing from ${shownId}: ${escapeHtml(g)}</p>` : `<p>[Lead-out] Upcoming in ${shownId}: ${escapeHtml(g)}</p>`;
  let words = gist.split(' ');
  let line = make(gist);
  while (countTokens(line) > LEAD_MAX_TOKENS && words.length > 0) {
    words = words.slice(0, Math.max(0, Math.min(words.length - 1, Math.floor(words.length * 0.8))));
    line = make(words.length ? `${words.join(' ')} …` : '…');
  }
  return line;
}
