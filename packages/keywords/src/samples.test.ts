// extractKeywords on the 7 real sample topics in docs/: tables are well formed everywhere,
// and the source-generation topic's top keywords are what a reader would name.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { extractKeywords, formatWordsMd, parseWordsMd, type KeywordEntry } from './index.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const DOCS = join(REPO, 'docs');

function topics(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name.startsWith('_')) continue;
    const sub = join(dir, e.name);
    try {
      if (statSync(join(sub, 'golden-reference.md')).isFile()) out.push(sub);
    } catch {
      // not a topic itself; it may hold topics
    }
    out.push(...topics(sub));
  }
  return out.sort();
}

const TOPICS = topics(DOCS);
const tableOf = (dir: string): KeywordEntry[] => extractKeywords([{ name: 'golden-reference.md', text: readFileSync(join(dir, 'golden-reference.md'), 'utf8') }]);

describe('the sample topics in docs/', () => {
  it('there are 7 of them', () => {
    expect(TOPICS.map((t) => relative(DOCS, t))).toHaveLength(7);
  });

  it.each(TOPICS.map((t) => [relative(DOCS, t), t]))('%s: 40 keywords, scores 1..10 from the top, round trip through words.md', (_name, dir) => {
    const table = tableOf(dir);
    expect(table).toHaveLength(40);
    expect(table[0]!.score).toBe(10);
    // The last rank gets 1 unless it ties with the one before (a tie shares the better score).
    expect(table[table.length - 1]!.score).toBeLessThanOrEqual(2);
    expect(new Set(table.map((e) => e.name.toLowerCase())).size).toBe(40);
    for (const e of table) {
      expect(Number.isInteger(e.score) && e.score >= 1 && e.score <= 10).toBe(true);
      // Never a DocFX snippet path, a URL or a stray piece of markup.
      expect(e.name).not.toMatch(/snippets|:::|https?:|xref|[<>[\]()`|]/);
    }
    expect(parseWordsMd(formatWordsMd(table, { source: 'golden-reference.md' }), 'words.md')).toEqual(table);
    expect(tableOf(dir)).toEqual(table);
  });

  it('system-text-json-source-generation: source generation and its key types lead the table', () => {
    const table = tableOf(join(DOCS, 'libraries/system-text-json-source-generation'));
    const top10 = table.slice(0, 10).map((e) => e.name);
    expect(top10).toContain('source generation');
    expect(top10).toContain('JsonSerializerContext');
    expect(top10).toContain('JsonSerializerOptions');
    expect(table.find((e) => e.name === 'source generation')!.score).toBe(10);
    expect(table.find((e) => e.name === 'JsonSerializerContext')!.score).toBe(10);
    const all = table.map((e) => e.name);
    expect(all).toContain('System.Text.Json');
    expect(all).toContain('JsonSourceGenerationOptionsAttribute');
    // Not keywords: boilerplate words and generic parameters.
    for (const junk of ['see also', 'example', 'following', 'TValue', 'learn']) expect(all).not.toContain(junk);
  });

  it('the other topics lead with their own subject', () => {
    const top = (rel: string, n = 10) => tableOf(join(DOCS, rel)).slice(0, n).map((e) => e.name);
    expect(top('deployment/native-aot')).toContain('native aot');
    expect(top('deployment/trimming-options')).toContain('trimming');
    expect(top('libraries/system-text-json-polymorphism')).toContain('type discriminator');
    expect(top('libraries/system-text-json-customize-properties')).toContain('naming policy');
    expect(top('libraries/system-text-json-collections')).toContain('IAsyncEnumerable');
    expect(top('libraries/system-text-json-reflection-vs-source-generation')).toEqual(expect.arrayContaining(['source generation', 'reflection']));
  });
});
