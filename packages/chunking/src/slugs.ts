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
  let out = '';
  let kept = 0; // start of the run of characters copied unchanged
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 128) return githubSlug(value);
    const action = ASCII_ACTION[c]!;
    if (action === 1) continue;
    out += value.slice(kept, i);
    kept = i + 1;
    if (action === 2) out += String.fromCharCode(c + 32);
    else if (action === 3) out += '-';
  }
  return kept === 0 ? value : out + value.slice(kept);
}

/** github-slugger's `GithubSlugger#slug`: a repeated slug gets `-1`, `-2`, … */
export class HeadingSlugger {
  private readonly occurrences = new Map<string, number>();

  slug(value: string): string {
    const original = slugOf(value);
    let result = original;
    while (this.occurrences.has(result)) {
      const n = this.occurrences.get(original)! + 1;
      this.occurrences.set(original, n);
      result = `${original}-${n}`;
    }
    this.occurrences.set(result, 0);
    return result;
  }
}
