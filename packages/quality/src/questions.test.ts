import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseChromaCsv, questionsFromQaPairs, QuestionsError } from './questions.js';

const CHROMA = join(import.meta.dirname, '../../../../shared/eval/chroma');

describe('parseChromaCsv', () => {
  const corpora = new Map([['c1', 'Hello, "world".\nSecond line, here.']]);
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
