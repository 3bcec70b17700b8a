// @ts-check
/**
 * `nx g @chunkyard/nx:topic guides/install`: a new topic folder under a docs root, with the
 * marker document (and optionally a qa-pairs.md). The plugin infers its project from the
 * marker alone, so nothing else is registered anywhere.
 */
const { getProjects, logger, readNxJson } = require('@nx/devkit');
const { posix } = require('node:path');
const { escapeControl, listedFolder, normalizeOptions, projectName } = require('../../plugin.cjs');

/**
 * @typedef {object} TopicSchema
 * @property {string} name       path under the docs root
 * @property {string} [title]
 * @property {string} [docsRoot]
 * @property {boolean} [qaPairs]
 */

/**
 * The plugin's options as registered in nx.json (the first @chunkyard/nx entry), so a topic
 * lands where the plugin looks and carries the marker it looks for.
 * @param {import('@nx/devkit').Tree} tree
 */
function registeredOptions(tree) {
  return registeredEntries(tree)[0] ?? normalizeOptions({});
}

/**
 * Every @chunkyard/nx entry of nx.json, normalized (`init` with another --docsRoot adds a second).
 * @param {import('@nx/devkit').Tree} tree
 */
function registeredEntries(tree) {
  /** @type {import('../../plugin.cjs').NormalizedOptions[]} */
  const out = [];
  for (const p of readNxJson(tree)?.plugins ?? []) {
    if (p === '@chunkyard/nx') out.push(normalizeOptions({}));
    else if (typeof p !== 'string' && p.plugin === '@chunkyard/nx') out.push(normalizeOptions(/** @type {import('../../plugin.cjs').ChunkyardNxOptions} */ (p.options)));
  }
  return out;
}

/** `system-text-json` -> `System text json`. @param {string} folder */
function titleFromFolder(folder) {
  const words = folder.replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Project names join a folder's path with `-`, so a new `docs/a/b` would be `topic-a-b` as
 * an existing `docs/a-b` is (the plugin then refuses both): a message naming the clash, or null.
 * @param {import('@nx/devkit').Tree} tree
 * @param {string} docsRoot
 * @param {string} dir the new topic's folder
 * @param {import('../../plugin.cjs').NormalizedOptions} options
 */
function projectClash(tree, docsRoot, dir, options) {
  const qualify = options.docsRoots.length > 1 && options.docsRoots.includes(docsRoot);
  /** @type {Set<string>} */
  const topics = new Set();
  const walk = (/** @type {string} */ d) => {
    for (const c of tree.children(d)) {
      const p = `${d}/${c}`;
      if (c === options.topicMarker && tree.isFile(p)) topics.add(d);
      else if (!tree.isFile(p) && listedFolder(c)) walk(p);
    }
  };
  if (tree.exists(docsRoot)) walk(docsRoot);
  /** @param {Set<string>} topicSet @returns {Map<string, string>} dir -> project name, for every topic and folder above it, and the root */
  const names = (topicSet) => {
    const out = new Map();
    for (const t of topicSet) {
      for (let d = t; d.startsWith(`${docsRoot}/`); d = posix.dirname(d)) out.set(d, projectName(d, docsRoot, topicSet.has(d), qualify));
    }
    if (topicSet.size > 0) out.set(docsRoot, projectName(docsRoot, docsRoot, topicSet.has(docsRoot), qualify));
    return out;
  };
  const before = names(topics);
  const after = names(new Set([...topics, dir]));
  /** @type {Map<string, { root?: string }> | undefined} the workspace's projects from project.json and package.json files */
  let projects;
  for (const [d, name] of after) {
    if (before.get(d) === name) continue; // unchanged by the new topic
    for (const [other, otherName] of after) {
      if (other !== d && otherName === name) return `${d} would be the project "${name}", as ${other} is already`;
    }
    // Another project of the workspace with that name (apps/topic-spec for docs/spec, a site
    // package named "docs"): the plugin refuses it on every nx command, so the topic written
    // here stopped them all (found by a probe).
    try {
      projects ??= getProjects(tree);
    } catch {
      projects = new Map();
    }
    const root = projects.get(name)?.root;
    if (root !== undefined && root !== d) return `${d} would be the project "${name}", which the project at ${root || '.'} already is`;
  }
  return null;
}

/**
 * @param {import('@nx/devkit').Tree} tree
 * @param {TopicSchema} schema
 */
async function topicGenerator(tree, schema) {
  let registered = registeredOptions(tree);
  let docsRoot = /** @type {string} */ (schema.docsRoot ? normalizeOptions({ docsRoot: schema.docsRoot }).docsRoots[0] : registered.docsRoots[0]);
  /** The folder between the registered root and a --docsRoot inside it (`guides` for docs/guides), or ''. */
  let within = '';
  if (schema.docsRoot) {
    // The entry whose docs root holds the given one (its marker, its names). A folder no entry
    // watches got a topic the plugin never built, and a second entry's topic the first's marker.
    const entries = registeredEntries(tree);
    const entry = entries.find((o) => o.docsRoots.some((r) => docsRoot === r || docsRoot.startsWith(`${r}/`)));
    if (entry) {
      registered = entry;
      // Projects are named from the registered root: from docs/guides, `new` was checked as
      // topic-new and clashed unseen with docs/guides-new (topic-guides-new), failing every command.
      const outer = /** @type {string} */ (entry.docsRoots.find((r) => docsRoot === r || docsRoot.startsWith(`${r}/`)));
      within = docsRoot.slice(outer.length + 1);
      docsRoot = outer;
    } else if (entries.length > 0) {
      const roots = entries.flatMap((o) => o.docsRoots);
      throw new Error(
        `@chunkyard/nx:topic: --docsRoot ${escapeControl(JSON.stringify(docsRoot))} is not a docs root of @chunkyard/nx in nx.json (${roots.join(', ')}), so the plugin would build no topic there; give one of those, or add it with nx g @chunkyard/nx:init --docsRoot ${escapeControl(docsRoot)}`,
      );
    }
  }
  const given = posix.normalize(String(schema.name ?? '').split('\\').join('/')).replace(/^\/+|\/+$/g, '');
  const name = within === '' || given === '' || given === '.' ? given : `${within}/${given}`;
  // Control characters: a folder named with them reaches every tool's messages and terminal.
  // Bidirectional overrides and isolates too: the plugin refuses such a folder (it would reach
  // the terminal in a project name), which failed the whole project graph after this wrote it.
  const bad = /[*?{}[\]:\u0000-\u001f\u007f-\u009f]/.exec(name)?.[0] ?? [...name].find((c) => escapeControl(c) !== c);
  if (name === '' || name === '.' || name.split('/').includes('..') || bad !== undefined) {
    // The reason, so that "c:d" is not left to guess which rule it broke (":" is neither a glob
    // nor a control character, and the message listed only those).
    const why =
      name === '' || name === '.'
        ? 'it names no folder'
        : name.split('/').includes('..')
          ? 'it holds ".."'
          : bad === ':'
            ? 'it holds ":", which Windows and macOS do not allow in a file name'
            : bad !== undefined && /[*?{}[\]]/.test(bad)
              ? `it holds the glob character "${bad}"`
              : `it holds the ${/[\u202a-\u202e\u2066-\u2069]/.test(bad ?? '') ? 'bidirectional' : 'control'} character ${escapeControl(bad ?? '')}`;
    throw new Error(
      `@chunkyard/nx:topic: ${escapeControl(JSON.stringify(String(schema.name ?? '')))} is not a folder path under the docs root: ${why} (use e.g. guides/install; no "..", ":", glob or control characters, no bidirectional characters)`,
    );
  }
  // index-tool lists no such folder in an index.json, so the plugin builds no topic in it: the
  // generator wrote one that was never a project.
  const unlisted = name.split('/').findIndex((part) => !listedFolder(part));
  if (unlisted >= 0) {
    throw new Error(
      `@chunkyard/nx:topic: ${escapeControl(JSON.stringify(name))}: the folder ${escapeControl(JSON.stringify(name.split('/')[unlisted]))} starts with "_" or "." (or is node_modules), which index-tool lists in no index.json, so it cannot hold a topic; choose another name`,
    );
  }
  // A folder named as a file chunkyard writes is git-ignored by init's lines (`/docs/**/index.json`),
  // so Nx hands the plugin no marker in it and the topic was never built (with a warning to
  // un-ignore it); one named as the marker stopped every nx command ("is a folder, not a file").
  const parts = name.split('/');
  const reserved = parts.findIndex(
    (part, i) => part === registered.topicMarker || part === 'index.json' || part === 'topic-spec.md' || (i === 0 && (part === 'llms.txt' || part === 'llms-full.txt')),
  );
  if (reserved >= 0) {
    const part = parts[reserved];
    const why =
      part === registered.topicMarker
        ? `is the topic marker's name, and the plugin refuses a folder named ${part} on every nx command`
        : `is the name of a file chunkyard writes there (git-ignored as an output, so Nx would not see the topic)`;
    throw new Error(`@chunkyard/nx:topic: ${escapeControl(JSON.stringify(name))}: the folder ${escapeControl(JSON.stringify(part))} ${why}; choose another name`);
  }
  const dir = `${docsRoot}/${name}`;
  const marker = `${dir}/${registered.topicMarker}`;
  if (tree.exists(marker)) throw new Error(`@chunkyard/nx:topic: ${marker} already exists; choose another name`);
  // A file where a folder of the path goes: Nx printed "CREATE" and then a bare ENOTDIR.
  for (let d = dir; d !== docsRoot && d !== '.'; d = posix.dirname(d)) {
    if (tree.isFile(d)) throw new Error(`@chunkyard/nx:topic: ${d} is a file, not a folder; choose another name`);
  }
  const clash = projectClash(tree, docsRoot, dir, registered);
  if (clash) throw new Error(`@chunkyard/nx:topic: ${clash}; choose another name`);
  const title = (schema.title ?? titleFromFolder(posix.basename(name))).replace(/\s+/g, ' ').trim();
  if (title === '') throw new Error('@chunkyard/nx:topic: the title is empty');
  // The title is the heading, and so every index.json's and terminal's title of the topic.
  if (/[\u0000-\u001f\u007f-\u009f]/.test(title)) throw new Error(`@chunkyard/nx:topic: the title ${JSON.stringify(title)} holds control characters; give plain text`);

  // Without an entry nothing infers the topic: `nx run-many -t index` said only "No tasks were
  // run" for it (probe: `nx g @chunkyard/nx:topic` before init).
  if (registeredEntries(tree).length === 0) {
    logger.warn(
      `@chunkyard/nx:topic: warning: @chunkyard/nx is not among the plugins of nx.json, so nx builds no topic (nx run-many -t index runs nothing); run npx nx g @chunkyard/nx:init --docsRoot ${escapeControl(docsRoot)} to register it`,
    );
  }
  tree.write(
    marker,
    `# ${title}\n\n` +
      `Write this topic's reference text here. chunkyard chunks it along its headings, so give\n` +
      `each idea its own \`##\` section.\n\n` +
      `## Overview\n\nWhat ${title} is and when a reader needs it.\n`,
  );
  if (schema.qaPairs) {
    tree.write(
      `${dir}/qa-pairs.md`,
      `# Questions: ${title}\n\n` +
        `## What is ${title}?\n\n` +
        `An answer in a sentence or two. A block quote here must be copied verbatim from ${registered.topicMarker}:\n\n` +
        `> What ${title} is and when a reader needs it.\n`,
    );
  }
}

module.exports = topicGenerator;
module.exports.default = topicGenerator;
module.exports.topicGenerator = topicGenerator;
