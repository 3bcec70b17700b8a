// Two topic folders whose names differ only in Unicode normalization (`café` in NFC and in NFD)
// were two projects whose names look the same in `nx show projects`; two that differ only in
// case (`Case`, `case`) are one folder on macOS and Windows, where a clone mixes their files.
// Linux keeps them apart and the build runs, but the plugin said nothing. Now it warns once,
// naming the first pair and why. createNodesV2 runs in a child process over real folders, its
// stderr as Nx prints it. Names that only full Unicode case folding joins (`Straße` and
// `STRASSE`, `ﬁle` and `file`: not the same in lower case) got no warning, though a
// case-insensitive APFS volume, the macOS default, folds case that way and takes them for one
// folder; now they are twins too, and the warning says it is macOS that joins them.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const INDEX = require.resolve('./index.cjs');
const core = require('./plugin.cjs') as {
  twinFolders(markers: string[], roots: string[]): { a: string; b: string; inCase: boolean; inNormalization: boolean; inFolding: boolean }[];
};

const temp = mkdtempSync(join(tmpdir(), 'nx-twins-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const NFC = 'caf\u00e9';
const NFD = 'cafe\u0301';

/** Makes each topic folder under a fresh workspace and runs createNodesV2 over them in a child: the projects and stderr. */
function plugin(name: string, topics: string[]): { projects: string[]; stderr: string; status: number | null } {
  const ws = join(temp, name);
  for (const t of topics) {
    mkdirSync(join(ws, t), { recursive: true });
    writeFileSync(join(ws, t, 'golden-reference.md'), '# T\n\nText.\n');
  }
  writeFileSync(join(ws, 'nx.json'), '{}\n');
  const files = ['nx.json', ...topics.map((t) => `${t}/golden-reference.md`)];
  const script = `const [, fn] = require(${JSON.stringify(INDEX)}).createNodesV2;
const r = fn(JSON.parse(process.argv[1]), {}, { workspaceRoot: process.argv[2] });
process.stdout.write(JSON.stringify(r.flatMap(([, x]) => Object.values(x.projects).map((p) => p.name)).sort()));`;
  const r = spawnSync(process.execPath, ['-e', script, JSON.stringify(files), ws], { encoding: 'utf8', timeout: 60_000 });
  return { projects: r.status === 0 ? (JSON.parse(r.stdout) as string[]) : [], stderr: r.stderr, status: r.status };
}

describe('@chunkyard/nx: folders named alike but for case or Unicode normalization', () => {
  it('NFC and NFD café: both are projects, and one warning names both folders, which is which, and why', () => {
    const r = plugin('nfc-nfd', [`docs/${NFC}`, `docs/${NFD}`, 'docs/other']);
    expect(r.status, r.stderr).toBe(0);
    // Both still build on Linux: two projects, whose names look the same.
    expect(r.projects).toEqual(['docs', 'topic-other', `topic-${NFD}`, `topic-${NFC}`].sort());
    expect(r.stderr).toBe(
      `@chunkyard/nx: warning: the folders docs/${NFD} (NFD) and docs/${NFC} (NFC) have names that differ only in Unicode normalization (the same letters, encoded differently): ` +
        'their project names look the same in nx show projects, and macOS takes them for one folder (its file system ignores normalization), ' +
        'so a clone or checkout there mixes their files; Linux keeps them apart and builds both, but rename one of them\n',
    );
  });

  it('Case and case: both are projects, and one warning names both folders and why', () => {
    const r = plugin('case', ['docs/Case', 'docs/case', 'docs/guides/Intro', 'docs/guides/intro/x']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.projects).toContain('topic-Case');
    expect(r.projects).toContain('topic-case');
    expect(r.stderr).toBe(
      '@chunkyard/nx: warning: the folders docs/Case and docs/case (and 1 more pair) have names that differ only in case: macOS and Windows take them for one folder (their file systems ignore case), ' +
        'so a clone or checkout there mixes their files; Linux keeps them apart and builds both, but rename one of them\n',
    );
  });

  it('folders that differ in more than case or normalization, or only deeper down under twins, get no warning of their own', () => {
    const r = plugin('apart', ['docs/cafe', `docs/${NFC}s`, 'docs/a-b', 'docs/a_b', 'docs/sec/x', 'docs/other/x']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    // docs/A/x and docs/a/x are the pair docs/A, docs/a, named once.
    const deep = plugin('deep', ['docs/A/x', 'docs/a/x']);
    expect(deep.stderr.match(/warning/g)).toHaveLength(1);
    expect(deep.stderr).toMatch(/^@chunkyard\/nx: warning: the folders docs\/A and docs\/a have names that differ only in case:/);
  });

  it('property: a pair is reported exactly when two sibling names fold to one (NFC, lower case) and differ', () => {
    const letter = fc.constantFrom('a', 'A', 'e', 'E', '\u00e9', '\u00c9', 'e\u0301', 'E\u0301', 'b');
    const name = fc.array(letter, { minLength: 1, maxLength: 3 }).map((l) => l.join(''));
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 5 }), (names) => {
        const pairs = core.twinFolders(names.map((n) => `docs/${n}/golden-reference.md`).sort(), ['docs']);
        const fold = (s: string) => s.normalize('NFC').toLowerCase().normalize('NFC');
        let expected = 0;
        for (let i = 0; i < names.length; i++) for (let j = i + 1; j < names.length; j++) if (fold(names[i]!) === fold(names[j]!)) expected++;
        expect(pairs).toHaveLength(expected);
        for (const p of pairs) {
          const [a, b] = [p.a.slice(5), p.b.slice(5)];
          expect(a).not.toBe(b);
          expect(fold(a)).toBe(fold(b));
          expect(p.inCase).toBe(a.normalize('NFC') !== b.normalize('NFC'));
          expect(p.inNormalization).toBe(a.toLowerCase() !== b.toLowerCase());
          expect(p.inCase || p.inNormalization).toBe(true);
        }
      }),
    );
  });

  it('Straße and STRASSE, ﬁle and file (full case folding): both are projects, and one warning names the first pair and says macOS joins them; ı and i, x² and x2 are no pair', () => {
    const r = plugin('full-folding', ['docs/Straße', 'docs/STRASSE', 'docs/\ufb01le', 'docs/file', 'docs/\u0131', 'docs/i', 'docs/x\u00b2', 'docs/x2']);
    expect(r.status, r.stderr).toBe(0);
    for (const name of ['Straße', 'STRASSE', '\ufb01le', 'file', '\u0131', 'i', 'x\u00b2', 'x2']) expect(r.projects).toContain(`topic-${name}`);
    expect(r.stderr).toBe(
      '@chunkyard/nx: warning: the folders docs/STRASSE and docs/Straße (and 1 more pair) have names that differ only in case as Unicode folds it fully (ß as ss, ﬁ as fi, ſ as s): ' +
        'macOS takes them for one folder (its file system folds case that way), ' +
        'so a clone or checkout there mixes their files; Linux keeps them apart and builds both, but rename one of them\n',
    );
    // With normalization as well: GRÜSSE in NFD and Grüße in NFC, each form named.
    const both = plugin('folding-and-nfd', ['docs/GRU\u0308SSE', 'docs/Gr\u00fc\u00dfe']);
    expect(both.stderr).toBe(
      '@chunkyard/nx: warning: the folders docs/GRU\u0308SSE (NFD) and docs/Gr\u00fc\u00dfe (NFC) have names that differ only in case as Unicode folds it fully (ß as ss, ﬁ as fi, ſ as s) and in Unicode normalization: ' +
        'macOS takes them for one folder (its file system folds case that way and ignores normalization), ' +
        'so a clone or checkout there mixes their files; Linux keeps them apart and builds both, but rename one of them\n',
    );
  });

  it('property: a pair is reported exactly when two sibling names are one under full case folding and NFC (CaseFolding.txt C and F, not T)', () => {
    // Each piece with its fold from Unicode's CaseFolding.txt, written out here: a name's fold is
    // its pieces' folds (full case folding maps a character at a time).
    const FOLDS: [string, string][] = [
      ['s', 's'], ['S', 's'], ['\u017f', 's'], ['\u00df', 'ss'], ['\u1e9e', 'ss'], ['ss', 'ss'], ['SS', 'ss'], ['sS', 'ss'],
      ['f', 'f'], ['F', 'f'], ['\ufb01', 'fi'], ['fi', 'fi'], ['FI', 'fi'], ['i', 'i'], ['I', 'i'], ['\u0131', '\u0131'], ['\u0130', 'i\u0307'], ['i\u0307', 'i\u0307'],
      ['\u03c3', '\u03c3'], ['\u03c2', '\u03c3'], ['\u03a3', '\u03c3'], ['k', 'k'], ['\u212a', 'k'], ['\u00e9', '\u00e9'], ['e\u0301', '\u00e9'], ['\u00c9', '\u00e9'], ['\u00b2', '\u00b2'], ['2', '2'],
    ];
    const name = fc.array(fc.constantFrom(...FOLDS), { minLength: 1, maxLength: 3 }).map((ps) => ({ name: ps.map(([p]) => p).join(''), fold: ps.map(([, f]) => f).join('').normalize('NFC') }));
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 6, selector: (n) => n.name }), (names) => {
        const pairs = core.twinFolders(names.map((n) => `docs/${n.name}/golden-reference.md`).sort(), ['docs']);
        const foldOf = new Map(names.map((n) => [n.name, n.fold]));
        let expected = 0;
        for (let i = 0; i < names.length; i++) for (let j = i + 1; j < names.length; j++) if (names[i]!.fold === names[j]!.fold) expected++;
        expect(pairs).toHaveLength(expected);
        for (const p of pairs) {
          const [a, b] = [p.a.slice(5), p.b.slice(5)];
          expect(foldOf.get(a)).toBe(foldOf.get(b));
          // Only full folding joins them when lower case and NFC leave them apart.
          expect(p.inFolding).toBe(a.normalize('NFC').toLowerCase() !== b.normalize('NFC').toLowerCase());
        }
      }),
      { numRuns: 500 },
    );
  });
});
