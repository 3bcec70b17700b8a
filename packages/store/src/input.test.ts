import { describe, expect, it } from 'vitest';
import { InputError } from './errors.js';
import { checkText, decodeDocument } from './input.js';

const bytes = (...b: number[]) => Uint8Array.from(b);
const utf8 = (s: string) => new TextEncoder().encode(s);

describe('decodeDocument', () => {
  it('decodes UTF-8 and drops a BOM', () => {
    expect(decodeDocument(Uint8Array.from([0xef, 0xbb, 0xbf, ...utf8('# Über\n')]), 'a.md')).toBe('# Über\n');
  });

  it.each([
    ['an empty file', bytes(), /^a\.md: empty file$/],
    // topic-io's words for the same file (chunking-tool said 'empty file (only whitespace)', the store 'empty document (only whitespace)')
    ['a file of whitespace', utf8(' \n\t\n'), /^a\.md: empty file \(only whitespace\)$/],
    ['a binary file', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]), /binary file \(contains NUL bytes\)/],
    ['invalid UTF-8', Uint8Array.from([...utf8('café '), 0xc3, 0x28, ...utf8(' more')]), /^a\.md: not valid UTF-8 \(first bad byte at offset 6\); save it as UTF-8$/],
    ['Latin-1 text', Uint8Array.from([...utf8('na'), 0xef, ...utf8('ve')]), /^a\.md: not valid UTF-8 \(first bad byte at offset 2\); save it as UTF-8$/],
    // Issue 15 probe: Notepad's "Unicode" was "binary file (contains NUL bytes), not text", as topic-io said before 925a577.
    ['UTF-16 text', Uint8Array.from([0xff, 0xfe, ...Buffer.from('# Title\n', 'utf16le')]), /^a\.md: UTF-16 \(little-endian\) text \(it starts with that byte order mark\), not UTF-8; save it as UTF-8$/],
    ['UTF-16 big-endian text', Uint8Array.from([0xfe, 0xff, ...Buffer.from('# T\n', 'utf16le').swap16()]), /^a\.md: UTF-16 \(big-endian\) text .*not UTF-8; save it as UTF-8$/],
    ['UTF-32 text', Uint8Array.from([0xff, 0xfe, 0, 0, 0x23, 0, 0, 0]), /^a\.md: UTF-32 \(little-endian\) text .*not UTF-8; save it as UTF-8$/],
  ])('refuses %s with an error naming the file', (_name, input, message) => {
    const err = (() => {
      try {
        decodeDocument(input, 'a.md');
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(message);
    expect((err as InputError).source).toBe('a.md');
  });

  it('takes control characters other than NUL as text, as chunking-tool does (issue 15 probe)', () => {
    // Refused before as "binary content (134 control characters)": over 1% of the characters.
    const soup = Uint8Array.from({ length: 400 }, (_, i) => (i % 3 ? 0x41 : 0x01));
    expect(decodeDocument(soup, 'a.md')).toBe(new TextDecoder().decode(soup));
    const ansi = '# Colours\n\n```console\n\u001b[31mERROR\u001b[0m \u001b[1mbuild\u001b[0m\f\u007f\u009b\n```\n';
    expect(decodeDocument(utf8(ansi), 'a.md')).toBe(ansi);
    expect(() => checkText(ansi, 'a.md')).not.toThrow();
  });

  it('takes a line of any length by default, as chunking-tool does (a base64 image; issue 15 probe)', () => {
    const image = `# Logo\n\n![logo](data:image/png;base64,${'iVBORw0KGgo'.repeat(6_000)})\n`;
    expect(decodeDocument(utf8(image), 'a.md')).toBe(image);
    expect(() => checkText(image, 'a.md')).not.toThrow();
  });

  it('applies its limits', () => {
    expect(() => decodeDocument(utf8('abcdef'), 'a.md', { maxBytes: 5, maxLineChars: 100 })).toThrow(/too large: 6 bytes \(limit 5\)/);
    expect(() => checkText('ab\ncdef\nx', 'a.md', { maxBytes: 100, maxLineChars: 3 })).toThrow(/line 2 is 4 characters long/);
    expect(() => checkText('ab\nc\nx', 'a.md', { maxBytes: 100, maxLineChars: 3 })).not.toThrow();
  });
});
