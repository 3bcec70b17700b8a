/**
 * topic-spec.md: YAML front matter holding the TopicSpec (what `index` reads), then a body
 * for people: a table of chunks and the questions used for prompt matching. The body is
 * derived from the front matter and never read back.
 */
import { Document, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Node } from 'yaml';
import { readItems } from './read-items.js';
import type { SpecChunk, SpecDocument, TopicSpec } from './types.js';

export class TopicSpecError extends Error {
  override name = 'TopicSpecError';
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly problem: string,
  ) {
    super(line === null ? `${file}: ${problem}` : `${file}:${line}: ${problem}`);
  }
}

/**
 * Characters this library writes raw in a double-quoted scalar that PyYAML does not read as
 * themselves: NEL, LS and PS are line breaks to YAML 1.1 (folded to a space, or the end of a
 * plain scalar), and DEL, the other C1 controls, U+FFFE and U+FFFF are refused as unprintable.
 */
const PYYAML_RAW = /[\u007f-\u009f\u2028\u2029\ufffe\uffff]/;
const PYYAML_RAW_ALL = new RegExp(PYYAML_RAW.source, 'g');
const escapeForPyYaml = (c: string): string => {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * The front matter is written so that PyYAML, Python's YAML 1.1 reader, reads the same data
 * back (a docs team's own scripts and LangChain/LlamaIndex loaders use it): as YAML 1.1, whose
 * schema quotes the strings 1.1 reads as something else (`on`, `No`, `y` as booleans, `1:20` a
 * number, `2001-12-14` a date), and with a question mark inside a flow collection quoted
 * (PyYAML ends a plain scalar there, against the spec: every spec with a question failed,
 * "expected ',' or '}', but got '?'"). Any YAML 1.2 reader, ours included, reads it alike.
 */
export function formatTopicSpecMd(spec: TopicSpec): string {
  return `---\n${frontMatterYaml(spec)}---\n\n${body(spec)}`;
}

/** How many chunks make frontMatterYaml write the chunk list item by item. */
const ITEMWISE_CHUNKS = 64;

/**
 * The front matter as YAML: the chunk list item by item when it is long (itemwise), else, or
 * where that is unsure, as one document (wholeYaml). The same text either way.
 */
export function frontMatterYaml(spec: TopicSpec, itemwiseFrom = ITEMWISE_CHUNKS): string {
  return (spec.chunks.length >= itemwiseFrom ? itemwise(spec) : null) ?? wholeYaml(spec);
}

/** The front matter as one yaml Document: every node made, then written. */
export function wholeYaml(value: unknown): string {
  const doc = new Document(value, { aliasDuplicateObjects: false, version: '1.1' });
  // Flow style for keywords, hashes and questions: one line each, so a 50-chunk spec stays readable.
  const chunks = doc.get('chunks');
  if (isSeq(chunks)) {
    for (const c of chunks.items) {
      if (!isMap(c)) continue;
      for (const key of ['keywords', 'prompt_hashes']) {
        const seq = c.get(key);
        if (isSeq(seq)) for (const item of seq.items) if (isMap(item)) item.flow = true;
        if (key === 'prompt_hashes' && isSeq(seq)) seq.flow = true;
      }
    }
  }
  const questions = doc.get('questions');
  if (isSeq(questions)) for (const q of questions.items) if (isMap(q)) q.flow = true;
  visit(doc, {
    Scalar(_key, node, path) {
      if (typeof node.value !== 'string') return;
      // PyYAML also refuses a tab inside a plain scalar, resolves a plain `=` to its value tag
      // (which safe_load cannot construct), and `<<` to a merge key even quoted in 1.1's schema
      // as this library writes it: that one is tagged a string outright.
      const inFlow = path.some((p) => (isMap(p) || isSeq(p)) && p.flow === true);
      // A line break in a flow collection: yaml wrote `question: x:` and then `'` on a line of
      // its own as one plain scalar, which it then refused to read ("Missing closing 'quote").
      if ((inFlow && (node.value.includes('?') || node.value.startsWith(':') || /[\n\r]/.test(node.value))) || node.value.includes('\t') || node.value === '=' || PYYAML_RAW.test(node.value)) {
        node.type = 'QUOTE_DOUBLE';
      }
      if (node.value === '<<') {
        node.type = 'QUOTE_DOUBLE';
        node.tag = 'tag:yaml.org,2002:str';
      }
    },
  });
  // Those characters now stand only in double-quoted scalars, where an escape means the same.
  return doc.toString({ lineWidth: 0 }).replace(PYYAML_RAW_ALL, escapeForPyYaml);
}

/**
 * wholeYaml's text, with each chunk written by wholeYaml on its own (its keywords left out)
 * and each distinct keyword once: a keyword map per keyword of every chunk, each a node per
 * scalar, was most of topic-spec's time and memory on a big topic. Null (wholeYaml writes it)
 * where a chunk or keyword does not come out as lines of one `key: value` each, the only layout
 * whose indentation can be added afterwards without changing a scalar.
 */
export function itemwise(spec: TopicSpec): string | null {
  const head = wholeYaml({ ...spec, chunks: [] });
  const at = head.startsWith('chunks: []\n') ? 0 : head.indexOf('\nchunks: []\n') + 1;
  if (at === 0 && !head.startsWith('chunks: []\n')) return null;
  const keywordLines = new Map<string, string | null>();
  const keywordLine = (keyword: unknown): string | null => {
    const key = JSON.stringify(keyword);
    let line = keywordLines.get(key);
    if (line === undefined) {
      const text = wholeYaml({ chunks: [{ keywords: [keyword] }] });
      const prefix = 'chunks:\n  - keywords:\n      - ';
      line = text.startsWith(prefix) && text.indexOf('\n', prefix.length) === text.length - 1 ? `      - ${text.slice(prefix.length)}` : null;
      keywordLines.set(key, line);
    }
    return line;
  };
  const parts: string[] = [head.slice(0, at), 'chunks:\n'];
  for (const chunk of spec.chunks) {
    const keywords = Array.isArray(chunk.keywords) ? chunk.keywords : null;
    const text = wholeYaml({ chunks: [keywords === null ? chunk : { ...chunk, keywords: [] }] });
    if (!text.startsWith('chunks:\n  - ')) return null;
    const lines = text.slice('chunks:\n'.length, -1).split('\n');
    for (let k = 0; k < lines.length; k++) {
      const line = lines[k]!;
      // Every line a key of the chunk's own: `  - key: …` first, `    key: …` after.
      if (!(k === 0 ? line.startsWith('  - ') : line.startsWith('    ')) || line.charCodeAt(4) === 32) return null;
      if (keywords !== null && keywords.length > 0 && line.slice(4) === 'keywords: []') {
        parts.push(`${line.slice(0, 4)}keywords:\n`);
        for (const keyword of keywords) {
          const kw = keywordLine(keyword);
          if (kw === null) return null;
          parts.push(kw);
        }
      } else parts.push(`${line}\n`);
    }
  }
  parts.push(head.slice(at + 'chunks: []\n'.length));
  return parts.join('');
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
}

function body(spec: TopicSpec): string {
  const lines: string[] = [`# Topic spec: ${cell(spec.title)}`, ''];
  lines.push(
    `Generated by topic-spec. Embeddings: ${spec.embedding.provider} \`${spec.embedding.model}\` (${spec.embedding.dimensions} dimensions).`,
    `Similarities are cosines to the conceptual baseline (chunk 0) and, where detected, the technical baseline (chunk 1).`,
    '',
  );
  // Every question of a hash: two questions can share one (the same words, or none but common
  // words), and a map of one number per hash showed the last of them for both.
  const byHash = new Map<string, number[]>();
  spec.questions.forEach((q, i) => {
    const numbers = byHash.get(q.hash);
    if (numbers) numbers.push(i + 1);
    else byHash.set(q.hash, [i + 1]);
  });
  // Grouped once: a filter of every chunk per document was documents × chunks.
  const byDoc = new Map<string, SpecChunk[]>();
  for (const c of spec.chunks) {
    const group = byDoc.get(c.doc);
    if (group) group.push(c);
    else byDoc.set(c.doc, [c]);
  }
  for (const d of spec.documents) {
    const technical = d.baseline_technical !== undefined;
    lines.push(`## ${d.source}`, '', `${d.count} chunks, strategy \`${d.strategyKey}\`${technical ? ', technical baseline: chunk 1' : ''}.`, '');
    lines.push(
      `| # | title | tokens | code | sim. conceptual |${technical ? ' sim. technical |' : ''} keywords | questions |`,
      `| ---: | --- | ---: | :---: | ---: |${technical ? ' ---: |' : ''} --- | --- |`,
    );
    for (const c of byDoc.get(d.doc) ?? []) {
      const kw = c.keywords.slice(0, 6).map((k) => `${cell(k.name)} (${k.score})`).join(', ');
      const qs = (c.prompt_hashes ?? []).map((h) => (byHash.get(h) ?? ['?']).map((n) => `Q${n}`).join('/')).join(', ');
      const sim = (x: number | undefined) => (x === undefined ? '' : x.toFixed(3));
      lines.push(
        `| ${c.index} | [${cell(c.title)}](${c.href}) | ${c.tokens} | ${c.is_code ? 'yes' : ''} | ${sim(c.similarity_conceptual)} |${technical ? ` ${sim(c.similarity_technical)} |` : ''} ${kw} | ${qs} |`,
      );
    }
    lines.push('');
  }
  if (spec.questions.length) {
    lines.push(`## Questions (qa-pairs.md)`, '', `A question's hash is stored on every chunk whose similarity to it is at least ${spec.promptMatching.threshold}.`, '');
    spec.questions.forEach((q, i) => lines.push(`${i + 1}. ${q.question} \`${q.hash}\``));
    lines.push('');
    const shared = [...byHash].filter(([, numbers]) => numbers.length > 1);
    for (const [hash, numbers] of shared) {
      lines.push(`Questions ${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)} share the hash \`${hash}\`, so a chunk that lists it (Q${numbers.join('/Q')} above) may be close to any of them.`);
    }
    if (shared.length) lines.push('');
  }
  return `${lines.join('\n')}`;
}

// The YAML may be empty (`---` twice), which is then no mapping, not front matter left open.
const FRONT_MATTER = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

/**
 * A yaml message without the text it quotes after a colon (`Unexpected scalar token in YAML
 * stream: "…"`, `Unresolved alias (…): *name`) and the position prettyErrors adds: a
 * topic-spec.md may be a link a docs tree planted to a secret, and the line is given apart.
 * As @chunkyard/config's yamlErrorText does; a colon after a space is yaml's `:` indicator.
 */
function withoutSource(message: string): string {
  return withoutQuotedSource(message).replace(/ at line \d+, column \d+:?$/, '');
}

/**
 * `message.replace(/(?<=\S): .*$/, '')` in linear time: the message cut at the first ": "
 * after a non-space on its last line (`.` matches no line terminator, so a quote holding a CR
 * is kept, as it was). That pattern backtracked quadratically over a line of ": " pairs
 * followed by a CR, which yaml quotes from the file ("Not a YAML token: …"; issue 15).
 */
export function withoutQuotedSource(message: string): string {
  const lastBreak = Math.max(message.lastIndexOf('\n'), message.lastIndexOf('\r'), message.lastIndexOf('\u2028'), message.lastIndexOf('\u2029'));
  for (let at = message.indexOf(': ', Math.max(lastBreak + 1, 1)); at >= 0; at = message.indexOf(': ', at + 1)) {
    if (/\S/.test(message[at - 1]!)) return message.slice(0, at);
  }
  return message;
}

/** The first key given twice in one mapping (its dotted path and both offsets), in linear time; null when none is. */
function duplicateKey(doc: Document): { name: string; at: number; firstAt: number } | null {
  let found: { name: string; at: number; firstAt: number } | null = null;
  visit(doc, {
    Map(_key, map, path) {
      const seen = new Map<string, number>();
      for (const pair of map.items) {
        const key = pair.key as Node | null;
        const name = isScalar(key) ? String(key.value) : String(key);
        const at = key?.range?.[0] ?? 0;
        const first = seen.get(name);
        if (first === undefined) {
          seen.set(name, at);
          continue;
        }
        const parents = path.filter(isPair).map((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)));
        found = { name: [...parents, name].join('.'), at, firstAt: first };
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** Reads the front matter back, checking every field `index` relies on. */
export function parseTopicSpecMd(text: string, file: string): TopicSpec {
  // A byte order mark, which an editor may add on saving, is no character of the file.
  const m = FRONT_MATTER.exec(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (!m) {
    // A file that opens front matter and never closes it was "the file must start with ---",
    // which it does.
    const opened = /^\ufeff?---[ \t]*\r?\n/.test(text);
    throw new TopicSpecError(file, 1, opened ? 'front matter not closed (no --- line after the opening one)' : 'no YAML front matter (the file must start with ---)');
  }
  const inParts = readInParts(m[1] ?? '');
  if (inParts !== null) {
    const problem = checkSpec(inParts);
    if (problem) throw new TopicSpecError(file, null, `front matter: ${problem}`);
    return inParts as unknown as TopicSpec;
  }
  const lineCounter = new LineCounter();
  // uniqueKeys off: yaml compares each key with every earlier key of its mapping, so 40,000
  // keys took 12 s; duplicateKey finds them with a Set instead.
  // logLevel 'error': yaml's warnings (a collection as a key, an unknown tag) went to
  // process.emitWarning, a "(node:1234) Warning" line on index-tool's stderr at every read.
  const doc = parseDocument(m[1] ?? '', { lineCounter, uniqueKeys: false, logLevel: 'error' });
  if (doc.errors.length) {
    const err = doc.errors[0]!;
    // The parser recurses once per level and reports its own stack overflow as the error.
    const problem = /Maximum call stack size exceeded/.test(err.message) ? 'nested too deeply to read (thousands of levels)' : withoutSource(err.message.split('\n')[0]!);
    throw new TopicSpecError(file, lineCounter.linePos(err.pos[0]).line + 1, `front matter is not valid YAML: ${problem}`);
  }
  const twice = duplicateKey(doc);
  if (twice) {
    const line = (offset: number) => lineCounter.linePos(offset).line + 1;
    throw new TopicSpecError(file, line(twice.at), `front matter is not valid YAML: ${twice.name} is set twice (first on line ${line(twice.firstAt)})`);
  }
  if (!isMap(doc.contents)) throw new TopicSpecError(file, 2, 'front matter must be a mapping');
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (err) {
    // yaml refuses to expand an alias bomb (a few lines of anchors standing for billions of
    // nodes) with a ReferenceError; index-tool printed it with a stack trace.
    if (err instanceof ReferenceError) throw new TopicSpecError(file, null, `front matter: ${withoutSource(err.message).toLowerCase()} (YAML aliases expanding too far); run topic-spec again to rewrite it`);
    throw err;
  }
  const problem = checkSpec(data);
  if (problem) throw new TopicSpecError(file, null, `front matter: ${problem}`);
  return data as TopicSpec;
}

/** About how much of the `chunks` list readInParts gives the YAML parser at once (a front matter under 4 of these is read whole). */
const PART_CHARS = 1 << 16;

/**
 * The front matter's data read a part at a time, when it is laid out as formatTopicSpecMd writes
 * it (`chunks:` at the start of a line, then items each opening with `  - ` and every other line
 * of theirs indented further); else, or if any part is not clean YAML on its own (an error, a key
 * set twice, an alias to another part), null, and the caller reads it whole, which finds and
 * names the problem as it always has. Read whole, yaml's syntax tree of a big topic was about 80
 * bytes of heap per byte: 40,000 chunks (a 43 MB spec) took 3.4 GB and 34 s in index-tool, twice
 * as many would pass Node's default heap, and the collector's share grew with the size. Each
 * part's tree is dropped once its data is taken. A line `  - ` at column 2 in that list always
 * opens an item: any line of a scalar or a nested value of an item is indented past its keys' 4.
 */
export function readInParts(yaml: string, partChars = PART_CHARS): Json | null {
  if (yaml.length < 4 * partChars || yaml.includes('\r')) return null;
  const head = /^chunks:[ \t]*\n/m.exec(yaml);
  if (!head) return null;
  const from = head.index + head[0].length;
  // The list ends at the next line that starts at column 0 (the next key), or with the text.
  const next = /^[^ \t\n#]/m.exec(yaml.slice(from));
  const to = next ? from + next.index : yaml.length;
  if (!yaml.startsWith('  - ', from)) return null;
  const items: unknown[] = [];
  let start = from;
  while (start < to) {
    // Cut after PART_CHARS at the start of the next item.
    let cut = yaml.indexOf('\n  - ', Math.min(start + partChars, to));
    cut = cut < 0 || cut >= to ? to : cut + 1;
    const text = yaml.slice(start, cut);
    const part = readItems(text) ?? cleanData(text);
    if (!Array.isArray(part)) return null;
    for (const item of part) items.push(item);
    start = cut;
  }
  const rest = cleanData(`${yaml.slice(0, head.index)}chunks: []\n${yaml.slice(to)}`);
  if (!isObj(rest)) return null;
  rest.chunks = items;
  return rest;
}

/** The data of `yaml`, or undefined if it has a syntax error, a key set twice or an alias it cannot resolve. */
function cleanData(yaml: string): unknown {
  const doc = parseDocument(yaml, { uniqueKeys: false, logLevel: 'error' });
  if (doc.errors.length || duplicateKey(doc)) return undefined;
  try {
    return doc.toJS();
  } catch {
    return undefined;
  }
}

/**
 * A value of the front matter as a message quotes it: JSON, at most 60 characters, and control
 * characters (C1 and bidirectional ones too, which JSON leaves) as \u escapes. A message
 * quoted the value whole, so a megabyte schemaVersion made a megabyte line.
 */
function shown(value: unknown): string {
  const MAX = 60;
  let json: string;
  try {
    json = JSON.stringify(value) ?? String(value);
  } catch {
    json = typeof value;
  }
  let cut = json.length > MAX ? json.slice(0, MAX - 3) : json;
  if (cut.length < json.length && /[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1); // not half a surrogate pair
  // eslint-disable-next-line no-control-regex
  const safe = cut.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return cut.length < json.length ? `${safe}... (${json.length} characters)` : safe;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
// Safe integers: 1e300 is an integer to Number.isInteger, and no count or token total is one.
const isInt = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
/** A cosine as topic-spec writes it (rounded to 4 decimals): -1 to 1. */
const isCosine = (v: unknown): v is number => isNum(v) && v >= -1 && v <= 1;
const isStr = (v: unknown): v is string => typeof v === 'string';
const HEX = /^[0-9a-f]{16}$/;

/** The first problem with a parsed spec, or null. Messages name the field path. */
export function checkSpec(data: unknown): string | null {
  if (!isObj(data)) return 'expected a mapping';
  if (data.schemaVersion !== 1) return `schemaVersion: expected 1, got ${shown(data.schemaVersion)}`;
  if (!isStr(data.title)) return 'title: expected a string';
  const e = data.embedding;
  if (!isObj(e) || !isStr(e.provider) || !isStr(e.model) || !isInt(e.dimensions)) return 'embedding: expected { provider, model, dimensions }';
  const p = data.promptMatching;
  if (!isObj(p) || !isStr(p.simhash) || !isNum(p.threshold)) return 'promptMatching: expected { simhash, threshold }';
  // The range spec.promptThreshold has in chunkyard.config.yaml: a question's hash went on no
  // chunk at 99 and on every one at -5, and the file said nothing of it.
  if (p.threshold < 0 || p.threshold > 1) return `promptMatching.threshold: expected a number from 0 to 1, got ${shown(p.threshold)}`;
  if (!Array.isArray(data.documents)) return 'documents: expected a list';
  const docs = new Map<string, SpecDocument>();
  for (const [i, d] of data.documents.entries()) {
    const at = `documents[${i}]`;
    if (!isObj(d)) return `${at}: expected a mapping`;
    for (const k of ['doc', 'source', 'manifest', 'strategyKey', 'sourceSha256'] as const) if (!isStr(d[k])) return `${at}.${k}: expected a string`;
    if (d.manifestSha256 !== undefined && !(isStr(d.manifestSha256) && /^[0-9a-f]{64}$/.test(d.manifestSha256))) return `${at}.manifestSha256: expected 64 hex digits or absent`;
    if (!isInt(d.count)) return `${at}.count: expected a whole number`;
    if (d.baseline_conceptual !== 0) return `${at}.baseline_conceptual: expected 0`;
    if (d.baseline_technical !== undefined && d.baseline_technical !== 1) return `${at}.baseline_technical: expected 1 or absent`;
    if (docs.has(d.doc as string)) return `${at}.doc: ${shown(d.doc)} listed twice`;
    docs.set(d.doc as string, d as unknown as SpecDocument);
  }
  if (!Array.isArray(data.chunks)) return 'chunks: expected a list';
  const seen = new Map<string, number>();
  for (const [i, c] of data.chunks.entries()) {
    const at = `chunks[${i}]`;
    if (!isObj(c)) return `${at}: expected a mapping`;
    const d = isStr(c.doc) ? docs.get(c.doc) : undefined;
    if (!d) return `${at}.doc: not one of the documents`;
    const expected = seen.get(d.doc) ?? 0;
    if (c.index !== expected) return `${at}.index: expected ${expected} (chunks of a document in order), got ${shown(c.index)}`;
    seen.set(d.doc, expected + 1);
    if (!isStr(c.href) || !isStr(c.title)) return `${at}: href and title must be strings`;
    if (typeof c.is_code !== 'boolean') return `${at}.is_code: expected true or false`;
    if (!isInt(c.tokens)) return `${at}.tokens: expected a whole number`;
    // Cosines: 99 or -1e300 ordered the index's stripes by a number no embedding gives.
    if (!isCosine(c.similarity_conceptual)) return `${at}.similarity_conceptual: expected a number from -1 to 1 (a cosine)`;
    if ((d.baseline_technical !== undefined) !== (c.similarity_technical !== undefined)) {
      return `${at}.similarity_technical: expected ${d.baseline_technical !== undefined ? 'a number (the document has a technical baseline)' : 'none (no technical baseline)'}`;
    }
    if (c.similarity_technical !== undefined && !isCosine(c.similarity_technical)) return `${at}.similarity_technical: expected a number from -1 to 1 (a cosine)`;
    if (!Array.isArray(c.keywords) || !c.keywords.every((k) => isObj(k) && isStr(k.name) && isInt(k.score) && k.score >= 1 && k.score <= 10)) {
      return `${at}.keywords: expected a list of { name, score 1-10 }`;
    }
    if (c.prompt_hashes !== undefined && (!Array.isArray(c.prompt_hashes) || c.prompt_hashes.length === 0 || !c.prompt_hashes.every((h) => isStr(h) && HEX.test(h)))) {
      return `${at}.prompt_hashes: expected a non-empty list of 16-digit lowercase hex strings`;
    }
  }
  for (const d of docs.values()) {
    if ((seen.get(d.doc) ?? 0) !== d.count) return `documents ${shown(d.doc)}: count ${d.count} but ${seen.get(d.doc) ?? 0} chunks listed`;
  }
  if (!Array.isArray(data.questions) || !data.questions.every((q) => isObj(q) && isStr(q.question) && isStr(q.hash) && HEX.test(q.hash))) {
    return 'questions: expected a list of { hash, question }';
  }
  return null;
}

export type { SpecChunk };
