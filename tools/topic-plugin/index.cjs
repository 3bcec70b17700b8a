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
  // The embedding providers: topic-spec loads them (ollama and openai only when configured).
  'ollama',
  'openai',
  'cli-progress',
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
 * The pipeline, one entry per target: keywords and chunk, then spec, then index. The outputs
 * of `after` steps are hashed automatically (dependentTasksOutputFiles), so `spec` need not
 * list `_chunks/`. A step gets `--config chunkyard.config.yaml` exactly when its inputs hash
 * `chunkyardConfig`, so no tool can read a file its cache key does not cover.
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
  // qa-pairs.md (in topicSources) and the embeddings/spec settings (in the config) are inputs;
  // the embedding cache is not an output: it lives at the workspace root and only saves work.
  {
    target: 'spec',
    tool: 'topic-spec',
    after: ['chunk', 'keywords'],
    inputs: ['topicSources', 'chunkyardConfig'],
    outputs: ['{projectRoot}/topic-spec.md'],
  },
  // index.json depends on topic-spec.md only (and, for a topic with topics below it, on their
  // index.json titles): the config is deliberately not an input.
  {
    target: 'index',
    tool: 'index-tool',
    after: ['spec'],
    inputs: [],
    outputs: ['{projectRoot}/index.json'],
  },
]);

/** The docs root every topic lives under; it is served as `/` and gets the root index.json. */
const DOCS_ROOT = 'docs';

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
    command: `node apps/${step.tool}/dist/main.js {projectRoot}${step.inputs.includes('chunkyardConfig') ? ` --config ${CONFIG_FILE}` : ''}${step.target === 'index' ? ` --root ${DOCS_ROOT}` : ''}`,
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
 * `docs` -> `docs`; `docs/libraries` -> `section-libraries`. Sections are the folders above
 * topics, up to the docs root, each with an `index` target listing its children.
 * @param {string} root workspace-relative posix path of the section folder
 */
function sectionName(root) {
  return root === DOCS_ROOT ? 'docs' : 'section-' + root.slice(DOCS_ROOT.length + 1).split('/').join('-');
}

/**
 * The folder tree the index targets walk: every topic root and every folder between it and the
 * docs root, each with its direct children in that tree. Paths only, never file contents.
 * @param {string[]} topicRoots
 * @returns {Map<string, string[]>} folder -> child folders (sorted)
 */
function docsTree(topicRoots) {
  /** @type {Map<string, Set<string>>} */
  const tree = new Map();
  const add = (/** @type {string} */ dir) => {
    if (!tree.has(dir)) tree.set(dir, new Set());
  };
  for (const topic of topicRoots) {
    add(topic);
    let child = topic;
    while (child !== DOCS_ROOT && child.startsWith(`${DOCS_ROOT}/`)) {
      const parent = posix.dirname(child);
      add(parent);
      tree.get(parent)?.add(child);
      child = parent;
    }
  }
  return new Map([...tree].map(([dir, children]) => [dir, [...children].sort()]));
}

/**
 * @param {string} root
 * @param {Set<string>} topics
 */
function projectNameOf(root, topics) {
  return topics.has(root) ? topicName(root) : sectionName(root);
}

/**
 * @param {string} root workspace-relative posix path of the topic folder
 * @param {string[]} children folders below it that hold topics (usually none)
 * @param {Set<string>} topics
 * @param {TopicPluginOptions} options
 * @returns {import('nx/src/devkit-exports').ProjectConfiguration}
 */
function topicProject(root, children, topics, options) {
  const childProjects = children.map((c) => projectNameOf(c, topics));
  const targets = Object.fromEntries(STEPS.map((s) => [s.target, targetFor(s, options)]));
  // A topic with topics below it lists them in its index.json, so it waits for their indexes.
  if (childProjects.length) targets.index?.dependsOn?.push({ projects: childProjects, target: 'index' });
  return {
    name: topicName(root),
    root,
    projectType: 'library',
    tags: ['type:topic'],
    // Project-graph edges so `nx affected` marks every topic when a tool changes.
    // (dependsOn with `projects:` adds task edges only, not graph edges.)
    implicitDependencies: [...new Set(STEPS.map((s) => s.tool)), ...childProjects],
    targets,
  };
}

/**
 * A section: only an `index` target, which reads its children's index.json (their titles), so
 * its inputs are exactly the outputs of the tasks it depends on and the tool's bundle.
 * @param {string} root
 * @param {string[]} children
 * @param {Set<string>} topics
 * @returns {import('nx/src/devkit-exports').ProjectConfiguration}
 */
function sectionProject(root, children, topics) {
  const childProjects = children.map((c) => projectNameOf(c, topics));
  return {
    name: sectionName(root),
    root,
    projectType: 'library',
    tags: ['type:section'],
    implicitDependencies: ['index-tool', ...childProjects],
    targets: {
      index: {
        command: `node apps/index-tool/dist/main.js {projectRoot} --root ${DOCS_ROOT}`,
        cache: true,
        // Direct dependencies only: the children's index.json and the tool's dist.
        inputs: [{ dependentTasksOutputFiles: '**/*' }, { externalDependencies: [] }],
        outputs: ['{projectRoot}/index.json'],
        dependsOn: [{ projects: childProjects, target: 'index' }, { projects: ['index-tool'], target: 'build' }],
        metadata: { description: 'index-tool over this section: lists its child topics and sections' },
      },
    },
  };
}

/**
 * Every topic becomes a project; so does every folder above one, up to the docs root. Each
 * project is attached to one marker file (the first below it), so no two results describe it.
 * @param {readonly string[]} files
 * @param {TopicPluginOptions} options
 * @returns {[string, import('nx/src/devkit-exports').CreateNodesResult][]}
 */
function createProjects(files, options) {
  const markers = [...files].map((f) => f.split('\\').join('/')).sort();
  const topics = new Set(markers.map((f) => posix.dirname(f)));
  const tree = docsTree([...topics]);
  const owner = new Map();
  for (const dir of tree.keys()) {
    owner.set(dir, markers.find((m) => m.startsWith(`${dir}/`)));
  }
  return markers.map((marker) => {
    /** @type {Record<string, import('nx/src/devkit-exports').ProjectConfiguration>} */
    const projects = {};
    for (const [dir, children] of tree) {
      if (owner.get(dir) !== marker) continue;
      projects[dir] = topics.has(dir) ? topicProject(dir, children, topics, options) : sectionProject(dir, children, topics);
    }
    return [marker, { projects }];
  });
}

/** @type {import('nx/src/devkit-exports').CreateNodesV2<TopicPluginOptions>} */
const createNodes = [`${DOCS_ROOT}/**/${TOPIC_MARKER}`, (files, options) => createProjects(files, options ?? {})];

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
  sectionName,
  docsTree,
};
