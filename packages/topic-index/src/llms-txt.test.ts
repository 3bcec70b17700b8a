import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeChunk, llmsFullTxt, llmsTxt, stripeReadingOrder, type LlmsTopic } from './llms-txt.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

describe('describeChunk', () => {
  it('takes the first sentence of the first prose paragraph, as plain text', () => {
    const md = '# How to use it\n\n```js\nconst x = 1.\n```\n\nThis article shows how to use [source generation](https://x.test/a) in `System.Text.Json`. More follows.\n';
    expect(describeChunk(md)).toBe('This article shows how to use source generation in System.Text.Json.');
  });

  it('skips lists, tables, quotes and html, keeps a paragraph that continues over lines', () => {
    const md = '- a list\n\n| a | b |\n|---|---|\n\n> quoted\n\n<div>x</div>\n\nFirst line\nsecond line without a stop';
    expect(describeChunk(md)).toBe('First line second line without a stop');
  });

  it('clips at a word boundary and never returns control characters', () => {
    const long = `${'word '.repeat(100)}end.`;
    const d = describeChunk(long, 50);
    expect(d.length).toBeLessThanOrEqual(51);
    expect(d.endsWith('…')).toBe(true);
    expect(describeChunk('Title \u001b[2J with \u0007 bell.')).toBe('Title [2J with bell.');
  });

  it('gives a sentence for every sample topic', () => {
    for (const section of ['deployment', 'libraries']) {
      for (const topic of readdirSync(join(REPO, 'docs', section), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)) {
        const text = readFileSync(join(REPO, 'docs', section, topic, 'golden-reference.md'), 'utf8').replace(/^---[\s\S]*?\n---\n/, '');
        const d = describeChunk(text);
        expect(d.length, topic).toBeGreaterThan(20);
        expect(d, topic).not.toMatch(/[#`*[\]]/);
      }
    }
  });
});

describe('llmsTxt', () => {
  const topics: LlmsTopic[] = [
    { id: 'libraries/json', title: 'JSON [preview]', source: 'golden-reference.md', description: 'Serialize JSON.' },
    { id: 'start', title: 'Getting started', source: 'golden-reference.md', description: '' },
    { id: 'deployment/aot/native', title: 'Native AOT', source: 'golden-reference.md', description: 'Publish ahead of time.' },
  ];

  it('follows llmstxt.org: H1, blockquote, one H2 per top-level section, a link line per topic', () => {
    expect(llmsTxt({ title: 'Docs', summary: 'Three topics.', sectionTitles: { deployment: 'Deployment', libraries: 'Libraries' }, topics })).toBe(
      [
        '# Docs',
        '',
        '> Three topics.',
        '',
        '## Topics',
        '',
        '- [Getting started](start/golden-reference.md)',
        '',
        '## Deployment',
        '',
        '- [Native AOT](deployment/aot/native/golden-reference.md): Publish ahead of time.',
        '',
        '## Libraries',
        '',
        '- [JSON \\[preview\\]](libraries/json/golden-reference.md): Serialize JSON.',
        '',
      ].join('\n'),
    );
  });

  it('drops bidi embeddings, overrides and isolates from titles and descriptions (they reordered the link line)', () => {
    const text = llmsTxt({
      title: 'Docs\u202e',
      summary: 'All \u2066of\u2069 it',
      sectionTitles: {},
      topics: [{ id: 'a', title: 'exe.\u202etxt', source: 'golden-reference.md', description: 'Runs \u202asafely\u202c.' }],
    });
    expect(text).toBe('# Docs\n\n> All of it\n\n## Topics\n\n- [exe.txt](a/golden-reference.md): Runs safely.\n');
  });

  it('lists every topic exactly once on one line, whatever its title, id or description', () => {
    // Any text, with controls, bidi formatting characters and brackets made common.
    const hostileText = fc.string({ unit: fc.oneof(fc.constantFrom('\u202a', '\u202e', '\u2066', '\u2069', '\u001b', '\u0085', '[', ']', ' '), fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' })) });
    const segment = fc.stringMatching(/^[a-z0-9 ()[\]-]{1,8}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/')), { minLength: 1, maxLength: 12 }),
        hostileText,
        hostileText,
        (ids, title, description) => {
          const text = llmsTxt({ title: 't', summary: 's', sectionTitles: {}, topics: ids.map((id) => ({ id, title, source: 'golden-reference.md', description })) });
          const links = text.split('\n').filter((l) => l.startsWith('- ['));
          expect(links).toHaveLength(ids.length);
          // eslint-disable-next-line no-control-regex
          expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202a-\u202e\u2066-\u2069]/);
          for (const id of ids) expect(links.filter((l) => l.includes(`](${id.split('/').map(encodeURIComponent).join('/')}/golden-reference.md)`))).toHaveLength(1);
        },
      ),
    );
  });
});

describe('stripeReadingOrder', () => {
  it('reads the baselines, then the stripe, then whatever the stripe left out, each chunk once', () => {
    expect(stripeReadingOrder({ count: 6, stripe_order: [4, 2, 5] })).toEqual([0, 4, 2, 5, 1, 3]);
    expect(stripeReadingOrder({ count: 5, baseline_technical: 1, stripe_order: [3, 1, 2, 4] })).toEqual([0, 1, 3, 2, 4]);
    expect(stripeReadingOrder({ count: 0, stripe_order: [] })).toEqual([]);
  });

  it('is a permutation of 0..count-1 for any stripe, hostile ones included', () => {
    fc.assert(
      fc.property(fc.nat(60), fc.array(fc.integer({ min: -5, max: 80 }), { maxLength: 100 }), fc.boolean(), (count, stripe, technical) => {
        const order = stripeReadingOrder({ count, stripe_order: stripe, ...(technical && count > 1 ? { baseline_technical: 1 } : {}) });
        expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i));
        if (count > 0) expect(order[0]).toBe(0);
      }),
    );
  });
});

describe('llmsFullTxt', () => {
  it('spells out each topic under an H2 with its source link, chunks verbatim in the order given', () => {
    const text = llmsFullTxt({
      title: 'Docs',
      summary: 'Two topics.',
      topics: [
        { id: 'b/two', title: 'Two', documents: [{ source: 'golden-reference.md', chunks: ['# Two\n\nSecond.', '```sh\nrun it\n```\n'] }] },
        { id: 'a one', title: 'One [x]', documents: [{ source: 'golden-reference.md', chunks: ['One.\u001b[2J\r\n'] }] },
      ],
    });
    expect(text).toBe(
      [
        '# Docs',
        '',
        '> Two topics.',
        '',
        '## One \\[x\\]',
        '',
        'Source: a%20one/golden-reference.md',
        '',
        'One.[2J',
        '',
        '## Two',
        '',
        'Source: b/two/golden-reference.md',
        '',
        '# Two',
        '',
        'Second.',
        '',
        '```sh',
        'run it',
        '```',
        '',
      ].join('\n'),
    );
  });

  it('keeps every chunk\'s text and no control characters', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1 }).filter((s) => /\S/.test(s.replace(/[\u0000-\u001f\u007f]/g, ''))), { minLength: 1, maxLength: 8 }), (chunks) => {
        const text = llmsFullTxt({ title: 't', summary: 's', topics: [{ id: 'x', title: 'X', documents: [{ source: 'golden-reference.md', chunks }] }] });
        // eslint-disable-next-line no-control-regex
        expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
        // eslint-disable-next-line no-control-regex
        for (const chunk of chunks) expect(text).toContain(chunk.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '').replace(/\s+$/, ''));
      }),
    );
  });
});
