// Words written with combining marks: a decomposed (NFD) "café" is one word, the same keyword
// as the precomposed (NFC) one, and a table's keyword matches a chunk in either form. The lexer
// took a combining mark for punctuation, so "Cafe\u0301" gave the keywords "cafe" and "cre" and
// "naïve résumé" in NFD gave "na", "ive re" and "sume".
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractKeywords, KeywordMatcher, matchKeywords, parseWordsMd } from './index.js';
import { lex, termKey } from './scan.js';

const one = (text: string) => extractKeywords([{ name: 'doc.md', text }], { max: 40 });
const nfd = (s: string) => s.normalize('NFD');

describe('combining marks and normalisation forms', () => {
  const DOC = '# Café crème\n\nThe naïve résumé of the café crème. Another naïve résumé here.\n';

  it('a decomposed word is one word, shown precomposed', () => {
    expect(lex(nfd('résumé'))).toEqual(lex('résumé'));
    expect(one(nfd(DOC))).toEqual(one(DOC));
    expect(one(DOC).map((e) => e.name)).toEqual(expect.arrayContaining(['café crème', 'naïve résumé']));
  });

  it('the two forms of a word in one document are one keyword', () => {
    const mixed = `# Café\n\n${nfd('café')} au lait, café au lait, ${nfd('café')} noir.\n`;
    const names = one(mixed).map((e) => e.name);
    expect(names).not.toContain('cafe');
    expect(names).toContain('café');
  });

  it('a keyword matches a chunk written in the other form, as a term and as plain text', () => {
    const table = [
      { name: 'café crème', score: 9 },
      { name: 'the naïve résumé of the café', score: 5 }, // more than three words: matched as text
    ];
    expect(matchKeywords(table, nfd(DOC))).toEqual(table);
    expect(new KeywordMatcher(table).match(nfd(DOC))).toEqual(table);
    expect(termKey(nfd('Café crème'))).toBe(termKey('café crème'));
  });

  it('a capital İ lower-cases to i, not i and a combining dot', () => {
    const names = one('# İstanbul\n\nistanbul. ISTANBUL. İstanbul.\n').map((e) => e.name);
    expect(names).toEqual(['istanbul']);
  });

  it('a word with a Turkish letter lower-cases I to dotless ı (s59 probe: "Işık" was shown as "işık")', () => {
    expect(one('# Işık\n\nışık ve ışık. Işık.\n').map((e) => e.name)).toEqual(['ışık']);
    expect(one('# Işığı\n\nIŞIĞI. ışığı.\n').map((e) => e.name)).toEqual(['ışığı']);
    // Without one, an I is the capital of i, as in English: "ISTANBUL" is "istanbul".
    expect(one('# ISTANBUL\n\nistanbul. Istanbul.\n').map((e) => e.name)).toEqual(['istanbul']);
  });

  it('NFC and NFD text give the same table (property)', () => {
    const word = fc.constantFrom('café', 'crème', 'naïve', 'résumé', 'Ångström', 'señor', 'über', 'façade', 'cache', 'of', 'the', 'Zoë', 'jalapeño', 'ψυχή');
    const sep = fc.constantFrom(' ', ' ', '\n', '. ', '\n# ', '\n- ', ', ');
    fc.assert(
      fc.property(fc.array(fc.tuple(word, sep), { maxLength: 60 }), (parts) => {
        const text = parts.map(([w, s]) => w + s).join('');
        expect(one(nfd(text))).toEqual(one(text.normalize('NFC')));
      }),
      { numRuns: 200 },
    );
  });
});

describe('hand-written names in either normalisation form', () => {
  it('a hand-written name replaces the extracted one written in the other form', () => {
    const table = extractKeywords([{ name: 'doc.md', text: '# Café\n\ncafé, café.\n' }], { handWritten: [{ name: nfd('Café'), score: 2 }] });
    expect(table).toEqual([{ name: nfd('Café'), score: 2 }]);
  });

  it('keywords.md listing one name in both forms is a duplicate at its line', () => {
    expect(() => parseWordsMd(`| keyword | score |\n| --- | --- |\n| café au lait | 3 |\n| ${nfd('café au lait')} | 4 |\n`, 'k.md')).toThrow(/^k\.md:4: keyword .* is listed twice \(first on line 3\)$/);
    expect(() => extractKeywords([], { handWritten: [{ name: 'café', score: 3 }, { name: nfd('café'), score: 4 }] })).toThrow(RangeError);
  });

  it('a name and the same name with invisible characters in it are one name (property; s58 probe: two rows reading "foo")', () => {
    const HEAD = '| keyword | score |\n| --- | --- |\n';
    expect(() => parseWordsMd(`${HEAD}| foo | 3 |\n| fo\u200bo | 4 |\n`, 'k.md')).toThrow(/^k\.md:4: keyword "fo\\u200bo" is listed twice \(first on line 3\)$/);
    const shapeless = fc.constantFrom('\u00ad', '\u200b', '\u200e', '\u200f', '\u2060', '\ufeff');
    const name = fc.constantFrom('foo', 'café', 'JsonSerializer', 'source generation', 'Ünïcode', '日本語', 'x');
    fc.assert(
      fc.property(name, fc.array(fc.tuple(fc.nat(), shapeless), { minLength: 1, maxLength: 3 }), fc.boolean(), (plain, inserts, decompose) => {
        let other = decompose ? nfd(plain) : plain;
        for (const [at, ch] of inserts) {
          const i = 1 + (at % Math.max(1, other.length - 1));
          other = other.slice(0, i) + ch + other.slice(i);
        }
        expect(() => parseWordsMd(`${HEAD}| ${plain} | 3 |\n| ${other} | 4 |\n`, 'k.md')).toThrow(/is listed twice \(first on line 3\)$/);
        // Hand-written, it replaces the extracted name rather than standing beside it.
        const table = extractKeywords([{ name: 'doc.md', text: `# ${plain}\n\n${plain}, ${plain}.\n` }], { handWritten: [{ name: other, score: 2 }] });
        expect(table.filter((e) => e.name.replace(/[\u00ad\u200b\u200e\u200f\u2060\ufeff]/g, '').normalize('NFC').toLowerCase() === plain.toLowerCase())).toEqual([{ name: other.trim(), score: 2 }]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('identifiers with letters beyond ASCII', () => {
  it.each([
    ['a code span', '`ÜberCache` and `naïveCache`, `CaféService.Run`.', ['CaféService.Run', 'naïveCache', 'ÜberCache']],
    ['a code block', '```cs\nusing Ünïcode.Namespace;\nvar x = new ÜberCache();\nclass RésuméParser {}\n```\n', ['RésuméParser', 'ÜberCache', 'Ünïcode.Namespace']],
    ['an xref', 'See <xref:Foo.ÜberCache>.', ['ÜberCache']],
    ['prose', 'The ÉtéCache and the ÉtéCache.', ['ÉtéCache']],
  ])('%s: the whole name, never a fragment', (_what, text, expected) => {
    expect(one(text).map((e) => e.name).sort()).toEqual([...expected].sort());
  });

  it('a decomposed identifier is the same identifier', () => {
    expect(one(nfd('`ÜberCache` `ÜberCache`'))).toEqual(one('`ÜberCache` `ÜberCache`'));
    expect(one(nfd('`ÜberCache`')).map((e) => e.name)).toEqual(['ÜberCache']);
  });
});

describe('soft hyphens, word joiners and U+FEFF inside words (s58 probe)', () => {
  it('do not cut a word in two: "config<U+00AD>uration" is "configuration"', () => {
    expect(one('# Config\u00aduration guide\n\nThe config\u00aduration file. The config\u00aduration file.\n')).toEqual(one('# Configuration guide\n\nThe configuration file. The configuration file.\n'));
    expect(matchKeywords([{ name: 'configuration', score: 5 }], 'The config\u00aduration file.')).toEqual([{ name: 'configuration', score: 5 }]);
    expect(new KeywordMatcher([{ name: 'word joiner', score: 5 }]).match('A word\u2060 joi\ufeffner.')).toEqual([{ name: 'word joiner', score: 5 }]);
  });

  it('the table and the matches are the same with them inserted anywhere in a word (property)', () => {
    const word = fc.constantFrom('configuration', 'serialization', 'caf\u00e9', 'r\u00e9sum\u00e9', 'JsonSerializer', 'pipeline', 'Stra\u00dfe', 'generation');
    const invisible = fc.constantFrom('\u00ad', '\u2060', '\ufeff');
    fc.assert(
      fc.property(fc.array(word, { minLength: 2, maxLength: 12 }), fc.array(fc.tuple(fc.nat(), fc.nat(), invisible), { minLength: 1, maxLength: 6 }), (words, inserts) => {
        const marked: string[] = [...words];
        for (const [w, at, ch] of inserts) {
          const i = w % marked.length;
          const cut = 1 + (at % (marked[i]!.length - 1));
          marked[i] = marked[i]!.slice(0, cut) + ch + marked[i]!.slice(cut);
        }
        const text = (ws: string[]) => `# ${ws[0]} ${ws[1]}\n\n${ws.join(' ')}. ${ws.join(' ')}.\n`;
        const table = one(text(words));
        expect(one(text(marked))).toEqual(table);
        expect(matchKeywords(table, text(marked))).toEqual(matchKeywords(table, text(words)));
      }),
      { numRuns: 300 },
    );
  });
});
