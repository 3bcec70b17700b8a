/**
 * The index.json contract (seed 001 "Index.json Schema Extensions", as settled for issue 5)
 * and the chunk manifest written by chunking-tool, as typed data, with validation.
 *
 * Everything a client loads goes through `parseIndex` / `parseManifest`: a document that
 * does not fit the contract is rejected with a ContractError naming where it came from and
 * what is wrong, instead of failing later with an undefined somewhere.
 */
import { isSimhashHex } from '@chunkyard/simhash';

/**
 * `s` for a message in at most about `max` UTF-16 units: its start and its end, the middle
 * left out and counted (a surrogate pair is never split). Hrefs, ids and document names come
 * from the index.json a server sends: a child href of 200 KB printed a 200 KB error line, and
 * nothing but the index's 64 MiB cap bounded it.
 */
export function elideMiddle(s: string, max: number): string {
  if (s.length <= max) return s;
  const isLow = (i: number) => (s.charCodeAt(i) & 0xfc00) === 0xdc00;
  let head = Math.floor(max * 0.6);
  let tail = s.length - (max - head);
  if (isLow(head)) head--;
  if (isLow(tail)) tail++;
  return `${s.slice(0, head)}…[${tail - head} characters]…${s.slice(tail)}`;
}

/** The longest `where` and `problem` a message shows whole (a path is at most 4096 bytes). */
export const MESSAGE_WHERE_MAX = 4200;
export const MESSAGE_PROBLEM_MAX = 2000;

export class ContractError extends Error {
  override name = 'ContractError';
  constructor(
    /** URL or file the document came from. */
    readonly where: string,
    readonly problem: string,
  ) {
    super(`${elideMiddle(where, MESSAGE_WHERE_MAX)}: ${elideMiddle(problem, MESSAGE_PROBLEM_MAX)}`);
  }
}

export interface Link {
  href: string;
}

export interface Keyword {
  name: string;
  score: number;
}

export interface ChunkItem {
  index: number;
  /** Relative to the folder of the index.json holding it. */
  href: string;
  title: string;
  is_code: boolean;
  tokens?: number;
  similarity_conceptual: number;
  similarity_technical?: number;
  keywords: Keyword[];
  /** 16-digit lowercase hex SimHashes; absent when empty. */
  prompt_hashes?: string[];
  /**
   * SHA-256 of the chunk file's text (UTF-8, no leading BOM) when the index was built; absent
   * in indexes built before it was added. DocsClient.chunkText refuses a file that differs.
   */
  sha256?: string;
}

export interface ChunkGroup {
  source: string;
  /** Relative to the folder of the index.json holding it. */
  manifest: string;
  /** The manifest's sourceSha256 when the index was built (absent in indexes built before it was added). */
  source_sha256?: string;
  count: number;
  baseline_conceptual: number;
  baseline_technical?: number;
  stripe_order: number[];
  stripe_order_technical?: number[];
  items: ChunkItem[];
}

/** A child entry of `_embedded.topics`: a topic or a sub-section. */
export interface ChildRef {
  id: string;
  kind: 'topic' | 'section';
  title: string;
  _links: { self: Link };
}

interface IndexBase {
  id: string;
  title: string;
  _links: { self: Link; parent?: Link };
}

export interface TopicIndex extends IndexBase {
  kind: 'topic';
  _embedded: { topics: ChildRef[]; chunks: Record<string, ChunkGroup> };
}

export interface SectionIndex extends IndexBase {
  kind: 'section';
  _embedded: { topics: ChildRef[] };
}

export type DocsIndex = TopicIndex | SectionIndex;

/** One record of `_chunks/<doc>.json` — only the fields retrieval reads. */
export interface ManifestChunk {
  id: string;
  chunkNumber: number;
  originalText: string;
  embedText: string;
  sourcePosition: { charStart: number; charEnd: number };
  overlapChars: number;
  sectionTitle?: string;
  headerPath?: string[];
}

export interface Manifest {
  schemaVersion: number;
  source: string;
  sourceSha256: string;
  strategyKey: string;
  chunks: ManifestChunk[];
}

// ---------------------------------------------------------------------------------------------
// Validation helpers: each takes the path inside the document, for the message.

type Obj = Record<string, unknown>;

/**
 * At most 80 characters of a JSON value for a message. JSON.stringify itself overflowed the
 * stack on a value nested a few thousand deep (an index.json of [[[[…]]]]), so the user saw
 * "Maximum call stack size exceeded" without the file; a string is cut before it is quoted.
 */
function shown(got: unknown): string {
  if (got === undefined) return 'nothing';
  if (typeof got === 'string') return JSON.stringify(got.slice(0, 80)).slice(0, 80);
  try {
    return (JSON.stringify(got) ?? String(got)).slice(0, 80);
  } catch {
    return `${Array.isArray(got) ? 'a list' : 'an object'} nested too deeply to show`;
  }
}

class Checker {
  constructor(readonly where: string) {}

  fail(path: string, expected: string, got: unknown): never {
    throw new ContractError(this.where, `${path}: expected ${expected}, got ${shown(got)}`);
  }

  obj(v: unknown, path: string): Obj {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) this.fail(path, 'an object', v);
    return v as Obj;
  }

  str(v: unknown, path: string): string {
    if (typeof v !== 'string') this.fail(path, 'a string', v);
    return v;
  }

  bool(v: unknown, path: string): boolean {
    if (typeof v !== 'boolean') this.fail(path, 'true or false', v);
    return v;
  }

  num(v: unknown, path: string): number {
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(path, 'a number', v);
    return v;
  }

  int(v: unknown, path: string, min = 0): number {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) this.fail(path, `an integer >= ${min}`, v);
    return v;
  }

  arr(v: unknown, path: string): unknown[] {
    if (!Array.isArray(v)) this.fail(path, 'an array', v);
    return v;
  }

  link(v: unknown, path: string): Link {
    const o = this.obj(v, path);
    const href = this.str(o.href, `${path}.href`);
    if (!href.startsWith('/') || leavesHost(href)) this.fail(`${path}.href`, 'a root-relative URL (starting with /)', href);
    if (!plainSegments(href.slice(1))) this.fail(`${path}.href`, `a path of plain names (no ".", ".." or empty segment, no encoded slash)`, href);
    return { href };
  }

  relativeHref(v: unknown, path: string): string {
    const href = this.str(v, path);
    // Relative to the index's folder, never leaving the docs tree by construction.
    if (href === '' || href.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(href) || leavesHost(href)) this.fail(path, 'a relative URL', href);
    if (!plainSegments(href)) this.fail(path, `a path of plain names below the index's folder (no ".", ".." or empty segment, no encoded slash)`, href);
    return href;
  }
}

/**
 * Whether `href`, resolved as an http(s) URL resolves it, names another host (or none): the URL
 * parser drops leading and trailing spaces and control characters and reads a backslash as a
 * slash, so '\\\\evil.example\\x.md', ' http://evil.example/x.md' and '\t//evil.example/x.md'
 * passed as relative and '//evil.example/x' as root-relative. The source refused them later, as
 * 'http://evil.example/x.md: outside the docs at …', naming neither the index.json nor the item.
 */
function leavesHost(href: string): boolean {
  const base = 'http://docs.invalid/a/b/index.json';
  try {
    return new URL(href, base).origin !== new URL(base).origin;
  } catch {
    return true;
  }
}

/**
 * Whether every segment of `path` (a URL path, relative) is a plain name once the URL parser and
 * percent-decoding have read it: not '', '.' or '..', and holding no '/' or NUL. What index-tool
 * writes (each segment percent-encoded) and what its llms.txt reader accepts. '../../x' stayed
 * at the docs root and '..%2f..%2fetc%2fpasswd' was refused by the folder source only as
 * 'chunkyard-docs://folder/…: outside the docs folder' (no index.json, no item), while over HTTP
 * it went to the server as it was, for the server to decode; a tab or line break inside is
 * dropped by the parser ('.\t./x' is '../x') and a backslash read as a slash.
 */
function plainSegments(path: string): boolean {
  // Trimmed by hand: /^[\0- ]+|[\0- ]+$/ tried its second branch from every space of a run,
  // quadratic in a long href of spaces.
  const joined = path.replace(/[\t\n\r]/g, '');
  let start = 0;
  let end = joined.length;
  while (start < end && joined.charCodeAt(start) <= 0x20) start++;
  while (end > start && joined.charCodeAt(end - 1) <= 0x20) end--;
  for (const segment of joined.slice(start, end).split(/[\\/]/)) {
    let name: string;
    try {
      name = decodeURIComponent(segment);
    } catch {
      return false;
    }
    if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) return false;
  }
  return true;
}

const KINDS = ['topic', 'section'] as const;
const SHA256_HEX = /^[0-9a-f]{64}$/;

function parseChild(c: Checker, v: unknown, path: string): ChildRef {
  const o = c.obj(v, path);
  const kind = c.str(o.kind, `${path}.kind`);
  if (!(KINDS as readonly string[]).includes(kind)) c.fail(`${path}.kind`, '"topic" or "section"', kind);
  const links = c.obj(o._links, `${path}._links`);
  return {
    id: c.str(o.id, `${path}.id`),
    kind: kind as ChildRef['kind'],
    title: c.str(o.title, `${path}.title`),
    _links: { self: c.link(links.self, `${path}._links.self`) },
  };
}

function parseOrder(c: Checker, v: unknown, path: string, count: number, excluded: readonly number[]): number[] {
  const order = c.arr(v, path).map((x, i) => c.int(x, `${path}[${i}]`));
  const expected = new Set<number>();
  for (let i = 0; i < count; i++) if (!excluded.includes(i)) expected.add(i);
  const seen = new Set<number>();
  for (const [i, x] of order.entries()) {
    if (!expected.has(x)) c.fail(`${path}[${i}]`, `a chunk index in 0..${count - 1} other than ${excluded.join(' and ')}`, x);
    if (seen.has(x)) c.fail(`${path}[${i}]`, 'each chunk once', x);
    seen.add(x);
  }
  if (seen.size !== expected.size) c.fail(path, `all ${expected.size} chunks except the baseline(s)`, `${seen.size} entries`);
  return order;
}

function parseItem(c: Checker, v: unknown, path: string, technical: boolean): ChunkItem {
  const o = c.obj(v, path);
  const item: ChunkItem = {
    index: c.int(o.index, `${path}.index`),
    href: c.relativeHref(o.href, `${path}.href`),
    title: c.str(o.title, `${path}.title`),
    is_code: c.bool(o.is_code, `${path}.is_code`),
    similarity_conceptual: c.num(o.similarity_conceptual, `${path}.similarity_conceptual`),
    keywords: c.arr(o.keywords ?? [], `${path}.keywords`).map((k, i) => {
      const ko = c.obj(k, `${path}.keywords[${i}]`);
      return { name: c.str(ko.name, `${path}.keywords[${i}].name`), score: c.num(ko.score, `${path}.keywords[${i}].score`) };
    }),
  };
  if (o.tokens !== undefined) item.tokens = c.int(o.tokens, `${path}.tokens`);
  if (technical) item.similarity_technical = c.num(o.similarity_technical, `${path}.similarity_technical`);
  if (o.prompt_hashes !== undefined) {
    item.prompt_hashes = c.arr(o.prompt_hashes, `${path}.prompt_hashes`).map((h, i) => {
      if (!isSimhashHex(h)) c.fail(`${path}.prompt_hashes[${i}]`, 'a 16-digit lowercase hex SimHash', h);
      return h;
    });
  }
  if (o.sha256 !== undefined) {
    const sha = c.str(o.sha256, `${path}.sha256`);
    if (!SHA256_HEX.test(sha)) c.fail(`${path}.sha256`, '64 lowercase hex digits', sha);
    item.sha256 = sha;
  }
  return item;
}

function parseGroup(c: Checker, v: unknown, path: string): ChunkGroup {
  const o = c.obj(v, path);
  const count = c.int(o.count, `${path}.count`, 1);
  const baseline = c.int(o.baseline_conceptual, `${path}.baseline_conceptual`);
  if (baseline !== 0) c.fail(`${path}.baseline_conceptual`, '0', baseline);
  const technical = o.baseline_technical !== undefined;
  // Items first: a count that disagrees with them is the root cause of any order error.
  const items = c.arr(o.items, `${path}.items`);
  if (items.length !== count) c.fail(`${path}.items`, `${count} items (count)`, `${items.length} items`);
  const group: ChunkGroup = {
    source: c.str(o.source, `${path}.source`),
    manifest: c.relativeHref(o.manifest, `${path}.manifest`),
    count,
    baseline_conceptual: baseline,
    stripe_order: parseOrder(c, o.stripe_order, `${path}.stripe_order`, count, [0]),
    items: [],
  };
  if (o.source_sha256 !== undefined) {
    const sha = c.str(o.source_sha256, `${path}.source_sha256`);
    if (!SHA256_HEX.test(sha)) c.fail(`${path}.source_sha256`, '64 lowercase hex digits', sha);
    group.source_sha256 = sha;
  }
  if (technical) {
    const bt = c.int(o.baseline_technical, `${path}.baseline_technical`);
    if (bt !== 1 || count < 2) c.fail(`${path}.baseline_technical`, '1 (and at least 2 chunks)', bt);
    group.baseline_technical = bt;
    group.stripe_order_technical = parseOrder(c, o.stripe_order_technical, `${path}.stripe_order_technical`, count, [0, 1]);
  } else if (o.stripe_order_technical !== undefined) {
    c.fail(`${path}.stripe_order_technical`, 'nothing (no baseline_technical)', o.stripe_order_technical);
  }
  group.items = items.map((it, i) => {
    const item = parseItem(c, it, `${path}.items[${i}]`, technical);
    if (item.index !== i) c.fail(`${path}.items[${i}].index`, `${i} (items in index order)`, item.index);
    return item;
  });
  return group;
}

/** Validates a parsed index.json. `where` (its URL or file) goes into every error. */
export function parseIndex(json: unknown, where: string): DocsIndex {
  const c = new Checker(where);
  const o = c.obj(json, '(top level)');
  const kind = c.str(o.kind, 'kind');
  const links = c.obj(o._links, '_links');
  const base: IndexBase = {
    id: c.str(o.id, 'id'),
    title: c.str(o.title, 'title'),
    _links: { self: c.link(links.self, '_links.self') },
  };
  if (links.parent !== undefined) base._links.parent = c.link(links.parent, '_links.parent');
  const embedded = c.obj(o._embedded, '_embedded');
  const topics = c.arr(embedded.topics ?? [], '_embedded.topics').map((t, i) => parseChild(c, t, `_embedded.topics[${i}]`));
  if (kind === 'section') return { ...base, kind, _embedded: { topics } };
  if (kind !== 'topic') c.fail('kind', '"topic" or "section"', kind);
  const chunksObj = c.obj(embedded.chunks, '_embedded.chunks');
  // No prototype: assigning a document named "__proto__" to a {} set its prototype instead of
  // adding it (the topic was "expected at least one document, got {}"), and a lookup of
  // "constructor" found Object's.
  const chunks: Record<string, ChunkGroup> = Object.create(null) as Record<string, ChunkGroup>;
  for (const [doc, g] of Object.entries(chunksObj)) chunks[doc] = parseGroup(c, g, `_embedded.chunks.${doc}`);
  if (Object.keys(chunks).length === 0) c.fail('_embedded.chunks', 'at least one document', {});
  return { ...base, kind: 'topic', _embedded: { topics, chunks } };
}

/** Validates a chunk manifest; `expectedCount` is the index's `count` for it. */
export function parseManifest(json: unknown, where: string, expectedCount?: number): Manifest {
  const c = new Checker(where);
  const o = c.obj(json, '(top level)');
  const chunks = c.arr(o.chunks, 'chunks').map((v, i): ManifestChunk => {
    const p = `chunks[${i}]`;
    const r = c.obj(v, p);
    const pos = c.obj(r.sourcePosition, `${p}.sourcePosition`);
    const chunk: ManifestChunk = {
      id: c.str(r.id, `${p}.id`),
      chunkNumber: c.int(r.chunkNumber, `${p}.chunkNumber`),
      originalText: c.str(r.originalText, `${p}.originalText`),
      embedText: c.str(r.embedText, `${p}.embedText`),
      sourcePosition: { charStart: c.int(pos.charStart, `${p}.sourcePosition.charStart`), charEnd: c.int(pos.charEnd, `${p}.sourcePosition.charEnd`) },
      overlapChars: c.int(r.overlapChars ?? 0, `${p}.overlapChars`),
    };
    if (chunk.chunkNumber !== i) c.fail(`${p}.chunkNumber`, `${i} (chunks in order)`, chunk.chunkNumber);
    if (chunk.overlapChars > chunk.originalText.length) c.fail(`${p}.overlapChars`, `at most the text's length ${chunk.originalText.length}`, chunk.overlapChars);
    if (typeof r.sectionTitle === 'string') chunk.sectionTitle = r.sectionTitle;
    if (Array.isArray(r.headerPath) && r.headerPath.every((h) => typeof h === 'string')) chunk.headerPath = r.headerPath as string[];
    return chunk;
  });
  if (expectedCount !== undefined && chunks.length !== expectedCount) c.fail('chunks', `${expectedCount} chunks (the index's count)`, `${chunks.length} chunks`);
  const sha = c.str(o.sourceSha256, 'sourceSha256');
  if (!/^[0-9a-f]{64}$/.test(sha)) c.fail('sourceSha256', '64 lowercase hex digits', sha);
  return {
    schemaVersion: c.int(o.schemaVersion, 'schemaVersion', 1),
    source: c.str(o.source, 'source'),
    sourceSha256: sha,
    strategyKey: c.str(o.strategyKey, 'strategyKey'),
    chunks,
  };
}
