// Scripts written without spaces between words (Chinese, Japanese, Thai): a run of their
// letters was one "word", so a document's heading was its only keyword, whole, and its
// running text gave none (no sentence repeats whole). Such runs are cut into words by
// Intl.Segmenter; a phrase of words written together is shown together.
// And Persian's zero-width non-joiner inside a word (می‌خواهم) cut it in two.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractKeywords, KeywordMatcher, matchKeywords, parseWordsMd } from './index.js';
import { lex, LexCache, ScanMemo, scanMarkdown, termKey } from './scan.js';

const names = (text: string, max = 12) => extractKeywords([{ name: 'doc.md', text }], { max }).map((e) => e.name);

const ZH = `# 如何在 System.Text.Json 中使用源生成

使用源生成可以提高序列化性能。源生成在编译时收集元数据。

## 反射与源生成

默认情况下，System.Text.Json 使用反射收集元数据。反射会降低启动性能。在编译时收集元数据可以提高序列化性能。
`;
const JA = `# System.Text.Json でソース生成を使用する方法

ソース生成を使用すると、シリアル化のパフォーマンスが向上します。ソース生成はコンパイル時に実行されます。

## リフレクションとソース生成

既定では、System.Text.Json はリフレクションを使用してメタデータを収集します。リフレクションは起動時間が遅くなります。メタデータの収集をコンパイル時に行うと、パフォーマンスが向上します。
`;
const TH = `# วิธีใช้การสร้างซอร์สโค้ดใน System.Text.Json

การสร้างซอร์สโค้ดช่วยเพิ่มประสิทธิภาพ การสร้างซอร์สโค้ดทำงานตอนคอมไพล์

## รีเฟลกชันและการสร้างซอร์สโค้ด

โดยค่าเริ่มต้น System.Text.Json ใช้รีเฟลกชันเพื่อรวบรวมข้อมูล รีเฟลกชันทำให้การเริ่มต้นช้าลง
`;

describe('Chinese, Japanese and Thai documents', () => {
  it.each([
    ['Chinese', ZH, ['源生成', '反射', '收集元数据', '序列化性能', 'System.Text.Json']],
    ['Japanese', JA, ['ソース生成', 'リフレクション', 'パフォーマンス', 'メタデータ', 'System.Text.Json']],
    ['Thai', TH, ['สร้างซอร์สโค้ด', 'รีเฟลกชัน', 'System.Text.Json']],
  ])('%s: the terms it is about are keywords, and no keyword is a line or a function word', (_lang, text, expected) => {
    const got = names(text);
    expect(got).toEqual(expect.arrayContaining(expected));
    for (const name of got) {
      if (name !== 'System.Text.Json') expect(name.length).toBeLessThan(16);
      expect(text.split('\n').map((l) => l.replace(/^#+ /, ''))).not.toContain(name);
      expect(['の', 'を', 'が', 'します', '的', '是', '可以', 'และ', 'การ', 'ที่', '方法', 'วิธี']).not.toContain(name);
    }
  });

  it('a phrase is shown as written, with or without a space, and is one keyword either way', () => {
    expect(names('# 源代码生成\n\n源代码生成很快。源代码 生成。\n')).toEqual(['源代码生成']);
    expect(termKey('源代码生成')).not.toBeNull();
    expect(termKey('源代码 生成')).toBe(termKey('源代码生成'));
    expect(lex('序列化').map((l) => (l.kind === 'word' ? l.text : l.kind))).toEqual(['序列', '化']);
  });

  it('a table of a CJK document matches its chunks', () => {
    const table = extractKeywords([{ name: 'doc.md', text: JA }], { max: 12 });
    const chunk = 'リフレクションは起動時間が遅くなります。';
    expect(matchKeywords(table, chunk).map((e) => e.name)).toContain('リフレクション');
    expect(new KeywordMatcher(table).match(chunk)).toEqual(matchKeywords(table, chunk));
    expect(matchKeywords([{ name: '源代码生成', score: 5 }], '我们使用源代码生成。')).toEqual([{ name: '源代码生成', score: 5 }]);
  });

  it('letters of other scripts in one token stay words of their own: Node.js和TypeScript', () => {
    expect(names('# Node.js和TypeScript\n\n使用TypeScript编写Node.js代码。\n')).toEqual(expect.arrayContaining(['Node.js', 'TypeScript']));
    expect(lex('Node.js和TypeScript').filter((l) => l.kind === 'identifier')).toEqual([
      { kind: 'identifier', name: 'Node.js' },
      { kind: 'identifier', name: 'TypeScript' },
    ]);
  });

  it('cuts a long run without punctuation in linear time, as one pass would cut it', () => {
    // Intl.Segmenter over one run was superlinear: 80,000 Han characters took 6 s.
    const run = '使用源生成可以提高序列化性能源生成在编译时收集元数据默认情况下使用反射收集元数据'.repeat(8_000);
    const started = performance.now();
    const words = lex(run);
    expect(performance.now() - started).toBeLessThan(10_000);
    const short = lex(run.slice(0, 2_000));
    expect(words.slice(0, 1_000)).toEqual(short.slice(0, 1_000));
  });

  it('the lex cache and the memo change nothing (property)', () => {
    const piece = fc.constantFrom('源代码', '生成', '序列化', '的', 'を', 'ソース', 'リフレクション', 'การสร้าง', 'ซอร์สโค้ด', 'API', 'Node.js', 'cache', '。', '、', ' ', '\n', '\n\n# ', '`JsonSerializer`', 'ー', '々');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (parts) => {
        const text = parts.join('');
        const cache = new LexCache();
        lex(text, cache);
        expect(lex(text, cache)).toEqual(lex(text));
        expect(scanMarkdown(text, new ScanMemo())).toEqual(scanMarkdown(text));
      }),
      { numRuns: 500 },
    );
  });
});

describe('a zero-width non-joiner inside a word (Persian, Arabic)', () => {
  // کتاب‌خانه "library" (می‌خواهم "I want", the example until cd924bd, is a stop word now).
  const FA = '# کتاب‌خانه\n\nمن کتاب‌خانه دیدم. کتاب‌خانه بزرگ است.\n';

  it('is part of the word: کتاب‌خانه is one keyword, kept as written', () => {
    expect(names(FA)).toEqual(['کتاب‌خانه']);
    expect(lex('کتاب‌خانه')).toHaveLength(1);
    expect(matchKeywords([{ name: 'کتاب‌خانه', score: 4 }], 'او کتاب‌خانه گفت')).toEqual([{ name: 'کتاب‌خانه', score: 4 }]);
  });

  it('one at the end of a word joins nothing and is dropped', () => {
    expect(lex('کتاب\u200c کتاب')).toEqual(lex('کتاب کتاب'));
  });

  it('is escaped in a message quoting the keyword', () => {
    expect(() => parseWordsMd('| keyword | score |\n| --- | --- |\n| می‌خواهم | 11 |\n', 'k.md')).toThrow('keyword "می\\u200cخواهم" is not a whole number');
  });
});
