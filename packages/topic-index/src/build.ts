/**
 * The `index` stage: a TopicSpec (or a section's children) to index.json. Hrefs in `_links`
 * are root-relative URLs (the docs root is served as `/`); chunk hrefs and manifests are
 * relative to the index.json's folder, as in seed 001. Both resolve with URL resolution.
 */
import { createHash } from 'node:crypto';
import type { TopicSpec } from '@chunkyard/spec';
import { stripeOrder } from './stripe.js';
import type { IndexChild, IndexDocument, IndexItem, IndexJson } from './types.js';

/** `libraries/x` → `/libraries/x/index.json`; `""` → `/index.json`. Each segment URL-encoded. */
export function indexHref(id: string): string {
  return id === '' ? '/index.json' : `/${id.split('/').map(encodeURIComponent).join('/')}/index.json`;
}

/** The id of the folder above, or null for the root. */
export function parentId(id: string): string | null {
  if (id === '') return null;
  const i = id.lastIndexOf('/');
  return i < 0 ? '' : id.slice(0, i);
}

function links(id: string): IndexJson['_links'] {
  const parent = parentId(id);
  return { self: { href: indexHref(id) }, ...(parent === null ? {} : { parent: { href: indexHref(parent) } }) };
}

function sortChildren(children: readonly IndexChild[]): IndexChild[] {
  return [...children].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function childEntry(id: string, kind: 'topic' | 'section', title: string): IndexChild {
  return { id, kind, title, _links: { self: { href: indexHref(id) } } };
}

/**
 * An item's `sha256`: of a chunk file's text as a reader gets it. A leading byte order mark is
 * left out because retrieval's sources decode with it dropped (TextDecoder), so a hash of the
 * raw bytes would refuse such a file at every read.
 */
export function chunkTextSha256(text: string): string {
  return createHash('sha256').update(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, 'utf8').digest('hex');
}

/**
 * A topic's index.json. `children` are topics or sections in folders below the topic's, if any;
 * `description` is one line about the topic (see describeChunk), left out when empty.
 * `textSha256` gives each item's `sha256` from its href (chunkTextSha256 of the chunk file the
 * href names); without it the items have none, as indexes built before it.
 */
export function topicIndex(
  spec: TopicSpec,
  id: string,
  children: readonly IndexChild[] = [],
  description = '',
  textSha256?: (href: string) => string,
): IndexJson {
  const chunks: Record<string, IndexDocument> = {};
  // Grouped once: a filter per document was documents × chunks (a crafted spec of 20,000 of each).
  const byDoc = new Map<string, TopicSpec['chunks'][number][]>();
  for (const c of spec.chunks) {
    const group = byDoc.get(c.doc);
    if (group) group.push(c);
    else byDoc.set(c.doc, [c]);
  }
  for (const d of spec.documents) {
    const own = byDoc.get(d.doc) ?? [];
    const items: IndexItem[] = own.map((c) => ({
      index: c.index,
      href: c.href,
      title: c.title,
      is_code: c.is_code,
      tokens: c.tokens,
      similarity_conceptual: c.similarity_conceptual,
      ...(c.similarity_technical !== undefined ? { similarity_technical: c.similarity_technical } : {}),
      keywords: c.keywords,
      ...(c.prompt_hashes?.length ? { prompt_hashes: c.prompt_hashes } : {}),
      ...(textSha256 ? { sha256: textSha256(c.href) } : {}),
    }));
    const technical = d.baseline_technical !== undefined;
    chunks[d.doc] = {
      source: d.source,
      manifest: d.manifest,
      source_sha256: d.sourceSha256,
      count: d.count,
      baseline_conceptual: 0,
      ...(technical ? { baseline_technical: 1 as const } : {}),
      stripe_order: stripeOrder(own.map((c) => c.similarity_conceptual), [0]),
      ...(technical ? { stripe_order_technical: stripeOrder(own.map((c) => c.similarity_technical ?? 0), [0, 1]) } : {}),
      items,
    };
  }
  // The questions behind the prompt hashes, so a reader (the inspector) can show their text
  // without parsing topic-spec.md's YAML. Omitted when the topic has no qa-pairs.
  const questions = spec.questions.map((q) => ({ hash: q.hash, question: q.question }));
  return {
    id,
    kind: 'topic',
    title: spec.title,
    ...(description ? { description } : {}),
    _links: links(id),
    _embedded: { topics: sortChildren(children), chunks, ...(questions.length ? { questions } : {}) },
  };
}

/** A section's index.json: a folder above topics, listing its child topics and sections. */
export function sectionIndex(id: string, title: string, children: readonly IndexChild[]): IndexJson {
  return { id, kind: 'section', title, _links: links(id), _embedded: { topics: sortChildren(children) } };
}

/** Deterministic text of an index.json. */
export function formatIndexJson(index: IndexJson): string {
  return `${JSON.stringify(index, null, 2)}\n`;
}
