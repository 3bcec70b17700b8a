/**
 * Ids unique across a topic's documents. The per-graph check (continuity.ts)
 * sees one document at a time, so two paged sources that both number their
 * pages `chunk-001…` pass it; seed 000 calls that the "CT collision in merged
 * docs". A topic is read (and served, and fed to a scorer) as one set of
 * chunks, so an id that two of its documents use is ambiguous the same way a
 * duplicate inside one graph is: it breaks the continuity graph (exit 13).
 *
 * Three id spaces are checked, each across all documents of the topic:
 * chunk record ids (`id`), page continuity tokens in the manifests
 * (`page.ct.id`), and the CT ids of paginate's `chunks.json`.
 */
import type { LoadedTopic, Tally } from './built-checks.js';

/** An id used by more than one document of a topic. */
export interface IdCollision {
  /** `record id`, `page CT id` or `chunks.json CT id`. */
  kind: IdKind;
  id: string;
  /** The documents (manifest files, or chunks.json sources) using it, in topic order. */
  documents: string[];
}

export type IdKind = 'record id' | 'page CT id' | 'chunks.json CT id';

interface IdList {
  kind: IdKind;
  /** The document the ids belong to. */
  owner: string;
  ids: string[];
}

const str = (v: unknown): v is string => typeof v === 'string';

/** The id lists of a topic's loaded outputs; malformed entries are skipped (other checks report them). */
function idLists(topic: LoadedTopic): IdList[] {
  const lists: IdList[] = [];
  for (const doc of topic.documents) {
    const chunks = (doc.manifest as { chunks?: unknown } | null)?.chunks;
    if (!Array.isArray(chunks)) continue;
    const records: string[] = [];
    const pages: string[] = [];
    for (const c of chunks as { id?: unknown; page?: { ct?: { id?: unknown } } }[]) {
      if (str(c?.id)) records.push(c.id);
      if (str(c?.page?.ct?.id)) pages.push(c.page.ct.id);
    }
    lists.push({ kind: 'record id', owner: doc.manifestFile, ids: records });
    if (pages.length) lists.push({ kind: 'page CT id', owner: doc.manifestFile, ids: pages });
  }
  const docs = (topic.pages?.json as { documents?: unknown } | null | undefined)?.documents;
  if (Array.isArray(docs)) {
    for (const [i, d] of (docs as { source?: unknown; chunks?: { ct?: { id?: unknown } }[] }[]).entries()) {
      const ids = (Array.isArray(d?.chunks) ? d.chunks : []).map((c) => c?.ct?.id).filter(str);
      lists.push({ kind: 'chunks.json CT id', owner: `${topic.pages!.file} (${str(d?.source) ? d.source : `document ${i}`})`, ids });
    }
  }
  return lists;
}

/** Every id of each kind that more than one document of the topic uses. */
export function findIdCollisions(topic: LoadedTopic): IdCollision[] {
  const users = new Map<string, { kind: IdKind; id: string; documents: string[] }>();
  for (const list of idLists(topic)) {
    for (const id of new Set(list.ids)) {
      const key = `${list.kind}\u0000${id}`;
      const entry = users.get(key);
      if (entry) entry.documents.push(list.owner);
      else users.set(key, { kind: list.kind, id, documents: [list.owner] });
    }
  }
  return [...users.values()].filter((u) => u.documents.length > 1);
}

/**
 * Adds the check to a scorer's tally: one continuity item per document and id
 * kind, passed when none of that document's ids of that kind is used by another
 * document of the topic, else failed as a graph break naming the shared ids
 * (the first few) and the other documents.
 */
export function checkUniqueIds(topic: LoadedTopic, t: Tally): IdCollision[] {
  const collisions = findIdCollisions(topic);
  for (const list of idLists(topic)) {
    const mine = collisions.filter((c) => c.kind === list.kind && c.documents.includes(list.owner));
    t.item('continuity', mine.length === 0, list.owner, () => {
      const others = [...new Set(mine.flatMap((c) => c.documents.filter((d) => d !== list.owner)))];
      const shown = mine.slice(0, 3).map((c) => c.id).join(', ');
      const ids = mine.length > 3 ? `${shown} and ${mine.length - 3} more` : shown;
      return `${list.kind}s ${ids} also used by ${others.join(', ')}: ids must be unique across the topic (seed 000's CT collision in merged docs)`;
    }, true);
  }
  return collisions;
}
