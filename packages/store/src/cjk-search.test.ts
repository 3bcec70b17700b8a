// Full-text search inside a run of Chinese, Japanese or Korean text. FTS5's unicode61 reads a
// run of CJK letters as one word, so 配置 ("configure") inside 如何配置服务器的网络 found
// nothing, nor 設定 inside サーバーの設定を変更する, nor 서버 in 서버를 (server + particle): only a
// query of the whole run did. units_cjk (schema 4) indexes each run as overlapping character
// pairs. English queries run the statement they always ran. Real SQLite files, the real store.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insertCjkRow, migrate, SCHEMA_VERSION } from './schema.js';
import { cjkQuery, cjkTerms, FTS_MAX_WORDS, ftsQuery, searchFts } from './search.js';
import { DocStore } from './store.js';
import { cjkStore, DOCS, localProvider, makeTempDir, sourceIdsOf } from './test-helpers.js';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => (temp = makeTempDir()));
afterEach(() => temp.cleanup());

/** The source ids of an fts search's hits, best first. */
async function found(store: DocStore, query: string): Promise<string[]> {
  return sourceIdsOf(store, await store.search(query, { mode: 'fts', limit: 10 }));
}

/** The statement searchFts ran before units_cjk, on units_fts alone. */
function oldFts(db: Database.Database, query: string, limit = 20): { unitId: string; score: number }[] {
  const match = ftsQuery(query);
  if (!match) return [];
  return (
    db.prepare('SELECT unit_id AS unitId, bm25(units_fts, 4.0, 2.0, 1.0) AS rank FROM units_fts WHERE units_fts MATCH ? ORDER BY rank, rowid LIMIT ?').all(match, limit) as {
      unitId: string;
      rank: number;
    }[]
  ).map((r) => ({ unitId: r.unitId, score: -r.rank }));
}

const WORDS_INSIDE_RUNS: [string, string][] = [
  ['配置', 'zh'], // inside 如何配置服务器的网络设置
  ['网络', 'zh'],
  ['防火墙', 'zh'],
  ['設定', 'ja'], // inside サーバーの設定を変更する方法について
  ['変更', 'ja'],
  ['方法', 'ja'],
  ['서버', 'ko'], // only as 서버를
  ['설정', 'ko'], // only as 설정하는
  // Korean words between spaces were found already, and still are.
  ['서버를', 'ko'],
  ['관리자 안내', 'ko'],
];

describe('a CJK word inside a run', () => {
  it.each(WORDS_INSIDE_RUNS)('%s finds its document first (%s)', async (word, source) => {
    const store = await cjkStore(`${temp.dir}/s.db`);
    try {
      expect((await found(store, word))[0]).toBe(source);
    } finally {
      store.close();
    }
  });

  it('in a chunked document, finds the chunk holding it; one character alone, and a question typed as one run, find it too', async () => {
    const store = await cjkStore(`${temp.dir}/s.db`);
    try {
      for (const q of ['压缩', '缓存', '如何启用缓存压缩', '压']) {
        const [hit] = await store.search(q, { mode: 'fts', limit: 3 });
        expect(hit?.content, q).toContain('启用缓存压缩');
        expect(hit?.chunkIndex, q).not.toBeNull();
      }
      // A character inside a run, and one that ends a run (则 in 规则。).
      expect(await found(store, '墙')).toContain('zh');
      expect(await found(store, '则')).toContain('zh');
      expect(await found(store, 'を')).toEqual(['ja']);
      // Words in different runs do not make a phrase across the separator: 设置，以 has a comma between.
      expect(cjkTerms('设置，以及')).toBe('设置 置 以及 及');
      expect(await found(store, '置以')).toEqual([]);
      // Mixed with English: both halves count.
      expect(await found(store, 'polymorphism 配置')).toEqual(expect.arrayContaining([DOCS.polymorphism, 'zh']));
    } finally {
      store.close();
    }
  });

  it('English queries return what the statement before units_cjk returned, hit for hit and score for score', async () => {
    const store = await cjkStore(`${temp.dir}/s.db`);
    try {
      expect((store.db.prepare('SELECT count(*) AS n FROM units_cjk').get() as { n: number }).n).toBeGreaterThan(0);
      for (const q of ['polymorphic discriminator', 'trimming warnings', 'how do I configure the trimmer?', 'JsonDerivedType', 'native AOT publish', 'JsonSerializerOptions']) {
        const now = searchFts(store.db, q, {}, 20);
        expect(now.length, q).toBeGreaterThan(0);
        expect(now, q).toEqual(oldFts(store.db, q));
      }
    } finally {
      store.close();
    }
  });

  it('a document ingested again loses its old pairs', async () => {
    const store = await cjkStore(`${temp.dir}/s.db`);
    try {
      await store.ingest([{ content: '# 服务器指南\n\n本文介绍日志的轮换。\n', sourceSystem: 'test', sourceId: 'zh' }], localProvider());
      expect(await found(store, '配置')).toEqual([]);
      expect(await found(store, '轮换')).toEqual(['zh']);
      const cjkRows = store.db.prepare('SELECT count(*) AS n FROM units_cjk WHERE rowid NOT IN (SELECT rowid FROM units_fts)').get();
      expect(cjkRows).toEqual({ n: 0 });
    } finally {
      store.close();
    }
  });
});

describe('a store of schema 3 (before units_cjk)', () => {
  it('opens read-only with the search it had; opening it for writing migrates it, indexing the stored text as ingest does', async () => {
    const path = `${temp.dir}/s.db`;
    const fresh = await cjkStore(path);
    const expectedRows = fresh.db.prepare('SELECT rowid, * FROM units_cjk ORDER BY rowid').all();
    expect(expectedRows.length).toBeGreaterThan(0);
    // What schema 3 lacked.
    fresh.db.exec('DROP TABLE units_cjk; PRAGMA user_version = 3;');
    fresh.close();

    const reader = DocStore.open(path, { readonly: true });
    expect(reader.stats().schemaVersion).toBe(3);
    expect(await found(reader, '配置')).toEqual([]);
    // A whole run, and English, as before.
    expect(await found(reader, '服务器指南')).toEqual(['zh']);
    expect(searchFts(reader.db, 'polymorphic', {}, 20)).toEqual(oldFts(reader.db, 'polymorphic'));
    reader.close();

    const writer = DocStore.open(path);
    expect(writer.stats().schemaVersion).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(4);
    expect(writer.db.prepare('SELECT rowid, * FROM units_cjk ORDER BY rowid').all()).toEqual(expectedRows);
    expect((await found(writer, '配置'))[0]).toBe('zh');
    expect((await found(writer, '設定'))[0]).toBe('ja');
    writer.close();
  });
});

describe('cjkQuery and units_cjk, on the store schema', () => {
  const CJK = [...'配置服务器网络设置的了人サーバー設定をかなカナ서버를설정하는々〇'];
  const OTHER = [' ', '，', '。', 'a', 'Z', '1', '_', '\n', '、', '・'];

  it('any run of 1 to 4 characters taken from a stored text finds it; a query of 1 or 2 characters finds only texts holding it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...CJK, ...CJK, ...OTHER), { minLength: 1, maxLength: 30 }).map((cs) => cs.join('')), { minLength: 1, maxLength: 6 }),
        fc.nat(),
        fc.integer({ min: 1, max: 4 }),
        (texts, pick, len) => {
          const db = new Database(':memory:');
          try {
            migrate(db);
            const insertFts = db.prepare("INSERT INTO units_fts (rowid, title, headings, body, unit_id) VALUES (?, '', '', ?, ?)");
            const insertCjk = db.prepare('INSERT INTO units_cjk (rowid, title, headings, body) VALUES (?, ?, ?, ?)');
            texts.forEach((t, i) => {
              insertFts.run(i + 1, t, `u${i}`);
              insertCjkRow(insertCjk, i + 1, '', '', t);
            });
            const target = texts[pick % texts.length]!;
            const runs = [...target.matchAll(/[^ ，。aZ1_\n、・]+/gu)].map((m) => [...m[0]]);
            if (runs.length === 0) return;
            const run = runs[pick % runs.length]!;
            const start = pick % run.length;
            const word = run.slice(start, start + len).join('');
            const hits = searchFts(db, word, {}, 100).map((h) => h.unitId);
            expect(hits).toContain(`u${texts.indexOf(target)}`);
            if ([...word].length <= 2) expect(hits.map((u) => texts[Number(u.slice(1))]!.includes(word))).not.toContain(false);
          } finally {
            db.close();
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it(`asks for at most ${FTS_MAX_WORDS} terms, however long the run, and stops reading it there`, () => {
    const run = Array.from({ length: 500_000 }, (_, i) => String.fromCodePoint(0x4e00 + (i % 20_000))).join('');
    const started = performance.now();
    const query = cjkQuery(run)!;
    expect(query.split(' OR ')).toHaveLength(FTS_MAX_WORDS);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(cjkQuery('just english, 123')).toBeNull();
    expect(cjkQuery('猫')).toBe('"猫"*');
    expect(cjkQuery('𠀀')).toBe('"𠀀"*');
    expect(cjkQuery('配置 配置服务')).toBe('"配置" OR "置服" OR "服务"');
  });
});
