/**
 * GitHub-style heading slugs, unique per document: github-slugger's, with a
 * shortcut for ASCII headings (most headings of English documentation), whose
 * slug needs no Unicode-wide character class. `slugs.test.ts` checks both
 * paths against github-slugger.
 */
import { slug as githubSlug } from 'github-slugger';

/**
 * What github-slugger does to each ASCII character: 0 drop (punctuation and
 * control characters), 1 keep, 2 lowercase, 3 space → `-`.
 */
const ASCII_ACTION = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ASCII_ACTION[c] = /[0-9a-z_-]/.test(ch) ? 1 : /[A-Z]/.test(ch) ? 2 : ch === ' ' ? 3 : 0;
}

/** github-slugger's `slug(value)`: lowercased, punctuation dropped, spaces to `-`. */
export function slugOf(value: string): string {
  // One read first: non-ASCII goes to github-slugger, and a slug that only lower-cases and
  // turns spaces into `-` is made by two native passes (a heading of a whole document
  // otherwise built its slug a word at a time).
  let drops = false;
  let changes = false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 128) return githubSlug(value);
    const action = ASCII_ACTION[c]!;
    if (action === 0) drops = true;
    else if (action !== 1) changes = true;
  }
  if (!drops) return changes ? (value.length > LONG ? lowerDashed(value) : value.toLowerCase().replace(/ /g, '-')) : value;
  let out = '';
  let kept = 0; // start of the run of characters copied unchanged
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const action = ASCII_ACTION[c]!;
    if (action === 1) continue;
    out += value.slice(kept, i);
    kept = i + 1;
    if (action === 2) out += String.fromCharCode(c + 32);
    else if (action === 3) out += '-';
  }
  return kept === 0 ? value : out + value.slice(kept);
}

/** Above this length a slug is mapped a byte at a time (lowerDashed). */
const LONG = 4096;
const ASCII_DECODER = new TextDecoder();

/**
 * `value.toLowerCase().replace(/ /g, '-')` for ASCII text with nothing to drop, one pass into
 * bytes: on a heading of a whole document (1 MB) the regex replace took most of toUnits.
 */
function lowerDashed(value: string): string {
  const bytes = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    bytes[i] = c === 32 ? 45 : c >= 65 && c <= 90 ? c + 32 : c;
  }
  return ASCII_DECODER.decode(bytes);
}

/**
 * github-slugger's `GithubSlugger#slug`: a repeated slug gets `-1`, `-2`, …
 *
 * github-slugger keeps every slug it returned in one Map. Here only the slugs returned as they
 * are (and every base that was numbered) are kept, with how far each base was numbered; a
 * numbered slug `base-n` is known to be taken when its base was numbered up to `n` or beyond
 * (every candidate up to there was either returned then or already taken). On thousands of
 * repeated headings the Map stayed as small as the distinct names instead of growing by one
 * entry per heading, and its lookups were a tenth of the time (issue 15).
 */
export class HeadingSlugger {
  /** Slug → how far it was numbered as a base (0: never). Holds every slug returned unnumbered. */
  private readonly counts = new Map<string, number>();
  /**
   * Keys of `counts` that read `base-n` (a numbering's form): only these can make a candidate
   * `original-n` taken. While there are none (tiny headings `h0`…`h99`), a repeated slug's
   * number is the base's count + 1, with no candidate string built to look up.
   */
  private numberedLooking = 0;
  /**
   * For each base with a key of `counts` reading `base-m`, the highest such m: a candidate
   * `base-n` above it cannot be taken. A document with one numbered-looking heading (`Step 1`)
   * otherwise built and looked up a candidate string for every repeat of every other heading
   * ("Parameters", "Example"), and one `a` after `a-1` … `a-50000` tried 50,000 of them for
   * each repeat after the first (issue 15: 0.9 µs a heading).
   */
  private readonly numberedTop = new Map<string, number>();
  /** Candidate strings looked up so far (the tests count them). */
  candidatesTried = 0;
  /** The base of the slug the last `slugNumber` call decided. */
  base = '';

  slug(value: string): string {
    const n = this.slugNumber(value);
    return n === 0 ? this.base : `${this.base}-${n}`;
  }

  /**
   * `slug(value)` in two parts: the result is `this.base` when this returns 0, else
   * `${this.base}-${n}` (built by the caller only if it needs the string).
   */
  slugNumber(value: string): number {
    const original = slugOf(value);
    this.base = original;
    // One lookup of the slug serves both whether it is taken and its count (a document of tiny
    // headings repeats a hundred names: four lookups per heading were a tenth of visitUnits).
    const count = this.counts.get(original);
    if (count === undefined) {
      if (!this.takenAsNumbered(original)) {
        this.storeNew(original, 0);
        return 0;
      }
    }
    // github-slugger tries n = count + 1, + 2, … until `original-n` is free. The count is stored
    // after the search: a candidate's number is above it, so a candidate is taken only when
    // stored as it is (a heading that reads `original-n` itself).
    let n = (count ?? 0) + 1;
    const top = this.numberedLooking === 0 ? 0 : (this.numberedTop.get(original) ?? 0);
    while (n <= top) {
      this.candidatesTried++;
      if (!this.counts.has(`${original}-${n}`)) break;
      n++;
    }
    // The numbered result is implied by this count; it is not stored.
    if (count === undefined) this.storeNew(original, n);
    else this.counts.set(original, n);
    return n;
  }

  /** Stores `key`, not in `counts` yet. */
  private storeNew(key: string, n: number): void {
    const m = numberSuffix(key);
    if (m > 0) {
      this.numberedLooking++;
      const base = key.slice(0, key.lastIndexOf('-'));
      if (m > (this.numberedTop.get(base) ?? 0)) this.numberedTop.set(base, m);
    }
    this.counts.set(key, n);
  }

  /** Whether github-slugger's Map would hold `slug`, which is not a key of `counts`: as a numbering of its base. */
  private takenAsNumbered(slug: string): boolean {
    const n = numberSuffix(slug);
    if (n === 0) return false;
    const numbered = this.counts.get(slug.slice(0, slug.lastIndexOf('-')));
    return numbered !== undefined && numbered >= n;
  }
}

/** n when `slug` reads `base-n` as a numbering makes it (decimal digits, no leading zero, n >= 1), else 0. */
function numberSuffix(slug: string): number {
  const dash = slug.lastIndexOf('-');
  if (dash < 0) return 0;
  const digits = slug.length - dash - 1;
  if (digits === 0 || digits > 15 || slug.charCodeAt(dash + 1) === 0x30) return 0;
  let n = 0;
  for (let i = dash + 1; i < slug.length; i++) {
    const d = slug.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return 0;
    n = n * 10 + d;
  }
  return n;
}
