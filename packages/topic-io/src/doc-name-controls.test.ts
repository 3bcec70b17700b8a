// The control characters a document name may not hold are refused or replaced in three places:
// chunkDocument's resolveOptions refuses a docName holding one, interop's visibleDocName shows
// each as U+FFFD (the LangChain and LlamaIndex adapters, docs-store's plan), and topic-io's
// docNameProblem refuses a source file whose name holds one. Each once had its own copy of the
// set; now they share @chunkyard/chunking's doc-name-controls.ts. This asks each place itself,
// through its public function, about every code point of the BMP and some astral ones, so a
// place that went back to a set of its own, or a set edited in one place only, fails here.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkOptionsError, resolveOptions } from '@chunkyard/chunking';
import { visibleDocName } from '@chunkyard/chunking/interop';
import { docNameProblem } from './index.js';

/** What each place says of the one character `ch` inside a name: refused / replaced, and the U+ code it names. */
function verdicts(ch: string) {
  const name = `a${ch}b`;
  let options: string | null = null;
  try {
    resolveOptions({ docName: name });
  } catch (error) {
    if (!(error instanceof ChunkOptionsError)) throw error;
    options = /with (U\+[0-9A-F]{4,6})$/.exec(error.message)?.[1] ?? error.message;
  }
  const visible = visibleDocName(name);
  const topicIo = docNameProblem(name);
  return {
    options,
    interop: visible === name ? null : visible === 'a\ufffdb' ? 'replaced' : `changed to ${JSON.stringify(visible)}`,
    topicIo: topicIo === null ? null : (/\((U\+[0-9A-F]{4,6})\)/.exec(topicIo)?.[1] ?? topicIo),
  };
}

const code = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/** Where the three disagree about `cp`, or null. */
function disagreement(cp: number): string | null {
  const v = verdicts(String.fromCodePoint(cp));
  const refused = v.options !== null;
  const agree = refused
    ? v.options === code(cp) && v.interop === 'replaced' && v.topicIo === code(cp)
    : v.interop === null && v.topicIo === null;
  return agree ? null : `${code(cp)}: ${JSON.stringify(v)}`;
}

describe('the control characters of a document name', () => {
  it('are the same in resolveOptions, visibleDocName and docNameProblem for every BMP code point and some astral ones', () => {
    const astral = [0x10000, 0x1f600, 0xe0001, 0xe007f, 0xf0000, 0x10fffd, 0x10ffff];
    const disagreements: string[] = [];
    let refused = 0;
    // Lone surrogates (U+D800–U+DFFF) included: a file name read from a broken path can hold one.
    for (const cp of [...Array.from({ length: 0x10000 }, (_, i) => i), ...astral]) {
      const d = disagreement(cp);
      if (d !== null) disagreements.push(d);
      else if (docNameProblem(String.fromCodePoint(cp)) !== null) refused++;
    }
    expect(disagreements).toEqual([]);
    // C0 (32), DEL and C1 (33), ALM, LRM, RLM, LRE..RLO (5), LRI..PDI (4): the set the places agree on.
    expect(refused).toBe(32 + 33 + 3 + 5 + 4);
  });

  it('name the first control character of a name, whatever surrounds it', () => {
    const char = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 1 }), fc.constantFrom('\u0000', '\u001b', '\u007f', '\u0085', '\u061c', '\u200f', '\u202e', '\u2069', '\ufffd', '\ud800'));
    fc.assert(
      fc.property(fc.array(char, { minLength: 1, maxLength: 12 }), (parts) => {
        const name = parts.join('');
        let options: string | null = null;
        try {
          resolveOptions({ docName: name });
        } catch (error) {
          options = /with (U\+[0-9A-F]{4,6})$/.exec((error as Error).message)?.[1] ?? null;
        }
        const topicIo = docNameProblem(name);
        expect(topicIo === null ? null : /\((U\+[0-9A-F]{4,6})\)/.exec(topicIo)?.[1]).toBe(options);
        // visibleDocName leaves a name alone exactly when the other two accept it, and what it gives is accepted.
        expect(visibleDocName(name) === name).toBe(options === null);
        expect(docNameProblem(visibleDocName(name))).toBeNull();
      }),
    );
  });
});
