// A docs tree whose section lists hundreds of children (s46 probe): the walker read every
// child index at once, so 300 siblings held 300 files open together (EMFILE under macOS's
// default limit of 256 open files) and, over HTTP, made 300 requests at once.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FolderSource } from './source.js';
import { WALK_CONCURRENCY, walkTopics } from './walk.js';

/** A valid tree: the root section listing `n` empty sections t0 … t(n-1). */
export function writeWideTree(dir: string, n: number): void {
  const ref = (i: number) => ({ id: `t${i}`, kind: 'section', title: `T ${i}`, _links: { self: { href: `/t${i}/index.json` } } });
  for (let i = 0; i < n; i++) {
    mkdirSync(join(dir, `t${i}`));
    writeFileSync(join(dir, `t${i}`, 'index.json'), JSON.stringify({ ...ref(i), _links: { self: { href: `/t${i}/index.json` }, parent: { href: '/index.json' } }, _embedded: { topics: [] } }));
  }
  const topics = Array.from({ length: n }, (_, i) => ref(i));
  writeFileSync(join(dir, 'index.json'), JSON.stringify({ id: '', kind: 'section', title: 'Root', _links: { self: { href: '/index.json' } }, _embedded: { topics } }));
}

/** A real folder source that counts how many reads are under way at once. */
class CountingSource extends FolderSource {
  now = 0;
  most = 0;
  reads = 0;
  override async readText(url: URL): Promise<string> {
    this.reads++;
    this.most = Math.max(this.most, ++this.now);
    try {
      return await super.readText(url);
    } finally {
      this.now--;
    }
  }
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'walk-wide-'));
  writeWideTree(dir, 300);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('walkTopics over a section of 300 children', () => {
  it(`reads at most ${WALK_CONCURRENCY} indexes at once, and every one of them`, async () => {
    const source = new CountingSource(dir);
    expect(await walkTopics(source)).toEqual([]);
    expect(source.reads).toBe(301);
    expect(source.most).toBeLessThanOrEqual(WALK_CONCURRENCY);
  });

  it('still names the broken child, and reads no more after it', async () => {
    writeFileSync(join(dir, 't150', 'index.json'), '{"id": "t150"');
    const source = new CountingSource(dir);
    await expect(walkTopics(source)).rejects.toThrow(/t150\/index\.json: not valid JSON/);
    expect(source.reads).toBeLessThan(301);
  });
});
