// Korean writes a noun and its particles as one word (서버는, 서버를, 서버에서), so each form
// was a keyword of its own and none ranked as 서버 would; and Persian typed with and without
// its zero-width non-joiner gave two keywords of one word.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractKeywords, matchKeywords } from './index.js';
import { stemKorean } from './korean.js';
import { lex } from './scan.js';

const names = (text: string, max = 12) => extractKeywords([{ name: 'doc.md', text }], { max }).map((e) => e.name);

describe('stemKorean', () => {
  it.each([
    // Particles after a final consonant (서버's 버 has none, 설정's 정 has ㅇ).
    ['서버는', '서버'],
    ['서버를', '서버'],
    ['서버가', '서버'],
    ['서버에서', '서버'],
    ['서버에서는', '서버'],
    ['서버로', '서버'],
    ['설정은', '설정'],
    ['설정을', '설정'],
    ['설정이', '설정'],
    ['설정으로', '설정'],
    ['파일에', '파일'],
    ['파일로', '파일'], // 로 after ㄹ
    ['사용자에게', '사용자'],
    // 하다 / 되다 verbs of a noun.
    ['설정합니다', '설정'],
    ['설정하려면', '설정'],
    ['설정된', '설정'],
    ['지원하는', '지원'],
    ['생성됩니다', '생성'],
    // After a letter of another script any particle may follow.
    ['api를', 'api'],
    ['json으로', 'json'],
    // Not a particle where the grammar does not allow it: 이 after a vowel, 를 after a consonant.
    ['디스플레이', '디스플레이'],
    ['게이트웨이', '게이트웨이'],
    ['설정를', '설정를'],
    ['서버을', '서버을'],
    ['파일으로', '파일으로'], // 으로 never after ㄹ
    // Endings that nouns end in are left alone: 의, 도, 만.
    ['재정의', '재정의'],
    ['해상도', '해상도'],
    // A stem keeps two syllables: 권한 ("permission") is not 권 + 한.
    ['권한', '권한'],
    ['결과', '결과'],
    ['경로', '경로'],
    // A compound ending in a noun that ends like a particle keeps it.
    ['절대경로', '절대경로'],
    ['사용자권한', '사용자권한'],
    ['경로를', '경로'],
    ['결과를', '결과'],
    // Not Korean: unchanged.
    ['server', 'server'],
    ['서버2', '서버2'],
  ])('%s → %s', (word, stem) => {
    expect(stemKorean(word)).toBe(stem);
  });

  const syllable = fc.integer({ min: 0xac00, max: 0xd7a3 }).map((c) => String.fromCharCode(c));
  const word = fc.oneof(
    fc.array(syllable, { minLength: 1, maxLength: 8 }).map((s) => s.join('')),
    fc.tuple(fc.stringMatching(/^[a-z0-9]{1,6}$/), fc.array(syllable, { minLength: 1, maxLength: 4 })).map(([a, s]) => a + s.join('')),
    fc.stringMatching(/^[\p{L}\p{N}]{1,12}$/u),
  );

  it('gives a prefix of the word, of two syllables at least or ending in another script, and is stable on it', () => {
    fc.assert(
      fc.property(word, (w) => {
        const stem = stemKorean(w);
        expect(w.startsWith(stem)).toBe(true);
        if (stem === w) return;
        const last = stem.charCodeAt(stem.length - 1);
        if (last >= 0xac00 && last <= 0xd7a3) expect(stem.length).toBeGreaterThanOrEqual(2);
        else expect(stem).toMatch(/[\p{L}\p{N}]$/u);
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves a word that does not end in a Hangul syllable as it is', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (w) => {
        const last = w.charCodeAt(w.length - 1);
        fc.pre(!(last >= 0xac00 && last <= 0xd7a3));
        expect(stemKorean(w)).toBe(w);
      }),
      { numRuns: 2000 },
    );
  });
});

const KO = `# 서버 설정

서버를 설정하려면 설정 파일을 편집합니다. 서버는 설정 파일에서 포트를 읽습니다.

## 서버 인증서

서버에서 인증서를 사용합니다. 인증서는 서버가 시작될 때 로드됩니다. 인증서가 없으면 서버는 시작되지 않습니다.

## 절대경로

설정 파일의 절대경로를 지정합니다. 경로를 바꾸면 서버를 다시 시작합니다.
`;

describe('a Korean document', () => {
  it('has its nouns as keywords, not their particle forms', () => {
    const got = names(KO);
    expect(got).toEqual(expect.arrayContaining(['서버', '설정', '인증서', '서버 설정', '절대경로']));
    for (const name of got) expect(name).not.toMatch(/(?:는|를|에서|가|합니다|하려면)$/);
  });

  it('matches a prompt that writes them with other particles', () => {
    const table = extractKeywords([{ name: 'doc.md', text: KO }]);
    const matched = matchKeywords(table, '인증서가 만료되면 서버를 어떻게 설정합니까?').map((e) => e.name);
    expect(matched).toEqual(expect.arrayContaining(['서버', '인증서']));
  });

  it('drops its function words once their endings are off (있습니다, 사용합니다)', () => {
    const words = lex('사용합니다 있습니다 서버를').filter((l) => l.kind === 'word');
    expect(words.map((l) => (l.kind === 'word' ? [l.text, l.stop] : null))).toEqual([
      ['사용', true],
      ['있습니다', true],
      ['서버', false],
    ]);
  });
});

describe('Persian typed with and without its zero-width non-joiner', () => {
  it('is one keyword, shown as written most often', () => {
    // کتاب‌خانه "library" (می‌خواهم "I want", the example until cd924bd, is a stop word now).
    const FA = '# کتاب‌خانه\n\n## کتابخانه\n\nمن کتاب‌خانه دیدم. کتابخانه بزرگ است. کتاب‌خانه باز است. کتابخانه نو است. کتاب‌خانه ما.\n';
    expect(names(FA).filter((n) => n.replace(/\u200c/g, '') === 'کتابخانه')).toEqual(['کتاب‌خانه']);
  });
});

// A number written with its particle (8080에서, 1234가) lost the particle and was left a word of
// digits, so "서버는 8080에서 실행됩니다" gave the keyword "서버 8080 실행", though a number ends a
// phrase (helper-85 probe). And "a를" left the single letter a, which is no word either.
describe('a number or a single letter with a particle', () => {
  it('ends a phrase, as the number alone does', () => {
    const text = '# 포트\n\n서버는 8080에서 실행됩니다. 서버는 8080에서 실행됩니다. 값은 1234가 됩니다. 값은 1234가 됩니다. a를 설정 a를 설정\n';
    const got = names(text, 40);
    expect(got.filter((n) => /\d/.test(n))).toEqual([]);
    expect(got.filter((n) => /(^| )a( |$)/.test(n))).toEqual([]);
    expect(lex('8080에서').map((l) => l.kind)).toEqual(['break']);
    expect(lex('a를').map((l) => l.kind)).toEqual(['break']);
  });

  it('keeps a name of letters and digits with its particle a word (API2를 is api2)', () => {
    expect(lex('API2를')).toEqual(lex('API2'));
  });
});
