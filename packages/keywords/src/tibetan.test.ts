// Tibetan writes no spaces: a tsheg (U+0F0B) ends every syllable, and a word is one to four
// syllables with nothing between words. The tsheg was punctuation, a phrase break, so every
// Tibetan keyword was a single syllable, half a word: སྒྲིག and འགོད for སྒྲིག་འགོད
// ("configuration"), ཞབས, ཞུ, འཕྲུལ and ཆས for ཞབས་ཞུ་འཕྲུལ་ཆས ("server") (helper-91 probe).
// Intl.Segmenter cannot help: Node 20's ICU has no Tibetan dictionary and cuts at every tsheg.
// Now a tsheg joins the syllables it stands between, as Thai and Chinese words are joined, into
// phrases of up to six syllables shown with their tshegs; particles (ཀྱི, ནི, ཡོད) end them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractKeywords, matchKeywords } from './index.js';
import { termKey } from './scan.js';
import { isScriptStopWord } from './words.js';

const names = (text: string, max = 40) => extractKeywords([{ name: 'golden-reference.md', text }], { max }).map((e) => e.name);

const BO = `# ཞབས་ཞུ་འཕྲུལ་ཆས་ཀྱི་སྒྲིག་འགོད།

ཞབས་ཞུ་འཕྲུལ་ཆས་ནི་སྒོ་ 8080 ཐོག་ལས་ཀ་བྱེད་ཀྱི་ཡོད། སྒྲིག་འགོད་ཡིག་ཆ་ནི་ཡིག་སྣོད་འདིའི་ནང་དུ་ཡོད། ཞབས་ཞུ་འཕྲུལ་ཆས་སྒྲིག་འགོད་བྱེད་པར་སྒྲིག་འགོད་ཡིག་ཆ་ཁ་ཕྱེ་ནས་སྒོ་བརྗེ་དགོས། ཞབས་ཞུ་འཕྲུལ་ཆས་འགོ་མ་ཚུགས་ན་སྒྲིག་འགོད་ཡིག་ཆ་ལ་བརྟག་དཔྱད་གྱིས།
`;

describe('Tibetan', () => {
  it('has its words as keywords, written with their tshegs, not their syllables', () => {
    const got = names(BO);
    expect(got.slice(0, 3)).toEqual(['སྒྲིག་འགོད', 'ཞབས་ཞུ་འཕྲུལ་ཆས', 'སྒྲིག་འགོད་ཡིག་ཆ']);
    for (const syllable of ['སྒྲིག', 'འགོད', 'ཞབས', 'ཞུ', 'ཆས', 'ཀྱི', 'ནི', 'ཡོད']) expect(got).not.toContain(syllable);
    for (const name of got) expect(name, name).not.toMatch(/ /);
  });

  it("matches a table's Tibetan keyword in a chunk, with or without the tsheg before a shad", () => {
    const table = [{ name: 'སྒྲིག་འགོད', score: 10 }, { name: 'ཞབས་ཞུ་འཕྲུལ་ཆས', score: 9 }];
    expect(termKey('སྒྲིག་འགོད')).toBe('w:སྒྲིག འགོད');
    expect(matchKeywords(table, 'ཞབས་ཞུ་འཕྲུལ་ཆས་ཀྱི་སྒྲིག་འགོད།').map((e) => e.name)).toEqual(['སྒྲིག་འགོད', 'ཞབས་ཞུ་འཕྲུལ་ཆས']);
    expect(matchKeywords(table, 'སྒྲིག་འགོད་བྱེད་པ།').map((e) => e.name)).toEqual(['སྒྲིག་འགོད']);
    // Syllables of other words, apart: no match.
    expect(matchKeywords(table, 'སྒྲིག། འགོད།').map((e) => e.name)).toEqual([]);
  });

  it('a tsheg before a number or Latin text ends the phrase, not before a line break; a syllable of one letter is a syllable', () => {
    expect(names('# སྒྲིག་འགོད\n\nཞབས་ཞུ་འཕྲུལ་ཆས་ཀྱི་སྒྲིག་\nའགོད་ཡིག་ཆ།\n')).toContain('སྒྲིག་འགོད');
    expect(names('# སྒྲིག་འགོད\n\nཞབས་ཞུ་འཕྲུལ་ཆས་ཀྱི་སྒྲིག་\nའགོད་ཡིག་ཆ།\n')).not.toContain('སྒྲིག');
    const got = names('# ལས་ཀ་ server\n\nལས་ཀ་ 8080 སྒོ་\n');
    expect(got).toContain('ལས་ཀ');
    expect(got.filter((n) => /[a-z]/.test(n) && /[\u0f00-\u0fff]/.test(n))).toEqual([]);
    expect(names('# སྒོ་ 80 སྒོ\n')).toEqual(['སྒོ']);
  });

  it('property: every keyword is syllables written together in the text, and no particle starts or ends one', () => {
    const syllables = ['སྒྲིག', 'འགོད', 'ཞབས', 'ཞུ', 'འཕྲུལ', 'ཆས', 'ཡིག', 'ཆ', 'ཀྱི', 'ནི', 'ཡོད', 'ལ', 'ཀ'];
    const seps = ['་', '་', '་', '།', ' ', '་ ', '་།', ' 80 '];
    const line = fc.array(fc.tuple(fc.constantFrom(...syllables), fc.constantFrom(...seps)), { minLength: 1, maxLength: 14 }).map((p) => p.map(([a, b]) => a + b).join(''));
    const doc = fc.tuple(line, fc.array(line, { minLength: 1, maxLength: 6 })).map(([h, body]) => `# ${h}\n\n${body.join('\n\n')}\n`);
    fc.assert(
      fc.property(doc, (text) => {
        for (const name of names(text, 100)) {
          expect(text.replace(/་\s+/g, '་').includes(name), `${name} in ${text}`).toBe(true);
          const parts = name.split('་');
          expect(isScriptStopWord(parts[0]!), name).toBe(false);
          expect(isScriptStopWord(parts[parts.length - 1]!), name).toBe(false);
          expect(parts.length).toBeLessThanOrEqual(6);
        }
      }),
      { numRuns: 300 },
    );
  });
});
