// index.json holds ids of any length, and docs-query's errors quote them: a 100 KB topic id made
// a 100 KB line on stderr, in the --topic suggestions and in the walk's errors alike (issue 15
// probe). A hand-written docs tree in a temp folder, read by the real CLI.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './test-run.js';

let dir: string;
const LONG_ID = `t-${'x'.repeat(100_000)}-end`;
const link = (href: string) => ({ self: { href } });

function writeTree(root: string, children: { id: string; kind: 'topic' | 'section'; href: string }[]): void {
  writeFileSync(
    join(root, 'index.json'),
    JSON.stringify({ kind: 'section', id: '', title: 'Root', _links: link('/index.json'), _embedded: { topics: children.map((c) => ({ id: c.id, kind: c.kind, title: 'T', _links: link(c.href) })) } }),
  );
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'docs-query-long-id-'));
  mkdirSync(join(dir, 'good/t/_chunks/g'), { recursive: true });
  writeTree(join(dir, 'good'), [{ id: LONG_ID, kind: 'topic', href: '/t/index.json' }]);
  const items = [{ index: 0, href: '_chunks/g/0.md', title: 'Chunk 0', is_code: false, similarity_conceptual: 1, keywords: [] }];
  const group = { source: 'golden-reference.md', manifest: '_chunks/g.json', count: 1, baseline_conceptual: 0, stripe_order: [], items };
  writeFileSync(
    join(dir, 'good/t/index.json'),
    JSON.stringify({ kind: 'topic', id: LONG_ID, title: 'T', _links: { ...link('/t/index.json'), parent: { href: '/index.json' } }, _embedded: { topics: [], chunks: { g: group } } }),
  );
  writeFileSync(join(dir, 'good/t/_chunks/g/0.md'), 'alpha\n');
  mkdirSync(join(dir, 'cycle'));
  writeTree(join(dir, 'cycle'), [{ id: LONG_ID, kind: 'section', href: '/index.json' }]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs-query errors quoting a 100 KB id', () => {
  it('--topic that matches nothing suggests the topic in a short line, start and end of its id kept (it was 100 KB)', async () => {
    const r = await run(join(dir, 'good'), '--topic', 'nothing', '--list');
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr.length).toBeLessThan(1000);
    expect(r.stderr).toMatch(/^docs-query: --topic nothing: no topic or section matches; topics: t-x+…\[\d+ characters\]…x+-end \(--list shows them all\)\n$/);
    // The id itself is output, not a message: --list prints it whole.
    expect((await run(join(dir, 'good'), '--list')).stdout).toContain(LONG_ID);
  });

  it('a walk error naming it is one line of a few KB, exit 1, the problem at its end', async () => {
    const r = await run(join(dir, 'cycle'), '--list');
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr.length).toBeLessThan(3000);
    expect(r.stderr).toMatch(/^docs-query: .*index\.json: t-x+…\[\d+ characters\]….*\(a cycle\)\n$/);
  });
});
