import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { deriveSplits, encodeSplits, longestToken, mergeOf, mergeTable, prefixOf, ranksHash, tokenBytes, TOKENS } from './cl100k-merges.js';
import { CL100K_RANKS_HASH, CL100K_SPLITS } from './cl100k-splits.js';

const SPLITS_FILE = fileURLToPath(new URL('./cl100k-splits.ts', import.meta.url));

/** The data file's text for these splits (CL100K_WRITE_SPLITS=1 writes it). */
function splitsFile(splits: string, hash: number): string {
  const lines: string[] = [];
  for (let i = 0; i < splits.length; i += 120) lines.push(`  '${splits.slice(i, i + 120)}',`);
  const head = readFileSync(SPLITS_FILE, 'utf8').split('export const')[0]!;
  return `${head}export const CL100K_RANKS_HASH = ${hash};\n\nexport const CL100K_SPLITS = [\n${lines.join('\n')}\n].join('');\n`;
}

describe('cl100k merge table', () => {
  const { start, bytes } = tokenBytes();
  const byteToken = new Int32Array(256).fill(-1);
  for (let t = 0; t < TOKENS; t++) if (start[t + 1]! - start[t]! === 1) byteToken[bytes[start[t]!]!] = t;

  it('ships exactly the pairs the derivation finds, for these ranks', () => {
    const derived = deriveSplits(start, bytes, byteToken);
    const text = encodeSplits(derived.left, derived.right);
    const hash = ranksHash(start, bytes);
    if (process.env['CL100K_WRITE_SPLITS'] === '1' && (text !== CL100K_SPLITS || hash !== CL100K_RANKS_HASH)) {
      writeFileSync(SPLITS_FILE, splitsFile(text, hash));
    }
    expect(hash, 'gpt-tokenizer ranks changed: rerun this test with CL100K_WRITE_SPLITS=1').toBe(CL100K_RANKS_HASH);
    expect(text === CL100K_SPLITS, 'cl100k-splits.ts is stale: rerun this test with CL100K_WRITE_SPLITS=1').toBe(true);
    const table = mergeTable();
    expect(Array.from(table.splitLeft)).toEqual(Array.from(derived.left));
    expect(Array.from(table.splitRight)).toEqual(Array.from(derived.right));
  });

  // The bucket merge and the backtracking encoder rely on both: a pair's
  // tokens rank below the token they build (merge ranks only increase), and
  // the pair spells the token.
  it('builds every token but the single bytes, each from two lower-ranked tokens that spell it', () => {
    const table = mergeTable();
    expect(table.unbuildable).toEqual([]);
    let singles = 0;
    for (let t = 0; t < TOKENS; t++) {
      const l = table.splitLeft[t]!;
      const r = table.splitRight[t]!;
      const n = start[t + 1]! - start[t]!;
      if (n === 1) {
        singles++;
        expect([l, r]).toEqual([t, t]);
        continue;
      }
      if (l >= t || r >= t) throw new Error(`token ${t} built from ${l}, ${r}`);
      const spelled = [...bytes.subarray(start[l]!, start[l + 1]!), ...bytes.subarray(start[r]!, start[r + 1]!)];
      if (spelled.join() !== Array.from(bytes.subarray(start[t]!, start[t + 1]!)).join()) throw new Error(`token ${t} is not ${l} + ${r}`);
      if (mergeOf(l, r) !== t) throw new Error(`pair ${l}, ${r} does not look up ${t}`);
    }
    expect(singles).toBe(256);
  });

  it('knows no merge for pairs that spell no token or a token another way', () => {
    const table = mergeTable();
    const tokenOrNone = (s: string): number => {
      const b = new TextEncoder().encode(s);
      for (let t = 0; t < TOKENS; t++) {
        if (start[t + 1]! - start[t]! === b.length && b.every((x, i) => bytes[start[t]! + i] === x)) return t;
      }
      return -1;
    };
    const token = (s: string): number => {
      const t = tokenOrNone(s);
      if (t < 0) throw new Error(`no token ${s}`);
      return t;
    };
    for (const word of ['hello', ' world', 'ization', ' configuration']) {
      const whole = token(word);
      expect(mergeOf(table.splitLeft[whole]!, table.splitRight[whole]!)).toBe(whole);
      // The word is one token, but of its splits into two tokens only one is BPE's last merge.
      const others: [number, number][] = [];
      for (let k = 1; k < word.length; k++) {
        const a = tokenOrNone(word.slice(0, k));
        const b = tokenOrNone(word.slice(k));
        if (a >= 0 && b >= 0 && (a !== table.splitLeft[whole] || b !== table.splitRight[whole])) others.push([a, b]);
      }
      expect(others.length).toBeGreaterThan(0);
      for (const [a, b] of others) expect(mergeOf(a, b)).toBe(-1);
    }
    expect(tokenOrNone('zq')).toBe(-1);
    expect(mergeOf(token('z'), token('q'))).toBe(-1);
  });

  // Pairs of two ids below 256 have a dense table of their own, the rest the hashed one.
  it('answers every pair of two low ids exactly as the split table says, and pairs across the 256 line', () => {
    const table = mergeTable();
    const want = new Map<number, number>();
    for (let t = 0; t < TOKENS; t++) {
      const l = table.splitLeft[t]!;
      const r = table.splitRight[t]!;
      if (l !== t) want.set(l * 131072 + r, t);
    }
    let low = 0;
    for (let l = 0; l < 256; l++) {
      for (let r = 0; r < 256; r++) {
        const got = mergeOf(l, r);
        if (got !== (want.get(l * 131072 + r) ?? -1)) throw new Error(`pair ${l}, ${r}: ${got}`);
        if (got >= 0) low++;
      }
    }
    expect(low).toBeGreaterThan(1000);
    let mixed = 0;
    for (const [key, t] of want) {
      const l = Math.floor(key / 131072);
      const r = key % 131072;
      if ((l < 256) === (r < 256)) continue;
      mixed++;
      if (mergeOf(l, r) !== t) throw new Error(`pair ${l}, ${r} does not look up ${t}`);
      if (mergeOf(r, l) !== (want.get(r * 131072 + l) ?? -1)) throw new Error(`pair ${r}, ${l}`);
    }
    expect(mixed).toBeGreaterThan(1000);
  });

  // The trie numbers a node that spells a token as the token: the walk reads it off the node.
  it('finds every token as the longest token of its own bytes, and of its bytes followed by more', () => {
    const table = mergeTable();
    for (let t = 0; t < TOKENS; t++) {
      const n = start[t + 1]! - start[t]!;
      const own = bytes.slice(start[t]!, start[t + 1]!);
      if (longestToken(table, own, 0, n) !== t) throw new Error(`token ${t} not found from its bytes`);
      // A byte after it may make a longer token, never a different one of the same length or shorter.
      const more = new Uint8Array(n + 1);
      more.set(own);
      more[n] = 0x01;
      const got = longestToken(table, more, 0, n + 1);
      if (got !== t && start[got + 1]! - start[got]! <= n) throw new Error(`token ${t} + 0x01 gave ${got}`);
    }
  });

  it("keeps each token's length, pair and longest proper prefix side by side in info", () => {
    const table = mergeTable();
    // Put every token in the trie, as the encoder does by first byte.
    for (let b = 0; b < 256; b++) longestToken(table, new Uint8Array([b, 0]), 0, 2);
    for (let t = 0; t < TOKENS; t++) {
      const n = start[t + 1]! - start[t]!;
      const got = Array.from(table.info.subarray(t * 4, t * 4 + 4));
      if (got.join() !== [n, prefixOf(t), table.splitLeft[t], table.splitRight[t]].join()) throw new Error(`token ${t}: ${got}`);
      const p = prefixOf(t);
      if (n === 1) {
        if (p !== -1) throw new Error(`single byte ${t} has prefix ${p}`);
        continue;
      }
      // The longest proper prefix: no token spells a longer one.
      const lo = p < 0 ? 1 : start[p + 1]! - start[p]! + 1;
      for (let k = lo; k < n; k++) {
        const sub = bytes.subarray(start[t]!, start[t]! + k);
        if (longestToken(table, sub, 0, k) !== -1 && start[longestToken(table, sub, 0, k) + 1]! - start[longestToken(table, sub, 0, k)]! === k) {
          throw new Error(`token ${t}: a prefix of ${k} bytes is a token, longer than ${p}`);
        }
      }
    }
  });
});
