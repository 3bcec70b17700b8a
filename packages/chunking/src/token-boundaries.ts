/**
 * Where each cl100k token of a text starts, for token-window, in time linear in the text.
 *
 * gpt-tokenizer's `encode` (encodeWithOffsets) merges each pre-token with tiktoken's loop, which
 * is quadratic in the pre-token's length: one unspaced run of 100 KB took 10 s and of 1 MB did
 * not finish (issue 15). The counter's own pre-token scanner and backtracking BPE (bpe.ts) give
 * the same tokens in about linear time; token-window needs only where they start and end.
 */
import { bpeTokenEndsInto } from './bpe.js';
import { nextPreTokenEnd } from './cl100k-count.js';

export interface TokenBoundaries {
  /** Number of tokens. */
  count: number;
  /**
   * `offsets[i]` = UTF-16 offset where token `i` starts (`offsets[count]` = text length), or -1
   * when that boundary falls inside a character (a token holding part of a character's UTF-8
   * bytes). Longer than count + 1: read up to `count`.
   */
  offsets: Int32Array;
}

export function tokenBoundaries(text: string): TokenBoundaries {
  // ends[p] = 1 + tokens of the current pre-token that end at offset p, where one ends at a
  // character's end (bpeTokenEndsInto's layout), 0 elsewhere.
  const ends = new Int32Array(text.length + 1);
  let offsets = new Int32Array(Math.min(text.length, 1 << 16) + 1).fill(-1);
  offsets[0] = 0;
  let count = 0;
  for (let a = 0; a < text.length; ) {
    const b = nextPreTokenEnd(text, a, text.length);
    const n = bpeTokenEndsInto(text, a, b, ends);
    if (count + n + 1 > offsets.length) {
      const grown = new Int32Array(Math.max(offsets.length * 2, count + n + 1)).fill(-1);
      grown.set(offsets);
      offsets = grown;
    }
    for (let p = a + 1; p <= b; p++) {
      const k = ends[p]!;
      if (k !== 0) {
        offsets[count + k - 1] = p;
        ends[p] = 0;
      }
    }
    count += n;
    a = b;
  }
  return { count, offsets };
}
