// extractKeywords on small hand-made documents: what counts as a candidate, how occurrences
// are weighted, how scores are assigned, and that the result depends on the input only.
import { Document, Parser } from 'yaml';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX, extractKeywords, formatWordsMd, type KeywordEntry } from './index.js';
import { isIdentifier, lex, scanMarkdown, termKey, xrefName } from './scan.js';

const one = (text: string, options?: Parameters<typeof extractKeywords>[1]) => extractKeywords([{ name: 'doc.md', text }], options);
const names = (entries: readonly KeywordEntry[]) => entries.map((e) => e.name);
const scoreOf = (entries: readonly KeywordEntry[], name: string) => entries.find((e) => e.name === name)?.score;

/** A document with a clear subject: headings, identifiers in code, repeated body terms. */
const GUIDE = `---
title: Configure the widget cache
description: Learn how the widget cache stores rendered widgets.
ms.date: 01/02/2024
helpviewer_keywords: [unrelated front matter term]
---

# Configure the widget cache

The widget cache keeps rendered widgets in memory. Use \`WidgetCacheOptions\` to size it.

## Eviction policy

When the widget cache is full, the eviction policy drops the oldest entry. The eviction policy
can be changed on \`WidgetCacheOptions.Eviction\`.

:::code language="csharp" source="snippets/NeverSeenSnippetName.cs" id="Setup":::

\`\`\`csharp
using Contoso.Widgets.Caching;

var options = new WidgetCacheOptions { Capacity = 100 };
var cache = new WidgetCache(options);
cache.Store(widget);
\`\`\`

See https://example.com/someUrlPathSegment/WidgetDocs for details. Rendered widgets are
stored as bytes; rendered widgets that expire are dropped.
`;

describe('candidates', () => {
  it('takes headings, front matter title and description, code identifiers and repeated body terms', () => {
    const got = names(one(GUIDE));
    expect(got).toContain('widget cache');
    expect(got).toContain('eviction policy');
    expect(got).toContain('WidgetCacheOptions');
    expect(got).toContain('WidgetCacheOptions.Eviction');
    expect(got).toContain('WidgetCache');
    expect(got).toContain('Contoso.Widgets.Caching');
    expect(got).toContain('rendered widgets');
  });

  it('ignores other front matter keys, DocFX :::code lines and URLs', () => {
    const got = names(one(GUIDE)).join('\n');
    expect(got).not.toMatch(/unrelated|helpviewer|NeverSeenSnippetName|snippets|someUrlPathSegment|WidgetDocs|example\.com|https/i);
  });

  // s41 fuzz: front matter YAML reads with a warning (a `{{template}}` key is a mapping used as
  // a key) printed a Node warning to stderr on every scan of the document.
  it('reads front matter that YAML warns about without a process warning, still taking its title', () => {
    const emit = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const got = names(one('---\ntitle: Zebra stripes\n{{tmpl}}: x\n---\n\nBody.\n'));
      expect(got).toContain('zebra stripes');
      expect(emit).not.toHaveBeenCalled();
    } finally {
      emit.mockRestore();
    }
  });

  // s41 fuzz: YAML nested a thousand deep made V8 abort the process inside the parser, and
  // nested explicit keys took seconds to convert to JavaScript (300 levels: 15 s).
  it('never hands deeply nested front matter to the YAML parser, and reads titles without converting it all', () => {
    const parse = vi.spyOn(Parser.prototype, 'parse');
    const toJS = vi.spyOn(Document.prototype, 'toJS');
    try {
      // The title is read from its own entry (session 42); the deep one is never parsed.
      const deep = names(one(`---\ntitle: Zebra stripes\nx: ${'['.repeat(1000)}${']'.repeat(1000)}\n---\n\nBody.\n`));
      expect(deep).toContain('zebra stripes');
      expect(parse.mock.calls.every(([src]) => !String(src).includes('[['))).toBe(true);
      parse.mockClear();
      const deepTitle = names(one(`---\ntitle: ${'['.repeat(1000)}${']'.repeat(1000)}\n---\n\nBody.\n`));
      expect(deepTitle).not.toContain('[[');
      expect(parse).not.toHaveBeenCalled();
      const keys = Array.from({ length: 60 }, (_, i) => `${'? '.repeat(100)}x${i}`).join('\n');
      const got = names(one(`---\ntitle: Zebra stripes\ndescription: Okapi herds\n${keys}\n---\n\nBody.\n`));
      expect(got).toContain('zebra stripes');
      expect(got).toContain('okapi herds');
      expect(toJS).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
      toJS.mockRestore();
    }
  });

  it('keeps the casing of identifiers and lower-cases phrases', () => {
    const got = one('# Using the JsonSerializer\n\nThe `JsonSerializer` reads JSON. Native AOT apps. Native AOT apps.\n');
    expect(names(got)).toContain('JsonSerializer');
    expect(names(got)).toContain('native aot apps');
    expect(names(got).every((n) => n === 'JsonSerializer' || n === n.toLowerCase())).toBe(true);
  });

  it('a body term needs two occurrences; a heading or code identifier needs one', () => {
    const got = names(one('# Zebra stripes\n\nA lone giraffe appears once. `OnlyOnceIdentifier` too. The okapi and the okapi.\n'));
    expect(got).toContain('zebra stripes');
    expect(got).toContain('OnlyOnceIdentifier');
    expect(got).toContain('okapi');
    expect(got).not.toContain('giraffe');
  });

  it('never starts or ends a phrase with a stop word, and never keeps a stop word alone', () => {
    const got = names(one('# Use the cache for the widgets\n\nUse the cache for the widgets. Use the cache for the widgets.\n'));
    // "cache for the widgets" has two stop words inside: too many for one phrase.
    expect(got).toEqual(expect.arrayContaining(['cache', 'widgets']));
    expect(got).not.toContain('cache for the widgets');
    for (const n of got) {
      const words = n.split(' ');
      expect(['use', 'the', 'for'], n).not.toContain(words[0]);
      expect(['use', 'the', 'for'], n).not.toContain(words[words.length - 1]);
    }
  });

  it('phrases are 1-3 words, with at most one connector inside ("ahead of time")', () => {
    const got = names(one('# Ahead of time compilation\n\nAhead of time compilation matters. Ahead of time compilation helps.\n'));
    expect(got[0]).toBe('ahead of time compilation');
    // Subsumed: never outside the longer phrase.
    expect(got).not.toContain('ahead of time');
    for (const n of got) expect(n.split(' ').filter((w) => !['of', 'and', 'or'].includes(w)).length).toBeLessThanOrEqual(3);
  });

  it('hyphenated words join: "source-generation" counts as "source generation"', () => {
    const got = one('# Source generation\n\nSource-generation modes. Source-generation defaults.\n');
    expect(names(got)[0]).toBe('source generation');
  });

  it('groups word variants by Porter stem and shows the most frequent form', () => {
    const got = names(one('Converters run. Converters help. The converter works. Converters stay.\n'));
    expect(got).toContain('converters');
    expect(got).not.toContain('converter');
  });

  it('shows the form written most often, counting the first form seen (a candidate keeps it apart from the rest until a second form appears)', () => {
    expect(names(one('Use `WidgetHost` here. Use `WidgetHost` there. Use `widgetHost` too.\n'))).toEqual(['WidgetHost']);
    expect(names(one('Use `widgetHost` here. Use `WidgetHost` there. Use `widgetHost` too.\n'))).toEqual(['widgetHost']);
    // Equal counts: the name that sorts first, whichever came first.
    expect(names(one('Use `widgetHost` here. Use `WidgetHost` there.\n'))).toEqual(['WidgetHost']);
    expect(names(one('Use `WidgetHost` here. Use `widgetHost` there.\n'))).toEqual(['WidgetHost']);
  });

  it('reads DocFX xrefs as the identifier DocFX displays', () => {
    expect(xrefName('xref:System.Text.Json.Serialization.JsonSerializerContext')).toBe('JsonSerializerContext');
    expect(xrefName('xref:System.Text.Json.Serialization.Metadata.JsonTypeInfo%601')).toBe('JsonTypeInfo');
    expect(xrefName('xref:System.Text.Json.JsonSerializerOptions.TypeInfoResolver?displayProperty=nameWithType')).toBe('JsonSerializerOptions.TypeInfoResolver');
    expect(xrefName('xref:System.Text.Json.JsonSerializer.Serialize%2A?displayProperty=fullName')).toBe('System.Text.Json.JsonSerializer.Serialize');
    expect(xrefName('xref:X.Resolver.Combine(X.IResolver[])?displayProperty=nameWithType')).toBe('Resolver.Combine');
    const got = names(one('Call <xref:System.Text.Json.JsonSerializer> or <https://example.com/NotAnIdentifier>.\n'));
    expect(got).toEqual(['JsonSerializer']);
  });

  it('recognises identifier shapes', () => {
    for (const id of ['JsonSerializerContext', 'camelCase', 'IAsyncEnumerable', 'System.Text.Json', '.NET', 'ASP.NET', 'C#']) expect(isIdentifier(id), id).toBe(true);
    for (const w of ['object', 'Default', 'JSON', 'e.g', 'appsettings.json', 'TValue', '42']) expect(isIdentifier(w), w).toBe(false);
  });

  it('splits dotted member access in code blocks but keeps namespace imports whole', () => {
    const occurrences = scanMarkdown('```csharp\nusing Contoso.Data.Sql;\noptions.TypeInfoResolverChain.Add(MyContext.Default);\n```\n');
    expect(occurrences.map((o) => o.surface).sort()).toEqual(['Contoso.Data.Sql', 'MyContext', 'TypeInfoResolverChain']);
    expect(occurrences.every((o) => o.context === 'codeBlock')).toBe(true);
  });

  it('lexes URLs, numbers and punctuation as phrase breaks', () => {
    expect(lex('see https://x.y/z then 9.0!').map((l) => l.kind)).toEqual(['word', 'break', 'word', 'break', 'break']);
    expect(termKey('Source Generators')).toBe(termKey('source generation'));
    expect(termKey('JsonSerializer')).toBe('i:jsonserializer');
    expect(termKey('the cache')).toBeNull();
  });
});

describe('weights and scores', () => {
  it('headings outweigh body text, and code identifiers outweigh plain mentions', () => {
    const body = 'Marmot burrows are deep. Marmot burrows are wide. Otter dens are deep. Otter dens are wide.\n';
    const got = one(`# Otter dens\n\n${body}`);
    expect(names(got).indexOf('otter dens')).toBeLessThan(names(got).indexOf('marmot burrows'));

    const code = one('Mention BadgerSett and BadgerSett and BadgerSett. Use `FoxEarth` and `FoxEarth`.\n');
    expect(names(code).indexOf('FoxEarth')).toBeLessThan(names(code).indexOf('BadgerSett'));
  });

  it('penalises very common English words', () => {
    const got = one('A value. A value. A value. A quokka. A quokka.\n');
    expect(names(got)).toEqual(['quokka', 'value']);
  });

  it('drops a shorter phrase that never occurs outside a longer one, keeps it when it does', () => {
    const only = names(one('# Widget cache\n\nThe widget cache is fast. The widget cache is small.\n'));
    expect(only).toContain('widget cache');
    expect(only).not.toContain('widget');
    expect(only).not.toContain('cache');
    const also = names(one('# Widget cache\n\nThe widget cache is fast. A cache is small. A cache is near.\n'));
    expect(also).toContain('cache');
  });

  it('scores are integers 1..10, the top entry gets 10, and they never rise down the list', () => {
    const got = one(GUIDE);
    expect(got.length).toBeGreaterThan(3);
    expect(got[0]!.score).toBe(10);
    for (const e of got) {
      expect(Number.isInteger(e.score)).toBe(true);
      expect(e.score).toBeGreaterThanOrEqual(1);
      expect(e.score).toBeLessThanOrEqual(10);
    }
    for (let i = 1; i < got.length; i++) expect(got[i]!.score).toBeLessThanOrEqual(got[i - 1]!.score);
  });

  it('maps rank to 1..10: a tenth of the list per score, ties share the better score', () => {
    // KeyName0 once, KeyName1 twice, …: 50 distinct weights.
    const text = Array.from({ length: 50 }, (_, i) => `\`KeyName${i}\` `.repeat(i + 1)).join('\n\n');
    const got = one(text, { max: 50 });
    expect(got).toHaveLength(50);
    // Within a score, by name.
    expect(got.slice(0, 5)).toEqual(['KeyName45', 'KeyName46', 'KeyName47', 'KeyName48', 'KeyName49'].map((name) => ({ name, score: 10 })));
    expect(got.slice(45)).toEqual(['KeyName0', 'KeyName1', 'KeyName2', 'KeyName3', 'KeyName4'].map((name) => ({ name, score: 1 })));
    for (let score = 1; score <= 10; score++) expect(got.filter((e) => e.score === score), `score ${score}`).toHaveLength(5);

    const tied = one('`TieA` `TieA` `TieB` `TieB` `LoneOne`\n');
    expect(tied).toEqual([
      { name: 'TieA', score: 10 },
      { name: 'TieB', score: 10 },
      { name: 'LoneOne', score: 4 },
    ]);
  });

  it('respects max (default 40)', () => {
    const text = Array.from({ length: 80 }, (_, i) => `- \`WidgetNumber${i}\``).join('\n');
    expect(one(text)).toHaveLength(DEFAULT_MAX);
    expect(one(text, { max: 5 })).toHaveLength(5);
    expect(one(text, { max: 0 })).toEqual([]);
    expect(() => one(text, { max: -1 })).toThrow(RangeError);
    expect(() => one(text, { max: 1.5 })).toThrow(RangeError);
  });

  // s43 probe: keyword-extractor --max 150 on docs/libraries/system-text-json-collections died
  // with a stack trace, "RangeError: keyword \"Collection\" is listed twice": the identifier
  // `Stack` (an xref) and the prose word "stack" are two candidates whose names differ only
  // in case, and words.md takes each name once. The better-ranked one is kept.
  it('never returns two names that differ only in case (an identifier and the same word in prose)', () => {
    const text = ['# Collections', '', '| Type | Supported |', '| --- | --- |', '| <xref:System.Collections.Stack> | yes |', '', 'Push onto the stack. Pop from the stack. The stack is LIFO.', ''].join('\n');
    const got = one(text, { max: 1000 });
    expect(got.filter((e) => e.name.toLowerCase() === 'stack')).toEqual([{ name: 'Stack', score: expect.any(Number) }]);
    const names = got.map((e) => e.name.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
    expect(() => formatWordsMd(got, { source: 'golden-reference.md' })).not.toThrow();
  });

  it('sorts by score descending, then by name', () => {
    const got = one(GUIDE);
    const sorted = [...got].sort((a, b) => b.score - a.score || (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0));
    expect(got).toEqual(sorted);
  });
});

describe('determinism', () => {
  it('same input, same output; source order and source names do not matter', () => {
    const a = { name: 'golden-reference.md', text: GUIDE };
    const b = { name: 'qa-pairs.md', text: '# Questions\n\n## How big is the widget cache?\n\nThe widget cache holds 100 rendered widgets.\n' };
    const first = extractKeywords([a, b]);
    expect(extractKeywords([a, b])).toEqual(first);
    expect(extractKeywords([b, a])).toEqual(first);
    expect(extractKeywords([{ ...a, name: 'x.md' }, { ...b, name: 'y.md' }])).toEqual(first);
  });

  it('ties are broken by name, not by input order', () => {
    const got = one('`ZetaThing` `AlphaThing` `MidThing`\n');
    expect(got).toEqual([
      { name: 'AlphaThing', score: 10 },
      { name: 'MidThing', score: 10 },
      { name: 'ZetaThing', score: 10 },
    ]);
  });

  it('CRLF line endings and a BOM give the same table', () => {
    expect(one(`\ufeff${GUIDE.replace(/\n/g, '\r\n')}`)).toEqual(one(GUIDE));
  });
});

describe('hand-written entries', () => {
  it('are always included with their own scores, even past max', () => {
    const got = one(GUIDE, { max: 2, handWritten: [{ name: 'cache invalidation', score: 3 }, { name: 'Widget farm', score: 7 }, { name: 'third', score: 1 }] });
    expect(got).toEqual(
      expect.arrayContaining([
        { name: 'cache invalidation', score: 3 },
        { name: 'Widget farm', score: 7 },
        { name: 'third', score: 1 },
      ]),
    );
    expect(got).toHaveLength(3);
  });

  it('override extracted entries of the same name, case-insensitively', () => {
    const plain = one(GUIDE);
    expect(scoreOf(plain, 'widget cache')).toBe(10);
    const got = one(GUIDE, { handWritten: [{ name: 'Widget Cache', score: 2 }, { name: 'widgetcacheoptions', score: 1 }] });
    expect(got.filter((e) => e.name.toLowerCase() === 'widget cache')).toEqual([{ name: 'Widget Cache', score: 2 }]);
    expect(got.filter((e) => e.name.toLowerCase() === 'widgetcacheoptions')).toEqual([{ name: 'widgetcacheoptions', score: 1 }]);
    expect(got).toHaveLength(plain.length);
  });

  it('count towards max, so the table stays at max entries', () => {
    const got = one(GUIDE, { max: 4, handWritten: [{ name: 'invented keyword', score: 5 }] });
    expect(got).toHaveLength(4);
    expect(got).toContainEqual({ name: 'invented keyword', score: 5 });
  });

  it('are validated', () => {
    expect(() => one(GUIDE, { handWritten: [{ name: 'x', score: 11 }] })).toThrow(/not a whole number from 1 to 10/);
    expect(() => one(GUIDE, { handWritten: [{ name: 'x', score: 2.5 }] })).toThrow(RangeError);
    expect(() => one(GUIDE, { handWritten: [{ name: '  ', score: 2 }] })).toThrow(/empty name/);
    expect(() => one(GUIDE, { handWritten: [{ name: 'x', score: 2 }, { name: 'X', score: 3 }] })).toThrow(/twice/);
  });
});
