// The adversarial shapes of issue 15's scaling benchmark: `SHAPES[name](bytes)` gives about
// `bytes` of markdown of that shape, the same text on every run. bench/scaling.mjs times them,
// bench/shape-cpu.mjs and bench/record-floor.mjs take them apart, bench/memory.mjs measures
// what chunking them keeps.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
let sampleDocsText;

/**
 * The repository's sample documentation (docs/**\/golden-reference.md, by path, each without its
 * front matter), real .NET docs with code, tables, lists and notes: what users chunk, where
 * `prose` is the fastest text there is (62 words, one paragraph shape).
 */
function sampleDocs() {
  if (sampleDocsText !== undefined) return sampleDocsText;
  const files = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name === 'golden-reference.md') files.push(join(dir, e.name));
    }
  };
  walk(DOCS);
  files.sort();
  sampleDocsText = files.map((f) => readFileSync(f, 'utf8').replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '')).join('\n\n');
  return sampleDocsText;
}

/** A deterministic stream of pseudo-random numbers, so every run chunks the same text. */
function rng(seed = 42) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = ('the of and to in a is that for it as was with be by on not he this are or his from at which but have an ' +
  'they you were their one all we can her has there been if more when will would who so no chunk token serializer options ' +
  'document heading table value parser output configuration install request response buffer stream').split(' ');

/** Repeats `piece(i)` until the text reaches `bytes` (ASCII shapes: one byte per character). */
function fill(bytes, piece) {
  const parts = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const p = piece(i);
    parts.push(p);
    n += p.length;
  }
  return parts.join('').slice(0, bytes);
}

function sentence(r) {
  const n = 6 + Math.floor(r() * 14);
  const w = Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]);
  w[0] = w[0][0].toUpperCase() + w[0].slice(1);
  return `${w.join(' ')}.`;
}

/** Shape → generator of about `bytes` of markdown. */
export const SHAPES = {
  prose: (bytes) => {
    const r = rng(1);
    return fill(bytes, (i) => (i % 12 === 0 ? `## Section ${i}\n\n` : '') + Array.from({ length: 5 }, () => sentence(r)).join(' ') + '\n\n');
  },
  // Real documentation, repeated to the size (session 56): the second baseline of the scaling
  // table, next to `prose`.
  'sample-docs': (bytes) => {
    const text = sampleDocs();
    return fill(bytes, () => `${text}\n\n`);
  },
  // Prose whose every word is new (random letters): a vocabulary as large as the text. Keyword
  // extraction counts every word, pair and triple as a candidate, and took 2.5 s per MB here
  // (90 ms on prose) in session 50's probe: `node bench/scaling.mjs --stage keywords`.
  'random-words': (bytes) => {
    const r = rng(5);
    const word = () => Array.from({ length: 4 + Math.floor(r() * 7) }, () => String.fromCharCode(97 + Math.floor(r() * 26))).join('');
    return fill(bytes, (i) => (i % 12 === 0 ? `## Section ${i}\n\n` : '') + Array.from({ length: 5 }, () => `${Array.from({ length: 6 + Math.floor(r() * 14) }, word).join(' ')}.`).join(' ') + '\n\n');
  },
  'unspaced-letters': (bytes) => {
    // One pre-token of letters: cl100k's pattern never splits it.
    const r = rng(2);
    const a = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
    return `# Blob\n\n${fill(bytes, () => a[Math.floor(r() * a.length)])}\n`;
  },
  'unspaced-base64': (bytes) => {
    const r = rng(3);
    const a = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    return `# Image\n\n![x](data:image/png;base64,${fill(bytes, () => a[Math.floor(r() * a.length)])})\n`;
  },
  // One pre-token of a single repeated punctuation character (a rule, an ASCII-art line):
  // cl100k has tokens for runs of many dashes, so BPE merges much longer runs here than in
  // random letters (found by a probe: five times the letters shape per MB).
  'unspaced-dashes': (bytes) => `# Rule\n\n${'-'.repeat(Math.max(0, bytes - 14))} end\n`,
  'code-line': (bytes) => `# Minified\n\n\`\`\`js\n${fill(bytes, (i) => `function f${i}(a,b){return a*${i}+b};var v${i}=f${i}(${i},2);`)}\n\`\`\`\n`,
  'deep-list': (bytes) => fill(bytes, (i) => `${'  '.repeat(i)}- item ${i}\n`),
  'deep-quote': (bytes) => fill(bytes, (i) => `${'>'.repeat(i + 1)} quoted line ${i}\n`),
  'wide-table': (bytes) => {
    // Ten rows (header and delimiter included) of as many columns as the size allows.
    const cols = Math.max(2, Math.floor(bytes / 10 / 8));
    const row = (f) => `|${Array.from({ length: cols }, (_, c) => f(c)).join('|')}|\n`;
    return `# Table\n\n${row((c) => ` h${c} `)}${row(() => ' --- ')}${Array.from({ length: 8 }, (_, r) => row((c) => ` ${r}.${c} `)).join('')}`;
  },
  'huge-heading': (bytes) => {
    const r = rng(4);
    return `# Title\n\n## ${fill(bytes, () => `${WORDS[Math.floor(r() * WORDS.length)]} `)}\n\nBody.\n`;
  },
  // Three headings, so the markdown path chunks the lines: with fewer, seed 003's plain-text
  // path takes ten lines repeated thousands of times for page furniture and cuts them all.
  'tiny-lines': (bytes) => `# Lines\n\n## One\n\n## Two\n\n${fill(bytes, (i) => `x${i % 10}\n`)}`,
  // A fenced code block whose fences are a quarter of the text each (a fuzzed document had an
  // open fence of 12,000 backticks): every part of the split block was wrapped in both fences
  // again and counted, time of the fence's length per part (session 38).
  'huge-fence': (bytes) => {
    const fence = '`'.repeat(Math.max(3, Math.floor(bytes / 4)));
    return `# Code\n\n${fence}\n${fill(Math.floor(bytes / 2), (i) => `let value${i} = compute(${i});\n`)}\n${fence}\n`;
  },
  'tiny-headings': (bytes) => fill(bytes, (i) => `# h${i % 100}\n`),
  // One-line paragraphs and no heading (a list of names kept as paragraphs, text extracted
  // line by line): with fewer than three headings the chunker takes seed 003's plain-text path,
  // boilerplate removal and guessed headings over every line, which no other shape here reaches
  // with that many blocks. Added in session 55, whose probe found it the slowest shape per MB.
  'tiny-paragraphs': (bytes) => fill(bytes, (i) => `p${i % 100}\n\n`),
  // One flat list of one-word items, as a changelog or an API index has (issue 15's probes
  // found lists a hundred times slower than prose per MB).
  'long-list': (bytes) => fill(bytes, (i) => `- item ${i}\n`),
  // Quotes each ended by a line without `>` that no paragraph takes (a probe found markdown-it's
  // quote rule scanning the rest of the document for each: 200 KB took 15 s).
  'lazy-quotes': (bytes) => fill(bytes, (i) => `> # h${i % 100}\nlazy ${i}\n`),
  // tiny-headings in setext form (a line, then `---`): found by session 42's probe at ten times
  // the ATX form per MB, each heading made three markdown-it tokens and a tree node.
  'setext-headings': (bytes) => fill(bytes, (i) => `h${i % 100}\n---\n\n`),
  // Front matter of nearly the whole size (a site generator's data: a list of records with
  // flow-style tags and quoted strings) under a quoted title, which sends it past the plain
  // Session 58's fresh probe of shapes not in this table found three far over 3× prose per MB:
  // paragraphs of short sentences (37×) and Japanese prose (13×), each in paragraphs over the
  // token cap, which are split at sentences (ICU's sentence iterator cost a microsecond and more
  // per sentence), and nested lists (6–13×, blocks made through markdown-it's tokens). Kept
  // here so the table shows them.
  'short-sentences': (bytes) => {
    const r = rng(6);
    const said = ['Yes.', 'No.', 'Go on.', 'Stop!', 'Why?', 'See e.g. Fig. 3.', 'Mr. Li agreed.', 'It works.', 'v1.2 is out.', 'Done!'];
    return fill(bytes, (i) => (i % 12 === 0 ? `## Section ${i}\n\n` : '') + Array.from({ length: 300 }, () => said[Math.floor(r() * said.length)]).join(' ') + '\n\n');
  },
  'japanese-prose': (bytes) => {
    // UTF-8 takes three bytes for each of these characters: a third as many characters.
    const r = rng(7);
    const words = ['設定', 'ファイル', 'を', '読み込み', 'ます', '。', 'この', '機能', 'は', '文書', 'の', '検索', 'に', '使い', '、', 'データ', 'が', '必要', 'です', '「出力」', '（例）'];
    const sentence = () => Array.from({ length: 6 + Math.floor(r() * 10) }, () => words[Math.floor(r() * words.length)]).join('') + '。';
    return fill(Math.floor(bytes / 3), (i) => (i % 12 === 0 ? `## 節 ${i}\n\n` : '') + Array.from({ length: 80 }, sentence).join('') + '\n\n');
  },
  'nested-lists': (bytes) => fill(bytes, (i) => `- item ${i}\n  - detail ${i}\n    - note ${i}\n`),
  // Session 62's fresh probe of block-dense and huge-heading shapes not in this table, at 1 MB
  // under load: setext headings of two lines 18.6× prose per MB (each went through markdown-it's
  // tokens and an inline parse; made blocks at once since), `***` thematic breaks 12× (the same),
  // a heading of `[` 48× (markdown-it's link rule reading ahead from each bracket; left unparsed
  // since), and, not changed: lists alternating their marker (a list of one item per line)
  // 7.8×, reference definitions 6.1×, a huge heading of emphasis 13.6×.
  'setext-multiline': (bytes) => fill(bytes, (i) => `h${i % 100}\nline two\n===\n\n`),
  // Whole lines: a last line cut to `**` is a paragraph that sends the document to markdown-it.
  'thematic-breaks': (bytes) => `# Rules\n\n## One\n\n## Two\n\n${'***\n'.repeat(Math.floor(Math.max(0, bytes - 30) / 4))}`,
  'alternating-lists': (bytes) => fill(bytes, (i) => (i % 2 ? `- item ${i}\n` : `1. step ${i}\n`)),
  'reference-definitions': (bytes) => `# Links\n\n## One\n\n## Two\n\n${fill(Math.max(0, bytes - 30), (i) => `[ref${i}]: https://example.com/page/${i}\n`)}`,
  // Tiny headings of a code span and emphasis (API docs' `### \`method()\``), made blocks at once
  // since session 62, which first read the rest of the document for a `[` at each (quadratic):
  // this shape is what would show it.
  'tiny-code-headings': (bytes) => fill(bytes, (i) => `### \`m${i % 100}()\` *x*\n`),
  'heading-brackets': (bytes) => `# Title\n\n## ${'['.repeat(Math.max(0, bytes - 20))}\n\nBody.\n`,
  'heading-emphasis': (bytes) => {
    const r = rng(8);
    return `# Title\n\n## ${fill(Math.max(0, bytes - 20), () => `*${WORDS[Math.floor(r() * WORDS.length)]}* `)}\n\nBody.\n`;
  },
  // `key: value` reader to the YAML one, and a short body. Added in session 42: a fresh probe
  // found 1 MB of flat keys taking 14.5 s (yaml's duplicate-key check) and nested ones 2.2 s.
  'front-matter': (bytes) => {
    const items = fill(Math.max(0, bytes - 80), (i) => `  - name: "item ${i}"\n    tags: [a, b${i % 7}]\n    meta: {k: v${i}}\n`);
    return `---\ntitle: "Data: a guide"\nitems:\n${items.slice(0, items.lastIndexOf('\n') + 1)}---\n\n# Guide\n\nBody text.\n`;
  },
};
