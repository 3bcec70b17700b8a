// A document's name (its file's name without the extension) opens every chunk id
// (`{contentType}:{docName}::ch{n}`). A topic.yaml source `a<ESC>[31mx.md` (or a file given to
// chunking-tool by that name) went into every id, manifest name and terminal line as given:
// chunking-tool wrote "id": "doc:a\u001b[31mx::ch0", exit 0 (issue 15 leftover). Now a usage
// error (exit 2) naming the file and the topic.yaml that listed it, before anything is written.
// `::` stays (`std::vector.md`): ids are read from their end. Real files, the real chunking-tool.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main as chunk } from '../../../apps/chunking-tool/src/main.js';
import { docNameOf, docNameProblem, topicSettings, UsageError } from './index.js';
import { thrown } from './test-helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'topic-io-doc-name-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await chunk(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}

describe('docNameOf', () => {
  it('a name with a control or bidi character is a UsageError naming the file and the character; any other name is its file name without the extension, as before (property)', () => {
    const bad = ['\u0000', '\u0001', '\t', '\n', '\r', '\u001b', '\u007f', '\u0085', '\u009b', '\u061c', '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069'];
    const ok = ['a', 'Z', '-', '_', ':', '::', '#', ' ', '.', 'é', '字', '😀', '\u00a0', '\u200b', 'ch', '1'];
    let refused = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ok, ...bad), { minLength: 1, maxLength: 12 }), fc.constantFrom('.md', '.markdown', '.txt'), fc.constantFrom('', 'docs/t/'), (units, ext, above) => {
        const name = units.join('');
        const file = `${above}${name}${ext}`;
        const first = units.find((u) => bad.includes(u));
        const err = thrown(() => docNameOf(file));
        if (first === undefined) {
          expect(err).toBeNull();
          // Byte for byte what basename(file, ext) gave before: ordinary names' ids do not change.
          expect(docNameOf(file)).toBe(name);
          return;
        }
        refused++;
        expect(err).toBeInstanceOf(UsageError);
        const code = `U+${first.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
        expect((err as Error).message).toContain(`: its name goes into every chunk id (doc:<name>::ch<n>) and holds a control character (${code}); rename the file without it`);
        expect((err as Error).message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      }),
      { numRuns: 400 },
    );
    expect(refused).toBeGreaterThan(100);
    expect(docNameOf('golden-reference.md')).toBe('golden-reference');
    expect(docNameOf('docs/std::vector.md')).toBe('std::vector');
    expect(docNameProblem('b::ch1')).toBeNull();
  });
});

describe('chunking-tool over a topic listing such a source', () => {
  function topic(sources: string[]): string {
    const t = join(dir, 't');
    mkdirSync(t, { recursive: true });
    writeFileSync(join(t, 'golden-reference.md'), '# Title\n\nSome words about serialization.\n');
    for (const s of sources) writeFileSync(join(t, s), '# Other\n\nMore words about source generation.\n');
    writeFileSync(join(t, 'topic.yaml'), `sources:\n${['golden-reference.md', ...sources].map((s) => `  - ${JSON.stringify(s)}\n`).join('')}`);
    return t;
  }

  it('ESC, a tab, a C1 control, a bidi override: exit 2 naming the file and topic.yaml, nothing written (was exit 0, the character in every id)', async () => {
    for (const [name, code] of [
      ['a\u001b[31mx.md', 'U+001B'],
      ['tab\there.md', 'U+0009'],
      ['c1\u0085.md', 'U+0085'],
      ['rtl\u202etxt.md', 'U+202E'],
    ] as const) {
      const t = topic([name]);
      const r = await run([t]);
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toBe(
        `chunking-tool: ${join(t, name).replace(/[\u0000-\u001f\u007f-\u009f\u202e]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`)} (listed in the sources of ${join(t, 'topic.yaml')}): its name goes into every chunk id (doc:<name>::ch<n>) and holds a control character (${code}); rename the file without it\n`,
      );
      expect(existsSync(join(t, '_chunks')), name).toBe(false);
      rmSync(t, { recursive: true });
    }
  });

  it('the file given by itself: exit 2 naming it, nothing written', async () => {
    const t = topic([]);
    const file = join(t, 'b\u001b.md');
    writeFileSync(file, '# B\n\nWords.\n');
    const r = await run([file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(t, 'b\\u001b.md')}: its name goes into every chunk id (doc:<name>::ch<n>) and holds a control character (U+001B); rename the file without it\n`);
    expect(readdirSync(t).sort()).toEqual(['b\u001b.md', 'golden-reference.md', 'topic.yaml']);
  });

  it('"::" and other ordinary names still chunk, their ids as before', async () => {
    const t = topic(['std::vector.md', 'b::ch1.md']);
    expect((await run([t])).code).toBe(0);
    const ids = (doc: string) => (JSON.parse(readFileSync(join(t, '_chunks', `${doc}.json`), 'utf8')) as { chunks: { id: string }[] }).chunks.map((c) => c.id);
    expect(ids('golden-reference')).toEqual(['doc:golden-reference::ch0']);
    expect(ids('std::vector')).toEqual(['doc:std::vector::ch0']);
    expect(ids('b::ch1')).toEqual(['doc:b::ch1::ch0']);
    expect(topicSettings(t, { chunking: {} }).sources).toEqual(['golden-reference.md', 'std::vector.md', 'b::ch1.md']);
  });
});
