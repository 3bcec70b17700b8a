// @ts-check
/**
 * @chunkyard/nx: the Nx plugin. Every folder under a docs root that holds a topic marker
 * (`golden-reference.md`) becomes an Nx project with cached `chunk`, `keywords`, `spec`,
 * `index-json` and `index` targets; every folder above a topic, up to the docs root, becomes a
 * section project with `index-json` and `index`.
 *
 * Plain CommonJS with JSDoc types: Nx loads plugins before any task runs, and on Node 20 a `.ts`
 * plugin would need swc-node or ts-node in every user's workspace.
 *
 * This file is the edge: it asks the file system where the tools are installed and whether a
 * docs root is a symlink. Everything else is in plugin.cjs, which only sees paths.
 */
const { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } = require('node:fs');
const { dirname, isAbsolute, join, relative, sep } = require('node:path');
const { createRequire } = require('node:module');
const { createProjects, entriesSharingCache, otherEntryNames, executorPackageOf, INDEX_JSON_TARGET, LLMS_TXT_TARGET, STEPS, entryRootsOf, escapeControl, listedFolder, mirrorBuildInputs, normalizeOptions, topicMarkers, TOOL_PACKAGES, twinFolders, unlistedMarkers } = require('./plugin.cjs');
const { reinstallCommand } = require('./package-manager.cjs');

/** @typedef {import('./plugin.cjs').ChunkyardNxOptions} ChunkyardNxOptions */
/** @typedef {import('./plugin.cjs').ToolLocation} ToolLocation */

/** configFile's default: the tools read it when it exists, and use their defaults when it does not. */
const DEFAULT_CONFIG_FILE = 'chunkyard.config.yaml';

/** The lockfiles npm, pnpm, yarn and bun write at the workspace root, in that order. */
const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock', 'bun.lockb'];

/**
 * Where a tool package is, seen from the workspace root. A package whose real path lies inside
 * the workspace and outside node_modules is one of the workspace's own projects (chunkyard's
 * repo, where npm workspaces link apps/* into node_modules).
 * @param {string} packageName
 * @param {string} workspaceRoot
 * @returns {ToolLocation}
 */
function locateTool(packageName, workspaceRoot) {
  let manifest;
  try {
    manifest = require.resolve(`${packageName}/package.json`, { paths: [workspaceRoot, __dirname] });
  } catch {
    throw new Error(
      `@chunkyard/nx: cannot find the tool package ${packageName} from ${workspaceRoot}. ` +
        `It is a dependency of @chunkyard/nx: reinstall with \`${reinstallCommand(workspaceRoot)}\`.`,
    );
  }
  const dir = realpathSync(dirname(manifest));
  const rel = relative(realpathSync(workspaceRoot), dir);
  const inside = rel !== '' && !rel.startsWith('..') && !rel.split(sep).includes('node_modules');
  if (!inside) return { kind: 'installed', packageName };
  const projectJson = join(dir, 'project.json');
  const config = existsSync(projectJson) ? JSON.parse(readFileSync(projectJson, 'utf8')) : {};
  const project = config.name;
  const lockfile = LOCKFILES.find((f) => existsSync(join(workspaceRoot, f)));
  const buildInputs = mirrorBuildInputs(config.targets?.build?.inputs, rel.split(sep).join('/'), lockfile);
  return {
    kind: 'workspace',
    packageName,
    project: typeof project === 'string' ? project : packageName,
    ...(buildInputs ? { buildInputs } : {}),
  };
}

/**
 * A docs root that is a symlink, or missing, gets a message instead of Nx's silent
 * "No tasks were run": Nx neither follows symlinks nor hashes files behind them.
 * @param {string} docsRoot
 * @param {string} workspaceRoot
 */
function explainEmptyRoot(docsRoot, workspaceRoot) {
  const abs = join(workspaceRoot, docsRoot);
  let stat;
  try {
    stat = lstatSync(abs);
  } catch {
    // Not "create it with nx g @chunkyard/nx:topic": Nx builds the project graph before it runs
    // any generator, so this error stopped that command too (found by a probe).
    return (
      `@chunkyard/nx: the docs root "${docsRoot}" does not exist in ${workspaceRoot}. Create the folder ` +
      `(mkdir -p ${JSON.stringify(docsRoot)}; every nx command, nx g included, stops here until it exists) ` +
      `or set the docsRoot option of @chunkyard/nx in nx.json.`
    );
  }
  if (stat.isSymbolicLink()) {
    return (
      `@chunkyard/nx: the docs root "${docsRoot}" (option docsRoot of @chunkyard/nx in nx.json) is a symlink. Nx does not follow symlinks, so it can neither see ` +
      `nor hash the topics behind it, and caching would be wrong. Make it a real folder: a git submodule, ` +
      `a checkout into the workspace, or a copy.`
    );
  }
  if (!stat.isDirectory()) return `@chunkyard/nx: the docs root "${docsRoot}" (option docsRoot of @chunkyard/nx in nx.json) is not a folder; set docsRoot to the folder that holds the topics.`;
  // An existing folder with no topic yet is fine: there is just nothing to build.
  return null;
}

/**
 * The outputs chunkyard wrote under a docs root that holds no topic (workspace-relative): what
 * `index-tool <root> --prune` removes there (index-tool's topiclessRootOutputs: the root's own
 * index.json and llms files, and the deleted topics' outputs below it), so that the root stays a
 * project exactly while its prune has something to do. `prunable` is false when the installed
 * index-tool predates that (it refuses a root with no topic): then the list is a guess, named in
 * the warning with a command to remove them by hand, and the root is no project.
 * @param {string} root @param {string} marker @param {string} workspaceRoot
 * @returns {{ files: string[], prunable: boolean }}
 */
function leftoverOutputs(root, marker, workspaceRoot) {
  const abs = join(workspaceRoot, root);
  const stale = loadStaleOutputs(workspaceRoot);
  if (stale && typeof stale.topiclessRootOutputs === 'function') {
    try {
      return { files: (stale.topiclessRootOutputs(abs, marker) ?? []).map((o) => `${root}/${o.path}`), prunable: true };
    } catch {
      // A folder the kernel refuses to look up (ELOOP, ENAMETOOLONG): the root's own files, below.
    }
  }
  /** @type {string[]} */
  const out = [];
  for (const f of ['index.json', 'llms.txt', 'llms-full.txt']) if (existsSync(join(abs, f))) out.push(`${root}/${f}`);
  try {
    if (stale) for (const o of stale.staleOutputs(abs, marker)) out.push(`${root}/${o.path}`);
  } catch {
    // A folder the kernel refuses to look up: what was found so far.
  }
  return { files: out, prunable: false };
}

/**
 * A message when the embedding cache folder, or a folder above it, is a file: every topic's
 * spec then failed, each with topic-spec's "give a --cache-dir that can be a folder", a flag
 * the user never wrote (found by a probe). null when it is a folder or does not exist yet.
 * @param {string} cacheDir workspace-relative, posix
 * @param {string} workspaceRoot
 */
function explainCacheDir(cacheDir, workspaceRoot) {
  const parts = cacheDir.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const rel = parts.slice(0, i).join('/');
    let st;
    try {
      st = statSync(join(workspaceRoot, rel));
    } catch {
      return null; // missing (topic-spec creates it), or a problem topic-spec names itself
    }
    if (!st.isDirectory()) {
      return (
        `@chunkyard/nx: the embedding cache folder "${escapeControl(cacheDir)}" (option embeddingCacheDir of @chunkyard/nx in nx.json) ` +
        `cannot be a folder: ${escapeControl(rel)} is ${st.isFile() ? 'a file' : kindOf(st)}; move it away or set embeddingCacheDir to another folder.`
      );
    }
  }
  return null;
}

/** The files every tool step reads from a topic folder, each with a meaning of its own. */
const TOPIC_READ_FILES = ['topic.yaml', 'qa-pairs.md', 'keywords.md'];

/**
 * A message for a topic's topic.yaml, qa-pairs.md or keywords.md that is no regular file (a
 * folder, a FIFO, a dangling symlink), or null. The tools fail on it, but Nx lists no such
 * entry, so the topic's hash was unchanged and a build from the cache passed while a fresh one
 * failed (found by a probe: `mkdir docs/t/topic.yaml`).
 * @param {import('node:fs').Dirent[]} entries @param {string} dir @param {string} workspaceRoot
 * @returns {string | null}
 */
function oddReadFile(entries, dir, workspaceRoot) {
  for (const e of entries) {
    if (!TOPIC_READ_FILES.includes(e.name) || e.isFile()) continue;
    const rel = `${dir}/${e.name}`;
    let what;
    try {
      const st = statSync(join(workspaceRoot, rel));
      if (st.isFile()) continue;
      what = `${e.isSymbolicLink() ? 'a symlink to ' : ''}${kindOf(st)}`;
    } catch {
      what = 'a symlink that cannot be followed';
    }
    return (
      `@chunkyard/nx: ${escapeControl(rel)} is ${what}, not a file. The tools read ${e.name} in every topic and fail on it, ` +
      `while Nx, which lists no such entry, would serve the topic's cached build. Make it a file or remove it.`
    );
  }
  return null;
}

/**
 * What kind of thing a Stats is, in words, for a message.
 * @param {import('node:fs').Stats} st
 */
function kindOf(st) {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * The first topic marker under a docs root that Nx leaves out of the files it hands the
 * plugin, or hashes wrongly, with a message naming it; null when there is none. Without this
 * the topic silently had no project (and index-tool later failed on its parent with a
 * misleading "index.json: missing"), or its cache went stale. Found by probes:
 * - a symlink Node cannot follow (dangling, a loop);
 * - a folder, a FIFO, a socket or a device, or a symlink to one of those: Nx lists none;
 * - a symlink to a file outside the topic's folder: Nx hashes a symlinked file by the link's
 *   own mtime, so an edit of the file behind it reran nothing;
 * - a symlinked folder holding a marker: Nx does not enter it, so its topic had no project.
 * Other symlinked folders are not entered (Nx does not follow them either); folders index-tool
 * does not list (`_chunks`, `_drafts`, `.hidden`, node_modules: listedFolder) hold no topics.
 * @param {string} docsRoot
 * @param {string} marker
 * @param {string} workspaceRoot
 * @param {string[]} [found] collects the usable markers on disk (workspace-relative)
 * @param {string[]} [nearMisses] collects files named as the marker in another case
 *   (`Golden-Reference.md`) in folders without the marker: such a folder silently had no topic
 * @param {{ file: string, topic: string }[]} [sources] collects the files in topic folders that a topic step hashes as
 *   sources (`*.md`, `*.markdown`, `*.txt`, topic.yaml; not the marker or topic-spec.md)
 * @returns {string | null}
 */
function badMarker(docsRoot, marker, workspaceRoot, found = [], nearMisses = [], sources = []) {
  /** @type {[string, string | null][]} each folder to walk, with the topic folder it is in (nearest) */
  const stack = [[docsRoot, null]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [dir, above] = item;
    let entries;
    try {
      entries = readdirSync(join(workspaceRoot, dir), { withFileTypes: true });
    } catch {
      continue; // a missing or unreadable root: explainEmptyRoot says what is wrong
    }
    const topic = entries.some((e) => e.name === marker) ? dir : above;
    if (topic !== null) {
      const outside = symlinkedSourceOutside(entries, dir, topic, marker, workspaceRoot);
      if (outside) return outside;
      if (topic === dir) {
        const odd = oddReadFile(entries, dir, workspaceRoot);
        if (odd) return odd;
      }
      for (const e of entries) {
        // A FIFO or socket: Nx lists none, and the tool that reads it refuses it with its own message.
        if (!(e.isFile() || e.isSymbolicLink()) || e.name === marker || e.name === 'topic-spec.md') continue;
        if (dir === docsRoot && (e.name === 'llms.txt' || e.name === 'llms-full.txt')) continue;
        if (/\.(md|markdown|txt)$/.test(e.name) || e.name === 'topic.yaml') sources.push({ file: `${dir}/${e.name}`, topic });
      }
    }
    if (!entries.some((e) => e.name === marker)) {
      const lower = marker.toLowerCase();
      for (const e of entries) if (e.name.toLowerCase() === lower && !e.isDirectory()) nearMisses.push(`${dir}/${e.name}`);
    }
    for (const e of entries) {
      const rel = `${dir}/${e.name}`;
      const abs = join(workspaceRoot, rel);
      if (e.name === marker) {
        if (e.isFile()) {
          found.push(rel);
          continue;
        }
        if (!e.isSymbolicLink()) {
          const st = lstatSync(abs);
          return `@chunkyard/nx: ${rel} is ${kindOf(st)}, not a ${st.isDirectory() ? 'file' : 'regular file'}, so this folder cannot be a topic. Make it a markdown file or remove it.`;
        }
        let st;
        try {
          st = statSync(abs);
        } catch (err) {
          const code = /** @type {NodeJS.ErrnoException} */ (err).code;
          const why = code === 'ELOOP' ? 'a symlink loop' : code === 'ENOENT' ? 'a symlink to a missing file' : `a symlink that cannot be followed (${code})`;
          return `@chunkyard/nx: ${rel} is ${why}, so this folder cannot be a topic. Point it at a real file or remove it.`;
        }
        if (!st.isFile()) return `@chunkyard/nx: ${rel} is a symlink to ${kindOf(st)}, not a regular file, so this folder cannot be a topic. Point it at a markdown file or remove it.`;
        const target = realpathSync(abs);
        const folder = realpathSync(join(workspaceRoot, dir));
        const inside = relative(folder, target);
        if (inside.split(sep)[0] === '..' || isAbsolute(inside)) {
          return (
            `@chunkyard/nx: ${rel} is a symlink to a file outside its topic folder (${target}). Nx does not see edits ` +
            `of a file behind a symlink (it hashes the link), so the topic's cached output would go stale. Make it a ` +
            `real file in ${dir}, or a symlink to a file inside ${dir}.`
          );
        }
        found.push(rel);
      } else if (e.isDirectory()) {
        if (listedFolder(e.name)) stack.push([rel, topic]);
      } else if (e.isSymbolicLink() && listedFolder(e.name) && holdsMarker(abs, marker)) {
        return (
          `@chunkyard/nx: ${rel} is a symlink to a folder holding ${marker}. Nx does not follow symlinks, so it can ` +
          `neither see nor hash the topic behind it. Make it a real folder (a copy, a checkout or a git submodule).`
        );
      }
    }
  }
  return null;
}

/**
 * A message for the first file of a topic's sources in `dir` (a name the topic's steps hash:
 * `*.md`, `*.markdown`, `*.txt`, topic.yaml) that is a symlink to a file outside the topic
 * folder, or null. The tools read through the link (a `keywords.md` or `qa-pairs.md` shared
 * between topics, a `sources` entry), but Nx hashes the link, not the file behind it: an edit
 * of that file reran nothing, and the topic's outputs were served stale from the cache (found
 * by a probe). The marker itself is checked by badMarker.
 * @param {import('node:fs').Dirent[]} entries  of `dir`
 * @param {string} dir    workspace-relative
 * @param {string} topic  workspace-relative topic folder holding `dir`
 * @param {string} marker
 * @param {string} workspaceRoot
 * @returns {string | null}
 */
function symlinkedSourceOutside(entries, dir, topic, marker, workspaceRoot) {
  for (const e of entries) {
    if (!e.isSymbolicLink() || e.name === marker || e.name === 'topic-spec.md') continue;
    if (!/\.(md|markdown|txt)$/.test(e.name) && e.name !== 'topic.yaml') continue;
    const rel = `${dir}/${e.name}`;
    let target;
    try {
      if (!statSync(join(workspaceRoot, rel)).isFile()) continue; // the tools name a link to no file
      target = realpathSync(join(workspaceRoot, rel));
    } catch {
      continue; // dangling or looping: the tool that reads it reports it
    }
    const inside = relative(realpathSync(join(workspaceRoot, topic)), target);
    if (inside.split(sep)[0] === '..' || isAbsolute(inside)) {
      return (
        `@chunkyard/nx: ${rel} is a symlink to a file outside its topic folder ${topic} (${target}). Nx does not see edits ` +
        `of a file behind a symlink (it hashes the link), so the topic's cached output would go stale. Make it a real ` +
        `file in ${topic}, or a symlink to a file inside ${topic}.`
      );
    }
  }
  return null;
}

/**
 * Whether a symlink leads to a folder with a marker at or below it (real folders only, so
 * a loop of links ends; at most 2,000 folders, since this runs on every graph computation and
 * a link may lead to `/`).
 * @param {string} link absolute
 * @param {string} marker
 */
function holdsMarker(link, marker) {
  try {
    if (!statSync(link).isDirectory()) return false;
  } catch {
    return false;
  }
  const stack = [link];
  for (let dir = stack.pop(), seen = 0; dir !== undefined && seen < 2_000; dir = stack.pop(), seen++) {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.name === marker) return true;
      if (e.isDirectory() && listedFolder(e.name)) stack.push(join(dir, e.name));
    }
  }
  return false;
}

/**
 * Nx reads the glob before it knows the options, so it cannot name the docs roots or the marker:
 * it matches every file, and plugin.cjs keeps the markers under the configured roots (a path
 * test per file, done in one pass). Matching nx.json too makes the plugin run even when no
 * topic exists, so it can explain an empty or symlinked docs root.
 * @type {import('nx/src/project-graph/plugins/public-api').CreateNodesV2<ChunkyardNxOptions>}
 */
const createNodesV2 = [
  '**/*',
  (files, rawOptions, context) => {
    try {
      const options = normalizeOptions(rawOptions);
      const overridden = overridingTargetDefault(context.nxJsonConfiguration, context.workspaceRoot);
      if (overridden) throw new Error(overridden);
      const cacheShared = entriesSharingCache(context.nxJsonConfiguration, options.embeddingCacheDir) > 1;
      return createProjectsFromFiles(files, options, context.workspaceRoot, entryRootsOf(context.nxJsonConfiguration), cacheShared, context.nxJsonConfiguration);
    } catch (err) {
      // `nx run-many` and `nx run` print only "Failed to process project graph. Pass --verbose
      // to see the stacktraces." for an error thrown here (Nx 22.7's handleProjectGraphError),
      // so a message of ours is also written where the user sees it.
      // A path in it may hold control characters (a folder named with ESC): escaped, as the
      // tools escape them, in what Nx prints too.
      if (err instanceof Error && err.message.startsWith('@chunkyard/nx: ')) {
        err.message = escapeControl(err.message);
        process.stderr.write(`${err.message}\n`);
      }
      throw err;
    }
  },
];

/** Every target the plugin makes. */
const PIPELINE_TARGETS = [...STEPS.map((s) => s.target), INDEX_JSON_TARGET, LLMS_TXT_TARGET, 'index'];
/** The fields of a target default that replace the pipeline's own (Nx applies a default's value over a plugin's). */
const OVERRIDING_FIELDS = ['dependsOn', 'inputs', 'outputs', 'options', 'command', 'continuous'];

/**
 * An nx.json `targetDefaults` entry that Nx would lay over a pipeline target (Nx 22.7.12,
 * target-merging.js readTargetDefaultsForTarget and mergeTargetDefaultWithTargetDefinition: the
 * entry keyed by the target's executor, else by its name, else the longest glob over names
 * matching it; its values replace a plugin's). A `"index": { "dependsOn": ["^index"] }` made
 * `index` wait for no index-json, so `nx run-many -t index` built nothing and exited 0 over stale
 * outputs; replaced inputs made the cache serve old chunks, or crashed Nx's hasher (found by a
 * probe). An entry under the pipeline's executor is read instead of the name, so an empty one
 * shields the pipeline from defaults meant for a repo's other targets of the same name.
 * @param {{ targetDefaults?: Record<string, unknown> } | undefined} nxJson
 * @param {string} workspaceRoot
 * @returns {string | undefined} the error, if any
 */
function overridingTargetDefault(nxJson, workspaceRoot) {
  const defaults = nxJson?.targetDefaults;
  if (defaults === null || typeof defaults !== 'object') return undefined;
  const executor = `${executorPackageOf(locateExecutor(workspaceRoot))}:tool`;
  /** @type {((name: string, pattern: string) => boolean) | undefined} */
  let matches;
  const globKeys = Object.keys(defaults).filter((k) => /[*|{}()[]/.test(k));
  if (globKeys.length > 0) {
    try {
      const nxRequire = createRequire(require.resolve('nx/package.json', { paths: [workspaceRoot, __dirname] }));
      const { minimatch } = nxRequire('minimatch');
      matches = (name, pattern) => minimatch(name, pattern);
    } catch {
      matches = undefined;
    }
  }
  for (const target of PIPELINE_TARGETS) {
    /** @type {string | undefined} */
    let key;
    if (Object.hasOwn(defaults, executor) && defaults[executor]) key = executor;
    else if (Object.hasOwn(defaults, target) && defaults[target]) key = target;
    else if (matches) {
      for (const k of globKeys) {
        if (matches(target, k) && (key === undefined || key.length < k.length)) key = k;
      }
    }
    if (key === undefined) continue;
    const value = /** @type {Record<string, unknown>} */ (defaults[key]);
    if (value === null || typeof value !== 'object') continue;
    // A default naming another executor is not applied (Nx's isCompatibleTarget).
    if (typeof value.executor === 'string' && value.executor !== executor) continue;
    const fields = OVERRIDING_FIELDS.filter((f) => value[f] !== undefined);
    if (fields.length === 0) continue;
    return (
      `@chunkyard/nx: targetDefaults ${JSON.stringify(key)} in nx.json sets ${fields.join(', ')} for the target ${target} of @chunkyard/nx's projects, ` +
      `and Nx lays a target default over a plugin's own values: the pipeline would ${fields.includes('dependsOn') ? 'no longer build the index.json files' : 'hash or write the wrong files'}. ` +
      (key === executor
        ? `Remove those fields from it.`
        : `Add "${executor}": {} to targetDefaults (Nx then reads that entry for the pipeline's targets instead of ${JSON.stringify(key)}), or remove those fields.`)
    );
  }
  return undefined;
}

/**
 * The warning for a pair of twinFolders (and how many more pairs there are).
 * @param {import('./plugin.cjs').TwinFolders} pair
 * @param {number} more
 */
function twinWarning({ a, b, inCase, inNormalization, inFolding }, more) {
  const form = (/** @type {string} */ dir) => {
    const name = dir.slice(dir.lastIndexOf('/') + 1);
    return name === name.normalize('NFC') ? 'NFC' : name === name.normalize('NFD') ? 'NFD' : 'neither NFC nor NFD';
  };
  const named = (/** @type {string} */ dir) => `${escapeControl(dir)}${inNormalization ? ` (${form(dir)})` : ''}`;
  const why = inFolding
    ? `case as Unicode folds it fully (ß as ss, ﬁ as fi, ſ as s)${inNormalization ? ' and in Unicode normalization' : ''}: macOS takes them for one folder (its file system folds case that way${inNormalization ? ' and ignores normalization' : ''})`
    : !inNormalization
      ? 'case: macOS and Windows take them for one folder (their file systems ignore case)'
      : !inCase
        ? 'Unicode normalization (the same letters, encoded differently): their project names look the same in nx show projects, and macOS takes them for one folder (its file system ignores normalization)'
        : 'case and Unicode normalization: macOS takes them for one folder (its file system ignores both)';
  return (
    `the folders ${named(a)} and ${named(b)}${more > 0 ? ` (and ${more} more ${more === 1 ? 'pair' : 'pairs'})` : ''} have names that differ only in ${why}, ` +
    `so a clone or checkout there mixes their files; Linux keeps them apart and builds both, but rename one of them`
  );
}

/**
 * @param {readonly string[]} files
 * @param {import('./plugin.cjs').NormalizedOptions} options
 * @param {string} workspaceRoot
 * @param {string[][]} [entryRoots] every @chunkyard/nx entry's docs roots (several entries name projects by root)
 * @param {boolean} [cacheShared] another @chunkyard/nx entry keeps its embedding caches in the same folder
 * @param {unknown} [nxJson] nx.json, for the other @chunkyard/nx entries' project names
 */
function createProjectsFromFiles(files, options, workspaceRoot, entryRoots = [], cacheShared = false, nxJson = undefined) {
  const markers = topicMarkers(files, options);
  for (const root of options.docsRoots) {
    if (markers.some((m) => m.startsWith(`${root}/`))) continue;
    const problem = explainEmptyRoot(root, workspaceRoot);
    if (problem) throw new Error(problem);
  }
  // index-tool lists no folder named `_x`, `.x` or node_modules in an index.json, so a topic
  // there would be built and linked from nothing: it is no project, and the user is told.
  const unlisted = unlistedMarkers(files, options);
  if (unlisted.length > 0) {
    const [{ marker, folder }] = /** @type {[{ marker: string, folder: string }]} */ (unlisted);
    const others = unlisted.length > 1 ? ` (and ${unlisted.length - 1} more)` : '';
    process.stderr.write(
      `@chunkyard/nx: warning: ${escapeControl(marker)}${others} is inside ${escapeControl(folder)}, a folder index-tool lists in no index.json (its name starts with "_" or ".", or is node_modules), so its folder is not built as a topic; rename the folder to build it\n`,
    );
  }
  // Folders named alike but for case (full case folding included: Straße, STRASSE) or Unicode
  // normalization are two projects here, but one folder on macOS (and, for case a character at
  // a time, Windows), and NFC and NFD names look the same in
  // `nx show projects`: the build runs, and the user is told once, the first pair named.
  const twins = twinFolders(markers, options.docsRoots);
  if (twins.length > 0) {
    process.stderr.write(`@chunkyard/nx: warning: ${twinWarning(/** @type {import('./plugin.cjs').TwinFolders} */ (twins[0]), twins.length - 1)}\n`);
  }
  // After the root checks: a symlinked root is explained above, never walked here.
  const listed = new Set(markers);
  /** @type {Set<string> | undefined} every file Nx listed, posix (made once, when a root is walked) */
  let listedFiles;
  /** @type {Set<string>} roots with no topic whose leftovers a project of theirs prunes */
  const topiclessRoots = new Set();
  for (const root of options.docsRoots) {
    /** @type {string[]} */
    const onDisk = [];
    /** @type {string[]} */
    const nearMisses = [];
    /** @type {{ file: string, topic: string }[]} */
    const sources = [];
    const broken = badMarker(root, options.topicMarker, workspaceRoot, onDisk, nearMisses, sources);
    if (broken) throw new Error(broken);
    // Nx hashes no file it leaves out (.gitignore, .nxignore): a `sources` entry, qa-pairs.md or
    // keywords.md ignored there was read by the tools and hashed by nothing, so its edits reran
    // nothing and the cache served the old output (found by a probe).
    if (listedFiles === undefined) listedFiles = new Set(files.map((f) => (sep === '\\' ? f.split(sep).join('/') : f)));
    const seen = /** @type {Set<string>} */ (listedFiles);
    // Only in topics that are projects: a hidden topic's own warning is above.
    const unhashed = sources.filter((s) => listed.has(`${s.topic}/${options.topicMarker}`) && !seen.has(s.file)).map((s) => s.file).sort();
    if (unhashed.length > 0) {
      const more = unhashed.length > 1 ? ` (and ${unhashed.length - 1} more)` : '';
      process.stderr.write(
        `@chunkyard/nx: warning: ${escapeControl(/** @type {string} */ (unhashed[0]))}${more} is in a topic folder but not among the files Nx hands the plugin (.gitignore, .nxignore), so Nx does not hash it: if the topic reads it (a sources entry of topic.yaml, qa-pairs.md, keywords.md), its edits rerun nothing and the cache serves the old output; un-ignore it\n`,
      );
    }
    if (nearMisses.length > 0) {
      const first = /** @type {string} */ (nearMisses.sort()[0]);
      const others = nearMisses.length > 1 ? ` (and ${nearMisses.length - 1} more)` : '';
      process.stderr.write(
        `@chunkyard/nx: warning: ${escapeControl(first)}${others} is not named ${escapeControl(options.topicMarker)} (names are case-sensitive), so its folder is not built as a topic; rename it to build it\n`,
      );
    }
    // A marker Nx did not list is ignored by .gitignore or .nxignore: its topic silently had no
    // project, and a docs root ignored whole printed "No tasks were run" (found by a probe).
    const hidden = onDisk.filter((m) => !listed.has(m)).sort();
    if (hidden.length === 0) {
      // A root that exists but holds no marker is not an error: right after init it is empty, and
      // an error here would stop `nx g @chunkyard/nx:topic` too (Nx makes the graph before any
      // generator). But a docsRoot pointed at the wrong folder made `nx run-many -t index` print
      // "No tasks were run" and exit 0, with no word of why (found by a probe).
      if (!markers.some((m) => m.startsWith(`${root}/`))) {
        // Its last topic deleted, the root was no project, so no index-json --prune removed the
        // deleted topics' outputs: index.json still listed the topics, and docs-export and
        // docs-query read them, after an exit 0 "No tasks were run" (probe). A warning naming
        // them was out of sight with the daemon, so the root now stays a project while they are
        // there (plugin.cjs topiclessRootProject), whose index-json removes them.
        const { files: left, prunable } = leftoverOutputs(root, options.topicMarker, workspaceRoot);
        if (prunable && left.length > 0) topiclessRoots.add(root);
        // The embedding caches too, unless another entry keeps its caches in the same folder.
        const caches = options.docsRoots.length === 1 && !cacheShared && left.length > 0 && existsSync(join(workspaceRoot, options.embeddingCacheDir)) ? ` ${options.embeddingCacheDir}` : '';
        const named = left.length === 0 ? '' : `${escapeControl(/** @type {string} */ (left[0]))}${left.length > 1 ? ` and ${left.length - 1} more` : ''}`;
        // git clean removes the emptied root as well, which the plugin then refuses as missing.
        const leftover =
          left.length === 0
            ? ''
            : prunable
              ? `. Outputs of its deleted topics are left (${named}; docs-export and docs-query still read them): npx nx run-many -t index removes them (the root stays a project, whose index-json runs index-tool --prune, until they are gone)`
              : `. Outputs of its deleted topics are left (${named}; docs-export and docs-query still read them), which the installed @chunkyard/index-tool cannot prune from a root with no topic: remove them with git clean -fdX ${escapeControl(root)}${escapeControl(caches)} && mkdir -p ${escapeControl(root)}`;
        process.stderr.write(
          `@chunkyard/nx: warning: the docs root "${escapeControl(root)}" (option docsRoot of @chunkyard/nx in nx.json) holds no ${escapeControl(options.topicMarker)}, so it has no topics and nx builds nothing there; add a topic (npx nx g @chunkyard/nx:topic <name>) or set docsRoot to the folder that holds them${leftover}\n`,
        );
      }
      continue;
    }
    const more = hidden.length > 1 ? ` (and ${hidden.length - 1} more)` : '';
    if (!markers.some((m) => m.startsWith(`${root}/`))) {
      throw new Error(
        `@chunkyard/nx: Nx sees none of the topics under the docs root "${root}" (${hidden[0]}${more}): they are not among the files Nx hands the plugin ` +
          `(.gitignore, .nxignore, or the include/exclude of @chunkyard/nx in nx.json). Ignore only the outputs (_chunks/, _keywords/, topic-spec.md, index.json, llms.txt), not the sources.`,
      );
    }
    process.stderr.write(
      `@chunkyard/nx: warning: ${escapeControl(/** @type {string} */ (hidden[0]))}${more} is not among the files Nx hands the plugin (.gitignore, .nxignore, or the include/exclude of @chunkyard/nx in nx.json), so its folder is not built as a topic; un-ignore it to build it\n`,
    );
  }
  const stale = loadStaleOutputs(workspaceRoot);
  if (markers.length === 0) {
    // No topic anywhere: a project only for a root with leftovers, or for the deleted topics'
    // embedding caches (none when the installed index-tool cannot prune a root with no topic).
    const prunable = typeof stale?.topiclessRootOutputs === 'function';
    const caches = prunable && !cacheShared && /** @type {StaleOutputsModule} */ (stale).staleEmbeddingCaches(join(workspaceRoot, options.embeddingCacheDir), new Set()).length > 0;
    if (topiclessRoots.size === 0 && !caches) return [];
  } else {
    const cacheProblem = explainCacheDir(options.embeddingCacheDir, workspaceRoot);
    if (cacheProblem) throw new Error(cacheProblem);
  }
  /** @type {Record<string, ToolLocation>} */
  const tools = Object.fromEntries(TOOL_PACKAGES.map((p) => [p, locateTool(p, workspaceRoot)]));
  const staleIn = (/** @type {string} */ docsRoot, /** @type {string} */ marker) => {
    if (stale === null) return true;
    try {
      return stale.staleOutputs(join(workspaceRoot, docsRoot), marker).length > 0;
    } catch {
      // A folder the kernel refuses to look up (ELOOP, ENAMETOOLONG): the task runs, and
      // index-tool names the problem there.
      return true;
    }
  };
  const staleCaches =
    stale === null || cacheShared ? undefined : (/** @type {string} */ cacheDir, /** @type {ReadonlySet<string>} */ live) => stale.staleEmbeddingCaches(join(workspaceRoot, cacheDir), live);
  const configAbsent = !existsSync(join(workspaceRoot, options.configFile));
  // A configFile named in nx.json is meant to be read: the tools are not quietly given their
  // defaults instead, and each chunk task fails naming the file; this says where it was named.
  if (configAbsent && options.configFile !== DEFAULT_CONFIG_FILE && markers.length > 0) {
    process.stderr.write(
      `@chunkyard/nx: warning: the config file "${escapeControl(options.configFile)}" (option configFile of @chunkyard/nx in nx.json) does not exist, so every topic's chunk and spec fail; create it or fix the option\n`,
    );
  }
  const defaultConfigAbsent = configAbsent && options.configFile === DEFAULT_CONFIG_FILE;
  const anchorFile = files.includes('nx.json') ? 'nx.json' : (files[0] ?? 'nx.json');
  const projectNames = workspaceProjectNames(files, options, workspaceRoot);
  const otherEntries = entryRoots.length > 1 ? otherEntryNames(files, options, nxJson, projectNames.isProjectFolder) : undefined;
  return createProjects(markers, { options, tools, executor: locateExecutor(workspaceRoot), entryRoots, ownNames: projectNames.own, otherNames: projectNames.elsewhere, otherEntryNames: otherEntries, staleIn, staleCaches, defaultConfigAbsent, topiclessRoots, anchorFile });
}

/** @typedef {{ staleOutputs: (root: string, marker: string) => { path: string }[], staleEmbeddingCaches: (cacheRoot: string, live: ReadonlySet<string>) => string[], topiclessRootOutputs?: (root: string, marker: string) => { path: string }[] | null }} StaleOutputsModule */
/** Loaded once per workspace (the daemon makes the graph many times in one process). @type {Map<string, StaleOutputsModule>} */
const staleOutputsModules = new Map();

/**
 * index-tool's lists of what its `--prune` removes (`@chunkyard/index-tool/stale-outputs`, an
 * ES module with Node builtins only; require() loads an ES module from Node 20.19 and 22.12).
 * The same code prune runs, so the plugin reruns the root's index-json exactly while there is
 * something to prune. null, with a warning, when it cannot be loaded (tried again at the next
 * look: a workspace may build it meanwhile): then the root's index-json reruns on every build,
 * which is slow but never leaves stale outputs.
 * @param {string} workspaceRoot
 * @returns {StaleOutputsModule | null}
 */
function loadStaleOutputs(workspaceRoot) {
  const known = staleOutputsModules.get(workspaceRoot);
  if (known !== undefined) return known;
  try {
    // The built file named by the package's exports, whatever conditions the process runs under
    // (vitest's `source` condition would pick the TypeScript).
    const manifest = require.resolve('@chunkyard/index-tool/package.json', { paths: [workspaceRoot, __dirname] });
    const file = join(dirname(manifest), JSON.parse(readFileSync(manifest, 'utf8')).exports['./stale-outputs'].default);
    const found = /** @type {StaleOutputsModule} */ (require(file));
    staleOutputsModules.set(workspaceRoot, found);
    return found;
  } catch (err) {
    process.stderr.write(
      `@chunkyard/nx: warning: cannot load @chunkyard/index-tool/stale-outputs (${escapeControl(err instanceof Error ? err.message.split('\n')[0] ?? '' : String(err))}), so the docs root's index-json reruns on every build; reinstall @chunkyard/nx (it needs Node >= 20.19 or >= 22.12), or in chunkyard's own repo run npm run build\n`,
    );
    return null;
  }
}

/**
 * The folders at or under a docs root that are Nx projects of their own, each with the name
 * Nx gives it and the file that gives it, as Nx 22.7 names them: a project.json by its `name`,
 * or else its folder's name in lower case (Nx's toProjectName); a package.json without a
 * project.json beside it only when it is in the package manager's workspaces (Nx ignores it
 * otherwise), by `nx.name`, `name` or that folder name. Nx merges those files after this
 * plugin, so their name wins; the plugin uses it so that every reference to the project agrees.
 * A file that is not valid JSON is left to Nx, which reports it.
 * @param {readonly string[]} files
 * @param {import('./plugin.cjs').NormalizedOptions} options
 * @param {string} workspaceRoot
 * @returns {Map<string, { name: string, file: string }>}
 */
function ownProjectNames(files, options, workspaceRoot) {
  return workspaceProjectNames(files, options, workspaceRoot).own;
}

/**
 * The Nx projects that project.json and package.json files make (as ownProjectNames reads
 * them): `own`, the folders at or under a docs root, and `elsewhere`, every other such project's
 * name with its file. A name of this plugin's that one of those already is (a `site/package.json`
 * named "docs" beside docsRoot "docs") made Nx stop with "defined in multiple locations", which
 * `nx run-many` and `nx affected` hide behind "Failed to process project graph" (found by a probe).
 * @param {readonly string[]} files
 * @param {import('./plugin.cjs').NormalizedOptions} options
 * @param {string} workspaceRoot
 * @returns {{ own: Map<string, { name: string, file: string }>, elsewhere: { get(name: string): string | undefined }, isProjectFolder(dir: string): boolean }}
 */
function workspaceProjectNames(files, options, workspaceRoot) {
  /** @type {Map<string, { name: string, file: string }>} folder -> the name its project.json gives */
  const projectJsons = new Map();
  /** @type {Map<string, string>} folder -> its package.json */
  const packageJsons = new Map();
  for (const raw of files) {
    const f = sep === '\\' ? raw.split(sep).join('/') : raw;
    const base = f.slice(f.lastIndexOf('/') + 1);
    if (base !== 'project.json' && base !== 'package.json') continue;
    const dir = f.slice(0, Math.max(0, f.lastIndexOf('/')));
    if (base === 'package.json') {
      packageJsons.set(dir, f);
      continue;
    }
    const json = readJson(join(workspaceRoot, f));
    if (json === undefined) continue;
    const name = typeof json.name === 'string' && json.name !== '' ? json.name : folderProjectName(dir);
    projectJsons.set(dir, { name, file: f });
  }
  // Nx's workspaces matcher costs a load of Nx's package-json plugin (about 0.1 s in a process
  // that has not loaded it, as an isolated plugin's): made only when a package.json could count.
  /** @type {((file: string) => boolean) | undefined} */
  let matcher;
  const inWorkspaces = (/** @type {string} */ f) => (matcher ??= packageJsonWorkspaces(workspaceRoot))(f);
  const packageName = (/** @type {string} */ dir, /** @type {string} */ f) => {
    const json = readJson(join(workspaceRoot, f));
    if (json === undefined) return undefined;
    const nx = json.nx && typeof json.nx === 'object' ? /** @type {Record<string, unknown>} */ (json.nx) : {};
    return typeof nx.name === 'string' ? nx.name : typeof json.name === 'string' ? json.name : folderProjectName(dir);
  };
  const underRoot = (/** @type {string} */ dir) => options.docsRoots.some((r) => dir === r || dir.startsWith(`${r}/`));
  /** @type {Map<string, { name: string, file: string }>} */
  const own = new Map();
  /** @type {Map<string, string>} name -> project.json */
  const byName = new Map();
  /** @type {Map<string, string[]>} name -> package.json files that are projects if in the workspaces */
  const packagesByName = new Map();
  for (const [dir, given] of projectJsons) {
    if (underRoot(dir)) own.set(dir, given);
    else if (given.name !== '' && !byName.has(given.name)) byName.set(given.name, given.file);
  }
  for (const [dir, f] of packageJsons) {
    if (projectJsons.has(dir)) continue;
    if (underRoot(dir)) {
      if (!inWorkspaces(f)) continue;
      const name = packageName(dir, f);
      if (name !== undefined) own.set(dir, { name, file: f });
      continue;
    }
    const name = packageName(dir, f);
    if (name !== undefined && name !== '') packagesByName.set(name, [...(packagesByName.get(name) ?? []), f]);
  }
  return {
    own,
    elsewhere: { get: (/** @type {string} */ name) => byName.get(name) ?? packagesByName.get(name)?.find(inWorkspaces) },
    isProjectFolder: (/** @type {string} */ dir) => projectJsons.has(dir) || (packageJsons.has(dir) && inWorkspaces(/** @type {string} */ (packageJsons.get(dir)))),
  };
}

/** Nx's name for a project file's folder without a name of its own (toProjectName): the folder's name, lower case. @param {string} dir */
function folderProjectName(dir) {
  return dir.slice(dir.lastIndexOf('/') + 1).toLowerCase();
}

/** @param {string} file @returns {Record<string, unknown> | undefined} a JSON object, or undefined */
function readJson(file) {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether Nx makes a package.json a project: Nx's own test (its package-json plugin's
 * workspace patterns, from package.json workspaces, pnpm-workspace.yaml or lerna.json), loaded
 * from the Nx running this plugin. An Nx without that export: no package.json is taken as a project.
 * @param {string} workspaceRoot
 * @returns {(file: string) => boolean}
 */
function packageJsonWorkspaces(workspaceRoot) {
  try {
    // The Nx that loaded this plugin, found from the workspace as Nx itself is.
    const nxPackageJson = require(require.resolve('nx/src/plugins/package-json', { paths: [workspaceRoot, __dirname] }));
    const patterns = nxPackageJson.buildPackageJsonPatterns(workspaceRoot, (/** @type {string} */ f) => JSON.parse(readFileSync(join(workspaceRoot, f), 'utf8')));
    return nxPackageJson.buildPackageJsonWorkspacesMatcher(patterns);
  } catch {
    return () => false;
  }
}

/**
 * Where this package's executor is, for hashing: in chunkyard's own repo the plugin is
 * workspace source (its real path is inside the workspace, outside node_modules), so the
 * executor files are task inputs and the targets name the package by its folder; installed,
 * its package version is hashed and its name used.
 * @param {string} workspaceRoot
 * @returns {{ kind: 'installed' } | { kind: 'workspace', file: string, packageDir: string }}
 */
function locateExecutor(workspaceRoot) {
  const root = realpathSync(workspaceRoot);
  const file = realpathSync(join(__dirname, 'executor.cjs'));
  const rel = relative(root, file);
  const inside = !rel.startsWith('..') && !rel.split(sep).includes('node_modules');
  if (!inside) return { kind: 'installed' };
  const packageDir = relative(root, realpathSync(join(__dirname, '..')));
  return { kind: 'workspace', file: rel.split(sep).join('/'), packageDir: packageDir.split(sep).join('/') };
}

module.exports = {
  name: '@chunkyard/nx',
  // Nx 22+ reads `createNodes` with the v2 (batched) signature; Nx 21 reads only
  // `createNodesV2`. The same tuple under both names.
  createNodes: createNodesV2,
  createNodesV2,
  locateTool,
  explainEmptyRoot,
  badMarker,
  ownProjectNames,
};
