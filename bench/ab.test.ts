import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const AB = join(import.meta.dirname, 'ab.mjs');
const dir = mkdtempSync(join(tmpdir(), 'ab-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Two stand-in builds: each counts the calls it gets, one chunk per document.
const build = (name: string, body: string) => {
  const file = join(dir, name);
  writeFileSync(file, `let calls = 0;\nexport function chunkDocument(text, opts) { calls++; ${body} return { chunks: [{ text, opts }] }; }\n`);
  return file;
};

describe('bench/ab.mjs', () => {
  const corpus = join(dir, 'corpus');
  mkdirSync(join(corpus, 'sub'), { recursive: true });
  writeFileSync(join(corpus, 'a.md'), '# A\n\ntext\n');
  writeFileSync(join(corpus, 'sub', 'b.md'), '# B\n\nmore\n');
  const a = build('a.js', '');
  const b = build('b.js', "if (opts.strategy !== 'paginate') throw new Error('wrong strategy');");

  it('runs both builds in alternating rounds and reports each process', () => {
    const r = spawnSync(process.execPath, [AB, '--corpus', corpus, a, b, '--strategy', 'paginate', '--rounds', '2', '--passes', '2', '--warmup', '1'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr.match(/^round \d [AB]: min \d+ ms, median \d+ ms$/gm)).toHaveLength(4);
    expect(r.stderr.indexOf('round 1 A')).toBeLessThan(r.stderr.indexOf('round 1 B'));
    expect(r.stderr.indexOf('round 1 B')).toBeLessThan(r.stderr.indexOf('round 2 A'));
    expect(r.stdout).toContain(`A ${a}`);
    expect(r.stdout).toMatch(/min per process: +\d+ \d+\n/);
  });

  it('names the build that failed, and exits 2 on bad arguments', () => {
    const r = spawnSync(process.execPath, [AB, '--corpus', corpus, a, b, '--rounds', '1', '--passes', '1', '--warmup', '0'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${b} failed in round 1`);
    expect(r.stderr).toContain('wrong strategy');
    const bad = spawnSync(process.execPath, [AB, '--corpus', corpus, a], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('give exactly two builds');
  });
});
