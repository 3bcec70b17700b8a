// An output or cache folder option (`--out`, `--cache-dir`) whose path holds a name over 255
// bytes: it passed checkFolderOption (stat's ENAMETOOLONG read as "nothing there", and a
// missing folder above the name hid it behind ENOENT), and the tool failed later with exit 1
// naming `<out>/golden-reference.md`, a path the user never gave (helper probe). Now a usage
// error (exit 2) naming the option, the path and the problem. Real files; keyword-extractor and
// topic-spec run in-process through their real main().
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main as keywords } from '../../../apps/keyword-extractor/src/main.js';
import { main as topicSpec } from '../../../apps/topic-spec/src/main.js';
import { checkFolderOption, UsageError } from './index.js';
import { thrown } from './test-helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'topic-io-long-name-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('checkFolderOption, a name over 255 bytes', () => {
  it('is a UsageError naming the option, the path and the name\'s size, wherever the name sits; 255 bytes passes (property)', () => {
    // ASCII and multi-byte names: the limit is bytes, not characters.
    const name = fc.array(fc.constantFrom('a', 'é', '字', '😀', '-'), { minLength: 60, maxLength: 300, size: 'max' }).map((units) => units.join(''));
    let over = 0;
    let under = 0;
    fc.assert(
      fc.property(name, fc.constantFrom('', 'missing/', 'missing/deeper/'), fc.constantFrom('', '/x', '/x/y'), (n, above, below) => {
        const path = join(dir, `${above}${n}${below}`);
        const bytes = Buffer.byteLength(n);
        const err = thrown(() => checkFolderOption('out', path));
        if (bytes <= 255) {
          under++;
          expect(err).toBeNull();
          return;
        }
        over++;
        expect(err).toBeInstanceOf(UsageError);
        expect((err as Error).message).toBe(`--out ${path}: name too long (a name in it is ${bytes} bytes; a file system takes at most 255); use a shorter path`);
      }),
      { numRuns: 200 },
    );
    // Both sides of the limit were tried.
    expect(over).toBeGreaterThan(20);
    expect(under).toBeGreaterThan(5);
    expect(thrown(() => checkFolderOption('out', join(dir, 'c'.repeat(255))))).toBeNull();
    expect(thrown(() => checkFolderOption('out', join(dir, 'c'.repeat(256))))).toBeInstanceOf(UsageError);
  });

  it('a path over the system\'s length limit with every name short is refused too, naming the option', () => {
    const path = join(dir, ...Array.from({ length: 40 }, () => 'b'.repeat(200)));
    const err = thrown(() => checkFolderOption('cache-dir', path));
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(new RegExp(`^--cache-dir ${path}: name too long \\(ENAMETOOLONG: the path is \\d+ bytes from the root\\); use a shorter path$`));
  });
});

describe('through the tools', () => {
  const long = 'a'.repeat(300);
  function topic(): string {
    const t = join(dir, 'docs', 't');
    mkdirSync(t, { recursive: true });
    writeFileSync(join(t, 'golden-reference.md'), '# Title\n\nSome words about serialization and source generation.\n');
    return t;
  }
  async function run(main: (argv: string[], io: { stdout: (s: string) => void; stderr: (s: string) => void }) => Promise<number>, argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
    return { code, stdout, stderr };
  }

  it('keyword-extractor --out with a 300-byte name: exit 2, one line naming --out and the path, nothing written (was exit 1 naming <out>/golden-reference.md)', async () => {
    const t = topic();
    for (const out of [join(dir, long), join(dir, 'missing', long, 'kw')]) {
      const r = await run(keywords, [t, '--out', out]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`keyword-extractor: --out ${out}: name too long (a name in it is 300 bytes; a file system takes at most 255); use a shorter path\n`);
      expect(r.stderr).not.toContain('golden-reference.md');
    }
    expect(readdirSync(dir).sort()).toEqual(['docs']);
    expect(readdirSync(t)).toEqual(['golden-reference.md']);
  });

  it('topic-spec --cache-dir with a 300-byte name: exit 2, naming --cache-dir and the path', async () => {
    const t = topic();
    const cacheDir = join(dir, long);
    const r = await run(topicSpec, [t, '--cache-dir', cacheDir]);
    expect(r.stderr).toBe(`topic-spec: --cache-dir ${cacheDir}: name too long (a name in it is 300 bytes; a file system takes at most 255); use a shorter path\n`);
    expect(r.code).toBe(2);
    expect(existsSync(join(t, 'topic-spec.md'))).toBe(false);
  });
});
