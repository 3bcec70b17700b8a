// Loading and shaping the built files: index.json, the chunk manifest, the source document.
// No DOM here, so the layout logic is unit-tested in Node (src/data.test.ts).

/**
 * The served docs root. The page lives at <root>/_inspect/, so "../" from it is the root;
 * `?root=URL` points the page at docs served elsewhere (they must allow CORS, docs-serve does).
 * @param {string} pageUrl
 * @returns {URL}
 */
export function docsRoot(pageUrl) {
  const page = new URL(pageUrl);
  const root = page.searchParams.get('root');
  const url = new URL(root ?? '../', page);
  // `javascript:` or `data:` has no folders to find index.json in: "Failed to construct 'URL'".
  if (root !== null && url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`?root=${root}: not an http(s) URL of a docs root`);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/**
 * `libraries/x` → <root>/libraries/x/index.json, each folder name URL-encoded (as index-tool's
 * `_links` are). `""` is the root index.
 * @param {URL} root @param {string} topicId
 */
export function indexUrl(root, topicId) {
  const segments = topicId.split('/').filter((s) => s !== '' && s !== '.');
  // A topic is a folder under the root: ".." would resolve above it (URLs drop dot segments).
  if (segments.includes('..')) throw new Error(`topic ${JSON.stringify(topicId)}: ".." is not a folder under the docs root`);
  const path = segments.map(encodeURIComponent).join('/');
  return new URL(path ? `${path}/index.json` : 'index.json', root);
}

/** @param {URL} url */
async function fetchOk(url) {
  let res;
  try {
    res = await fetch(url);
  } catch (err) {
    throw new Error(`${url.href}: could not be fetched (${err instanceof Error ? err.message : String(err)}); is docs-serve running?`);
  }
  if (res.status === 503) throw new Error(`${url.href}: HTTP 503${await serverSays(res)}; the server cannot give it while a build of this topic is under way or after one was killed before it finished: wait for the build, or build the topic again (npx nx run-many -t index, or chunkyard chunk <topic folder>), then reload`);
  if (!res.ok) throw new Error(`${url.href}: HTTP ${res.status}${res.status === 404 ? ' (not built yet? run the index target: npx nx run-many -t index)' : ''}`);
  return res;
}

/**
 * The first line of a plain-text error answer, at most 300 characters, as `: <text>`, or ''.
 * docs-serve answers a topic's chunks 503 when its _chunks/ is missing and a build's temp of it
 * is there (a chunking-tool killed between the two renames that swap the folder in), with a body
 * saying so: the page showed only "HTTP 503", with no word of why or what to run.
 * @param {Response} res
 */
async function serverSays(res) {
  if (!(res.headers.get('content-type') ?? '').startsWith('text/plain')) return '';
  try {
    const line = (await res.text()).split(/\r?\n/)[0]?.trim() ?? '';
    return line === '' ? '' : `: ${line.length > 300 ? `${line.slice(0, 297)}...` : line}`;
  } catch {
    return '';
  }
}

/** @param {URL} url @returns {Promise<any>} parsed JSON, shape checked by the caller */
export async function fetchJson(url) {
  const res = await fetchOk(url);
  try {
    return await res.json();
  } catch {
    throw new Error(`${url.href}: not valid JSON`);
  }
}

/** @param {URL} url */
export async function fetchText(url) {
  // res.text() decodes UTF-8 and drops a BOM, as chunking-tool's reader does, so positions agree.
  return (await fetchOk(url)).text();
}

/**
 * Everything the page shows for one document of one topic.
 * @param {URL} root @param {string} topicId @param {string | null} wantedDoc
 */
export async function loadTopic(root, topicId, wantedDoc) {
  const idxUrl = indexUrl(root, topicId);
  const index = await fetchJson(idxUrl);
  const docs = Object.keys(index?._embedded?.chunks ?? {});
  if (index?.kind !== 'topic' || docs.length === 0) throw new Error(`${idxUrl.href}: not a topic index (no _embedded.chunks); pick a topic from the list`);
  const doc = wantedDoc && docs.includes(wantedDoc) ? wantedDoc : /** @type {string} */ (docs[0]);
  const group = index._embedded.chunks[doc];
  // What index-tool writes; anything else is named with its file, where it was a TypeError
  // ("Cannot read properties of null") or a fetch of ".../undefined" blamed on the build.
  const where = `${idxUrl.href}: _embedded.chunks[${JSON.stringify(doc)}]`;
  if (!group || typeof group !== 'object') throw new Error(`${where} is not an object with "source" and "manifest" (not an index.json index-tool wrote; rebuild: npx nx run-many -t index)`);
  /** @param {'manifest' | 'source'} key */
  const fileUrl = (key) => {
    const value = group[key];
    if (typeof value !== 'string' || value === '') throw new Error(`${where}.${key} is not a path (not an index.json index-tool wrote; rebuild: npx nx run-many -t index)`);
    // `manifest` is a URL (percent-encoded by topic-spec); `source` is the file's path, where
    // `#`, `?` and `%` are characters of its name (c#-guide.md), not a fragment, query or escape.
    const url = resolveLink(key === 'source' ? value.replace(/[%#?]/g, encodeURIComponent) : value, idxUrl, `${where}.${key} ${quoted(value)}`);
    if (url.origin !== idxUrl.origin) throw new Error(`${where}.${key} ${quoted(value)} is not a path on this server`);
    // "../../../secret.json" stays on the server but leaves the docs (with ?root= below the
    // server's root, or docs-serve's own files beside them): it was fetched, and its text shown
    // or blamed on the build. docs-query refuses the same URLs (retrieval's UrlSource).
    if (!insideRoot(url, root)) throw new Error(`${where}.${key} ${quoted(value)} leads outside the docs root ${root.href}, which the page never reads ${REBUILD}`);
    return url;
  };
  const manifestUrl = fileUrl('manifest');
  const sourceUrl = fileUrl('source');
  checkGroupLists(index, group, `${idxUrl.href}: `, where);
  const [manifest, source] = await Promise.all([fetchJson(manifestUrl), fetchText(sourceUrl)]);
  if (!Array.isArray(manifest?.chunks)) throw new Error(`${manifestUrl.href}: no chunks[] (not a chunk manifest)`);
  const bad = manifest.chunks.findIndex(
    (/** @type {any} */ c) => typeof c?.sourcePosition?.charStart !== 'number' || typeof c.sourcePosition.charEnd !== 'number',
  );
  if (bad >= 0) throw new Error(`${manifestUrl.href}: chunk ${bad} has no sourcePosition { charStart, charEnd } (not a chunk manifest; rebuild: npx nx run-many -t index)`);
  const badColumns = manifest.chunks.findIndex((/** @type {any} */ c) => c.tableColumns !== undefined && !Array.isArray(c.tableColumns));
  if (badColumns >= 0) throw new Error(`${manifestUrl.href}: chunk ${badColumns}'s tableColumns is not a list (not a chunk manifest; rebuild: npx nx run-many -t index)`);
  checkSameBuild(group, manifest, where, manifestUrl);
  return { topicId, index, docs, doc, group, manifest, source, urls: { index: idxUrl, manifest: manifestUrl, source: sourceUrl } };
}

const REBUILD = '(not an index.json index-tool wrote; rebuild: npx nx run-many -t index)';

/**
 * Checks the lists the page walks in a topic's index.json: the stripe orders, the items with
 * their keywords and prompt hashes, and the questions. One of another type (a hand-edited or
 * foreign index.json, `"stripe_order": {}`) stopped the page with "order.map is not a function"
 * or, on a click, threw in the console and left the detail pane empty; it is named here, with
 * the file, before anything is drawn. Each list is walked once.
 * @param {any} index @param {any} group @param {string} file `<index.json URL>: ` @param {string} where the group's path in it
 */
function checkGroupLists(index, group, file, where) {
  /** @param {unknown} value @param {string} what @param {(x: unknown) => boolean} ok @param {string} expected */
  const list = (value, what, ok, expected) => {
    if (value === undefined) return;
    if (!Array.isArray(value)) throw new Error(`${what} is ${typeName(value)}, not a list ${REBUILD}`);
    const bad = value.findIndex((x) => !ok(x));
    if (bad >= 0) throw new Error(`${what}[${bad}] is ${typeName(value[bad])}, not ${expected} ${REBUILD}`);
  };
  const isIndex = (/** @type {unknown} */ x) => Number.isInteger(x) && /** @type {number} */ (x) >= 0;
  const isObject = (/** @type {unknown} */ x) => typeof x === 'object' && x !== null && !Array.isArray(x);
  list(group.stripe_order, `${where}.stripe_order`, isIndex, 'a chunk index');
  list(group.stripe_order_technical, `${where}.stripe_order_technical`, isIndex, 'a chunk index');
  list(group.items, `${where}.items`, (x) => x === null || isObject(x), 'an object');
  (group.items ?? []).forEach((/** @type {any} */ item, /** @type {number} */ i) => {
    if (item === null) return;
    list(item.keywords, `${where}.items[${i}].keywords`, (k) => isObject(k) && typeof (/** @type {any} */ (k).name) === 'string', 'a keyword { name, score }');
    list(item.prompt_hashes, `${where}.items[${i}].prompt_hashes`, (x) => typeof x === 'string', 'a hash string');
  });
  list(index._embedded.questions, `${file}_embedded.questions`, (q) => isObject(q) && typeof (/** @type {any} */ (q).hash) === 'string', 'a question { hash, question }');
}

/**
 * Whether the topic's index.json was built from this manifest. A manifest rebuilt after its
 * index.json (chunking-tool run alone, or a pull request that changed one file and not the other)
 * was drawn as it stood: the stripe order's cells for chunks no longer there did nothing, none
 * was selected, and the keywords, similarities and questions of the old chunks were shown
 * against the new ones, with no word of it (issue 15 probe). index-tool records the chunk count
 * and the source's SHA-256 it read; a stripe order may only name chunks the manifest has.
 * @param {any} group @param {any} manifest @param {string} where the group's path in index.json @param {URL} manifestUrl
 */
function checkSameBuild(group, manifest, where, manifestUrl) {
  const n = manifest.chunks.length;
  const stale = `the topic's index.json was not built from this manifest (built before it, or edited by hand); rebuild: npx nx run-many -t index`;
  if (n === 0) throw new Error(`${manifestUrl.href}: no chunks (chunking-tool writes at least one; not a chunk manifest it wrote); rebuild: npx nx run-many -t index`);
  if (typeof group.count === 'number' && group.count !== n) throw new Error(`${where}.count is ${group.count}, but ${manifestUrl.href} has ${n} chunk${n === 1 ? '' : 's'}: ${stale}`);
  if (typeof group.source_sha256 === 'string' && typeof manifest.sourceSha256 === 'string' && group.source_sha256 !== manifest.sourceSha256) {
    throw new Error(`${where}.source_sha256 differs from ${manifestUrl.href}'s sourceSha256 (the source was chunked again since): ${stale}`);
  }
  for (const key of ['stripe_order', 'stripe_order_technical']) {
    const order = group[key] ?? [];
    const bad = order.findIndex((/** @type {number} */ i) => i >= n);
    if (bad >= 0) throw new Error(`${where}.${key}[${bad}] is chunk ${order[bad]}, but ${manifestUrl.href} has ${n} chunk${n === 1 ? '' : 's'}: ${stale}`);
  }
}

/**
 * Whether `url` is in the docs tree served at `root`: the same origin, at or below its path.
 * URLs are compared after parsing, which has already resolved `..`, `%2e%2e` and `\`.
 * @param {URL} url @param {URL} root a folder URL (ends in /, as docsRoot makes it)
 */
export function insideRoot(url, root) {
  return url.origin === root.origin && url.pathname.startsWith(root.pathname);
}

/**
 * `href` resolved against `base`; one no URL parser accepts ("//%2f/", "http://[") is named
 * with `what` (its file and field), where it was "Invalid URL" alone.
 * @param {string} href @param {URL} base @param {string} what
 */
function resolveLink(href, base, what) {
  try {
    return new URL(href, base);
  } catch {
    throw new Error(`${what} is not a URL ${REBUILD}`);
  }
}

/** A string from a built file, quoted and cut short for a message. @param {string} value */
function quoted(value) {
  return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
}

/** A value's type for a message, never the value itself (it may be a megabyte long). @param {unknown} value */
function typeName(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * @typedef {{ kind: 'text', start: number, end: number, overlap: boolean }} TextRun
 * @typedef {{ kind: 'chunk', index: number, start: number, end: number, drawnEnd: number, overlapEnd: number, overlapWith: number[], children: Run[] }} ChunkRun
 * @typedef {TextRun | ChunkRun} Run
 */

/**
 * Lays the chunks over the source as a tree of runs, each source character drawn once:
 * text outside every chunk at the top, one node per chunk holding its text. Works for every
 * strategy, from `sourcePosition` and `overlapChars` alone:
 * - a chunk that starts inside an earlier one and ends after it (the usual overlap) cuts the
 *   earlier one short at its start (`drawnEnd`); the shared text is drawn inside the later
 *   chunk, marked as overlap (`start`..`overlapEnd`, at least the chunk's first `overlapChars`);
 * - a chunk wholly inside another (hierarchical snippets in sections) is drawn nested in it;
 * - text no chunk covers (front matter, blank lines between chunks) is a top-level run.
 * Ranges are clamped to the source; ties in start go to the longer chunk (the outer one).
 * @param {{ sourcePosition: { charStart: number, charEnd: number }, overlapChars?: number }[]} chunks
 * @param {number} length the source's length in UTF-16 code units (what positions count)
 * @returns {Run[]}
 */
export function layoutTree(chunks, length) {
  const order = chunks
    .map((c, index) => {
      const start = clamp(c.sourcePosition.charStart, length);
      const overlapChars = Number.isFinite(c.overlapChars) && (c.overlapChars ?? 0) > 0 ? /** @type {number} */ (c.overlapChars) : 0;
      return { index, start, end: Math.max(start, clamp(c.sourcePosition.charEnd, length)), overlapChars };
    })
    .sort((a, b) => a.start - b.start || b.end - a.end || a.index - b.index);
  /** @type {{ children: Run[], end: number, node: ChunkRun | null }[]} */
  const stack = [{ children: [], end: length, node: null }];
  let pos = 0; // source drawn up to here
  const top = () => /** @type {(typeof stack)[number]} */ (stack[stack.length - 1]);
  /** Draws the source from `pos` to `upTo` into the innermost open chunk (or the top level). */
  const draw = (/** @type {number} */ upTo) => {
    if (upTo <= pos) return;
    const t = top();
    const split = t.node ? Math.min(Math.max(t.node.overlapEnd, pos), upTo) : pos;
    if (split > pos) t.children.push({ kind: 'text', start: pos, end: split, overlap: true });
    if (upTo > split) t.children.push({ kind: 'text', start: split, end: upTo, overlap: false });
    pos = upTo;
  };
  for (const c of order) {
    while (stack.length > 1 && top().end <= c.start) {
      draw(top().end);
      stack.pop();
    }
    let overlapEnd = c.start;
    /** @type {number[]} */
    const overlapWith = [];
    while (stack.length > 1 && top().end < c.end) {
      // Overlaps c's start: the earlier chunk is drawn up to c, the rest of it inside c.
      draw(c.start);
      const cut = /** @type {ChunkRun} */ (top().node);
      cut.drawnEnd = c.start;
      if (top().end > c.start) overlapWith.unshift(cut.index);
      overlapEnd = Math.max(overlapEnd, top().end);
      stack.pop();
    }
    draw(c.start);
    // The manifest's overlapChars (the chunk's lead-in repeated from before) counts too: it may
    // reach past the earlier chunk's end (the blank line between them) or stand alone (nested).
    overlapEnd = Math.max(overlapEnd, c.start + c.overlapChars);
    /** @type {ChunkRun} */
    const node = { kind: 'chunk', index: c.index, start: c.start, end: c.end, drawnEnd: c.end, overlapEnd: Math.min(overlapEnd, c.end), overlapWith, children: [] };
    top().children.push(node);
    stack.push({ children: node.children, end: c.end, node });
  }
  while (stack.length > 1) {
    draw(top().end);
    stack.pop();
  }
  draw(length);
  return stack[0]?.children ?? [];
}

/**
 * The deepest nesting of chunks in a layout (0: no chunk), counted without recursion.
 * @param {Run[]} runs
 */
export function nestingDepth(runs) {
  let deepest = 0;
  /** @type {[Run[], number][]} */
  const work = [[runs, 1]];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const [list, depth] = item;
    for (const r of list) {
      if (r.kind !== 'chunk') continue;
      deepest = Math.max(deepest, depth);
      if (r.children.length > 0) work.push([r.children, depth + 1]);
    }
  }
  return deepest;
}

/**
 * How deep the page draws chunks inside chunks. Chunkyard's strategies nest at most two deep
 * (hierarchical snippets in sections); a manifest of 20,000 chunks over one range nested
 * 20,000 spans deep, and the browser's tab crashed (found by a probe).
 */
export const MAX_NESTING = 64;

/**
 * How much of one text the detail pane shows. A chunk of 5 MB (maxTokens may be up to
 * 1,000,000) took 8 s to lay out on every click, its text shown twice (embedText and the
 * record); the source view still shows all of it.
 */
export const DETAIL_CHARS = 50_000;

/**
 * `text` cut to `max` characters (not inside a surrogate pair), with a note of how much was left out.
 * @param {string} text @param {number} [max]
 */
export function clipText(text, max = DETAIL_CHARS) {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}… [${(text.length - end).toLocaleString('en')} more characters not shown]`;
}

/**
 * `text` as the page draws it: a CR not followed by LF becomes LF. Markdown (and the chunker)
 * ends a line at a lone CR too, but the browser draws one as nothing, so a document with
 * CR-only line endings read as one run-on paragraph, every line glued to the next (issue 15
 * probe). One character for one, so every position still counts in the source as served.
 * @param {string} text
 */
export function shownLineBreaks(text) {
  return text.indexOf('\r') < 0 ? text : text.replace(/\r(?!\n)/g, '\n');
}

/** @param {number} n @param {number} length */
function clamp(n, length) {
  return Math.min(Math.max(0, Number.isFinite(n) ? n : 0), length);
}

/**
 * The hard token cap a chunk is held to, by strategy, from the manifest's `options`:
 * semantic `maxTokens`; hierarchical `sectionMaxTokens` / `snippetMaxTokens` by the chunk's
 * `tier.level`; token-window `singlePieceMaxTokens` (a window is `windowTokens`, a piece that
 * cannot be split may reach this); paginate Nmax = `ctxSize - bufSize`. Undefined if none.
 * @param {any} options @param {any} chunk @returns {number | undefined}
 */
export function tokenCap(options, chunk) {
  const num = (/** @type {unknown} */ x) => (typeof x === 'number' && x > 0 ? x : undefined);
  if (!options) return undefined;
  const level = chunk?.tier?.level;
  return (
    num(options.maxTokens) ??
    (level === 'section' ? num(options.sectionMaxTokens) : level === 'snippet' ? num(options.snippetMaxTokens) : undefined) ??
    num(options.singlePieceMaxTokens) ??
    num(options.windowTokens) ??
    (num(options.ctxSize) && num(options.bufSize) !== undefined ? options.ctxSize - options.bufSize : undefined)
  );
}

/** The caps for the page header: "512", or "sections 2048 · snippets 512". @param {any} options */
export function capLabel(options) {
  if (!options) return '—';
  if (options.sectionMaxTokens && options.snippetMaxTokens && !options.maxTokens) return `sections ${options.sectionMaxTokens} · snippets ${options.snippetMaxTokens}`;
  return String(tokenCap(options, null) ?? '—');
}

/**
 * Question text by SimHash, from index.json's `_embedded.questions` (index-tool writes it).
 * @param {any} index @returns {Map<string, string>}
 */
export function questionsByHash(index) {
  return new Map((index?._embedded?.questions ?? []).map((/** @type {any} */ q) => [q.hash, q.question]));
}

/**
 * How many index.json files the topic list asks for at once. A section of 5,000 topics was
 * 5,000 fetches at once: Chromium failed them (ERR_INSUFFICIENT_RESOURCES) and the page said
 * "could not be fetched; is docs-serve running?" of a server that was. Six is what a browser
 * opens to one HTTP/1.1 host anyway.
 */
export const FETCH_CONCURRENCY = 6;

/**
 * `fn` over `items`, at most `limit` at a time, results in order; the first failure rejects
 * and stops the rest from starting.
 * @template T, R
 * @param {T[]} items @param {number} limit @param {(item: T) => Promise<R>} fn
 * @returns {Promise<R[]>}
 */
async function mapLimited(items, limit, fn) {
  /** @type {R[]} */
  const out = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(/** @type {T} */ (items[i]));
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * Every topic under the root, walking `_embedded.topics` links breadth-first.
 * @param {URL} root @returns {Promise<{ id: string, title: string, chunks: number }[]>}
 */
export async function listTopics(root) {
  const rootIndex = indexUrl(root, '');
  /** @type {{ id: string, title: string, chunks: number }[]} */
  const topics = [];
  const queue = [rootIndex];
  const seen = new Set();
  while (queue.length > 0) {
    const batch = queue.splice(0);
    const indexes = await mapLimited(batch, FETCH_CONCURRENCY, fetchJson);
    indexes.forEach((index, i) => {
      const at = /** @type {URL} */ (batch[i]).href;
      if (!index || typeof index !== 'object' || Array.isArray(index)) throw new Error(`${at}: not an index (expected a JSON object; rebuild: npx nx run-many -t index)`);
      if (index.kind === 'topic') {
        const groups = Object.values(index._embedded?.chunks ?? {});
        // A group that is null (or not an object) counts no chunks: it was "Cannot read properties of null (reading 'count')".
        // The page opens a topic by its folder (indexUrl), so the list names it by the folder its
        // index.json was found in, not by the id the file claims: a topic index without an id
        // linked to ?topic=undefined, and a copied folder whose index.json still held the
        // original's id was listed twice, both entries opening the original.
        const id = topicIdAt(/** @type {URL} */ (batch[i]), root);
        const title = typeof index.title === 'string' && index.title.trim() !== '' ? index.title : id;
        topics.push({ id, title, chunks: groups.reduce((n, g) => n + (typeof g?.count === 'number' ? g.count : 0), 0) });
      }
      const children = index._embedded?.topics ?? [];
      if (!Array.isArray(children)) throw new Error(`${at}: _embedded.topics is not a list`);
      for (const [n, child] of children.entries()) {
        const link = child?._links?.self?.href;
        if (typeof link !== 'string') throw new Error(`${at}: _embedded.topics[${n}] has no _links.self.href`);
        const url = resolveLink(link, /** @type {URL} */ (batch[i]), `${at}: _embedded.topics[${n}]._links.self.href ${quoted(link)}`);
        // A link to another host or above the root was fetched as it stood, so a docs tree (or a
        // pull request to one) could make the page read any URL the browser can reach.
        if (!insideRoot(url, root)) {
          // index-tool writes "/a/index.json": from a ?root= below the host's root, its own links leave it.
          const why = /^\/(?![/\\])/.test(link) && root.pathname !== '/' ? `; index-tool's links start at the host's root, so serve the docs at the root of a host (as docs-serve does), or open one topic with ?topic=` : ` ${REBUILD}`;
          throw new Error(`${at}: _embedded.topics[${n}]._links.self.href ${quoted(link)} leads outside the docs root ${root.href}, which the page never reads${why}`);
        }
        const href = url.href;
        if (seen.has(href)) continue;
        seen.add(href);
        queue.push(new URL(href));
      }
    });
  }
  return topics.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The topic path of the index.json at `url` (inside `root`): its folder below the root, each
 * name decoded, so that indexUrl(root, id) is `url` again.
 * @param {URL} url @param {URL} root
 */
export function topicIdAt(url, root) {
  const path = url.pathname.slice(root.pathname.length);
  return path
    .slice(0, path.lastIndexOf('/') + 1)
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s; // "%zz" is no escape (index-tool never writes one): kept as it stands
      }
    })
    .join('/');
}

/**
 * SHA-256 of the text as UTF-8, hex, as chunking-tool writes `sourceSha256`; null where
 * crypto.subtle is missing (plain http on a non-loopback host).
 * @param {string} text
 */
export async function sha256Hex(text) {
  if (!globalThis.crypto?.subtle) return null;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
