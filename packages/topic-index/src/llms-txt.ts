/**
 * llms.txt (llmstxt.org) for a built docs tree: an H1 title, a blockquote summary, and H2
 * sections listing every topic's markdown with a one-line description. Pure: the index tool
 * gathers the topics from the built index.json files and writes the text.
 */

/** One topic as llms.txt lists it. */
export interface LlmsTopic {
  /** Folder under the docs root, `/`-separated (the index.json `id`). */
  id: string;
  title: string;
  /** The topic's markdown source, relative to the topic folder (`golden-reference.md`). */
  source: string;
  /** One line; may be empty. */
  description: string;
}

export interface LlmsTxtInput {
  title: string;
  summary: string;
  /** Top-level section titles by their id (the first path segment), for the H2 headings. */
  sectionTitles: Readonly<Record<string, string>>;
  topics: readonly LlmsTopic[];
}

const MAX_DESCRIPTION = 200;

/**
 * The first sentence of a chunk's prose, as plain text on one line: headings, fences, tables,
 * lists, quotes and HTML are skipped; links keep their text; emphasis and code ticks go.
 * Cut at a word boundary past `max` characters, with an ellipsis.
 */
export function describeChunk(markdown: string, max = MAX_DESCRIPTION): string {
  let inFence: string | null = null;
  const paragraph: string[] = [];
  for (const raw of markdown.split(/\r?\n/)) {
    const line = raw.trim();
    const fence = /^(`{3,}|~{3,})/.exec(line);
    if (inFence !== null) {
      if (fence && fence[1]![0] === inFence[0] && fence[1]!.length >= inFence.length) inFence = null;
      continue;
    }
    if (fence) {
      if (paragraph.length) break;
      inFence = fence[1]!;
      continue;
    }
    const structural = line === '' || /^(#{1,6}\s|[-*+]\s|\d+[.)]\s|>|\||<|:::|!\[)/.test(line);
    if (structural) {
      if (paragraph.length) break;
      continue;
    }
    paragraph.push(line);
  }
  const text = plainText(paragraph.join(' '));
  const sentence = /^(.+?[.!?])(?=\s|$)/.exec(text)?.[1] ?? text;
  return clip(sentence, max);
}

function plainText(markdown: string): string {
  // [text](url) and [text][ref] keep their text; images were skipped as whole lines.
  const marked = referenceLinkTexts(inlineLinkTexts(markdown))
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[^\w*])[*_]([^*_]+)[*_](?=[^\w*]|$)/g, '$1$2');
  return (
    withoutTags(marked)
      // Control characters never reach a reader's terminal or an LLM prompt; nor do the bidi
      // embeddings, overrides and isolates (U+202A–202E, U+2066–2069), which make a one-line
      // title or description, and the link beside it, show in another order than it reads.
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
      .replace(/[\u202a-\u202e\u2066-\u2069]/g, '')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/*
 * The three below are global replaces written as loops, in linear time (issue 15). As
 * patterns, each match attempt scanned ahead to the next `]`, `)` or `>`, and failed when
 * there was none (or the character after `]` was wrong), then started again one character
 * on: quadratic in a run of `[` or `<`. The first `]` (`)`, `>`) at or past a position is
 * looked up once and kept while the position has not passed it, so each is found once.
 */

/** The first `char` at or after `from` in `s`, for `from`s that never decrease; -1 when none. */
function nextOf(s: string, char: string): (from: number) => number {
  let at = -2;
  return (from) => {
    if (at !== -1 && at < from) at = s.indexOf(char, from);
    return at;
  };
}

/** `s.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')`: an inline link or image keeps its text. */
export function inlineLinkTexts(s: string): string {
  const closeBracket = nextOf(s, ']');
  const closeParen = nextOf(s, ')');
  let out = '';
  let copied = 0;
  for (let from = 0; ; ) {
    const open = s.indexOf('[', from);
    if (open < 0) break;
    const close = closeBracket(open + 1);
    if (close < 0) break;
    if (s[close + 1] !== '(') {
      from = open + 1;
      continue;
    }
    const end = closeParen(close + 2);
    if (end < 0) break;
    // A match would have started at the `!` before, had there been one past the last match.
    const start = open - 1 >= copied && s[open - 1] === '!' ? open - 1 : open;
    out += s.slice(copied, start) + s.slice(open + 1, close);
    copied = from = end + 1;
  }
  return out + s.slice(copied);
}

/** `s.replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')`: a reference link keeps its text. */
export function referenceLinkTexts(s: string): string {
  const closeBracket = nextOf(s, ']');
  let out = '';
  let copied = 0;
  for (let from = 0; ; ) {
    const open = s.indexOf('[', from);
    if (open < 0) break;
    const close = closeBracket(open + 1);
    if (close < 0) break;
    if (s[close + 1] !== '[') {
      from = open + 1;
      continue;
    }
    const end = closeBracket(close + 2);
    if (end < 0) break;
    out += s.slice(copied, open) + s.slice(open + 1, close);
    copied = from = end + 1;
  }
  return out + s.slice(copied);
}

/** `s.replace(/<[^>]+>/g, '')`: HTML tags go. */
export function withoutTags(s: string): string {
  const closeAngle = nextOf(s, '>');
  let out = '';
  let copied = 0;
  for (let from = 0; ; ) {
    const open = s.indexOf('<', from);
    if (open < 0) break;
    const end = closeAngle(open + 1);
    if (end < 0) break;
    if (end === open + 1) {
      from = open + 1;
      continue;
    }
    out += s.slice(copied, open);
    copied = from = end + 1;
  }
  return out + s.slice(copied);
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${withoutTrailingPunctuation(space > max / 2 ? cut.slice(0, space) : cut)}…`;
}

/** `s.replace(/[\s,;:.]+$/, '')` in linear time (that pattern is quadratic in a run of them not at the end). */
export function withoutTrailingPunctuation(s: string): string {
  let end = s.length;
  while (end > 0 && /[\s,;:.]/.test(s[end - 1]!)) end--;
  return s.slice(0, end);
}

/** A title or description on one line, with the characters that would break a link escaped. */
function inline(text: string): string {
  return plainText(text).replace(/([[\]])/g, '\\$1');
}

/** A relative link: each path segment percent-encoded, so spaces and brackets survive. */
function href(topic: LlmsTopic): string {
  return [...topic.id.split('/'), ...topic.source.split('/')].filter((s) => s !== '').map(encodeURIComponent).join('/');
}

/**
 * The llms.txt text. Topics directly under the root come first under "Topics"; then one H2 per
 * top-level section, in id order, each listing every topic below it (nested ones included).
 */
export function llmsTxt(input: LlmsTxtInput): string {
  const groups = new Map<string, LlmsTopic[]>();
  for (const topic of [...input.topics].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const key = topic.id.includes('/') ? topic.id.slice(0, topic.id.indexOf('/')) : '';
    // Pushed onto the group's list: copying it for every topic, as this did, took 50 s for a
    // section of 20,000 topics (quadratic), 263 s for 40,000.
    const group = groups.get(key);
    if (group) group.push(topic);
    else groups.set(key, [topic]);
  }
  const lines = [`# ${inline(input.title)}`, '', `> ${inline(input.summary)}`];
  const keys = [...groups.keys()].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0));
  for (const key of keys) {
    lines.push('', `## ${inline(key === '' ? 'Topics' : (input.sectionTitles[key] ?? key))}`, '');
    for (const topic of groups.get(key)!) {
      const description = inline(topic.description);
      lines.push(`- [${inline(topic.title)}](${href(topic)})${description ? `: ${description}` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** One topic as llms-full.txt spells it out: its documents' chunk texts, in reading order. */
export interface LlmsFullTopic {
  id: string;
  title: string;
  documents: readonly { source: string; chunks: readonly string[] }[];
}

/**
 * The order llms-full.txt reads a document's chunks in: the conceptual baseline, the technical
 * one when there is one, then the stripe order (seed 001: a reader that stops early has still
 * seen the whole topic's spread). Any chunk the stripe leaves out follows in document order, so
 * nothing is lost; an index out of range is ignored rather than trusted.
 */
export function stripeReadingOrder(doc: { count: number; baseline_technical?: number; stripe_order: readonly number[] }): number[] {
  const order: number[] = [];
  const seen = new Set<number>();
  const take = (i: number) => {
    if (Number.isInteger(i) && i >= 0 && i < doc.count && !seen.has(i)) {
      seen.add(i);
      order.push(i);
    }
  };
  take(0);
  if (doc.baseline_technical !== undefined) take(doc.baseline_technical);
  for (const i of doc.stripe_order) take(i);
  for (let i = 0; i < doc.count; i++) take(i);
  return order;
}

/**
 * llms-full.txt: the H1 and summary of llms.txt, then every topic (in llms.txt's id order) as an
 * H2 naming its folder, followed by its chunks' text verbatim in stripe reading order. Chunk text
 * is markdown and goes in as it is; only control characters other than tab and newline are
 * dropped, as everywhere an LLM or a terminal reads chunkyard's output.
 */
export function llmsFullTxt(input: { title: string; summary: string; topics: readonly LlmsFullTopic[] }): string {
  const parts = [`# ${inline(input.title)}\n\n> ${inline(input.summary)}\n`];
  for (const topic of [...input.topics].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    for (const doc of topic.documents) {
      const link = [...topic.id.split('/'), ...doc.source.split('/')].filter((s) => s !== '').map(encodeURIComponent).join('/');
      const body = doc.chunks
        // eslint-disable-next-line no-control-regex
        .map((chunk) => chunk.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '').trimEnd())
        .filter((chunk) => chunk !== '')
        .join('\n\n');
      parts.push(`## ${inline(topic.title)}\n\nSource: ${link}\n\n${body}\n`);
    }
  }
  return parts.join('\n');
}
