// measure-prompt-threshold.mjs as a user runs it (the built package), on a paraphrase file whose
// questions hold terminal escape sequences (s47 probe: they reached the terminal raw).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../measure-prompt-threshold.mjs', import.meta.url));
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'measure-script-'));
  mkdirSync(join(dir, 'docs'));
  writeFileSync(join(dir, 'docs/index.json'), JSON.stringify({ kind: 'section', id: '', title: 'Root', _links: { self: { href: '/index.json' } }, _embedded: { topics: [] } }));
  writeFileSync(join(dir, 'q.json'), JSON.stringify([{ topic: 't\u001b[2J', question: 'q\n\u001b]0;title\u0007', paraphrases: ['a'] }]));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('measure-prompt-threshold.mjs', () => {
  it('escapes control characters from the paraphrase file, and a question is one line', () => {
    const stdout = execFileSync(process.execPath, [SCRIPT, join(dir, 'docs'), join(dir, 'q.json')], { encoding: 'utf8' });
    expect(stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect(stdout).toContain('  skipped (no stored hash): t\\u001b[2J: q\\u000a\\u001b]0;title\\u0007\n');
  });

  it('an unknown option or a missing value is a usage error, exit 2, not a stack trace', () => {
    for (const args of [['--bogus'], ['--max']]) {
      let status = 0;
      let stderr = '';
      try {
        execFileSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', stdio: 'pipe' });
      } catch (err) {
        ({ status, stderr } = err as { status: number; stderr: string });
      }
      expect(status, args.join(' ')).toBe(2);
      expect(stderr, args.join(' ')).not.toMatch(/\n\s+at |node:internal/);
      expect(stderr, args.join(' ')).toMatch(/^(Unknown option '--bogus'|Option '--max <value>' argument missing)[^\n]*\nusage: measure-prompt-threshold\.mjs /);
    }
  });

  it('--max is checked as every CLI checks a number: "" was 0, and "0x10" and " 5" were taken', () => {
    for (const max of ['', '0x10', ' 5', '65', '1.5']) {
      let status = 0;
      let stderr = '';
      try {
        execFileSync(process.execPath, [SCRIPT, join(dir, 'docs'), join(dir, 'q.json'), `--max=${max}`], { encoding: 'utf8', stdio: 'pipe' });
      } catch (err) {
        ({ status, stderr } = err as { status: number; stderr: string });
      }
      expect(status, max).toBe(2);
      expect(stderr, max).toBe(`--max: expected a whole number from 0 to 64, got ${JSON.stringify(max)}\n`);
    }
  });

  it('a paraphrase file that is a FIFO, a folder or missing is one line naming it, exit 2 (a FIFO blocked until killed)', () => {
    execFileSync('mkfifo', [join(dir, 'fifo.json')]);
    const cases: [string, string][] = [
      [join(dir, 'fifo.json'), 'a FIFO (named pipe), not a regular file; point it at a regular file'],
      [dir, 'a directory, not a regular file; point it at a regular file'],
      [join(dir, 'missing.json'), 'no such file or folder (ENOENT); check the path'],
    ];
    for (const [file, problem] of cases) {
      // Killed after 20 s rather than hanging the suite: the old script never returned on the FIFO.
      const r = spawnSync(process.execPath, [SCRIPT, join(dir, 'docs'), file], { encoding: 'utf8', timeout: 20_000 });
      expect({ status: r.status, stderr: r.stderr }, file).toEqual({ status: 2, stderr: `${file}: ${problem}\n` });
    }
  });

  it('a paraphrase file that is not UTF-8 is refused, naming it, exit 2 (a Latin-1 question became U+FFFD and was skipped)', () => {
    const file = join(dir, 'latin1.json');
    writeFileSync(file, Buffer.concat([Buffer.from('[{"topic":"t","question":"Caf'), Buffer.from([0xe9]), Buffer.from('?","paraphrases":["a"]}]')]));
    const r = spawnSync(process.execPath, [SCRIPT, join(dir, 'docs'), file], { encoding: 'utf8', timeout: 20_000 });
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ status: 2, stdout: '', stderr: `${file}: not valid UTF-8 (first bad byte at offset 29); save it as UTF-8\n` });
  });
});
