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
const { dirname, join, relative, sep } = require('node:path');
const { createProjects, mirrorBuildInputs, normalizeOptions, topicMarkers, TOOL_PACKAGES } = require('./plugin.cjs');

/** @typedef {import('./plugin.cjs').ChunkyardNxOptions} ChunkyardNxOptions */
/** @typedef {import('./plugin.cjs').ToolLocation} ToolLocation */

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
        `It is a dependency of @chunkyard/nx: reinstall with \`npm i -D @chunkyard/nx\`.`,
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
    return `@chunkyard/nx: the docs root "${docsRoot}" does not exist in ${workspaceRoot}. Create it (npx nx g @chunkyard/nx:topic <name>) or set the docsRoot option of @chunkyard/nx in nx.json.`;
  }
  if (stat.isSymbolicLink()) {
    return (
      `@chunkyard/nx: the docs root "${docsRoot}" is a symlink. Nx does not follow symlinks, so it can neither see ` +
      `nor hash the topics behind it, and caching would be wrong. Make it a real folder: a git submodule, ` +
      `a checkout into the workspace, or a copy.`
    );
  }
  if (!stat.isDirectory()) return `@chunkyard/nx: the docs root "${docsRoot}" is not a folder.`;
  // An existing folder with no topic yet is fine: there is just nothing to build.
  return null;
}

/**
 * The first topic marker under a docs root that is a symlink Node cannot follow (dangling, a
 * loop): Nx leaves such a file out of the files it hands the plugin, so without this the
 * topic silently has no project, and index-tool later fails on its parent with a misleading
 * "index.json: missing". A message naming the file instead. Symlinked folders are not entered
 * (Nx does not follow them either); dot-folders, node_modules and `_chunks` hold no topics.
 * @param {string} docsRoot
 * @param {string} marker
 * @param {string} workspaceRoot
 * @returns {string | null}
 */
function brokenMarker(docsRoot, marker, workspaceRoot) {
  const stack = [docsRoot];
  for (let dir = stack.pop(); dir !== undefined; dir = stack.pop()) {
    let entries;
    try {
      entries = readdirSync(join(workspaceRoot, dir), { withFileTypes: true });
    } catch {
      continue; // a missing or unreadable root: explainEmptyRoot says what is wrong
    }
    for (const e of entries) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && e.name !== 'node_modules' && e.name !== '_chunks') stack.push(rel);
      } else if (e.name === marker && e.isSymbolicLink()) {
        try {
          statSync(join(workspaceRoot, rel));
        } catch (err) {
          const code = /** @type {NodeJS.ErrnoException} */ (err).code;
          const why = code === 'ELOOP' ? 'a symlink loop' : code === 'ENOENT' ? 'a symlink to a missing file' : `a symlink that cannot be followed (${code})`;
          return `@chunkyard/nx: ${rel} is ${why}, so this folder cannot be a topic. Point it at a real file or remove it.`;
        }
      }
    }
  }
  return null;
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
  (files, rawOptions, context) => createProjectsFromFiles(files, normalizeOptions(rawOptions), context.workspaceRoot),
];

/**
 * @param {readonly string[]} files
 * @param {import('./plugin.cjs').NormalizedOptions} options
 * @param {string} workspaceRoot
 */
function createProjectsFromFiles(files, options, workspaceRoot) {
  const markers = topicMarkers(files, options);
  for (const root of options.docsRoots) {
    if (markers.some((m) => m.startsWith(`${root}/`))) continue;
    const problem = explainEmptyRoot(root, workspaceRoot);
    if (problem) throw new Error(problem);
  }
  // After the root checks: a symlinked root is explained above, never walked here.
  for (const root of options.docsRoots) {
    const broken = brokenMarker(root, options.topicMarker, workspaceRoot);
    if (broken) throw new Error(broken);
  }
  if (markers.length === 0) return [];
  /** @type {Record<string, ToolLocation>} */
  const tools = Object.fromEntries(TOOL_PACKAGES.map((p) => [p, locateTool(p, workspaceRoot)]));
  return createProjects(markers, { options, tools, executor: locateExecutor(workspaceRoot) });
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
  brokenMarker,
};
