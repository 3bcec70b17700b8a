// @ts-check
/**
 * The pure half of @chunkyard/nx: from the paths of a workspace's topic marker files and the
 * plugin options to Nx project configurations. No file contents are read here, so adding or
 * editing a topic's text never changes the shape of the project graph; the only file-system
 * questions (where the tools are installed, whether a docs root is a symlink) are asked by
 * index.cjs and passed in as data.
 */
const { createHash } = require('node:crypto');
const { posix, sep } = require('node:path');

/**
 * @typedef {object} ChunkyardNxOptions
 * @property {string | string[]} [docsRoot]  workspace-relative folder(s) holding the topics (default `docs`)
 * @property {string} [topicMarker]          file whose presence makes a folder a topic (default `golden-reference.md`)
 * @property {string} [configFile]           workspace-relative config every topic reads (default `chunkyard.config.yaml`)
 * @property {string} [embeddingCacheDir]    workspace-relative root of the per-topic embedding caches (default `.embedding-cache`)
 * @property {false | { title?: string, summary?: string, full?: boolean }} [llmsTxt]  the docs root's llms.txt (default on; false: none; full: also llms-full.txt)
 */

/**
 * @typedef {object} NormalizedOptions
 * @property {string[]} docsRoots
 * @property {string} topicMarker
 * @property {string} configFile
 * @property {string} embeddingCacheDir
 * @property {false | { title?: string, summary?: string, full?: boolean }} llmsTxt
 */

/**
 * How a pipeline tool is wired into the task graph.
 * - `installed`: the tool is an npm package in node_modules. Its version (and, through the
 *   lockfile, its whole dependency closure) is hashed with `externalDependencies`, so upgrading
 *   chunkyard reruns every topic and no other lockfile change does.
 * - `workspace`: the tool is a project of this very workspace (chunkyard's own repo). Its cached
 *   `build` runs first. A topic task hashes what that build hashes (`buildInputs`: the build
 *   target's own inputs, with `{projectRoot}` made the tool's folder; see mirrorBuildInputs), so
 *   the tool is known from sources and no task re-reads the git-ignored bundle. Without them (a
 *   build whose inputs are not written out, or name other projects' inputs), the built bundle
 *   is hashed through `dependentTasksOutputFiles`, as before.
 * @typedef {{ kind: 'installed', packageName: string } | { kind: 'workspace', packageName: string, project: string, buildInputs?: unknown[] }} ToolLocation
 */

/**
 * @typedef {object} Step
 * @property {string} target         Nx target name on every topic project.
 * @property {string} tool           npm package name of the tool.
 * @property {string} bin            the tool's command name (in the target's description).
 * @property {string[]} after        targets of the same topic that must run first.
 * @property {boolean} readsConfig   hashes the config file, and so (only then) gets `--config`.
 * @property {string[]} env          environment variables the tool reads that change what it writes (see SERVER_ENV).
 */

/**
 * The model servers' addresses, read from the environment when chunkyard.config.yaml names
 * none (@chunkyard/llm for chunk's lead lines under `llm:`, @chunkyard/embeddings for spec's
 * vectors): another server may serve other weights under the same model name, so a changed
 * address is a cache miss, not the other server's output served from the cache. Each is an Nx
 * `{ env }` input of the step that reads it and of every step after it. OPENAI_API_KEY and the
 * OpenAI organisation and project are not: they change who pays, not what is written, and a
 * rotated key must not rerun every topic.
 */
const SERVER_ENV = Object.freeze(['OLLAMA_HOST', 'OPENAI_BASE_URL']);

/**
 * The per-topic pipeline: chunk and keywords, then spec, then the topic's own index.json.
 * Keywords depend on the topic's text only, so a chunking setting never reruns them; the
 * topic's index.json depends on what spec wrote, so the config is not its input either.
 * @type {readonly Step[]}
 */
const STEPS = Object.freeze([
  { target: 'chunk', tool: '@chunkyard/chunking-tool', bin: 'chunking-tool', after: [], readsConfig: true, env: [...SERVER_ENV] },
  { target: 'keywords', tool: '@chunkyard/keyword-extractor', bin: 'keyword-extractor', after: [], readsConfig: false, env: [] },
  { target: 'spec', tool: '@chunkyard/topic-spec', bin: 'topic-spec', after: ['chunk', 'keywords'], readsConfig: true, env: [...SERVER_ENV] },
]);

/** The index tool writes every folder's index.json (topics and sections alike). */
const INDEX_TOOL = Object.freeze({ tool: '@chunkyard/index-tool' });

/** Every tool package a workspace needs; index.cjs locates each one. */
const TOOL_PACKAGES = Object.freeze([...STEPS.map((s) => s.tool), INDEX_TOOL.tool]);

/**
 * The target that writes one folder's own index.json. `index` is what users run: it also
 * brings every ancestor's index.json up to date (see projectsFor).
 */
const INDEX_JSON_TARGET = 'index-json';

/** The docs root's llms.txt, from every index.json below it. */
const LLMS_TXT_TARGET = 'llms-txt';

/** The plugin's options (ChunkyardNxOptions), in the order the README lists them. */
const KNOWN_OPTIONS = ['docsRoot', 'topicMarker', 'configFile', 'embeddingCacheDir', 'llmsTxt'];

/**
 * @param {ChunkyardNxOptions | undefined} options
 * @returns {NormalizedOptions}
 */
function normalizeOptions(options) {
  if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) {
    throw new Error(`@chunkyard/nx: the options of @chunkyard/nx in nx.json must be an object, got ${JSON.stringify(options)}`);
  }
  const o = options ?? {};
  // A misspelt option was ignored: `topicMaker` silently left the default marker in force.
  const unknown = Object.keys(o).find((k) => !KNOWN_OPTIONS.includes(k));
  if (unknown !== undefined) {
    throw new Error(`@chunkyard/nx: unknown option ${JSON.stringify(unknown)} in the options of @chunkyard/nx in nx.json (known: ${KNOWN_OPTIONS.join(', ')})`);
  }
  const roots = o.docsRoot === undefined ? ['docs'] : Array.isArray(o.docsRoot) ? o.docsRoot : [o.docsRoot];
  if (roots.length === 0) throw new Error('@chunkyard/nx: option docsRoot of @chunkyard/nx in nx.json is an empty list; give at least one folder');
  const docsRoots = roots.map((r) => cleanRelative(r, 'docsRoot'));
  for (const a of docsRoots) {
    for (const b of docsRoots) {
      if (a !== b && (b === a || b.startsWith(`${a}/`))) {
        throw new Error(`@chunkyard/nx: docsRoot "${b}" lies inside docsRoot "${a}" (option docsRoot of @chunkyard/nx in nx.json); give folders that do not nest`);
      }
    }
  }
  const topicMarker = o.topicMarker ?? 'golden-reference.md';
  // "." and ".." are in every folder, and control characters cannot be a file name the tools
  // accept: topic-io refuses all of them in CHUNKYARD_TOPIC_MARKER, so refuse them here first.
  if (typeof topicMarker !== 'string' || topicMarker === '' || topicMarker === '.' || topicMarker === '..' || /[\\/*?{}[\]\u0000-\u001f\u007f]/.test(topicMarker)) {
    throw new Error(`@chunkyard/nx: option topicMarker of @chunkyard/nx in nx.json must be a plain file name (no folders or glob characters), got ${JSON.stringify(topicMarker)}`);
  }
  // A name chunkyard writes: `index.json` made every folder holding one a topic, whose source
  // index-tool then overwrote; a chunk manifest name (`*.json`) made every `_chunks/` a topic.
  if (['index.json', 'topic-spec.md', 'llms.txt', 'llms-full.txt', 'words.md'].includes(topicMarker) || topicMarker.endsWith('.json')) {
    throw new Error(
      `@chunkyard/nx: option topicMarker of @chunkyard/nx in nx.json, ${JSON.stringify(topicMarker)}, is a name of a file chunkyard writes (index.json, topic-spec.md, llms.txt, llms-full.txt, _keywords/words.md, _chunks/*.json); give the name of the hand-written document`,
    );
  }
  // A name a tool reads from every topic folder with a meaning of its own: the document was
  // also parsed as that file. keywords.md failed every topic's keywords step with "no keyword
  // table", qa-pairs.md made the document its own questions, topic.yaml its own settings.
  if (['keywords.md', 'qa-pairs.md', 'topic.yaml'].includes(topicMarker)) {
    throw new Error(
      `@chunkyard/nx: option topicMarker of @chunkyard/nx in nx.json, ${JSON.stringify(topicMarker)}, is a file the tools read from every topic with a meaning of its own (keywords.md: hand-written keywords, qa-pairs.md: questions, topic.yaml: the topic's settings); give the name of the hand-written document`,
    );
  }
  return {
    docsRoots: [...new Set(docsRoots)],
    topicMarker,
    configFile: cleanRelative(o.configFile ?? 'chunkyard.config.yaml', 'configFile'),
    embeddingCacheDir: cleanRelative(o.embeddingCacheDir ?? '.embedding-cache', 'embeddingCacheDir'),
    llmsTxt: llmsTxtOption(o.llmsTxt),
  };
}

/** @param {unknown} value @returns {false | { title?: string, summary?: string, full?: boolean }} */
function llmsTxtOption(value) {
  if (value === undefined || value === true) return {};
  if (value === false) return false;
  const v = /** @type {Record<string, unknown>} */ (value);
  const ok =
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.entries(v).every(([k, x]) => ((k === 'title' || k === 'summary') && typeof x === 'string' && x.trim() !== '') || (k === 'full' && typeof x === 'boolean'));
  if (!ok) throw new Error(`@chunkyard/nx: option llmsTxt of @chunkyard/nx in nx.json must be false or { "title"?: string, "summary"?: string, "full"?: boolean }, got ${JSON.stringify(value)}`);
  // Passed to index-tool as options, where Nx would replace the token (see NX_TOKEN).
  for (const k of ['title', 'summary']) {
    const token = typeof v[k] === 'string' ? NX_TOKEN.exec(/** @type {string} */ (v[k])) : null;
    if (token) {
      throw new Error(`@chunkyard/nx: option llmsTxt.${k} of @chunkyard/nx in nx.json holds ${token[0]}, a token Nx replaces in a target's options (with no way to escape it); write the text without it`);
    }
  }
  return /** @type {{ title?: string, summary?: string, full?: boolean }} */ (v);
}

/**
 * A workspace-relative posix path without `./`, trailing `/` or `..`.
 * @param {unknown} value
 * @param {string} option
 */
function cleanRelative(value, option) {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new Error(`@chunkyard/nx: option ${option} of @chunkyard/nx in nx.json must be a non-empty workspace-relative path, got ${JSON.stringify(value)}`);
  }
  const p = posix.normalize(value.split('\\').join('/')).replace(/\/+$/, '');
  // Control and bidi characters: the docs root's name is a project name, which Nx prints raw.
  if (p === '.' || p.startsWith('../') || p === '..' || posix.isAbsolute(p) || /[*?{}[\]]/.test(p) || UNPRINTABLE.test(p)) {
    throw new Error(
      `@chunkyard/nx: option ${option} of @chunkyard/nx in nx.json must be ${option === 'configFile' ? 'a file' : 'a folder'} inside the workspace (no "..", no absolute path, no glob, no control characters), got ${escapeControl(JSON.stringify(value))}`,
    );
  }
  return p;
}

/**
 * The docs roots of each @chunkyard/nx entry of nx.json (`init` with another --docsRoot adds a
 * second entry). An entry whose options are wrong is left out: its own call reports them.
 * @param {{ plugins?: unknown[] } | undefined} nxJson
 * @returns {string[][]}
 */
function entryRootsOf(nxJson) {
  /** @type {string[][]} */
  const out = [];
  for (const p of nxJson?.plugins ?? []) {
    const entry = /** @type {{ plugin?: unknown, options?: unknown }} */ (typeof p === 'string' ? { plugin: p } : (p ?? {}));
    if (entry.plugin !== '@chunkyard/nx') continue;
    try {
      out.push(normalizeOptions(/** @type {ChunkyardNxOptions | undefined} */ (entry.options)).docsRoots);
    } catch {
      // reported by that entry
    }
  }
  return out;
}

/**
 * The project names the other @chunkyard/nx entries of nx.json give (each with its folder), as
 * their own calls derive them from the same files: Nx hands each entry's call only that entry's
 * projects, so docsRoot "a/b" in one entry and "a-b" in another both made the project "a-b" (and
 * a/b/t and a-b/t both "topic-a-b-t"), and Nx stopped every command with "defined in multiple
 * locations", which nx run-many prints only as "Failed to process project graph" (found by a
 * probe). Entries with wrong options are left out (their own call reports them), and so are
 * folders a project file names (`named`, which the caller checks by that name).
 * @param {readonly string[]} files
 * @param {NormalizedOptions} own  this entry's options
 * @param {unknown} nxJson
 * @param {(dir: string) => boolean} named  whether a project.json or package.json names the folder's project
 * @returns {Map<string, string>} name -> folder
 */
function otherEntryNames(files, own, nxJson, named) {
  /** @type {Map<string, string>} */
  const out = new Map();
  for (const p of /** @type {{ plugins?: unknown[] } | undefined} */ (nxJson)?.plugins ?? []) {
    const entry = /** @type {{ plugin?: unknown, options?: unknown }} */ (typeof p === 'string' ? { plugin: p } : (p ?? {}));
    if (entry.plugin !== '@chunkyard/nx') continue;
    let options;
    try {
      options = normalizeOptions(/** @type {ChunkyardNxOptions | undefined} */ (entry.options));
    } catch {
      continue;
    }
    // Roots are in one entry each (checkEntryRoots), so an entry sharing one is this one.
    if (options.docsRoots.some((r) => own.docsRoots.includes(r))) continue;
    const markers = topicMarkers(files, options);
    const topics = new Set(markers.map((m) => posix.dirname(m)));
    for (const marker of markers) {
      const docsRoot = /** @type {string} */ (docsRootOf(marker, options.docsRoots));
      for (let dir = posix.dirname(marker); ; dir = posix.dirname(dir)) {
        // Several entries: names are always qualified by the root (createProjects).
        const name = projectName(dir, docsRoot, topics.has(dir), true);
        if (!out.has(name) && !named(dir)) out.set(name, dir);
        if (dir === docsRoot) break;
      }
    }
  }
  return out;
}

/**
 * How many @chunkyard/nx entries of nx.json keep their embedding caches in `cacheDir`: with
 * more than one, each sees only its own topics, so none may remove another's as stale.
 * @param {unknown} nxJson @param {string} cacheDir
 */
function entriesSharingCache(nxJson, cacheDir) {
  let n = 0;
  for (const p of /** @type {{ plugins?: unknown[] } | undefined} */ (nxJson)?.plugins ?? []) {
    const entry = /** @type {{ plugin?: unknown, options?: unknown }} */ (typeof p === 'string' ? { plugin: p } : (p ?? {}));
    if (entry.plugin !== '@chunkyard/nx') continue;
    try {
      if (normalizeOptions(/** @type {ChunkyardNxOptions | undefined} */ (entry.options)).embeddingCacheDir === cacheDir) n++;
    } catch {
      // reported by that entry
    }
  }
  return n;
}

/**
 * Each entry names its projects by its own roots, so two entries (docs, handbook) both made
 * `topic-plain` of docs/plain and handbook/plain, and Nx's message advised a project.json name,
 * which leaves both topics one embedding-cache folder. Names are qualified by the root whenever
 * the entries have several roots between them (createProjects); this refuses what qualifying
 * cannot keep apart: one root in two entries, or a root inside another entry's.
 * @param {string[]} own  this entry's roots
 * @param {string[][]} entries  every entry's roots, this one's included
 */
function checkEntryRoots(own, entries) {
  for (const a of own) {
    const holding = entries.filter((roots) => roots.includes(a)).length;
    if (holding > 1) throw new Error(`@chunkyard/nx: docsRoot "${a}" is in ${holding} entries of @chunkyard/nx in nx.json; give each folder to one entry`);
    for (const b of entries.flat()) {
      if (b !== a && (b.startsWith(`${a}/`) || a.startsWith(`${b}/`))) {
        const [outer, inner] = b.startsWith(`${a}/`) ? [a, b] : [b, a];
        throw new Error(`@chunkyard/nx: docsRoot "${inner}" lies inside docsRoot "${outer}" (entries of @chunkyard/nx in nx.json); give folders that do not nest`);
      }
    }
  }
}

/**
 * Project names: the root of a docs tree is named after its folder (`docs`, `content`,
 * `site-docs` for `site/docs`); below it, `topic-<path>` and `section-<path>` with the path
 * under the root joined by `-`. With several roots, names below a root carry the root's name
 * too, so `docs/a` and `content/a` stay distinct.
 * @param {string} dir
 * @param {string} docsRoot
 * @param {boolean} isTopic
 * @param {boolean} qualify
 */
function projectName(dir, docsRoot, isTopic, qualify) {
  const rootName = docsRoot.split('/').join('-');
  if (dir === docsRoot) return isTopic ? `topic-${rootName}` : rootName;
  const rel = dir.slice(docsRoot.length + 1).split('/').join('-');
  return `${isTopic ? 'topic' : 'section'}-${qualify ? `${rootName}-` : ''}${rel}`;
}

/**
 * Every topic folder and every folder between it and its docs root, each with its direct
 * children in that tree (sorted). Paths only.
 * @param {string[]} topicRoots
 * @param {string} docsRoot
 * @returns {Map<string, string[]>}
 */
function docsTree(topicRoots, docsRoot) {
  /** @type {Map<string, Set<string>>} */
  const tree = new Map();
  const add = (/** @type {string} */ dir) => {
    if (!tree.has(dir)) tree.set(dir, new Set());
  };
  for (const topic of topicRoots) {
    add(topic);
    let child = topic;
    while (child !== docsRoot) {
      const parent = posix.dirname(child);
      // A folder already in the tree has its whole chain to the root there: walking it again
      // made nested topics D deep cost D^2 steps, each hashing a path D long.
      const known = tree.has(parent);
      add(parent);
      tree.get(parent)?.add(child);
      if (known) break;
      child = parent;
    }
  }
  return new Map([...tree].map(([dir, children]) => [dir, [...children].sort()]));
}

/**
 * @param {string} path
 * @param {string[]} docsRoots
 */
function docsRootOf(path, docsRoots) {
  return docsRoots.find((r) => path.startsWith(`${r}/`));
}

/**
 * The marker files under the docs roots, sorted, as posix paths.
 * @param {readonly string[]} files
 * @param {NormalizedOptions} options
 */
function topicMarkers(files, options) {
  return files
    // Only Windows separates with `\`: on Linux and macOS it is a character of a folder's name,
    // and `docs/back\slash` read as docs/back/slash broke every task ("project … not found").
    .map((f) => (sep === '\\' ? f.split(sep).join('/') : f))
    .filter((f) => {
      const root = posix.basename(f) === options.topicMarker ? docsRootOf(f, options.docsRoots) : undefined;
      return root !== undefined && unlistedFolderOf(f, root) === undefined;
    })
    .sort();
}

/**
 * Whether index-tool lists a folder of this name in its parent's index.json (its `subfolders`):
 * not generated (`_chunks`), hidden (`.drafts`) or installed (`node_modules`). Its walk and the
 * plugin's must agree on which folders hold topics.
 * @param {string} name
 */
function listedFolder(name) {
  return !name.startsWith('_') && !name.startsWith('.') && name !== 'node_modules';
}

/**
 * The folder between a marker and its docs root that index-tool lists in no index.json
 * (`docs/_drafts`), or undefined. A topic there was built (chunked, keyworded, embedded at the
 * provider's price) and written an index.json that no section linked: reachable from nothing.
 * @param {string} marker posix, under docsRoot
 * @param {string} docsRoot
 */
function unlistedFolderOf(marker, docsRoot) {
  const parts = posix.dirname(marker).slice(docsRoot.length + 1).split('/');
  const i = parts.findIndex((p) => p !== '' && !listedFolder(p));
  return i < 0 ? undefined : [docsRoot, ...parts.slice(0, i + 1)].join('/');
}

/**
 * The markers under a docs root that are no topic because a folder above them is one
 * index-tool does not list (unlistedFolderOf), sorted, each with that folder.
 * @param {readonly string[]} files
 * @param {NormalizedOptions} options
 * @returns {{ marker: string, folder: string }[]}
 */
function unlistedMarkers(files, options) {
  /** @type {{ marker: string, folder: string }[]} */
  const out = [];
  for (const raw of files) {
    const f = sep === '\\' ? raw.split(sep).join('/') : raw;
    if (posix.basename(f) !== options.topicMarker) continue;
    const root = docsRootOf(f, options.docsRoots);
    const folder = root === undefined ? undefined : unlistedFolderOf(f, root);
    if (folder !== undefined) out.push({ marker: f, folder });
  }
  return out.sort((a, b) => (a.marker < b.marker ? -1 : a.marker > b.marker ? 1 : 0));
}

/** @typedef {{ a: string, b: string, inCase: boolean, inNormalization: boolean, inFolding: boolean }} TwinFolders */

/**
 * `s` with case folded fully, as Unicode's CaseFolding.txt does with its C and F mappings (not
 * the Turkic T ones), each character as it is encoded. JavaScript has no case folding: lower,
 * then upper, then lower case gives it (upper case turns ß into SS and ﬁ into FI, the first
 * lower case turns ẞ into ß first, the last undoes the upper case, final sigma included; checked
 * code point by code point against apfs-fuse's tables), except that upper case turns the
 * dotless `ı` into `I`, which folding keeps apart from `i`: each `ı` is kept out of it.
 * @param {string} s
 */
function foldCase(s) {
  return s
    .split('\u0131')
    .map((part) => part.toLowerCase().toUpperCase().toLowerCase())
    .join('\u0131');
}

/**
 * `name` with case folded fully (foldCase) and in NFC: the key under which a case-insensitive
 * APFS volume, the macOS default, takes two names for one (it compares names normalization-
 * insensitively with full case folding, as apfs-fuse reads it). So `Straße`, `STRASSE`,
 * `strasse` and `ẞ`-for-ß are one name, as are `ﬁle` and `file`, `ſ` and `s`, `ς`, `σ` and `Σ`,
 * `İ` and `i̇` (i, combining dot above), the Kelvin sign and `k`; the dotless `ı` stays apart
 * from `i` and `I`. Compatibility forms are not folded, unlike NFKC would (`x²` and `x2`, `Ａ`
 * and `A` are two names on every file system).
 * @param {string} name
 */
function foldedName(name) {
  return foldCase(name.normalize('NFD')).normalize('NFC');
}

/**
 * Sibling folders under the docs roots, each a topic or above one, whose names differ only in
 * case or in Unicode normalization (`Case` and `case`; `café` in NFC and in NFD; `Straße` and
 * `STRASSE`, which only full case folding joins: foldedName), sorted, each pair once. Linux keeps
 * them apart and so does Nx, but the NFC and NFD names of a pair look the same in `nx show
 * projects`, and macOS (case- and normalization-insensitive, folding case fully) takes a pair
 * for one folder, as Windows does one that differs in case alone (it upper-cases a character
 * at a time, so ß stays ß there): a clone there mixes their files.
 * Only the shallowest pair is named: `docs/A/x` and `docs/a/x` are the pair `docs/A`, `docs/a`.
 * @param {readonly string[]} markers posix, under the docs roots (topicMarkers)
 * @param {string[]} docsRoots
 * @returns {TwinFolders[]}
 */
function twinFolders(markers, docsRoots) {
  // A pair needs a name with an ASCII capital or a non-ASCII character: none, no look further.
  // eslint-disable-next-line no-control-regex
  if (!markers.some((m) => /[^\u0000-\u0040\u005b-\u007f]/.test(m))) return [];
  /** @type {Set<string>} */
  const folders = new Set();
  for (const m of markers) {
    const root = docsRootOf(m, docsRoots);
    if (root === undefined) continue;
    for (let d = posix.dirname(m); d !== root && d.startsWith(`${root}/`) && !folders.has(d); d = posix.dirname(d)) folders.add(d);
  }
  /** @type {Map<string, string[]>} parent + folded name -> the folders with it */
  const byKey = new Map();
  /** @type {TwinFolders[]} */
  const out = [];
  const lowerNfc = (/** @type {string} */ s) => s.normalize('NFC').toLowerCase().normalize('NFC');
  for (const d of [...folders].sort()) {
    const name = posix.basename(d);
    const key = `${posix.dirname(d)}/${foldedName(name)}`;
    const earlier = byKey.get(key) ?? [];
    for (const first of earlier) {
      const other = posix.basename(first);
      out.push({
        a: first,
        b: d,
        // Still apart once both are NFC: they differ in case.
        inCase: other.normalize('NFC') !== name.normalize('NFC'),
        // Still apart once case is folded in each as it is encoded: they differ in normalization.
        inNormalization: foldCase(other) !== foldCase(name),
        // Still apart in lower case and NFC: only full case folding (ß as ss, ﬁ as fi) joins them.
        inFolding: lowerNfc(other) !== lowerNfc(name),
      });
    }
    byKey.set(key, [...earlier, d]);
  }
  return out;
}

/**
 * How a target depends on a tool: what it hashes for the tool, and its extra dependsOn entries.
 * `inputs` never reads a file some task wrote, except in the fallback for a workspace tool
 * without mirrorable build inputs (the bundle, through `dependentTasksOutputFiles`).
 * @param {ToolLocation} location
 */
function toolWiring(location) {
  if (location.kind === 'workspace') {
    return {
      inputs: location.buildInputs ?? [{ dependentTasksOutputFiles: '**/*', transitive: true }, { externalDependencies: [] }],
      dependsOn: [{ projects: [location.project], target: 'build' }],
      implicit: [location.project],
    };
  }
  return { inputs: [{ externalDependencies: [location.packageName] }], dependsOn: [], implicit: [] };
}

/**
 * A workspace tool's build target inputs, rewritten so that a topic task can hash the same
 * files: `{projectRoot}` becomes the tool's folder. Undefined when they cannot be mirrored
 * exactly: no inputs written out (Nx would use defaults), a named input (it would resolve
 * against the topic project) or an input that reads other tasks' outputs or other projects.
 * Also the tool's package.json: its `exports` name the entry the executor loads.
 *
 * With a lockfile, the build's `externalDependencies` become the lockfile: Nx hashes each
 * external package and its whole closure as separate instructions of every task (esbuild
 * alone is 27, with its platform binaries), which made hashing 800 topic tasks 0.4 s slower;
 * the lockfile is one tracked file, and it also pins the npm packages the bundles leave
 * external and load at run time. It is coarser (any lockfile change reruns the topics), never
 * less exact.
 * @param {unknown} inputs  the build target's `inputs`
 * @param {string} toolRoot workspace-relative posix folder of the tool
 * @param {string} [lockfile] workspace-relative path of the workspace's lockfile, if any
 * @returns {unknown[] | undefined}
 */
function mirrorBuildInputs(inputs, toolRoot, lockfile) {
  if (!Array.isArray(inputs) || inputs.length === 0) return undefined;
  const root = `{workspaceRoot}/${toolRoot}`;
  /** @param {string} glob */
  const path = (glob) => {
    const neg = glob.startsWith('!');
    const g = neg ? glob.slice(1) : glob;
    if (g.startsWith('{projectRoot}')) return `${neg ? '!' : ''}${root}${g.slice('{projectRoot}'.length)}`;
    if (g.startsWith('{workspaceRoot}')) return glob;
    return undefined;
  };
  /** @type {unknown[]} */
  const out = [];
  for (const input of inputs) {
    if (typeof input === 'string') {
      const p = path(input);
      if (p === undefined) return undefined;
      out.push(p);
    } else if (input && typeof input === 'object' && !Array.isArray(input)) {
      const keys = Object.keys(input);
      const o = /** @type {Record<string, unknown>} */ (input);
      if (keys.length === 1 && keys[0] === 'fileset' && typeof o.fileset === 'string') {
        const p = path(o.fileset);
        if (p === undefined) return undefined;
        out.push(p);
      } else if (keys.length === 1 && keys[0] === 'externalDependencies' && Array.isArray(o.externalDependencies)) {
        out.push(...(lockfile ? [`{workspaceRoot}/${lockfile}`, { externalDependencies: [] }] : [{ externalDependencies: [...o.externalDependencies] }]));
      } else if (keys.length === 1 && (keys[0] === 'env' || keys[0] === 'runtime') && typeof o[keys[0]] === 'string') {
        out.push({ ...o });
      } else {
        return undefined;
      }
    } else {
      return undefined;
    }
  }
  out.push(`${root}/package.json`);
  // Without an externalDependencies entry Nx would hash every external package.
  if (!out.some((i) => typeof i === 'object' && i !== null && 'externalDependencies' in i)) out.push({ externalDependencies: [] });
  return out;
}

/**
 * One inputs list from several: strings and objects once each (first position kept), every
 * `externalDependencies` entry merged into one (sorted), which goes last.
 * @param {unknown[][]} lists
 */
function mergeInputs(lists) {
  /** @type {unknown[]} */
  const out = [];
  const seen = new Set();
  /** @type {Set<string>} */
  const external = new Set();
  let hasExternal = false;
  for (const list of lists) {
    for (const input of list) {
      if (input && typeof input === 'object' && 'externalDependencies' in input) {
        hasExternal = true;
        for (const e of /** @type {{ externalDependencies: string[] }} */ (input).externalDependencies) external.add(e);
        continue;
      }
      const key = JSON.stringify(input);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(input);
    }
  }
  if (hasExternal) out.push({ externalDependencies: [...external].sort() });
  return out;
}

/**
 * The steps a step's output is a function of: itself and every step before it, in STEPS order.
 * @param {string} target
 * @returns {Step[]}
 */
function upstreamSteps(target) {
  /** @type {Set<string>} */
  const want = new Set();
  const add = (/** @type {string} */ t) => {
    if (want.has(t)) return;
    want.add(t);
    for (const a of STEPS.find((s) => s.target === t)?.after ?? []) add(a);
  };
  add(target);
  return STEPS.filter((s) => want.has(s.target));
}

/** A value no other look gives: a task whose options hold it is run, not taken from the cache. */
function freshValue() {
  return `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/**
 * A target that runs a tool through this package's executor (executor.cjs), in-process, and
 * batched by Nx since executors.json prefers batch mode. The tool and its arguments are the
 * target's options, so Nx hashes them with the task; so is a non-default marker, which reaches
 * the tools through CHUNKYARD_TOPIC_MARKER (read by @chunkyard/topic-io).
 *
 * Every target of the pipeline (every topic step, every folder's index.json, llms.txt) names
 * the one executor `@chunkyard/nx:tool`. Nx batches tasks by executor name and pulls a task's
 * dependents with the same executor into its batch, so a cold run is one batch process: one
 * fork, each thread loading the tools once, no waits between stages. That is exact only
 * because no task of the pipeline hashes another's outputs: inside a batch, Nx 22.7.12 hashes
 * every task before any runs and its rehash after the batch skips tasks that already have a
 * hash (hash-task.js keeps `!task.hash` only), so a `dependentTasksOutputFiles` input would be
 * hashed from the previous run's outputs. Each task hashes the sources, config and tools its
 * output is a function of instead (topicInputs, folderInputs).
 * @param {string} tool  npm package name
 * @param {string[]} args
 * @param {NormalizedOptions} options
 * @param {BuildContext} ctx
 * @param {{ packDir?: string, staleOutputs?: string }} [extra]  executor options beyond the tool's command line
 */
function runTool(tool, args, options, ctx, extra = {}) {
  return { executor: `${executorPackage(ctx)}:tool`, options: { tool, args: cliArgs(args), ...extra, ...markerEnv(options) } };
}

/** The tools' options that take a value (the rest of a target's arguments are flags). */
const VALUE_OPTIONS = new Set(['--config', '--root', '--cache-dir', '--llms-title', '--llms-summary']);

/**
 * A target's arguments (the folder first, then options) as the tools' parseArgs reads them
 * back: a value with a leading `-` is joined to its option (`--llms-title=-x`), and a folder
 * with one goes last, after `--`. Otherwise parseArgs reads such a value as an option: an
 * llmsTxt title "-Beta docs" failed llms-txt with "argument is ambiguous", a summary "--help"
 * printed the help and exited 0 with no llms.txt written (cached so), and a docsRoot "-docs"
 * failed every task. Other arguments keep their form, so existing task hashes stay the same.
 * @param {string[]} args
 */
function cliArgs(args) {
  const [first, ...rest] = args;
  /** @type {string[]} */
  const out = [];
  for (let i = 0; i < rest.length; i++) {
    const a = /** @type {string} */ (rest[i]);
    const value = rest[i + 1];
    if (VALUE_OPTIONS.has(a) && value !== undefined) {
      out.push(...(value.startsWith('-') ? [`${a}=${value}`] : [a, value]));
      i++;
    } else out.push(a);
  }
  if (first === undefined) return out;
  return first.startsWith('-') ? [...out, '--', first] : [first, ...out];
}

/**
 * How targets name this package's executors: `@chunkyard/nx` when installed. In chunkyard's
 * own repo, the package folder (`./packages/nx`): Nx reads a workspace package's executor
 * schema "from source" by its package name, and for that loads TypeScript to read the root
 * tsconfig's export conditions, about 0.2 s of every command; a path skips that lookup and
 * names the same executors.json.
 * @param {BuildContext} ctx
 */
function executorPackage(ctx) {
  return executorPackageOf(ctx.executor);
}

/**
 * The package name every target's executor is given under (`<it>:tool`).
 * @param {BuildContext['executor']} e
 */
function executorPackageOf(e) {
  return e?.kind === 'workspace' && e.packageDir ? `./${e.packageDir}` : '@chunkyard/nx';
}

/**
 * A path as an Nx input or output pattern that matches that path: Nx 22.7.12 reads both as
 * globs, with braces, extglob and `!`. A backslash makes `[ ] { } * ?` literal; it does not
 * make `( ) !` literal (nor itself), so each of those becomes `?`, any one character, which
 * could also match a sibling folder differing only there. Checked against Nx in a workspace:
 * with each form an edit reruns the task and a cache hit restores the output.
 * @param {string} path posix, workspace-relative
 */
function globLiteral(path) {
  return path.replace(/[*?[\]{}()!\\]/g, (c) => ('()!\\'.includes(c) ? '?' : `\\${c}`));
}

/**
 * The `{ env }` inputs of a task running `steps` (and the index tool): each step's SERVER_ENV,
 * and CHUNKYARD_TOPIC_MARKER when the plugin leaves it unset (the default marker), since every
 * tool then reads it from the environment Nx was started in (a set marker is a task option).
 * @param {readonly Step[]} steps @param {NormalizedOptions} options
 */
function envInputs(steps, options) {
  const names = [...new Set(steps.flatMap((s) => s.env))];
  if (!markerEnv(options).env) names.push('CHUNKYARD_TOPIC_MARKER');
  return names.map((env) => ({ env }));
}

/** @param {NormalizedOptions} options @returns {{ env?: Record<string, string> }} */
function markerEnv(options) {
  return options.topicMarker === 'golden-reference.md' ? {} : { env: { CHUNKYARD_TOPIC_MARKER: options.topicMarker } };
}

/**
 * The executor's own code is part of every tool task. Installed, it is @chunkyard/nx's
 * version (through the lockfile); in chunkyard's repo, where the plugin is workspace source,
 * the executor file itself.
 * @param {BuildContext} ctx
 */
function executorInputs(ctx) {
  const e = ctx.executor ?? { kind: 'installed' };
  return e.kind === 'workspace'
    ? [`{workspaceRoot}/${e.file}`, `{workspaceRoot}/${posix.join(posix.dirname(e.file), 'executor-worker.cjs')}`]
    : [{ externalDependencies: ['@chunkyard/nx'] }];
}

/**
 * @typedef {object} BuildContext
 * @property {NormalizedOptions} options
 * @property {Record<string, ToolLocation>} tools   by package name
 * @property {{ kind: 'installed' } | { kind: 'workspace', file: string, packageDir?: string }} [executor]  where executor.cjs is (default: installed), and in the workspace the package folder holding executors.json
 * @property {Map<string, { name: string, file: string }>} [ownNames]  folders under a docs root that are Nx projects of their own (a project.json, or a package.json in the package manager's workspaces), each with the name Nx gives it and the file that gives it (ownProjectNames in index.cjs)
 * @property {{ get(name: string): string | undefined }} [otherNames]  the names of the Nx projects a project.json or package.json makes outside the docs roots, each with that file (workspaceProjectNames in index.cjs)
 * @property {Map<string, string>} [otherEntryNames]  the names the other entries of this plugin in nx.json give, each with its folder (otherEntryNames)
 * @property {(docsRoot: string, marker: string) => boolean} [staleIn]  whether a folder below the docs root holds outputs of a topic that is gone (index-tool's stale-outputs entry), which its index-json's --prune removes
 * @property {string[][]} [entryRoots]  the docs roots of every entry of this plugin in nx.json (entryRootsOf), this one's included
 * @property {(cacheDir: string, live: ReadonlySet<string>) => string[]} [staleCaches]  the names of the topic embedding caches in cacheDir (workspace-relative) that are not in live (index-tool's stale-outputs entry), which the first docs root's index-json removes; absent when another entry shares the folder
 * @property {string[]} [staleCacheFolders]  set by createProjects: those caches, as workspace-relative folders
 * @property {string} [cacheRoot]  set by createProjects: the docs root whose index-json removes them (the first that is a project)
 * @property {boolean} [defaultConfigAbsent]  configFile is the default, chunkyard.config.yaml, and there is none: the steps get no --config
 * @property {ReadonlySet<string>} [topiclessRoots]  docs roots holding no topic but outputs its deleted topics left (index-tool's topiclessRootOutputs), each kept as a project whose index-json prunes them
 * @property {string} [anchorFile]  the file a topicless root's project is reported under (nx.json): it has no marker
 */

/**
 * Nx project configurations for every topic and section, grouped by the marker file whose
 * result describes them (each project exactly once, as Nx requires).
 * @param {readonly string[]} files workspace-relative paths the glob matched
 * @param {BuildContext} givenCtx
 * @returns {[string, { projects: Record<string, object> }][]}
 */
function createProjects(files, givenCtx) {
  const { options } = givenCtx;
  const markers = topicMarkers(files, options);
  const qualify = new Set([...options.docsRoots, ...(givenCtx.entryRoots ?? []).flat()]).size > 1;
  checkEntryRoots(options.docsRoots, givenCtx.entryRoots ?? []);
  // A deleted topic's embedding cache (its folder and .pack) stayed for good: every topic's
  // cache folder of this entry is live, any other `topic-…` cache there is removed by the first
  // docs root's index-json (which then also runs: see staleOutputs below).
  const live = new Set(markers.map((m) => {
    const dir = posix.dirname(m);
    return cacheFolderName(projectName(dir, /** @type {string} */ (docsRootOf(m, options.docsRoots)), true, qualify));
  }));
  const staleCacheFolders = (givenCtx.staleCaches?.(options.embeddingCacheDir, live) ?? []).map((n) => `${options.embeddingCacheDir}/${n}`);
  // A root whose last topic was deleted is no section any more, but while the outputs its topics
  // left are there it stays a project whose index-json prunes them (topiclessRootProject): with
  // no project, nothing removed them, and index.json went on listing the deleted topics. The
  // stale embedding caches go with the first root that is a project; with none, the first root
  // is kept for them.
  const topicless = new Set(givenCtx.topiclessRoots ?? []);
  const isProject = (/** @type {string} */ r) => topicless.has(r) || markers.some((m) => m.startsWith(`${r}/`));
  if (staleCacheFolders.length > 0 && !options.docsRoots.some(isProject)) topicless.add(/** @type {string} */ (options.docsRoots[0]));
  const cacheRoot = options.docsRoots.find(isProject);
  /** @type {BuildContext} */
  const ctx = { ...givenCtx, staleCacheFolders, cacheRoot };
  /** @type {[string, { projects: Record<string, object> }][]} */
  const results = [];
  for (const docsRoot of options.docsRoots) {
    const rootMarkers = markers.filter((m) => m.startsWith(`${docsRoot}/`));
    if (rootMarkers.length === 0) {
      if (topicless.has(docsRoot)) {
        const name = ctx.ownNames?.get(docsRoot)?.name ?? projectName(docsRoot, docsRoot, false, qualify);
        results.push([ctx.anchorFile ?? 'nx.json', { projects: { [docsRoot]: topiclessRootProject(docsRoot, name, ctx) } }]);
      }
      continue;
    }
    for (const m of rootMarkers) {
      const parts = posix.dirname(m).slice(docsRoot.length + 1).split('/');
      const bad = parts.findIndex((p) => UNPRINTABLE.test(p));
      if (bad >= 0) {
        const folder = [docsRoot, ...parts.slice(0, bad + 1)].join('/');
        throw new Error(
          `@chunkyard/nx: the folder "${escapeControl(folder)}" has control or ` +
            `bidirectional characters in its name, which would reach the terminal in its project name; rename it`,
        );
      }
      // Nx replaces these tokens in every string of a target's options, with no escape: a folder
      // `docs/{projectName}` gave its tools the path docs/topic-{projectName} ("no such file"),
      // and one holding `{workspaceRoot}` stopped every nx command with "The {workspaceRoot}
      // token is only valid at the beginning of an option" (found by a probe).
      const tokenAt = parts.findIndex((p) => NX_TOKEN.test(p));
      if (tokenAt >= 0) {
        const folder = [docsRoot, ...parts.slice(0, tokenAt + 1)].join('/');
        throw new Error(
          `@chunkyard/nx: the folder "${escapeControl(folder)}" has ${/** @type {RegExpExecArray} */ (NX_TOKEN.exec(/** @type {string} */ (parts[tokenAt])))[0]} in its name, ` +
            `a token Nx replaces in a target's options (with no way to escape it), so its tools would be given another path; rename it`,
        );
      }
    }
    const topics = new Set(rootMarkers.map((m) => posix.dirname(m)));
    const tree = docsTree([...topics], docsRoot);
    // A folder that is already an Nx project (its own project.json, or a package.json of the
    // package manager's workspaces) keeps the name Nx gives it: Nx lets that file rename the
    // project after this plugin named it, and rewrites no `implicitDependencies`, so the parent
    // pointed at "topic-x", a project that no longer existed, and every Nx command failed with
    // "implicitDependencies point to non-existent project(s)" (found by a probe).
    const ownNameOf = (/** @type {string} */ dir) => ctx.ownNames?.get(dir)?.name;
    const derivedName = (/** @type {string} */ dir) => projectName(dir, docsRoot, topics.has(dir), qualify);
    const nameOf = (/** @type {string} */ dir) => ownNameOf(dir) ?? derivedName(dir);
    const rootName = nameOf(docsRoot);
    // Each folder is described by one marker's result: the first marker (in sorted order) at
    // or below it. Walking the sorted markers up their ancestors, each up to the first folder
    // already described, assigns exactly that, and visits each folder once. No folder's list of
    // ancestors is made: with topics nested D deep those lists (of names D long) were D^3.
    /** @type {Map<string, Record<string, object>>} marker -> the projects its result describes */
    const byMarker = new Map(rootMarkers.map((m) => [m, {}]));
    /** @type {string[]} topics whose project name a project file gives */
    const ownNamed = [];
    // The topics with an Nx project of their own below them: each such project's folders up
    // to the root, stopping at one already marked, so each folder is visited once.
    /** @type {Set<string>} */
    const holdingProjects = new Set();
    /** @type {Set<string>} */
    const walked = new Set();
    for (const own of ctx.ownNames?.keys() ?? []) {
      if (!own.startsWith(`${docsRoot}/`)) continue;
      for (let d = posix.dirname(own); !walked.has(d); d = posix.dirname(d)) {
        walked.add(d);
        if (topics.has(d)) holdingProjects.add(d);
        if (d === docsRoot || !d.startsWith(`${docsRoot}/`)) break;
      }
    }
    /** @type {Set<string>} */
    const owned = new Set();
    for (const marker of rootMarkers) {
      const projects = /** @type {Record<string, object>} */ (byMarker.get(marker));
      for (let dir = posix.dirname(marker); !owned.has(dir); dir = posix.dirname(dir)) {
        owned.add(dir);
        const children = tree.get(dir) ?? [];
        const parentName = dir === docsRoot ? undefined : nameOf(posix.dirname(dir));
        projects[dir] = projectFor(dir, children.map(nameOf), parentName, rootName, topics.has(dir), nameOf(dir), docsRoot, ctx, derivedName(dir), holdingProjects.has(dir));
        // The embedding-cache folder is named after the path name even when a project file
        // names the project, so two topics must not share that either (docs/a-b with a
        // project.json, and docs/a/b).
        if (topics.has(dir) && ownNameOf(dir) !== undefined) ownNamed.push(dir);
        if (dir === docsRoot) break;
      }
    }
    for (const [marker, projects] of byMarker) results.push([marker, { projects }]);
    /** @type {Map<string, string[]>} path name -> topics, made only when a project file names one */
    const byPathName = new Map();
    if (ownNamed.length > 0) for (const t of topics) byPathName.set(derivedName(t), [...(byPathName.get(derivedName(t)) ?? []), t]);
    for (const dir of ownNamed) {
      const other = byPathName.get(derivedName(dir))?.find((t) => t !== dir);
      if (other !== undefined) {
        const [a, b] = [other, dir].sort();
        throw new Error(
          `@chunkyard/nx: the folders ${a} and ${b} would share the embedding cache folder "${derivedName(dir)}" (named after ` +
            `the folder's path, joined by "-", whatever name a project.json or package.json gives the project); rename one of them`,
        );
      }
    }
  }
  // Names join a folder's path with `-`, so `docs/a-b` and `docs/a/b` are both `topic-a-b`.
  // Nx's own message for that advises a project.json name, which would leave both topics one
  // embedding-cache folder (named after the project) and a parent's implicit dependency on
  // the wrong project: refuse it here, naming both folders.
  /** @type {Map<string, string>} name -> folder */
  const folderOf = new Map();
  for (const [, { projects }] of results) {
    for (const [dir, p] of Object.entries(projects)) {
      const name = /** @type {{ name: string }} */ (p).name;
      const other = folderOf.get(name);
      if (other !== undefined) {
        const [a, b] = /** @type {[string, string]} */ ([other, dir].sort());
        const given = [a, b].flatMap((d) => {
          const own = ctx.ownNames?.get(d);
          return own ? [`${own.file} names ${d} "${own.name}"`] : [];
        });
        throw new Error(
          given.length > 0
            ? `@chunkyard/nx: the folders ${a} and ${b} would both be the project "${name}" (${given.join('; ')}; ` +
                `a folder without a project file is named after its path, joined by "-"); rename one of them`
            : `@chunkyard/nx: the folders ${a} and ${b} would both be the project "${name}" (a project is named after its ` +
                `path, joined by "-"); rename one of them`,
        );
      }
      folderOf.set(name, dir);
      // A project of the workspace outside the docs roots with the same name: Nx stopped every
      // command with "defined in multiple locations", and nx run-many printed only "Failed to
      // process project graph", naming neither folder (found by a probe).
      const otherEntryFolder = ctx.otherEntryNames?.get(name);
      if (otherEntryFolder !== undefined) {
        const [a, b] = /** @type {[string, string]} */ ([otherEntryFolder, dir].sort());
        throw new Error(
          `@chunkyard/nx: the folders ${a} and ${b}, under the docs roots of two @chunkyard/nx entries in nx.json, would both be the project "${name}" ` +
            `(a project is named after its docs root and its path below it, joined by "-"); rename one of them`,
        );
      }
      const file = ctx.otherNames?.get(name);
      if (file !== undefined) {
        const own = ctx.ownNames?.get(dir);
        throw new Error(
          own
            ? `@chunkyard/nx: the folder ${dir} is the project "${name}" (named by ${own.file}), which ${file} also names its project; change one of the two names`
            : `@chunkyard/nx: the folder ${dir} would be the project "${name}" (a project is named after its path, joined by "-"), which ${file} already names its project; ` +
                `give the folder another name with a ${dir}/project.json holding { "name": "…" }, or rename the folder or the other project`,
        );
      }
    }
  }
  return results;
}

/**
 * Characters a folder name must not bring into a project name, which Nx prints raw: C0 and C1
 * controls, DEL, and the bidirectional embeddings, overrides and isolates (as fs-atomic's
 * escapeControl escapes them in the tools' own output).
 */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/**
 * The tokens Nx replaces in every string of a target's options (Nx 22.7.12,
 * target-merging.js resolveNxTokensInOptions: `{projectRoot}` and `{projectName}` anywhere,
 * `{workspaceRoot}` at the start, an error anywhere else). There is no escape for them.
 */
const NX_TOKEN = /\{(?:workspaceRoot|projectRoot|projectName)\}/;
// eslint-disable-next-line no-control-regex
const UNPRINTABLE_ALL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with each UNPRINTABLE character as a `\u001b`-style escape: a path or option in a message
 * of the plugin (index.cjs's createNodes) or of the executor, which Nx prints raw.
 * @param {string} text
 */
function escapeControl(text) {
  return text.replace(UNPRINTABLE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Bytes a file name may hold on Linux and macOS (NAME_MAX), less `.pack`. */
const MAX_CACHE_FOLDER_BYTES = 255 - '.pack'.length;

/**
 * The topic's embedding-cache folder name: its project name, or when that with `.pack` is over
 * 255 bytes (a legal 255-byte folder name, or long nested folders joined), its first 200 bytes
 * (whole characters) and 16 hex of its sha256. spec failed with ENAMETOOLONG on such a topic.
 * Names that fit are kept, so existing caches stay valid.
 * @param {string} name
 */
function cacheFolderName(name) {
  if (Buffer.byteLength(name) <= MAX_CACHE_FOLDER_BYTES) return name;
  let prefix = '';
  for (const ch of name) {
    if (Buffer.byteLength(prefix + ch) > 200) break;
    prefix += ch;
  }
  return `${prefix}~${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
}

/**
 * Each context's topic step inputs (projectFor), by steps and extra tools.
 * @type {WeakMap<BuildContext, Map<string, unknown[]>>}
 */
const topicInputsMemo = new WeakMap();

/**
 * Each context's `index` inputs (projectFor), by docs root: the same for every folder under
 * a root, so made once per root rather than once per project.
 * @type {WeakMap<BuildContext, Map<string, unknown[]>>}
 */
const indexInputsMemo = new WeakMap();

/**
 * @param {string} dir
 * @param {string[]} childNames     projects directly below (topics or sections)
 * @param {string | undefined} parentName  the project of the folder above (none for the docs root)
 * @param {string} rootName         the docs root's project
 * @param {boolean} isTopic
 * @param {string} name
 * @param {string} docsRoot
 * @param {BuildContext} ctx
 * @param {string} [pathName]  the name the plugin gives the folder (projectName), when `name` is one a project file of the
 *   folder gives: the embedding-cache folder keeps it, so adding a project.json re-embeds nothing
 * @param {boolean} [holdsProject]  a folder below this one is an Nx project that is no topic (ctx.ownNames)
 */
function projectFor(dir, childNames, parentName, rootName, isTopic, name, docsRoot, ctx, pathName = name, holdsProject = false) {
  const { options, tools } = ctx;
  /** @type {Record<string, object>} */
  const targets = {};
  const implicit = new Set(childNames);
  // A topic holding topics: Nx gives the files below a nested topic to that topic's project, so
  // `{projectRoot}/**` missed them, and a `sources` entry of topic.yaml inside a nested topic
  // (`sub/extra.md`) was read by chunk but hashed by nothing: its edit left a cache hit with the
  // old chunks (found by a probe). Such a topic's sources are workspace-root globs over its whole
  // folder (literalRoot), with every nested topic's outputs left out.
  // So does a topic holding another Nx project (a project.json below it: an example app, a
  // workspace package): Nx gives that folder's files to that project, and a `sources` entry
  // there (`ex/extra.md`) was read by chunk but hashed by nothing, so its edit was served
  // the old chunks from the cache (found by a probe).
  const holdsTopics = isTopic && (childNames.length > 0 || holdsProject);
  const topicSources = [
    '{projectRoot}/**/*.{md,markdown,txt}',
    // A marker of another kind (README.rst) is read as the topic's document too: without this
    // it was no input, and editing it reran nothing (found by a probe).
    ...(/\.(md|markdown|txt)$/.test(options.topicMarker) ? [] : [`{projectRoot}/${globLiteral(options.topicMarker)}`]),
    '!{projectRoot}/topic-spec.md',
    '!{projectRoot}/_chunks/**',
    '!{projectRoot}/_keywords/**',
    ...(holdsTopics ? ['!{projectRoot}/**/topic-spec.md', '!{projectRoot}/**/_chunks/**', '!{projectRoot}/**/_keywords/**'] : []),
    // A docs root that is a topic holds llms.txt and llms-full.txt, outputs of its llms-txt task:
    // llms-full.txt (not in init's .gitignore lines) was hashed, so every build that changed it
    // reran the root topic's chunk, keywords and spec on the next run (found by a probe).
    ...(dir === docsRoot ? ['!{projectRoot}/llms.txt', '!{projectRoot}/llms-full.txt'] : []),
    '{projectRoot}/topic.yaml',
  ];
  const tool = (/** @type {string} */ pkg) => /** @type {ToolLocation} */ (tools[pkg]);
  // Nx puts the project root into `{projectRoot}` patterns as it is, and reads inputs and
  // outputs as globs: a folder named `v[2]` or `api (beta)` matched nothing, so its edits
  // reran nothing and its outputs were cached empty. Such a folder's patterns name it from the
  // workspace root, escaped (globLiteral); every other folder's stay `{projectRoot}`, except a
  // topic holding topics (holdsTopics).
  const literalRoot = (/** @type {unknown[]} */ list) =>
    globLiteral(dir) === dir && !holdsTopics
      ? list
      : list.map((i) => (typeof i === 'string' ? i.replace(/^(!?)\{projectRoot\}/, (_, neg) => `${neg}{workspaceRoot}/${globLiteral(dir)}`) : i));
  // What a topic step hashes: the topic's sources, the config if it or a step before it reads
  // it, and the tools and executor of it and every step before it. Each step's output is a
  // deterministic function of exactly these, so hashing them is as exact as hashing the
  // earlier steps' outputs (`dependentTasksOutputFiles`), and needs no read of a git-ignored
  // output on every run: Nx hashes tracked files from its file index, and these tasks are
  // hashed up front, in one batch, not each after its dependencies ran.
  // The same for every topic ({projectRoot}-relative), so computed once per ctx (200 topics: 30 ms).
  const topicInputs = (/** @type {Step[]} */ steps, /** @type {ToolLocation[]} */ extra) => {
    let memo = topicInputsMemo.get(ctx);
    if (!memo) topicInputsMemo.set(ctx, (memo = new Map()));
    const key = [holdsTopics ? 'holds' : 'leaf', dir === docsRoot ? 'root' : 'below', ...steps.map((s) => s.target), ...extra.map((t) => t.packageName)].join(' ');
    let inputs = memo.get(key);
    if (!inputs) memo.set(key, (inputs = computeTopicInputs(steps, extra)));
    return inputs.slice();
  };
  const computeTopicInputs = (/** @type {Step[]} */ steps, /** @type {ToolLocation[]} */ extra) =>
    mergeInputs([
      topicSources,
      steps.some((s) => s.readsConfig) ? [`{workspaceRoot}/${options.configFile}`] : [],
      envInputs(steps, options),
      ...[...steps.map((s) => tool(s.tool)), ...extra].map((t) => toolWiring(t).inputs),
      executorInputs(ctx),
    ]);
  // In a workspace that builds its tools (chunkyard's own), every pipeline task waits for
  // every tool's build, not only its own tool's. Nx batches a task only with tasks whose
  // dependencies are done or in the same batch, so waiting on its own tool's build split the
  // pipeline into a batch per build: then a failed topic's later steps were in a batch not yet
  // scheduled, Nx skipped them with no result, and `run-many` exited 130 as if interrupted
  // rather than 1 (see batchExecutor in executor.cjs). One batch gives each of them a result.
  // Not in the fallback where a step hashes its dependencies' outputs (no mirrorable build
  // inputs): there each step would hash every tool's bundle.
  const pipelineTools = [...STEPS.map((s) => s.tool), INDEX_TOOL.tool].map(tool);
  const everyBuild = pipelineTools.every((t) => t.kind === 'workspace' && t.buildInputs)
    ? [{ projects: [...new Set(pipelineTools.flatMap((t) => toolWiring(t).implicit))], target: 'build' }]
    : null;
  const buildsFor = (/** @type {ToolLocation} */ t) => everyBuild ?? toolWiring(t).dependsOn;
  if (isTopic) {
    for (const step of STEPS) {
      const wiring = toolWiring(tool(step.tool));
      wiring.implicit.forEach((p) => implicit.add(p));
      const cacheDir = `${options.embeddingCacheDir}/${cacheFolderName(pathName)}`;
      const args = [
        '{projectRoot}',
        // Without the default config file the tools use their defaults, as they do when run by
        // hand: given `--config chunkyard.config.yaml` they failed instead, every topic's chunk
        // with "cannot read config ... check the path", a path the user never gave (found by a
        // probe). Its path stays an input, so creating the file reruns the steps that read it.
        ...(step.readsConfig && !ctx.defaultConfigAbsent ? ['--config', options.configFile] : []),
        // Each topic's vectors live in their own folder, which travels with the Nx cache (local
        // or remote) as one file, `<folder>.pack`, an output of spec (the executor unpacks it
        // before topic-spec runs and packs the folder after): a fresh CI machine that restored
        // a topic re-embeds only the chunks an edit changed, and a restore copies one file per
        // topic, not the folder's tree.
        // Pruned to what this run used, so the artifact does not carry every past edit's vectors.
        ...(step.target === 'spec' ? ['--cache-dir', cacheDir, '--prune-cache'] : []),
      ];
      const outputs =
        step.target === 'chunk'
          ? ['{projectRoot}/_chunks']
          : step.target === 'keywords'
            ? // The one file keyword-extractor writes in the folder it owns: a restore copies a
              // file, not a folder it first removes and recreates.
              ['{projectRoot}/_keywords/words.md']
            : ['{projectRoot}/topic-spec.md', `{workspaceRoot}/${globLiteral(cacheDir)}.pack`];
      targets[step.target] = {
        ...runTool(step.tool, args.map((a) => (a === '{projectRoot}' ? dir : a)), options, ctx, step.target === 'spec' ? { packDir: cacheDir } : {}),
        cache: true,
        inputs: literalRoot(topicInputs(upstreamSteps(step.target), [])),
        outputs: literalRoot(outputs),
        dependsOn: [...step.after, ...buildsFor(tool(step.tool))],
        metadata: { description: `${step.bin} over this topic`, technologies: ['chunkyard'] },
      };
    }
  }
  const indexTool = tool(INDEX_TOOL.tool);
  const indexWiring = toolWiring(indexTool);
  indexWiring.implicit.forEach((p) => implicit.add(p));
  // A folder's index.json over folders below it (a section, the root, a topic holding topics)
  // reads their index.json, and llms.txt every index.json below the root: outputs of the tasks
  // they depend on, so functions of what those hash. They hash that (every source under the
  // folder, every marker, the config, every tool), not the outputs, so that they can run in the
  // same batch as the tasks below them (see runTool). They rerun on any edit below them, which
  // costs milliseconds in-process.
  // Workspace-root globs: Nx gives each file to the deepest project holding it, so a
  // `{projectRoot}` glob of a section would see none of its topics' files.
  const folderInputs = (/** @type {string[]} */ excluded, below = `{workspaceRoot}/${globLiteral(dir)}`) =>
    mergeInputs([
      [
        `${below}/**/*.{md,markdown,txt}`,
        `${below}/**/topic.yaml`,
        `${below}/**/${globLiteral(options.topicMarker)}`,
        `!${below}/**/topic-spec.md`,
        `!${below}/**/_chunks/**`,
        `!${below}/**/_keywords/**`,
        ...excluded.map((f) => `!${below}/${f}`),
        `{workspaceRoot}/${options.configFile}`,
      ],
      envInputs(STEPS, options),
      ...[...STEPS.map((s) => tool(s.tool)), indexTool].map((t) => toolWiring(t).inputs),
      executorInputs(ctx),
    ]);
  const indexInputs = () => {
    let memo = indexInputsMemo.get(ctx);
    if (!memo) indexInputsMemo.set(ctx, (memo = new Map()));
    let inputs = memo.get(docsRoot);
    if (!inputs) memo.set(docsRoot, (inputs = folderInputs(['llms.txt', 'llms-full.txt'], `{workspaceRoot}/${globLiteral(docsRoot)}`)));
    // A copy per target, as topicInputs gives: no project's list is another's.
    return inputs.slice();
  };
  // The root's llms.txt and llms-full.txt are outputs of a task after its index.json.
  const rootOutputs = dir === docsRoot ? ['llms.txt', 'llms-full.txt'] : [];
  // The stale embedding caches go with the entry's first root that is a project (one task removes each).
  const cacheArgs = dir === docsRoot && docsRoot === (ctx.cacheRoot ?? options.docsRoots[0]) ? (ctx.staleCacheFolders ?? []).flatMap((f) => ['--prune-embedding-cache', f]) : [];
  targets[INDEX_JSON_TARGET] = {
    // The root's task also removes the outputs a deleted topic left behind (git rm removes
    // only tracked files): docs-export and docs-store read every _chunks/ in the tree, so a
    // topic deleted weeks ago went on being exported. It reruns on any edit under the root.
    // While a folder below the root holds what --prune removes, the option below takes a value
    // of its own on each look, so the task's hash is new and it runs: Nx hashes no git-ignored
    // file, so after git rm -r of a topic, a checkout of an older commit (whose build restores the
    // topic's outputs from the cache) and a checkout back, the sources were ones already built and
    // the root's index.json came from the cache, leaving them. Looked for here, in the plugin's own
    // process (b8d6d0d's runtime input started a `node` per Nx command).
    ...runTool(
      INDEX_TOOL.tool,
      [dir, '--root', docsRoot, ...(dir === docsRoot ? ['--prune', ...cacheArgs] : [])],
      options,
      ctx,
      dir === docsRoot && (cacheArgs.length > 0 || ctx.staleIn?.(docsRoot, options.topicMarker)) ? { staleOutputs: freshValue() } : {},
    ),
    cache: true,
    // A topic's index.json is a function of the topic's whole pipeline (as its steps are).
    inputs: [
      ...(isTopic && childNames.length === 0 ? literalRoot(topicInputs(upstreamSteps('spec'), [indexTool])) : folderInputs(rootOutputs)),
    ],
    outputs: literalRoot(['{projectRoot}/index.json']),
    dependsOn: [...(isTopic ? ['spec'] : []), ...(childNames.length ? [{ projects: childNames, target: INDEX_JSON_TARGET }] : []), ...buildsFor(indexTool)],
    metadata: { description: `index-tool over this ${isTopic ? 'topic' : 'section'}: writes its index.json` },
  };
  if (options.llmsTxt !== false && dir === docsRoot) {
    const { title, summary, full } = options.llmsTxt;
    targets[LLMS_TXT_TARGET] = {
      ...runTool(
        INDEX_TOOL.tool,
        [dir, '--root', docsRoot, '--llms-txt', ...(full ? ['--llms-full'] : []), ...(title ? ['--llms-title', title] : []), ...(summary ? ['--llms-summary', summary] : [])],
        options,
        ctx,
      ),
      cache: true,
      // It reads every index.json below the root (llms-full.txt also every chunk file they
      // link), so it hashes what the root's index.json hashes. It reruns on any edit under the
      // root, as it did, since an edit almost always changes some index.json.
      inputs: folderInputs(rootOutputs),
      outputs: literalRoot(['{projectRoot}/llms.txt', ...(full ? ['{projectRoot}/llms-full.txt'] : [])]),
      dependsOn: [INDEX_JSON_TARGET, ...buildsFor(indexTool)],
      metadata: { description: 'index-tool --llms-txt: llms.txt (llmstxt.org) for the docs root, from every index.json' },
    };
  }
  // What users run. It writes nothing itself: it waits for this folder's index.json and for
  // every ancestor's, and each ancestor waits for all of its children. It names only its
  // parent's `index`, which waits for the parent's index.json and the grandparent's `index`,
  // and so up to the root: naming every ancestor in every folder made the graph D^3 for
  // topics nested D deep (22 MB of dependsOn at D = 400). So `nx run <topic>:index`
  // on a new or renamed topic also leaves its section and the root linking it, and the root's
  // llms.txt listing it. It runs nothing, but through the pipeline's executor rather than
  // nx:noop, so it joins their batch: a failure below it then makes it a failed task with a
  // result, where Nx would skip it with none and exit 130 as if interrupted (see the README).
  targets.index = {
    executor: `${executorPackage(ctx)}:tool`,
    options: { noop: true },
    cache: true,
    // What the root's index.json hashes (every source under the docs root, the config, the
    // tools), the same instructions for every `index` task, so Nx hashes them once. With no
    // inputs its hash never changed, and after a failure below it was mended Nx's task history
    // called every `index` task "flaky" on every later run. Not cached at all, a run served
    // wholly from the cache still started a batch process for them (a second, here).
    inputs: indexInputs(),
    outputs: [],
    dependsOn: [
      INDEX_JSON_TARGET,
      ...(parentName !== undefined ? [{ projects: [parentName], target: 'index' }] : []),
      ...(options.llmsTxt !== false ? [{ projects: [rootName], target: LLMS_TXT_TARGET }] : []),
    ],
    metadata: { description: `brings this ${isTopic ? 'topic' : 'section'}'s index.json and every index.json above it up to date` },
  };
  return {
    name,
    root: dir,
    projectType: 'library',
    tags: [isTopic ? 'type:topic' : 'type:section', 'chunkyard'],
    // Graph edges (dependsOn with `projects:` adds task edges only): `nx affected` then marks a
    // folder when a child or, in chunkyard's own repo, a tool changes.
    implicitDependencies: [...implicit],
    targets,
  };
}

/**
 * The project of a docs root that holds no topic any more but still holds what its deleted
 * topics left (the root's index.json listing them, llms.txt, their _chunks/ and the rest), or,
 * for the entry's first root, their embedding caches. Its index-json runs `index-tool <root>
 * --prune`, which removes them and writes nothing; `index` waits for it, so `nx run-many -t
 * index` after `git rm -r` of the last topic leaves the tree a clean build would. Not cached:
 * it removes what Nx does not hash (git-ignored files), so a cache hit would replay a removal
 * that did not happen. The plugin makes it only while there is something to remove, so once
 * they are gone the root is no project again (with the daemon, from the next time Nx remakes
 * the graph: until then a run finds nothing to remove and says so).
 * @param {string} dir  the docs root
 * @param {string} name
 * @param {BuildContext} ctx
 */
function topiclessRootProject(dir, name, ctx) {
  const { options } = ctx;
  const wiring = toolWiring(/** @type {ToolLocation} */ (ctx.tools[INDEX_TOOL.tool]));
  const cacheArgs = dir === ctx.cacheRoot ? (ctx.staleCacheFolders ?? []).flatMap((f) => ['--prune-embedding-cache', f]) : [];
  return {
    name,
    root: dir,
    projectType: 'library',
    tags: ['type:section', 'chunkyard'],
    implicitDependencies: [...wiring.implicit],
    targets: {
      [INDEX_JSON_TARGET]: {
        ...runTool(INDEX_TOOL.tool, [dir, '--root', dir, '--prune', ...cacheArgs], options, ctx),
        cache: false,
        inputs: [],
        outputs: [],
        dependsOn: [...wiring.dependsOn],
        metadata: { description: 'index-tool --prune over the docs root, which holds no topic any more: removes the outputs its deleted topics left' },
      },
      index: {
        executor: `${executorPackage(ctx)}:tool`,
        options: { noop: true },
        cache: false,
        inputs: [],
        outputs: [],
        dependsOn: [INDEX_JSON_TARGET],
        metadata: { description: 'removes what the deleted topics of this docs root left (it holds no topic any more)' },
      },
    },
  };
}

module.exports = {
  escapeControl,
  executorPackageOf,
  STEPS,
  mirrorBuildInputs,
  mergeInputs,
  upstreamSteps,
  INDEX_TOOL,
  TOOL_PACKAGES,
  INDEX_JSON_TARGET,
  LLMS_TXT_TARGET,
  normalizeOptions,
  entryRootsOf,
  entriesSharingCache,
  otherEntryNames,
  projectName,
  docsTree,
  createProjects,
  topicMarkers,
  unlistedMarkers,
  foldedName,
  twinFolders,
  listedFolder,
  docsRootOf,
};
