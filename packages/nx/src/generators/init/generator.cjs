// @ts-check
/**
 * `nx g @chunkyard/nx:init` (what `nx add @chunkyard/nx` runs): registers the plugin in
 * nx.json, writes a commented config and the .gitignore lines for chunkyard's outputs. Running
 * it again changes nothing; running it with another docsRoot adds that root.
 */
const { readNxJson, updateNxJson, writeJson } = require('@nx/devkit');
const { entryRootsOf, normalizeOptions } = require('../../plugin.cjs');

const PLUGIN = '@chunkyard/nx';

/**
 * @typedef {object} InitSchema
 * @property {string} [docsRoot]
 * @property {string} [topicMarker]
 * @property {string} [configFile]
 * @property {boolean} [skipFormat]
 */

/** The config the tools read, every setting at its default and explained. */
const CONFIG_TEMPLATE = `# chunkyard settings for every topic. A topic folder can override any of them in its own
# topic.yaml. Every setting here is an input of the Nx tasks that read it: changing one
# rebuilds exactly the steps that depend on it.

chunking:
  # semantic (default): heading- and structure-aware chunks with exact cl100k token caps.
  # Others: token-window, hierarchical, paginate (see the chunkyard README).
  strategy: semantic
  minTokens: 16          # smaller chunks merge into a neighbour
  targetTokens: 80       # where a chunk prefers to close: small chunks, widened at query time
  maxTokens: 512         # hard cap, exact cl100k tokens, for originalText and embedText
  overlapSentences: 0    # sentences repeated from the previous chunk of the same section
  breadcrumbMode: conditional   # conditional | always | none: heading path prefixed to embedText

# Embeddings for topic-spec (similarities, prompt matching). The default is an offline
# lexical embedder: no network, no model download. A remote provider is opt-in:
# embeddings:
#   provider: ollama      # or openai (reads OPENAI_API_KEY)
#   model: nomic-embed-text
`;

/**
 * @param {string} docsRoot
 * @param {string} cacheDir
 */
function gitignoreLines(docsRoot, cacheDir) {
  return [
    '# chunkyard outputs (rebuilt by `nx run-many -t index`, restored from the Nx cache)',
    `/${docsRoot}/**/_chunks`,
    `/${docsRoot}/**/_keywords`,
    `/${docsRoot}/**/topic-spec.md`,
    `/${docsRoot}/**/index.json`,
    `/${docsRoot}/llms.txt`,
    // Written with the llmsTxt option's `full`: left out, it was committed, and a docs root
    // that is a topic hashed it.
    `/${docsRoot}/llms-full.txt`,
    `/${cacheDir}`,
    '/.nx/cache',
    '/.nx/workspace-data',
  ];
}

/**
 * An nx.json plugin entry's options, normalized; undefined when they are wrong (the plugin says so).
 * @param {string | { plugin: string, options?: unknown }} p
 */
function entryOptions(p) {
  try {
    return normalizeOptions(typeof p === 'string' ? {} : /** @type {import('../../plugin.cjs').ChunkyardNxOptions | undefined} */ (p.options));
  } catch {
    return undefined;
  }
}

/**
 * @param {import('@nx/devkit').Tree} tree
 * @param {InitSchema} schema
 */
async function initGenerator(tree, schema) {
  const options = normalizeOptions({
    docsRoot: schema.docsRoot ?? 'docs',
    topicMarker: schema.topicMarker,
    configFile: schema.configFile,
  });
  const docsRoot = /** @type {string} */ (options.docsRoots[0]);
  // Each was kept as if it were right, and the plugin or the tools failed on it later (probe).
  const wrongKind = (/** @type {string} */ path, /** @type {boolean} */ wantFile) => tree.exists(path) && tree.isFile(path) !== wantFile;
  if (wrongKind(docsRoot, false)) throw new Error(`@chunkyard/nx:init: ${docsRoot} is a file, not a folder; remove it or give another --docsRoot`);
  if (wrongKind(options.configFile, true)) throw new Error(`@chunkyard/nx:init: ${options.configFile} is a folder, not a file; remove it or give another --configFile`);
  if (wrongKind('.gitignore', true)) throw new Error('@chunkyard/nx:init: .gitignore is a folder, not a file; remove it');

  const nxJson = readNxJson(tree) ?? {};
  const plugins = nxJson.plugins ?? [];
  const registered = plugins.some((p) => {
    if (typeof p === 'string') return p === PLUGIN && docsRoot === 'docs';
    if (p.plugin !== PLUGIN) return false;
    const roots = /** @type {{ docsRoot?: string | string[] } | undefined} */ (p.options)?.docsRoot ?? 'docs';
    return (Array.isArray(roots) ? roots : [roots]).includes(docsRoot);
  });
  if (registered) {
    // Another --topicMarker or --configFile for a root nx.json already has was dropped without a
    // word (and the config template written to a path no entry reads): say which value holds.
    const entry = plugins.find((p) => (typeof p === 'string' ? p === PLUGIN : p.plugin === PLUGIN) && entryOptions(p)?.docsRoots.includes(docsRoot));
    const current = entry === undefined ? undefined : entryOptions(entry);
    for (const [option, given, has] of /** @type {[string, string | undefined, string | undefined][]} */ ([
      ['topicMarker', schema.topicMarker === undefined ? undefined : options.topicMarker, current?.topicMarker],
      ['configFile', schema.configFile === undefined ? undefined : options.configFile, current?.configFile],
    ])) {
      if (given !== undefined && has !== undefined && given !== has) {
        throw new Error(
          `@chunkyard/nx:init: docsRoot "${docsRoot}" is already registered in nx.json with ${option} ${JSON.stringify(has)}, not ${JSON.stringify(given)}; init changes no registered entry, so edit ${option} in the options of @chunkyard/nx in nx.json${option === 'topicMarker' ? ' (and rename the topics\' markers)' : ' (and move the file)'}, or leave --${option} out`,
        );
      }
    }
  }
  if (!registered) {
    // The plugin refuses docs roots that nest across entries (each folder's topics would be
    // built twice): say so here, before nx.json holds an entry that fails every later command.
    for (const root of entryRootsOf(nxJson).flat()) {
      if (docsRoot.startsWith(`${root}/`) || root.startsWith(`${docsRoot}/`)) {
        const [outer, inner] = docsRoot.startsWith(`${root}/`) ? [root, docsRoot] : [docsRoot, root];
        throw new Error(
          `@chunkyard/nx:init: docsRoot "${inner}" lies inside docsRoot "${outer}" (nx.json has an @chunkyard/nx entry for ${root}); the topics of a folder inside a docs root are already built, so give a folder that does not nest`,
        );
      }
    }
    /** @type {Record<string, string>} */
    const pluginOptions = { docsRoot };
    if (options.topicMarker !== 'golden-reference.md') pluginOptions.topicMarker = options.topicMarker;
    if (options.configFile !== 'chunkyard.config.yaml') pluginOptions.configFile = options.configFile;
    nxJson.plugins = [...plugins, { plugin: PLUGIN, options: pluginOptions }];
    // updateNxJson only edits an existing file; `npm i -D nx` alone does not create one.
    if (tree.exists('nx.json')) updateNxJson(tree, nxJson);
    else writeJson(tree, 'nx.json', { $schema: './node_modules/nx/schemas/nx-schema.json', ...nxJson });
  }

  if (!tree.exists(options.configFile)) tree.write(options.configFile, CONFIG_TEMPLATE);

  const existing = tree.exists('.gitignore') ? /** @type {string} */ (tree.read('.gitignore', 'utf-8')) : '';
  const have = new Set(existing.split(/\r?\n/).map((l) => l.trim()));
  const missing = gitignoreLines(docsRoot, options.embeddingCacheDir).filter((l) => !have.has(l));
  if (missing.some((l) => !l.startsWith('#'))) {
    const sep = existing === '' || existing.endsWith('\n') ? '' : '\n';
    tree.write('.gitignore', `${existing}${sep}${existing === '' ? '' : '\n'}${missing.join('\n')}\n`);
  }

  // The plugin reports a missing docs root as an error, so the folder exists from the start.
  if (!tree.exists(docsRoot)) tree.write(`${docsRoot}/.gitkeep`, '');
}

module.exports = initGenerator;
module.exports.default = initGenerator;
module.exports.initGenerator = initGenerator;
module.exports.CONFIG_TEMPLATE = CONFIG_TEMPLATE;
module.exports.gitignoreLines = gitignoreLines;
