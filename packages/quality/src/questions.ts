/**
 * Question sets with reference excerpts as character ranges, from the two formats
 * the scorer accepts:
 *
 * - the Chroma CSV (`question`, `references` = JSON array of
 *   `{content, start_index, end_index}`, `corpus_id`), parsed with csv-parse
 *   (quoted fields hold commas, quotes and newlines);
 * - a topic's qa-pairs.md, whose block-quoted excerpts are located verbatim in
 *   the source by @chunkyard/qa-pairs.
 *
 * Both check that every reference is a valid range of its corpus and, when the
 * corpus is given, that the range holds the excerpt's text.
 */
import { parse } from 'csv-parse/sync';
import { escapeShown, locateExcerpts, parseQaPairs } from '@chunkyard/qa-pairs';
import type { Question } from './metric.js';

export class QuestionsError extends Error {
  override name = 'QuestionsError';
}

/**
 * Text of the file (or its name) as a message gives it: control, bidirectional and invisible
 * characters and lone surrogates as \u001b-style escapes (qa-pairs' escapeShown), and at most `max` characters. docs-score
 * prints messages as they are: a corpus_id holding an ESC sequence cleared the terminal, and a
 * megabyte one made a megabyte message.
 */
function shown(text: string, max = Infinity): string {
  let cut = text.length > max ? text.slice(0, max - 3) : text;
  // Not half a pair cut in two; a lone surrogate the text holds is escaped (it was dropped).
  if (cut.length < text.length && /[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  // qa-pairs' escapes: zero-width characters, the BOM and the bidi marks too, which reached the
  // terminal raw (`unknown corpus "wiki"` for a corpus_id ending in U+200B).
  const safe = escapeShown(cut);
  return text.length > max ? `${safe}...` : safe;
}

interface RawReference {
  content?: unknown;
  start_index?: unknown;
  end_index?: unknown;
}

/**
 * Parses a Chroma-format questions CSV. `corpora` (corpus id → text) is optional;
 * with it, each reference's range must hold its `content` exactly.
 */
export function parseChromaCsv(text: string, file: string, corpora?: ReadonlyMap<string, string>): Question[] {
  const name = shown(file);
  // The header is checked as itself: with a column named twice csv-parse kept the last one's
  // values and dropped the first's without a word, and a header lacking a column passed when
  // no row followed it. Columns this reader ignores may repeat (a spreadsheet's trailing
  // commas name several columns "").
  const columns = (header: string[]): string[] => {
    for (const col of ['question', 'references', 'corpus_id']) {
      const n = header.filter((h) => h === col).length;
      if (n === 0) throw new QuestionsError(`${name}: missing column "${col}"`);
      if (n > 1) throw new QuestionsError(`${name}: column "${col}" appears ${n} times in the header; keep one`);
    }
    return header;
  };
  let rows: Record<string, string>[];
  try {
    // CRLF, LF and a lone CR each end a record, as they end a line in qa-pairs.md: csv-parse
    // takes the first one it meets for the whole file, so rows appended with LF to a CRLF file
    // were one long record ("columns length is 3, got 7 on line 4"), and after a CR header
    // every LF was read as field text.
    rows = parse(text, { columns, skip_empty_lines: true, bom: true, relax_column_count: false, record_delimiter: ['\r\n', '\n', '\r'] }) as Record<string, string>[];
  } catch (err) {
    if (err instanceof QuestionsError) throw err;
    // csv-parse quotes the field it stopped in (a megabyte value made a megabyte message) and
    // the character it met, raw.
    throw new QuestionsError(`${name}: not a valid CSV: ${shown((err as Error).message, 300)}`);
  }
  return rows.map((row, i) => {
    const where = `${name}: row ${i + 1}`;
    const question = row.question?.trim() ?? '';
    const corpusId = row.corpus_id?.trim() ?? '';
    if (!question) throw new QuestionsError(`${where}: empty question`);
    if (!corpusId) throw new QuestionsError(`${where}: empty corpus_id`);
    let refs: unknown;
    try {
      refs = JSON.parse(row.references ?? '');
    } catch {
      throw new QuestionsError(`${where}: references is not JSON`);
    }
    if (!Array.isArray(refs) || refs.length === 0) throw new QuestionsError(`${where}: references must be a non-empty JSON array`);
    const corpus = corpora?.get(corpusId);
    if (corpora && corpus === undefined) throw new QuestionsError(`${where}: unknown corpus "${shown(corpusId, 60)}"`);
    // `[null]` is JSON too: reading its start_index threw "Cannot read properties of null".
    const references = (refs as (RawReference | null)[]).map((r, j) => {
      const start = r?.start_index;
      const end = r?.end_index;
      if (!Number.isInteger(start) || !Number.isInteger(end) || (start as number) < 0 || (end as number) <= (start as number)) {
        throw new QuestionsError(`${where}: reference ${j + 1} has no valid start_index/end_index`);
      }
      if (corpus !== undefined) {
        if ((end as number) > corpus.length) throw new QuestionsError(`${where}: reference ${j + 1} ends at ${end as number}, past the corpus (${corpus.length} chars)`);
        if (typeof r?.content === 'string' && corpus.slice(start as number, end as number) !== r.content) {
          throw new QuestionsError(`${where}: reference ${j + 1} text does not match ${shown(corpusId)}[${start as number}:${end as number}]`);
        }
      }
      return { start: start as number, end: end as number };
    });
    return { id: String(i), text: question, corpusId, references };
  });
}

/**
 * Questions from a topic's qa-pairs.md; only questions that have at least one
 * reference excerpt are kept (an answer without excerpts has no ranges to score).
 */
export function questionsFromQaPairs(qaText: string, qaFile: string, source: string, sourceName: string, corpusId: string): Question[] {
  const pairs = parseQaPairs(qaText, qaFile);
  const located = locateExcerpts(pairs, source, qaFile, sourceName);
  const out: Question[] = [];
  pairs.forEach((p, i) => {
    const refs = located[i]!;
    if (refs.length === 0) return;
    out.push({ id: `${corpusId}#${i + 1}`, text: p.question, corpusId, references: refs.map((r) => ({ start: r.start, end: r.end })) });
  });
  return out;
}
