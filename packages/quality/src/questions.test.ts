import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseChromaCsv, questionsFromQaPairs, QuestionsError } from './questions.js';

const CHROMA = join(import.meta.dirname, '../../../../shared/eval/chroma');

describe('parseChromaCsv', () => {
  const corpora = new Map([['c1', 'Hello, "world".\nSecond line, here.']]);
  const header = 'question,references,corpus_id\n';
  const ref = '"[{""start_index"":0,""end_index"":1}]"';
  /** The message parseChromaCsv refuses `csv` with (a QuestionsError). */
  const message = (csv: string, file = 'q.csv'): string => {
    try {
      parseChromaCsv(csv, file, corpora);
    } catch (e) {
      expect(e).toBeInstanceOf(QuestionsError);
      return (e as Error).message;
    }
    throw new Error('no error');
  };
  it('reads quoted fields with commas, doubled quotes and newlines', () => {
    const csv = 'question,references,corpus_id\n"What,\nexactly?","[{""content"": ""Hello, \\""world\\"""", ""start_index"": 0, ""end_index"": 14}]",c1\n';
    const qs = parseChromaCsv(csv, 'q.csv', corpora);
    expect(qs).toEqual([{ id: '0', text: 'What,\nexactly?', corpusId: 'c1', references: [{ start: 0, end: 14 }] }]);
  });
  it('rejects a reference whose range does not hold its content, naming the row', () => {
    const csv = 'question,references,corpus_id\nQ?,"[{""content"": ""nope"", ""start_index"": 0, ""end_index"": 4}]",c1\n';
    expect(() => parseChromaCsv(csv, 'q.csv', corpora)).toThrow(/q\.csv: row 1: reference 1 text does not match c1\[0:4\]/);
  });
  it('rejects missing columns, bad JSON and unknown corpora', () => {
    expect(() => parseChromaCsv('question,corpus_id\nQ?,c1\n', 'q.csv')).toThrow(/missing column "references"/);
    expect(() => parseChromaCsv('question,references,corpus_id\nQ?,[oops,c1\n', 'q.csv')).toThrow(QuestionsError);
    expect(() => parseChromaCsv('question,references,corpus_id\nQ?,"[{""start_index"":0,""end_index"":1}]",zz\n', 'q.csv', corpora)).toThrow(/unknown corpus "zz"/);
  });
  it('a reference that is null is named with its row, not a TypeError (s46 probe)', () => {
    const csv = 'question,references,corpus_id\nQ?,"[{""start_index"":0,""end_index"":1}]",c1\nR?,"[null]",c1\n';
    expect(() => parseChromaCsv(csv, 'q.csv')).toThrow(/^q\.csv: row 2: reference 1 has no valid start_index\/end_index$/);
    expect(() => parseChromaCsv(csv, 'q.csv', corpora)).toThrow(/^q\.csv: row 2: reference 1 has no valid start_index\/end_index$/);
  });
  it('escapes control characters of the file, corpus_id and CSV text it names, and quotes at most a line of them (issue 15 probe)', () => {
    // docs-score prints these messages as they are: an ESC sequence in a corpus_id or in the
    // CSV cleared the terminal, and a megabyte field made a megabyte message.
    expect(message(`${header}Q?,${ref},\u001b[2Jzz\u009b\u202e\n`)).toBe('q.csv: row 1: unknown corpus "\\u001b[2Jzz\\u009b\\u202e"');
    expect(message(`${header}Q?,${ref},${'z'.repeat(1 << 20)}\n`)).toBe(`q.csv: row 1: unknown corpus "${'z'.repeat(57)}..."`);
    expect(message(`${header}"Q?"\u001b[2J,${ref},c1\n`)).toMatch(/^q\.csv: not a valid CSV: Invalid Closing Quote: got "\\u001b" at line 2 /);
    const long = message(`${header}Q?,${'x'.repeat(1 << 20)}"y,c1\n`);
    expect(long).toMatch(/^q\.csv: not a valid CSV: Invalid Opening Quote: a quote is found on field "references" at line 2, value is "x+\.\.\.$/);
    expect(long.length).toBeLessThan(400);
    expect(message(`${header}Q?,${ref},\n`, 'a\u001b]0;t\u0007\nb.csv')).toBe('a\\u001b]0;t\\u0007\\u000ab.csv: row 1: empty corpus_id');
  });
  it('shows invisible characters, bidi marks and lone surrogates of what it names as escapes, not raw', () => {
    // A corpus_id ending in a zero-width space was `unknown corpus "wiki"`: the id looked right.
    expect(message(`${header}Q?,${ref},wiki\u200b\n`)).toBe('q.csv: row 1: unknown corpus "wiki\\u200b"');
    expect(message(`${header}Q?,${ref},w\ufeffi\u200fki\u2060\n`)).toBe('q.csv: row 1: unknown corpus "w\\ufeffi\\u200fki\\u2060"');
    // (csv-parse reads a lone surrogate in the text as U+FFFD; a file name may hold one.)
    expect(message(`${header}Q?,${ref},\n`, 'q\ud800')).toBe('q\\ud800: row 1: empty corpus_id');
    expect(message(`${header}Q?,${ref},\n`, 'q\u200b.csv')).toBe('q\\u200b.csv: row 1: empty corpus_id');
  });

  it('refuses a header naming a column it reads twice, or lacking one, even with no row after it', () => {
    // csv-parse kept the second "question" column's values and dropped the first's without a
    // word, and a header without corpus_id passed when no row followed it.
    const row = 'Q?,"[{""start_index"":0,""end_index"":1}]",c1,R?\n';
    expect(() => parseChromaCsv(`question,references,corpus_id,question\n${row}`, 'q.csv')).toThrow(
      /^q\.csv: column "question" appears 2 times in the header; keep one$/,
    );
    expect(() => parseChromaCsv('question,references\n', 'q.csv')).toThrow(/^q\.csv: missing column "corpus_id"$/);
    // Columns it does not read may repeat: a spreadsheet's trailing commas name several "".
    expect(parseChromaCsv(`question,references,corpus_id,,\n${row.replace('R?', ',')}`, 'q.csv', corpora)).toEqual([
      { id: '0', text: 'Q?', corpusId: 'c1', references: [{ start: 0, end: 1 }] },
    ]);
    expect(parseChromaCsv('', 'q.csv')).toEqual([]);
  });
  it.each([
    ['CRLF, then LF and CR', ['\r\n', '\n', '\r', '\r\n']],
    ['CR, then CRLF and LF', ['\r', '\r\n', '\n', '\n']],
    ['LF, then CRLF', ['\n', '\r\n', '\r\n', '\n']],
  ])('reads a CSV whose records end with %s as one with LF alone (issue 15 probe)', (_what, ends) => {
    // csv-parse took the first line end for the whole file: rows appended with LF to a CRLF
    // file were one record ("columns length is 3, got 7 on line 4"), and after a CR every LF
    // was field text. A line end inside a quoted field stays as it is.
    const records = ['question,references,corpus_id', 'Q?,"[{""start_index"":0,""end_index"":1}]",c1', '"R\r\nS?","[{""start_index"":1,""end_index"":2}]",c1', 'T?,"[{""start_index"":2,""end_index"":3}]",c1'];
    const csv = records.map((r, i) => r + ends[i]!).join('');
    expect(parseChromaCsv(csv, 'q.csv', corpora)).toEqual(parseChromaCsv(records.join('\n'), 'q.csv', corpora));
    expect(parseChromaCsv(csv, 'q.csv', corpora).map((q) => q.text)).toEqual(['Q?', 'R\r\nS?', 'T?']);
  });
  it.skipIf(!existsSync(CHROMA))('reads the real Chroma set: 472 questions, 790 references, all exact', () => {
    const corpora = new Map(
      readdirSync(join(CHROMA, 'corpora')).map((f) => [f.replace(/\.md$/, ''), readFileSync(join(CHROMA, 'corpora', f), 'utf8')]),
    );
    const qs = parseChromaCsv(readFileSync(join(CHROMA, 'questions_df.csv'), 'utf8'), 'questions_df.csv', corpora);
    expect(qs).toHaveLength(472);
    expect(qs.reduce((n, q) => n + q.references.length, 0)).toBe(790);
  });
});

describe('questionsFromQaPairs', () => {
  it('keeps questions with excerpts, located exactly in the source', () => {
    const source = '# T\n\nUse the flag.\n\nMore text here.\n';
    const qa = '# Questions\n\n## How?\n\nLike this.\n\n> Use the flag.\n\n## Why?\n\nNo excerpt here.\n';
    const qs = questionsFromQaPairs(qa, 'qa-pairs.md', source, 'golden-reference.md', 'topic');
    expect(qs).toEqual([{ id: 'topic#1', text: 'How?', corpusId: 'topic', references: [{ start: 5, end: 18 }] }]);
    expect(source.slice(5, 18)).toBe('Use the flag.');
  });
});
