// @ts-check
/**
 * `nx g @chunkyard/nx:topic guides/install`: a new topic folder under a docs root, with the
 * marker document (and optionally a qa-pairs.md). The plugin infers its project from the
 * marker alone, so nothing else is registered anywhere.
 */
const { readNxJson } = require('@nx/devkit');
const { posix } = require('node:path');
const { normalizeOptions } = require('../../plugin.cjs');

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
  for (const p of readNxJson(tree)?.plugins ?? []) {
    if (p === '@chunkyard/nx') return normalizeOptions({});
    if (typeof p !== 'string' && p.plugin === '@chunkyard/nx') return normalizeOptions(/** @type {import('../../plugin.cjs').ChunkyardNxOptions} */ (p.options));
  }
  return normalizeOptions({});
}

/** `system-text-json` -> `System text json`. @param {string} folder */
function titleFromFolder(folder) {
  const words = folder.replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * @param {import('@nx/devkit').Tree} tree
 * @param {TopicSchema} schema
 */
async function topicGenerator(tree, schema) {
  const registered = registeredOptions(tree);
  const docsRoot = schema.docsRoot ? normalizeOptions({ docsRoot: schema.docsRoot }).docsRoots[0] : registered.docsRoots[0];
  const name = posix.normalize(String(schema.name ?? '').split('\\').join('/')).replace(/^\/+|\/+$/g, '');
  if (name === '' || name === '.' || name.split('/').includes('..') || /[*?{}[\]:]/.test(name)) {
    throw new Error(`@chunkyard/nx:topic: "${schema.name}" is not a folder path under the docs root (use e.g. guides/install; no "..", no glob characters)`);
  }
  const dir = `${docsRoot}/${name}`;
  const marker = `${dir}/${registered.topicMarker}`;
  if (tree.exists(marker)) throw new Error(`@chunkyard/nx:topic: ${marker} already exists; choose another name`);
  const title = (schema.title ?? titleFromFolder(posix.basename(name))).replace(/\s+/g, ' ').trim();
  if (title === '') throw new Error('@chunkyard/nx:topic: the title is empty');

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
