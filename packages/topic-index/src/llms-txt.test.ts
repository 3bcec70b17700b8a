import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeChunk, llmsTxt, type LlmsTopic } from './llms-txt.js';

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

  it('lists every topic exactly once on one line, whatever its title, id or description', () => {
    const segment = fc.stringMatching(/^[a-z0-9 ()[\]-]{1,8}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/')), { minLength: 1, maxLength: 12 }),
        fc.string(),
        fc.string(),
        (ids, title, description) => {
          const text = llmsTxt({ title: 't', summary: 's', sectionTitles: {}, topics: ids.map((id) => ({ id, title, source: 'golden-reference.md', description })) });
          const links = text.split('\n').filter((l) => l.startsWith('- ['));
          expect(links).toHaveLength(ids.length);
          // eslint-disable-next-line no-control-regex
          expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
          for (const id of ids) expect(links.filter((l) => l.includes(`](${id.split('/').map(encodeURIComponent).join('/')}/golden-reference.md)`))).toHaveLength(1);
        },
      ),
    );
  });
});
