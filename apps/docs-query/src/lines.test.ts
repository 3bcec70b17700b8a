// docs-query's text output is line-structured (--list: one topic a line, three tab-separated
// fields; disclosure and search: heading lines, then the chunk's text). index.json strings may
// hold tabs and line breaks; in a heading they must not make lines or fields of their own
// (s47 probe). A hand-written docs tree in a temp folder, read by the real CLI.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './test-run.js';

let dir: string;
const TITLE = 'Chunk 1\n\n── other #7 FAKE';
const TOPIC_TITLE = 'Topic\tT\nfake\trow\tx: 1 chunks';
const DOC = 'g\nh';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'docs-query-lines-'));
  mkdirSync(join(dir, 't/_chunks/g'), { recursive: true });
  writeFileSync(join(dir, 'index.json'), JSON.stringify({ kind: 'section', id: '', title: 'Root', _links: { self: { href: '/index.json' } }, _embedded: { topics: [{ id: 't', kind: 'topic', title: TOPIC_TITLE, _links: { self: { href: '/t/index.json' } } }] } }));
  const texts = ['alpha one\n', 'beta two\nsecond line\n'];
  const items = texts.map((_, i) => ({ index: i, href: `_chunks/g/${i}.md`, title: i === 1 ? TITLE : `Chunk ${i}`, is_code: false, similarity_conceptual: 1 - i / 10, keywords: [] }));
  const group = { source: 'golden-reference.md', manifest: '_chunks/g.json', count: 2, baseline_conceptual: 0, stripe_order: [1], items };
  writeFileSync(join(dir, 't/index.json'), JSON.stringify({ kind: 'topic', id: 't', title: TOPIC_TITLE, _links: { self: { href: '/t/index.json' }, parent: { href: '/index.json' } }, _embedded: { topics: [], chunks: { [DOC]: group } } }));
  texts.forEach((t, i) => writeFileSync(join(dir, `t/_chunks/g/${i}.md`), t));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs-query text output: one line per heading, whatever index.json holds', () => {
  it('--list is one row of three fields per topic (a tab or line break in a title made more)', async () => {
    const r = await run(dir, '--list');
    expect(r.code).toBe(0);
    const rows = r.stdout.split('\n').filter(Boolean);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.split('\t')).toEqual(['t', 'Topic\\u0009T\\u000afake\\u0009row\\u0009x: 1 chunks', 'g\\u000ah: 2 chunks']);
    // --json keeps the strings as they are.
    const json = JSON.parse((await run(dir, '--list', '--json')).stdout) as { topics: { title: string; documents: Record<string, number> }[] };
    expect(json.topics[0]!.title).toBe(TOPIC_TITLE);
    expect(json.topics[0]!.documents).toEqual({ [DOC]: 2 });
  });

  it('a disclosed chunk has one heading line, its title escaped; its text keeps its lines (a title printed a fake heading)', async () => {
    const r = await run(dir, '-n', '1');
    expect(r.code).toBe(0);
    expect(r.stdout.match(/^── /gm)).toHaveLength(1);
    expect(r.stdout).toContain('── t #1 Chunk 1\\u000a\\u000a── other #7 FAKE\n');
    expect(r.stdout.startsWith('t — Topic\\u0009T\\u000afake\\u0009row\\u0009x: 1 chunks\ng\\u000ah: conceptual order, 1 of 2 chunks\n')).toBe(true);
    expect(r.stdout).toContain('\n\nbeta two\nsecond line\n\n');
  });

  it('a docs folder named with a line break is named on one line in every message (the second half passed for a line of its own)', async () => {
    const odd = join(dir, 'odd\ndocs-query: fake');
    mkdirSync(odd);
    // Not built (no index.json), missing, and a file given as the folder.
    for (const target of [odd, `${odd}-missing`, join(dir, 't/index.json')]) {
      const r = await run(target, '--list');
      expect(r.code, target).not.toBe(0);
      expect(r.stderr.split('\n').filter((l) => l.startsWith('docs-query: ')), target).toHaveLength(1);
      expect(r.stderr.split('\n').filter((l) => l.startsWith('docs-query: fake')), target).toHaveLength(0);
    }
    expect((await run(odd, '--list')).stderr).toContain('odd\\u000adocs-query: fake/index.json: no such file; is ');
  });
});
