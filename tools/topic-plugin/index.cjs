// @ts-check
/**
 * Local Nx inference plugin: every folder under `docs/` that holds a `golden-reference.md`
 * becomes an Nx project named `topic-<path under docs joined by ->` with cached pipeline
 * targets. See ./README.md for the why behind every input.
 *
 * Plain CommonJS on purpose: Nx loads plugins before any task runs, and on Node 20 a `.ts`
 * plugin would need swc-node or ts-node on every command (see /work/shared/notes). Types are
 * checked through JSDoc by `npm run typecheck` (tsconfig.json includes tools/**\/*.cjs).
 *
 * Nothing in this file may depend on the content of a topic: the plugin only looks at paths,
 * so that adding or editing topic files never changes the shape of the project graph.
 */
const { posix } = require('node:path');

/** Marker file that turns a folder into a topic. */
const TOPIC_MARKER = 'golden-reference.md';

/** Root config file every pipeline step reads (workspace-relative). */
const CONFIG_FILE = 'chunkyard.config.yaml';

/**
 * npm packages the tools load at run time (esbuild keeps them external, so they are not in
 * the hashed `dist/` bundle). Their installed versions (from the lockfile) are part of every
 * topic task's hash. Leaving `externalDependencies` out would mean "every npm package", so
 * any unrelated lockfile change would rerun every topic.
 */
const DEFAULT_EXTERNAL_DEPENDENCIES = Object.freeze([
  'gpt-tokenizer',
  'markdown-it',
  'remark-parse',
  'remark-gfm',
  'unified',
  'mdast-util-to-string',
  'github-slugger',
  'yaml',
  'stemmer',
]);

/**
 * @typedef {object} Step
 * @property {string} target     Nx target name on every topic project.
 * @property {string} tool       Nx project name of the tool app; it lives in `apps/<tool>` and
 *                               its cached `build` target writes `apps/<tool>/dist/main.js`.
 * @property {string[]} after    Targets of the same topic that must run first. Their outputs
 *                               are hashed through `dependentTasksOutputFiles`.
 * @property {string[]} inputs   Named inputs (nx.json `namedInputs`) or file globs this step reads.
 * @property {string[]} outputs  What the step writes (restored from cache on a hit).
 */

/**
 * The pipeline, one entry per target. Later steps are one line each, e.g.
 *   { target: 'spec',     tool: 'topic-spec',        after: ['chunk', 'keywords'], inputs: ['topicSources', 'chunkyardConfig'], outputs: ['{projectRoot}/topic-spec.md'] },
 *   { target: 'index',    tool: 'index-tool',        after: ['spec'],              inputs: ['chunkyardConfig'],                 outputs: ['{projectRoot}/index.json'] },
 * (the outputs of `after` steps are hashed automatically, so `spec` need not list `_chunks/`).
 * A step gets `--config chunkyard.config.yaml` exactly when its inputs hash `chunkyardConfig`,
 * so no tool can read a file its cache key does not cover.
 * @type {readonly Step[]}
 */
const STEPS = Object.freeze([
  {
    target: 'chunk',
    tool: 'chunking-tool',
    after: [],
    inputs: ['topicSources', 'chunkyardConfig'],
    outputs: ['{projectRoot}/_chunks'],
  },
  // Keywords depend on the topic's text only: a chunking config change must not rerun them.
  {
    target: 'keywords',
    tool: 'keyword-extractor',
    after: [],
    inputs: ['topicSources'],
    outputs: ['{projectRoot}/_keywords'],
  },
]);

/**
 * @typedef {object} TopicPluginOptions
 * @property {string[]} [externalDependencies] npm packages hashed into every topic task
 *   (default: DEFAULT_EXTERNAL_DEPENDENCIES).
 */

/**
 * @param {Step} step
 * @param {TopicPluginOptions} options
 * @returns {import('nx/src/devkit-exports').TargetConfiguration}
 */
function targetFor(step, options) {
  return {
    // Commands run from the workspace root; Nx substitutes {projectRoot}.
    command: `node apps/${step.tool}/dist/main.js {projectRoot}${step.inputs.includes('chunkyardConfig') ? ` --config ${CONFIG_FILE}` : ''}`,
    cache: true,
    inputs: [
      ...step.inputs,
      // The tool's built bundle (apps/<tool>/dist/**) and the outputs of earlier steps.
      { dependentTasksOutputFiles: '**/*', transitive: true },
      { externalDependencies: [...(options.externalDependencies ?? DEFAULT_EXTERNAL_DEPENDENCIES)] },
    ],
    outputs: [...step.outputs],
    dependsOn: [...step.after, { projects: [step.tool], target: 'build' }],
    metadata: { description: `${step.tool} over this topic` },
  };
}

/**
 * `docs/libraries/foo` -> `topic-libraries-foo`.
 * @param {string} root workspace-relative posix path of the topic folder
 */
function topicName(root) {
  return 'topic-' + root.replace(/^docs\//, '').split('/').join('-');
}

/**
 * @param {string} markerFile workspace-relative path of a golden-reference.md
 * @param {TopicPluginOptions} options
 * @returns {import('nx/src/devkit-exports').CreateNodesResult}
 */
function topicProject(markerFile, options) {
  const root = posix.dirname(markerFile.split('\\').join('/'));
  return {
    projects: {
      [root]: {
        name: topicName(root),
        root,
        projectType: 'library',
        tags: ['type:topic'],
        // Project-graph edges so `nx affected` marks every topic when a tool changes.
        // (dependsOn with `projects:` adds task edges only, not graph edges.)
        implicitDependencies: [...new Set(STEPS.map((s) => s.tool))],
        targets: Object.fromEntries(STEPS.map((s) => [s.target, targetFor(s, options)])),
      },
    },
  };
}

/** @type {import('nx/src/devkit-exports').CreateNodesV2<TopicPluginOptions>} */
const createNodes = [
  `docs/**/${TOPIC_MARKER}`,
  (files, options) => files.map((file) => [file, topicProject(file, options ?? {})]),
];

module.exports = {
  name: 'topic-plugin',
  // Nx 22+ reads `createNodes` with the v2 (batched) signature; Nx 21 reads only
  // `createNodesV2`. Export the same tuple under both names.
  createNodes,
  createNodesV2: createNodes,
  // Exposed for tests and for the README's audit commands; Nx ignores them.
  STEPS,
  DEFAULT_EXTERNAL_DEPENDENCIES,
  topicName,
};
