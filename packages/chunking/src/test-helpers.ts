/** Builders for test documents of known shape, and full collections for tests of what is kept. */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
let counter = 0;

/** A prose paragraph of `sentences` sentences (about 12 tokens each). */
export function para(sentences: number, seed = counter++): string {
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
  const out: string[] = [];
  for (let i = 0; i < sentences; i++) {
    const w = (k: number): string => words[(seed * 7 + i * 3 + k) % words.length]!;
    out.push(`The ${w(0)} service calls ${w(1)} before ${w(2)} and ${w(3)} finish sentence ${i + 1}.`);
  }
  return out.join(' ');
}

/** A fenced code block with `lines` lines, blank lines every 5 lines. */
export function code(lines: number, lang = 'csharp'): string {
  const body: string[] = [];
  for (let i = 0; i < lines; i++) body.push(i % 5 === 4 ? '' : `var value${i} = Compute(${i}, "text ${i}");`);
  return `\`\`\`${lang}\n${body.join('\n')}\n\`\`\``;
}

/** A GFM table with `rows` body rows. */
export function table(rows: number, columns = 3): string {
  const header = `| ${Array.from({ length: columns }, (_, i) => `Column ${i + 1}`).join(' | ')} |`;
  const sep = `| ${Array.from({ length: columns }, () => '---').join(' | ')} |`;
  const body = Array.from({ length: rows }, (_, r) => `| ${Array.from({ length: columns }, (_, c) => `cell ${r}.${c}`).join(' | ')} |`);
  return [header, sep, ...body].join('\n');
}

export function fenceLines(text: string): number {
  return text.split('\n').filter((l) => /^ {0,3}(```|~~~)/.test(l)).length;
}

/**
 * Long unspaced runs (one huge pre-token, or a few) of 300 to `maxLength` characters drawn from
 * one alphabet: letters, base64 (short and full), digits, CJK, accented letters, emoji, and a
 * two-letter one whose merges repeat.
 */
export function unspacedRun(maxLength: number): fc.Arbitrary<string> {
  const alphabets = [
    'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
    'abcXYZ0123456789+/=',
    'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/',
    'aab',
    '日本語の文字列漢字',
    'éèßā',
    '0123456789',
    'ab\u{1F600}',
  ];
  return fc.tuple(fc.constantFrom(...alphabets), fc.integer({ min: 300, max: maxLength }), fc.integer()).map(([alphabet, length, seed]) => seededText(alphabet, length, seed));
}

/**
 * `length` characters (code points) of `alphabet` picked by a linear congruential generator from
 * `seed`: fast-check shrinks the seed and length, not each of thousands of characters.
 */
export function seededText(alphabet: string, length: number, seed: number): string {
  const chars = [...alphabet];
  let x = seed >>> 0;
  let t = '';
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    t += chars[(x >>> 8) % chars.length];
  }
  return t;
}

/**
 * The CommonMark line split (LF, CR or CRLF), one character at a time: the reference that
 * lineTable and the boilerplate scan are held to. `ends[i]` is where line i's content ends.
 */
export function referenceLineSplit(source: string): { starts: number[]; ends: number[] } {
  const starts = [0];
  const ends: number[] = [];
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\n' || c === '\r') {
      ends.push(i);
      if (c === '\r' && source[i + 1] === '\n') i++;
      starts.push(i + 1);
    }
  }
  ends.push(source.length);
  return { starts, ends };
}

/**
 * Elements pushed onto arrays (by `push`, one call per element or spread) while `run` runs: a
 * count of work that grows with the input's square where a stage copies what it built, read
 * without a clock (a timed test fails on a loaded machine).
 */
export function pushedDuring(run: () => void): number {
  const push = Array.prototype.push;
  let pushed = 0;
  Array.prototype.push = function (this: unknown[], ...items: unknown[]): number {
    pushed += items.length;
    return push.apply(this, items);
  };
  try {
    run();
  } finally {
    Array.prototype.push = push;
  }
  return pushed;
}

/**
 * A deterministic local embedding for the LangChain and LlamaIndex downstream tests: each word
 * (letters and digits, lower-cased) hashed into one of `dims` counts. Texts sharing words point
 * the same way, so a query finds the chunks that hold its words.
 */
export function wordVector(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (w === '') continue;
    let h = 0;
    for (const ch of w) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
    v[h % dims]! += 1;
  }
  return v;
}

/** The error a call throws, or null when it returns. */
export function thrown(call: () => unknown): Error | null {
  try {
    call();
    return null;
  } catch (err) {
    return err as Error;
  }
}

/**
 * Changes every array and object inside `v`, depth first (an array gets an element, an object a
 * key): the adapters' tests change one chunk's metadata this way and check no other changed.
 */
export function mutateDeep(v: unknown): void {
  if (Array.isArray(v)) {
    v.forEach(mutateDeep);
    v.push('CHANGED');
  } else if (typeof v === 'object' && v !== null) {
    Object.values(v).forEach(mutateDeep);
    (v as Record<string, unknown>).changed = true;
  }
}

/** A loader's or reader's extra metadata: a few keys of JSON values nested up to three deep. */
export const nestedMetadata = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });

let gc: (() => void) | undefined;

/**
 * Full collections, each after a turn of the event loop: a WeakRef's target made or read in a
 * turn lives to its end, and a collection run in the same turn as the chunking left garbage of
 * it counted as in use (retention.test.ts: CI read 18 MB once where a heap snapshot found nothing).
 */
export async function collectFully(): Promise<void> {
  if (gc === undefined) {
    v8.setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
}
