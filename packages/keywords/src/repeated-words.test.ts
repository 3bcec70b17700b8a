// The page "# Server\n\nServer server server\n" had no keyword at all (helper-91 probe). Not a
// minimum count (a heading word qualifies once) nor a stop word: the three body words made the
// phrase "server server" twice, overlapping (words 1-2 and 2-3), so "server server" seemed to
// hold 2 × 2 = 4 uses of "server", as many as the page has (heading included), and "server"
// was dropped as never outside a longer phrase; "server server" was dropped inside "server
// server server", which occurs once and cannot rank. A phrase's uses are now counted without
// overlap, as a phrase is counted in any text: "server server server" holds "server server" once.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractKeywords } from './index.js';
import { scanMarkdown } from './scan.js';

const names = (text: string, max = 40) => extractKeywords([{ name: 'golden-reference.md', text }], { max }).map((e) => e.name);

describe('a word repeated in a row', () => {
  it('a page headed "Server" that repeats it three times has the keyword server', () => {
    expect(names('# Server\n\nServer server server\n')).toEqual(['server']);
    expect(names('# Database\n\nDatabase database database database.\n')).toEqual(['database']);
  });

  it('counts a phrase without overlap: "a a a" holds "a a" once, "a a a a" twice', () => {
    const count = (text: string, surface: string) => scanMarkdown(text).filter((o) => o.surface === surface).length;
    expect(count('server server server', 'server server')).toBe(1);
    expect(count('server server server server', 'server server')).toBe(2);
    expect(count('server server server', 'server')).toBe(3);
    expect(count('peer to peer to peer', 'peer to peer')).toBe(1);
    // Apart (a break between), both count.
    expect(count('server server. server server', 'server server')).toBe(2);
  });

  it('keeps a name that repeats a word (Bora Bora), with its phrases', () => {
    expect(names('# Bora Bora\n\nBora Bora is an island. Bora Bora has a lagoon.\n')).toContain('bora bora');
    expect(names('# Peer to peer\n\nPeer to peer networks. A peer to peer link.\n')).toContain('peer to peer');
  });

  it('property: a page headed by one word keeps that word, whatever its body repeats', () => {
    const heading = fc.constantFrom('server', 'database', 'widget', 'cluster');
    const vocabulary = ['cache', 'node', 'port', 'of', 'and', 'the', 'proxy'];
    fc.assert(
      fc.property(
        heading,
        fc.array(fc.tuple(fc.oneof(fc.constant('*'), fc.constantFrom(...vocabulary)), fc.constantFrom(' ', ' ', ' ', '. ', '\n', '\n\n')), { maxLength: 40 }),
        (w, body) => {
          const text = `# ${w[0]!.toUpperCase()}${w.slice(1)}\n\n${body.map(([t, sep]) => (t === '*' ? w : t) + sep).join('')}\n`;
          expect(names(text, 1000)).toContain(w);
        },
      ),
      { numRuns: 500 },
    );
  });
});
