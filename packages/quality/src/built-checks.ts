/**
 * The scorer's checks over a built topic, on data already read from disk (the
 * CLI does the reading): each document's manifest (`_chunks/<doc>.json`), its
 * source, its chunk files (`_chunks/<doc>-N.md`), paginate's `chunks.json`, and
 * the index.json files. Any strategy's manifest works: the checks use only the
 * seed 002 record fields, plus `tier` (hierarchical) and `page` (paginate).
 *
 *   continuity  prev/next per tier, CT comments in pages, chunks.json CT graph → PIS
 *   tokens      every chunk within its cap, recorded counts exact (cl100k)
 *   markdown    every chunk file: no unclosed fence, no table without its header
 *   offsets     source.slice(charStart, charEnd) === originalText; files hold the chunk text
 *   checksum    manifest sourceSha256 = SHA-256 of the source; chunks.json checksum and page hashes
 *   hrefs       every index.json link resolves to a file
 */
import { createHash } from 'node:crypto';
import { countTokens } from '@chunkyard/chunking';
import { checkGraph, paginationIntegrityScore, parseCtComment, type GraphNode, type GraphReport } from './continuity.js';
import { markdownProblems } from './markdown-checks.js';

export const CHECKS = ['continuity', 'tokens', 'markdown', 'offsets', 'checksum', 'hrefs'] as const;
export type CheckName = (typeof CHECKS)[number];

export interface Finding {
  check: CheckName;
  file: string;
  message: string;
  /** Continuity breaks (seed 000: dangling or circular edges) fail with exit code 13. */
  graphBreak?: boolean;
}

export interface LoadedDocument {
  name: string;
  manifestFile: string;
  /** Parsed manifest, or null when it could not be read (see manifestError). */
  manifest: unknown;
  manifestError?: string;
  sourceFile: string;
  source: string | null;
  /** Why the source could not be read when it is there (a FIFO, binary, not UTF-8); absent when it is missing. */
  sourceError?: string;
  /** Chunk files of this document in _chunks/ (`<name>-N.md`): path → content. */
  chunkFiles: ReadonlyMap<string, string>;
  /** Chunk files there that could not be read (too large): path → why. */
  chunkFileErrors?: ReadonlyMap<string, string>;
  /** Path of `_chunks/<name>-N.md` for chunk N. */
  chunkFileOf: (n: number) => string;
}

export interface LoadedPages {
  file: string;
  json: unknown;
  error?: string;
}

export interface LoadedTopic {
  dir: string;
  documents: LoadedDocument[];
  pages: LoadedPages | null;
}

export interface LoadedIndex {
  file: string;
  json: unknown;
  error?: string;
}

export interface CheckTally {
  check: CheckName;
  checked: number;
  failed: number;
}

export interface BuiltReport {
  tallies: CheckTally[];
  findings: Finding[];
  pis: number;
  graphs: number;
}

interface Chunk {
  id: string;
  chunkNumber: number;
  originalText: string;
  embedText: string;
  prevId: string | null;
  nextId: string | null;
  splitUnit?: boolean;
  sourcePosition: { charStart: number; charEnd: number; totalChars: number };
  tokenStats: { tokens: number; embedTokens?: number };
  tier?: { level: string };
  page?: { ct: GraphNode; text: string; tokens: number; nmax: number };
}

interface Manifest {
  source: string;
  sourceSha256: string;
  strategy: string;
  options: Record<string, unknown>;
  chunks: Chunk[];
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

class Tally {
  readonly counts = new Map<CheckName, { checked: number; failed: number }>(CHECKS.map((c) => [c, { checked: 0, failed: 0 }]));
  readonly findings: Finding[] = [];
  /** Counts one checked item; a failure adds a finding. */
  item(check: CheckName, ok: boolean, file: string, message: () => string, graphBreak = false): void {
    const c = this.counts.get(check)!;
    c.checked++;
    if (!ok) {
      c.failed++;
      this.findings.push({ check, file, message: message(), ...(graphBreak ? { graphBreak } : {}) });
    }
  }
}

/** The manifest schema these checks read (chunking-tool's MANIFEST_SCHEMA_VERSION). */
const MANIFEST_SCHEMA_VERSION = 1;

/**
 * Minimal shape check, so later checks can trust the fields they read: null, or what is wrong.
 * docs-score's retrieval and answer scoring take only manifests that pass it.
 */
export function manifestShape(m: unknown): string | null {
  if (typeof m !== 'object' || m === null) return 'not a JSON object';
  const o = m as Record<string, unknown>;
  // The fields below mean what schema 1 says; a later schema may not (topic-spec, the store and
  // docs-export refuse it the same way), so its checks would be guesses.
  if (o.schemaVersion !== MANIFEST_SCHEMA_VERSION) return `schemaVersion ${JSON.stringify(o.schemaVersion) ?? 'missing'} is not ${MANIFEST_SCHEMA_VERSION}; rebuild it with this chunkyard's chunking-tool`;
  if (typeof o.source !== 'string') return 'no "source"';
  if (typeof o.sourceSha256 !== 'string') return 'no "sourceSha256"';
  if (!Array.isArray(o.chunks)) return 'no "chunks" array';
  // Read for every chunk's cap (capOf): `"options": null` threw "Cannot read properties of null
  // (reading 'maxTokens')" out of docs-score, naming no file (helper-84 probe).
  if (!isObject(o.options)) return '"options" is not an object';
  for (const [i, c] of (o.chunks as unknown[]).entries()) {
    const r = c as Record<string, unknown> | null;
    const pos = r?.sourcePosition as Record<string, unknown> | undefined;
    if (!r || typeof r.id !== 'string' || typeof r.originalText !== 'string' || typeof r.embedText !== 'string') return `chunk ${i}: no id/originalText/embedText`;
    if (!pos || !Number.isInteger(pos.charStart) || !Number.isInteger(pos.charEnd)) return `chunk ${i}: no sourcePosition`;
    if (!('prevId' in r) || !('nextId' in r)) return `chunk ${i}: no prevId/nextId`;
    // paginate's page: any other value in its place (a string, {}, a null ct) threw "Cannot
    // read properties of undefined (reading 'id')" out of the continuity check.
    if (r.page !== undefined && !isPage(r.page)) return `chunk ${i}: "page" is not a page (an object with ct {id, prev, next}, text and nmax)`;
  }
  return null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A paginate chunk's `page` as the checks read it. */
function isPage(v: unknown): boolean {
  if (!isObject(v) || !isObject(v.ct) || typeof v.ct.id !== 'string') return false;
  return typeof v.text === 'string' && typeof v.nmax === 'number';
}

/** The cap a chunk must respect, from the manifest's resolved options. */
function capOf(m: Manifest, c: Chunk): number {
  if (c.page) return c.page.nmax;
  const o = m.options;
  if (c.tier?.level === 'snippet' && typeof o.snippetMaxTokens === 'number') return o.snippetMaxTokens;
  if (c.tier?.level === 'section' && typeof o.sectionMaxTokens === 'number') return o.sectionMaxTokens;
  return typeof o.maxTokens === 'number' ? o.maxTokens : Infinity;
}

function graphOf(t: Tally, reports: GraphReport[], file: string, label: string, nodes: GraphNode[]): void {
  const r = checkGraph(nodes);
  reports.push(r);
  for (const b of r.breaks) t.item('continuity', false, file, () => `${label}: ${b.kind}: ${b.message}`, true);
  for (const m of r.mismatches) t.item('continuity', false, file, () => `${label}: ${m}`);
  for (let i = 0; i < r.hits; i++) t.item('continuity', true, file, () => '');
}

function checkDocument(t: Tally, graphs: GraphReport[], doc: LoadedDocument): void {
  if (doc.manifestError !== undefined) return t.item('checksum', false, doc.manifestFile, () => `manifest unreadable: ${doc.manifestError}`);
  const shape = manifestShape(doc.manifest);
  if (shape) return t.item('checksum', false, doc.manifestFile, () => `not a chunk manifest: ${shape}`);
  const m = doc.manifest as Manifest;
  const source = doc.source;
  t.item('checksum', source !== null, doc.sourceFile, () => `source ${m.source} named by ${doc.manifestFile}${doc.sourceError !== undefined ? `: ${doc.sourceError}` : ' is missing'}`);
  if (source !== null) {
    t.item('checksum', sha256(source) === m.sourceSha256, doc.manifestFile, () => `sourceSha256 ${m.sourceSha256.slice(0, 12)}… does not match ${m.source} (${sha256(source).slice(0, 12)}…): the source changed after the build`);
  }

  // continuity: prev/next per tier (hierarchical links chunks of the same tier), in chunk order.
  const tiers = new Map<string, GraphNode[]>();
  for (const c of m.chunks) {
    const key = c.tier?.level ?? 'chunks';
    const list = tiers.get(key) ?? [];
    list.push({ id: c.id, prev: c.prevId, next: c.nextId });
    tiers.set(key, list);
  }
  for (const [tier, nodes] of tiers) graphOf(t, graphs, doc.manifestFile, tiers.size > 1 ? `prevId/nextId (${tier})` : 'prevId/nextId', nodes);
  const pages = m.chunks.filter((c) => c.page);
  if (pages.length > 0) graphOf(t, graphs, doc.manifestFile, 'page CT', pages.map((c) => c.page!.ct));

  const expectedFiles = new Set<string>();
  const cts: GraphNode[] = [];
  m.chunks.forEach((c, i) => {
    const file = doc.chunkFileOf(i);
    expectedFiles.add(file);
    const label = `chunk ${i} (${c.id})`;
    // tokens
    const cap = capOf(m, c);
    const tokens = countTokens(c.originalText);
    t.item('tokens', tokens === c.tokenStats?.tokens, doc.manifestFile, () => `${label}: tokenStats.tokens is ${c.tokenStats?.tokens}, the text has ${tokens}`);
    t.item('tokens', tokens <= cap, doc.manifestFile, () => `${label}: ${tokens} tokens > cap ${cap}`);
    const embed = countTokens(c.embedText);
    t.item('tokens', embed <= cap, doc.manifestFile, () => `${label}: embedText ${embed} tokens > cap ${cap}`);
    if (c.page) {
      const pageTokens = countTokens(c.page.text);
      t.item('tokens', pageTokens <= c.page.nmax, doc.manifestFile, () => `${label}: page ${pageTokens} tokens (CT comment and lead lines included) > Nmax ${c.page!.nmax}`);
    }
    // offsets
    const { charStart, charEnd, totalChars } = c.sourcePosition;
    if (source !== null) {
      const inRange = charStart >= 0 && charStart <= charEnd && charEnd <= source.length && totalChars === source.length;
      t.item('offsets', inRange, doc.manifestFile, () => `${label}: sourcePosition ${charStart}–${charEnd} (totalChars ${totalChars}) is outside the source (${source.length} chars)`);
      if (inRange && c.splitUnit !== true) {
        t.item('offsets', source.slice(charStart, charEnd) === c.originalText, doc.manifestFile, () => `${label}: source.slice(${charStart}, ${charEnd}) is not the chunk's originalText`);
      }
    }
    // the chunk file holds the emitted text (the page for paginate)
    const unreadable = doc.chunkFileErrors?.get(file);
    if (unreadable !== undefined) return t.item('offsets', false, file, () => `unreadable: ${unreadable}`);
    const content = doc.chunkFiles.get(file);
    const want = c.page?.text ?? c.originalText;
    t.item('offsets', content !== undefined, file, () => `missing: ${label} has no chunk file`);
    if (content === undefined) return;
    t.item('offsets', content === want, file, () => `does not hold ${label}'s ${c.page ? 'page text' : 'originalText'} from ${doc.manifestFile}`);
    // markdown
    const problems = markdownProblems(content);
    t.item('markdown', problems.length === 0, file, () => problems.map((p) => `line ${p.line}: ${p.message}`).join('; '));
    const ct = parseCtComment(content);
    if (ct === 'invalid') t.item('continuity', false, file, () => 'CT comment is not valid JSON with id, prev and next');
    else if (ct) cts.push(ct);
  });
  if (cts.length > 0) graphOf(t, graphs, `${doc.manifestFile} (CT comments in ${doc.name}-N.md)`, 'CT comments', cts);
  for (const file of [...doc.chunkFiles.keys(), ...(doc.chunkFileErrors?.keys() ?? [])]) {
    t.item('offsets', expectedFiles.has(file), file, () => `stale chunk file: ${doc.manifestFile} has no chunk for it`);
  }
}

interface PagesJson {
  checksum?: { value?: unknown };
  documents?: { source?: unknown; chunks?: { ct?: GraphNode; file?: unknown; sha256?: unknown }[] }[];
}

/** paginate's chunks.json (seed 000): its checksum, each page's hash, its CT graph against the pages. */
function checkPages(t: Tally, graphs: GraphReport[], topic: LoadedTopic): void {
  const p = topic.pages;
  if (!p) return;
  if (p.error !== undefined) return t.item('checksum', false, p.file, () => `unreadable: ${p.error}`);
  const j = p.json as PagesJson;
  if (!Array.isArray(j?.documents)) return t.item('checksum', false, p.file, () => 'no "documents" array');
  const value = j.checksum?.value;
  t.item('checksum', value === sha256(JSON.stringify(j.documents)), p.file, () => `checksum ${String(value).slice(0, 12)}… is not the SHA-256 of JSON.stringify(documents): the manifest was changed`);
  // A hand-edited or foreign chunks.json is a finding naming it: a document that was null or
  // held a string "chunks", or a page that was null, threw a TypeError out of docs-score
  // ("docs-score: Cannot read properties of null (reading 'ct')", no file named).
  for (const [di, d] of (j.documents as unknown[]).entries()) {
    if (typeof d !== 'object' || d === null || Array.isArray(d)) {
      t.item('checksum', false, p.file, () => `documents[${di}] is not an object with "source" and "chunks" (not a chunks.json the chunking-tool wrote)`);
      continue;
    }
    const { source, chunks } = d as NonNullable<PagesJson['documents']>[number];
    if (chunks !== undefined && !Array.isArray(chunks)) {
      t.item('checksum', false, p.file, () => `${String(source)}: "chunks" is not a list (not a chunks.json the chunking-tool wrote)`);
      continue;
    }
    const doc = topic.documents.find((x) => (x.manifest as Manifest | null)?.source === source);
    const nodes: GraphNode[] = [];
    for (const [i, c] of (chunks ?? []).entries()) {
      if (typeof c !== 'object' || c === null || !c.ct || typeof c.ct.id !== 'string') {
        t.item('continuity', false, p.file, () => `${String(source)} page ${i}: no continuity token`);
        continue;
      }
      nodes.push({ id: c.ct.id, prev: c.ct.prev ?? null, next: c.ct.next ?? null });
      const content = doc?.chunkFiles.get(doc.chunkFileOf(i));
      t.item('checksum', content !== undefined && sha256(content) === c.sha256, p.file, () => `${String(source)} page ${i} (${String(c.file)}): ${content === undefined ? 'file missing' : 'sha256 does not match the file'}`);
    }
    graphOf(t, graphs, p.file, `chunks.json CT graph of ${String(source)}`, nodes);
  }
}

export function checkTopic(topic: LoadedTopic, t = new Tally(), graphs: GraphReport[] = []): { tally: Tally; graphs: GraphReport[] } {
  for (const doc of topic.documents) checkDocument(t, graphs, doc);
  checkPages(t, graphs, topic);
  return { tally: t, graphs };
}

interface IndexLinks {
  _links?: Record<string, { href?: unknown }>;
  _embedded?: {
    topics?: { _links?: { self?: { href?: unknown } } }[];
    chunks?: Record<string, { manifest?: unknown; items?: { href?: unknown }[] }>;
  };
}

/**
 * index.json hrefs: `_links` and child `self` hrefs are URLs from the served docs
 * root; chunk `href`s and `manifest` are relative to the index.json's own URL.
 * The docs root is the file's path minus its own `self` href; `exists(file)` says
 * whether a file is there (the only I/O, injected).
 */
export function checkIndexes(indexes: readonly LoadedIndex[], exists: (file: string) => boolean, t = new Tally()): Tally {
  for (const ix of indexes) {
    if (ix.error !== undefined) {
      t.item('hrefs', false, ix.file, () => `unreadable: ${ix.error}`);
      continue;
    }
    const j = ix.json as IndexLinks;
    const self = j?._links?.self?.href;
    if (typeof self !== 'string') {
      t.item('hrefs', false, ix.file, () => 'no _links.self.href');
      continue;
    }
    // A hand-edited index.json is findings naming it: a %-escape that is no UTF-8 ('%ZZ'), an
    // href no URL parser takes ('http://['), or topics or items that are not lists threw a
    // URIError or TypeError out of checkIndexes, which docs-score printed as 'URI malformed'.
    const base = urlOf(self, 'http://docs.invalid/');
    const selfPath = base && pathOf(base);
    if (!base || selfPath === null) {
      t.item('hrefs', false, ix.file, () => `_links.self.href ${self} is not a URL path (a malformed %-escape?)`);
      continue;
    }
    const file = ix.file.replace(/\\/g, '/');
    if (!file.endsWith(selfPath)) {
      t.item('hrefs', false, ix.file, () => `_links.self.href ${self} does not name this file`);
      continue;
    }
    const root = file.slice(0, file.length - selfPath.length);
    const hrefs: [string, unknown][] = [];
    for (const [rel, link] of Object.entries(j._links ?? {})) hrefs.push([`_links.${rel}`, link?.href]);
    const topics: unknown = j._embedded?.topics ?? [];
    if (!Array.isArray(topics)) t.item('hrefs', false, ix.file, () => '_embedded.topics is not a list');
    else for (const [i, child] of (topics as NonNullable<NonNullable<IndexLinks['_embedded']>['topics']>).entries()) hrefs.push([`_embedded.topics[${i}]`, child?._links?.self?.href]);
    for (const [doc, c] of Object.entries(j._embedded?.chunks ?? {})) {
      hrefs.push([`chunks.${doc}.manifest`, c?.manifest]);
      const items: unknown = c?.items ?? [];
      if (!Array.isArray(items)) t.item('hrefs', false, ix.file, () => `chunks.${doc}.items is not a list`);
      else for (const [i, item] of (items as { href?: unknown }[]).entries()) hrefs.push([`chunks.${doc}.items[${i}]`, item?.href]);
    }
    for (const [where, href] of hrefs) {
      if (typeof href !== 'string') {
        t.item('hrefs', false, ix.file, () => `${where}: no href`);
        continue;
      }
      const url = urlOf(href, base);
      const path = url && pathOf(url);
      const ok = url !== null && path !== null && url.origin === base.origin && exists(`${root}${path}`);
      t.item('hrefs', ok, ix.file, () => `${where}: ${href} ${url === null ? 'is not a URL' : path === null ? 'is not a URL path (a malformed %-escape?)' : 'does not resolve to a file'}`);
    }
  }
  return t;
}

/** `href` resolved against `base`, or null when it is no URL. */
function urlOf(href: string, base: string | URL): URL | null {
  try {
    return new URL(href, base);
  } catch {
    return null;
  }
}

/** The URL's path, %-escapes decoded; null when one is not UTF-8 (`%ZZ`, `%E0%A4`). */
function pathOf(url: URL): string | null {
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
}

export function report(t: Tally, graphs: readonly GraphReport[]): BuiltReport {
  return {
    tallies: CHECKS.map((check) => ({ check, ...t.counts.get(check)! })),
    findings: t.findings,
    pis: paginationIntegrityScore(graphs),
    graphs: graphs.length,
  };
}

export { Tally };
