import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { realDocuments } from './test-corpus.js';
import { countTokens, estimateTokens, estimateTokensRange, isSafePoint, TokenIndex } from './tokens.js';

// Fixed seeds: a property that fails must fail on every run, not one run in fifty.
fc.configureGlobal({ seed: 20261123 });

const tiktoken = get_encoding('cl100k_base');
afterAll(() => tiktoken.free());
const reference = (text: string): number => tiktoken.encode(text, [], []).length;

// Text that exercises the pre-tokenizer: newlines, runs of spaces, punctuation
// that absorbs newlines, digits, contractions, unicode spaces and letters.
const atoms = ['\n', '\n\n', '\r\n', ' ', '  ', '\t', '\u00a0', '\u3000', '\u0085', '\ufeff', '.', '```', '}', ');', '|', '#', '- ', "'s", "'ll",
  'foo', 'Bar', 'x', '123', '4567', 'é', 'ß', '日本', '😀', '𝐀', '\u0301', '<|endoftext|>', 'a.b', '...', '>', '*'];
const texty = fc.array(fc.constantFrom(...atoms), { maxLength: 60 }).map((a) => a.join(''));

describe('countTokens', () => {
  it('matches tiktoken cl100k_base on every sample document', () => {
    for (const [, text] of realDocuments()) expect(countTokens(text)).toBe(reference(text));
  });

  it('matches tiktoken on generated text, special-token text included', () => {
    fc.assert(fc.property(texty, (t) => countTokens(t) === reference(t)), { numRuns: 400 });
  });

  it('treats <|endoftext|> as plain text instead of throwing', () => {
    expect(countTokens('a <|endoftext|> b')).toBe(reference('a <|endoftext|> b'));
    expect(countTokens('')).toBe(0);
  });
});

describe('additivity at safe points (isSafePoint, kept for callers)', () => {
  it('holds at every safe point of generated text', () => {
    fc.assert(
      fc.property(texty, texty, (a, b) => {
        const text = `${a}\n${b}`;
        const cut = a.length + 1;
        if (!isSafePoint(text, cut)) return true;
        return countTokens(text.slice(0, cut)) + countTokens(text.slice(cut)) === countTokens(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('fails at unsafe points, which is why they are excluded', () => {
    // A split before a blank line or right before spaces that precede a newline changes the tokens.
    const text = 'foo\n  \nbar';
    expect(isSafePoint(text, 4)).toBe(false);
    expect(countTokens(text.slice(0, 4)) + countTokens(text.slice(4))).not.toBe(countTokens(text));
  });
});

describe('TokenIndex', () => {
  it('counts any slice of a real document exactly', () => {
    const docs = realDocuments().slice(0, 4);
    for (const [, text] of docs) {
      const index = new TokenIndex(text);
      fc.assert(
        fc.property(fc.nat(text.length), fc.nat(text.length), (x, y) => {
          const [s, e] = x <= y ? [x, y] : [y, x];
          return index.count(s, e) === countTokens(text.slice(s, e));
        }),
        { numRuns: 150 },
      );
    }
  });

  it('counts slices of generated text exactly', () => {
    fc.assert(
      fc.property(texty, fc.nat(200), fc.nat(200), (text, x, y) => {
        const index = new TokenIndex(text);
        const [s, e] = [Math.min(x, y, text.length), Math.min(Math.max(x, y), text.length)];
        return index.count(s, e) === countTokens(text.slice(s, e));
      }),
      { numRuns: 1000 },
    );
  });

  it('counts exactly up to every line end, where punctuation swallows the line break', () => {
    const lineText = fc.array(fc.constantFrom(...atoms.filter((a) => !a.includes('\n'))), { minLength: 1, maxLength: 12 }).map((a) => a.join(''));
    const gap = fc.constantFrom('\n', '\n\n', '\r\n', '\n  \n', '\n\n\n', '\r\n\r\n');
    fc.assert(
      fc.property(fc.array(fc.tuple(lineText, gap), { minLength: 1, maxLength: 12 }), (parts) => {
        const text = parts.map(([l, g]) => l + g).join('') + 'end';
        const cuts = [...text.matchAll(/\r?\n/g)].flatMap((m) => [m.index!, m.index! + m[0].length]);
        const index = new TokenIndex(text);
        return cuts.every((e) => cuts.every((s) => s > e || index.count(s, e) === countTokens(text.slice(s, e))));
      }),
      { numRuns: 400 },
    );
  });
});

describe('estimateTokens (seed 003)', () => {
  // The seed's own formulation, kept here as the reference.
  const seed003 = (text: string): number => {
    const words = text.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) return 0;
    let tokens = 0;
    for (const word of words) tokens += word.length <= 4 ? 1 : word.length <= 8 ? 1.3 : Math.ceil(word.length / 4);
    return Math.max(1, Math.round(tokens));
  };

  it('equals the seed formulation on any text', () => {
    fc.assert(fc.property(texty, (t) => estimateTokens(t) === seed003(t)), { numRuns: 1000 });
    for (const [, text] of realDocuments()) expect(estimateTokens(text)).toBe(seed003(text));
  });

  it('estimateTokensRange equals the seed formulation on the slice', () => {
    fc.assert(
      fc.property(texty, fc.nat(), fc.nat(), (t, x, y) => {
        const a = t.length ? x % (t.length + 1) : 0;
        const b = a + (t.length ? y % (t.length - a + 1) : 0);
        return estimateTokensRange(t, a, b) === seed003(t.slice(a, b));
      }),
      { numRuns: 1000 },
    );
  });

  it('splits words on exactly the code units that match /\\s/', () => {
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      const text = `abcde${ch}fghij`;
      // One word of 11 code units: 3 tokens; two words of 5: 1.3 + 1.3, 3 as well. Told apart by the range's second half.
      expect(estimateTokensRange(text, 5, 11), `U+${c.toString(16)}`).toBe(seed003(text.slice(5, 11)));
      expect(estimateTokens(`a${ch}b`), `U+${c.toString(16)}`).toBe(/\s/.test(ch) ? 2 : 1);
    }
  });

  it('follows the seed rules', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('a bb ccc dddd')).toBe(4);
    expect(estimateTokens('abcdef')).toBe(1); // 1.3 rounds to 1
    expect(estimateTokens('abcdefghijkl')).toBe(3); // ceil(12/4)
  });
});

describe('TokenIndex.countJoined (runs of split pieces: slices and rebuilt strings with joints)', () => {
  // Hostile shapes: long unspaced runs (past the long pre-token limit), CR and CRLF, emoji and
  // CJK (a slice may cut a surrogate pair), whitespace runs that a joint may extend.
  const hostile = [...atoms, '\r', '\r\n\r\n', '   \n', ' \t ', 'ab'.repeat(150), 'Zm9vYmFy'.repeat(40), '漢字かな', '👍🏽', '```\n', '    '];
  const hostileText = fc.array(fc.constantFrom(...hostile), { maxLength: 40 }).map((a) => a.join(''));
  const joint = fc.constantFrom('', '\n', '\n\n', ' ', '  ', '\r\n', '\r', '\t', 'x', '.', '😀', '\ud83d', '\udc00');
  const part = fc.oneof(
    fc.tuple(fc.nat(), fc.nat()).map(([x, y]) => ({ kind: 'slice' as const, x, y })),
    hostileText.map((text) => ({ kind: 'text' as const, text })),
  );
  const hasLoneSurrogate = (t: string): boolean => /[\ud800-\udfff]/.test(t.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''));

  it('counts the joined text exactly (our scan of the whole, and tiktoken where it applies)', () => {
    fc.assert(
      fc.property(hostileText, fc.array(fc.tuple(joint, part), { minLength: 1, maxLength: 6 }), joint, (source, spec, tail) => {
        const index = new TokenIndex(source);
        const parts: { at: number; start: number; end: number; text: string | null }[] = [];
        let joined = '';
        for (const [before, p] of spec) {
          joined += before;
          if (p.kind === 'slice') {
            const a = source.length ? p.x % (source.length + 1) : 0;
            const b = a + (source.length ? p.y % (source.length - a + 1) : 0);
            parts.push({ at: joined.length, start: a, end: b, text: null });
            joined += source.slice(a, b);
          } else {
            parts.push({ at: joined.length, start: 0, end: 0, text: p.text });
            joined += p.text;
          }
        }
        joined += tail;
        const n = index.countJoined(joined, parts);
        expect(n).toBe(countTokens(joined));
        if (!hasLoneSurrogate(joined)) expect(n).toBe(reference(joined));
        // A string part is remembered by its text: counting again gives the same.
        expect(index.countJoined(joined, parts)).toBe(n);
      }),
      { numRuns: 3000 },
    );
  });

  // split-oversized rebuilds a code piece as its source range between fences and says so
  // (noteWrapped): the index counts that range from its own scan and only the joints afresh.
  it('counts string parts noted to wrap their source range exactly, whatever the wrapper joins to', () => {
    const wrapper = fc.constantFrom('', '```js\n', '\n```', '```\n', 'x', '  ', '\n', '😀', '\ud83d', '\udc00', "'", 'ab', '1', '.', '\r');
    fc.assert(
      fc.property(hostileText, hostileText, fc.nat(), fc.nat(), wrapper, wrapper, joint, (head, body, x, y, before, after, tail) => {
        const source = head + body;
        if (source.length < 512) return;
        const a = x % (source.length - 511);
        const b = a + 512 + (y % (source.length - a - 511));
        const index = new TokenIndex(source);
        const text = before + source.slice(a, b) + after;
        index.noteWrapped(text, before.length, a, b);
        const joined = `${tail}${text}${tail}`;
        const parts = [{ at: tail.length, start: a, end: b, text }];
        const n = index.countJoined(joined, parts);
        expect(n).toBe(countTokens(joined));
        if (!hasLoneSurrogate(joined)) expect(n).toBe(reference(joined));
      }),
      { numRuns: 1500 },
    );
  });

  it('takes a note of a wrapped range only where the text holds it whole, and remembers it by the text', () => {
    const source = `${'function f(a,b){return a*1+b};'.repeat(40)}tail`;
    const range = source.slice(0, 600);
    const fenced = `\`\`\`js\n${range}\n\`\`\``;
    // A wrong note (the text does not hold that range there) is dropped: the count stays exact.
    for (const [at, start, end] of [[5, 0, 600], [6, 1, 601], [6, 0, 700], [-1, 0, 600], [6, 0, 5000]] as const) {
      const index = new TokenIndex(source);
      index.noteWrapped(fenced, at, start, end);
      expect(index.countJoined(`x${fenced}`, [{ at: 1, start: 0, end: 600, text: fenced }])).toBe(reference(`x${fenced}`));
    }
    // The same text again, said to come from another range: what it holds is remembered by its text.
    const twice = new TokenIndex(source);
    const wrapped = `\`\`\`js\n${source.slice(30, 630)}\n\`\`\``;
    twice.noteWrapped(wrapped, 6, 30, 630);
    twice.noteWrapped(wrapped, 6, 0, 600); // not held there: ignored, the first note stands
    for (const [start, end] of [[30, 630], [0, 600], [60, 660], [0, 0]] as const) {
      expect(twice.countJoined(`x${wrapped}`, [{ at: 1, start, end, text: wrapped }])).toBe(reference(`x${wrapped}`));
    }
    // A string part nobody took a note of is counted from its own text, not from the source.
    const index = new TokenIndex(source);
    const changed = `${range.slice(0, 50)}X${range.slice(51)}`;
    expect(index.countJoined(changed, [{ at: 0, start: 0, end: 600, text: changed }])).toBe(reference(changed));
  });

  it('counts slices that cut a surrogate pair exactly, apart and joined again', () => {
    // In the source '..𝐀' splits "..", "𝐀"; its slice '..\ud835' ends with a lone surrogate,
    // which joins the dots in one pre-token: "..\ud835\n" is one pre-token, not "..", "\ud835\n".
    const source = '..𝐀';
    const index = new TokenIndex(source);
    const joined = `${source.slice(0, 3)}\n`;
    expect(index.countJoined(joined, [{ at: 0, start: 0, end: 3, text: null }])).toBe(countTokens(joined));
    // And a pair that two parts make again: '😀' cut in two, joined back.
    const emoji = new TokenIndex('a😀b');
    expect(emoji.countJoined('a😀b', [{ at: 0, start: 0, end: 2, text: null }, { at: 2, start: 2, end: 4, text: null }])).toBe(reference('a😀b'));
  });

  it('counts runs of pieces of real documents joined by new line breaks exactly (tiktoken)', () => {
    for (const [, text] of realDocuments()) {
      const index = new TokenIndex(text);
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.nat(text.length), fc.nat(800)), { minLength: 2, maxLength: 5 }), (cuts) => {
          const parts: { at: number; start: number; end: number; text: string | null }[] = [];
          let joined = '';
          for (const [a, len] of cuts) {
            if (joined) joined += '\n';
            const b = Math.min(text.length, a + len);
            parts.push({ at: joined.length, start: a, end: b, text: null });
            joined += text.slice(a, b);
          }
          return !hasLoneSurrogate(joined) ? index.countJoined(joined, parts) === reference(joined) : index.countJoined(joined, parts) === countTokens(joined);
        }),
        { numRuns: 60 },
      );
    }
  });
});

describe('TokenIndex.release', () => {
  it('hands its running counts to the next index, which counts its own text exactly', () => {
    // Texts past 65,536 characters (the least a released index keeps), of prose and of unspaced
    // runs (whose tokens' ends are a second set of running counts): each index is made from what
    // the one before it released, a text up to four times as long.
    const run = fc.constantFrom('x', 'Ab9', '-=', 'é').chain((unit) => fc.integer({ min: 60, max: 3000 }).map((n) => unit.repeat(n)));
    const part = fc.oneof(texty, run);
    const text = fc.array(part, { minLength: 40, maxLength: 400 }).map((parts) => {
      let t = parts.join(' ');
      while (t.length < 70_000) t += ` ${t}`;
      return t.slice(0, 70_000 + (parts.length * 997) % 200_000);
    });
    fc.assert(
      fc.property(fc.array(text, { minLength: 2, maxLength: 3 }), fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })), { minLength: 8, maxLength: 8 }), (texts, cuts) => {
        for (const t of texts) {
          const index = new TokenIndex(t);
          for (const [x, y] of cuts) {
            const a = Math.floor(Math.min(x, y) * t.length);
            const b = Math.floor(Math.max(x, y) * t.length);
            expect(index.count(a, b)).toBe(reference(t.slice(a, b)));
          }
          index.release();
        }
      }),
      { numRuns: 6, endOnFailure: true },
    );
  });
});

describe('long unspaced runs, one document after another', () => {
  it('counts slices inside runs past 4,096 bytes exactly, whatever the last document left in the walk arrays', () => {
    // Random letters, digits and punctuation: each run's token ends differ from the last's, so
    // an array kept from the last run and not cleared would be read wrong (bpe.ts's LARGE).
    // Runs of one character ('[', '-') are walked whole, without segments: past 4,096 bytes they
    // take the kept arrays of every role.
    const alphabet = fc.constantFrom('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 'aab', '+/=()', 'xyz0123', '[', '-', '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[(');
    const run = fc.tuple(alphabet, fc.integer({ min: 4_200, max: 12_000 }), fc.integer()).map(([letters, length, seed]) => {
      let x = seed | 1;
      let s = '';
      for (let k = 0; k < length; k++) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        s += letters[(x >>> 0) % letters.length];
      }
      return s;
    });
    fc.assert(
      fc.property(fc.array(run, { minLength: 2, maxLength: 4 }), fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 6, maxLength: 6 }), (runs, cuts) => {
        for (const r of runs) {
          const text = `Intro ${r} end.`;
          expect(countTokens(text)).toBe(reference(text));
          const index = new TokenIndex(text);
          for (const [x, y] of cuts) {
            const a = x % text.length;
            const b = a + (y % (text.length - a + 1));
            expect(index.count(a, b)).toBe(reference(text.slice(a, b)));
          }
        }
      }),
      { numRuns: 20, endOnFailure: true },
    );
  });
});
