/**
 * DocsClient: loads what retrieval needs from a DocsSource, once each — the topic indexes
 * (walked from the root), manifests and chunk files — and hands typed data to the pure
 * functions (disclose, matchPrompts, rankBySimilarity, expand).
 */
import { createHash } from 'node:crypto';
import { ContractError, parseManifest, type ChunkGroup, type ChunkItem, type Manifest } from './contract.js';
import { shownValue } from './similarity.js';
import { readJson, type DocsSource } from './source.js';
import { topicFilter, walkTopics, type LoadedTopic } from './walk.js';

export class DocsClient {
  private all: Promise<LoadedTopic[]> | null = null;
  private readonly manifests = new Map<string, Promise<Manifest>>();

  constructor(readonly source: DocsSource) {
    // null failed at the first read, as "Cannot read properties of null (reading 'rootIndexUrl')".
    if (typeof source !== 'object' || source === null || typeof (source as { readText?: unknown }).readText !== 'function') {
      throw new TypeError(`DocsClient: the source must be a DocsSource (openSource('docs') or openSource('http://…/')), got ${source === null ? 'null' : typeof source}`);
    }
  }

  /** Every topic (walked once), or those at or below `filter` (a topic id or section; undefined, null or '' for all). */
  async topics(filter?: string | null): Promise<LoadedTopic[]> {
    // From JSON (an MCP tool's arguments), a number failed as "filter.slice is not a function".
    if (filter !== undefined && filter !== null && typeof filter !== 'string') throw new RangeError(`the topic filter must be a string, got ${shownValue(filter)}`);
    this.all ??= walkTopics(this.source);
    const all = await this.all;
    const matches = topicFilter(filter ?? undefined);
    return all.filter((t) => matches(t.id));
  }

  group(topic: LoadedTopic, doc: string): ChunkGroup {
    // Own keys only: an index built by hand as a {} would find "constructor" on its prototype.
    const chunks = topic.index._embedded.chunks;
    const g = Object.hasOwn(chunks, doc) ? chunks[doc] : undefined;
    if (!g) throw new ContractError(this.source.describe(topic.url), `no document ${JSON.stringify(doc)} in _embedded.chunks`);
    return g;
  }

  item(topic: LoadedTopic, doc: string, index: number): ChunkItem {
    const item = this.group(topic, doc).items[index];
    if (!item) throw new ContractError(this.source.describe(topic.url), `${doc}: no chunk ${index}`);
    return item;
  }

  chunkUrl(topic: LoadedTopic, doc: string, index: number): URL {
    return new URL(this.item(topic, doc, index).href, topic.url);
  }

  /**
   * A chunk's exact text, from its chunk file (what a deployed client fetches), checked against
   * the item's sha256 when the index has one: read without the manifest, a file the chunk step
   * rewrote since the index was built was shown under the old item's title and place.
   * `maxBytes` is the source's readText cap (a file past it is a SourceTooLargeError).
   */
  async chunkText(topic: LoadedTopic, doc: string, index: number, maxBytes?: number): Promise<string> {
    const item = this.item(topic, doc, index);
    const url = new URL(item.href, topic.url);
    const text = await (maxBytes === undefined ? this.source.readText(url) : this.source.readText(url, maxBytes));
    // The source has dropped a leading BOM, as the index step's hash (chunkTextSha256) does.
    if (item.sha256 !== undefined && createHash('sha256').update(text, 'utf8').digest('hex') !== item.sha256) {
      throw rebuiltError(this.source.describe(url), `holds other text than ${this.source.describe(topic.url)} was built from (its SHA-256 differs from the index item's sha256)`);
    }
    return text;
  }

  /** The document's manifest (validated against the index's count), loaded once. */
  manifest(topic: LoadedTopic, doc: string): Promise<Manifest> {
    const url = new URL(this.group(topic, doc).manifest, topic.url);
    let m = this.manifests.get(url.href);
    if (!m) {
      const group = this.group(topic, doc);
      m = readJson(this.source, url).then((json) => {
        // The hash first: a rebuild usually changes the count too, and "expected 24 chunks
        // (the index's count), got 27" read as damage, not as a build under way.
        const sha = (json as { sourceSha256?: unknown } | null)?.sourceSha256;
        if (group.source_sha256 !== undefined && typeof sha === 'string' && sha !== group.source_sha256) {
          throw rebuiltError(this.source.describe(url), `holds other chunks than ${this.source.describe(topic.url)} was built from (its sourceSha256 differs from the index's source_sha256)`);
        }
        return parseManifest(json, this.source.describe(url), group.count);
      });
      this.manifests.set(url.href, m);
    }
    return m;
  }
}

/**
 * A manifest or chunk file other than the one its index.json was built from: the chunk step
 * has rewritten `_chunks/` and the index step has not yet rewritten index.json (a rebuild under
 * way, or one that stopped between them). Its index's titles, order and question hashes
 * describe other chunks, so reading on would mix two versions of the document.
 */
function rebuiltError(file: string, differs: string): ContractError {
  return new ContractError(file, `${differs}: the topic is being rebuilt, or its index step has not run since its chunk step; read it again when the build has finished`);
}
