// The evaluation sets `npm run eval --set NAME` knows: where their corpora and
// questions live. All use the Chroma CSV format (question, references as JSON
// {content, start_index, end_index}, corpus_id), checked by parseChromaCsv.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { questionsFromQuotes } from './excerpts.mjs';

/**
 * @typedef {{ data: string, corpora: string, questions: string | null,
 *   locate?: (dataDir: string | undefined) => string, files?: string[] }} SetInfo
 * `locate` finds the data folder at run time (or throws a one-line message) instead of `data`;
 * `files` keeps only these corpus ids of the folder.
 */

/** The npm release whose docs eval/npm-docs/questions.json quotes. */
export const NPM_DOCS_VERSION = '11.19.1';
const NPM_DOCS_GET = `get them with \`npm pack npm@${NPM_DOCS_VERSION} && tar -xzf npm-${NPM_DOCS_VERSION}.tgz package/docs/content\` and pass --data package/docs`;

/**
 * The npm-docs corpus: `dir`, or else the docs of the npm installed with Node (`npm root -g`/npm/docs),
 * and why it cannot be used (null when it can): the docs change between npm releases, and a quote
 * must point at the text it was taken from.
 * @param {string} [dir] a folder holding `content/` (and, in an npm install, `../package.json`)
 * @returns {{ dir: string, problem: string | null }}
 */
export function findNpmDocs(dir) {
  let d = dir;
  if (d === undefined) {
    try {
      // shell on Windows only, where npm is npm.cmd; stderr dropped (npm warns there about unrelated config).
      d = join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], shell: process.platform === 'win32' }).trim(), 'npm', 'docs');
    } catch {
      return { dir: '', problem: `npm-docs: \`npm root -g\` failed, so npm's docs were not found; ${NPM_DOCS_GET}` };
    }
  }
  if (!existsSync(join(d, 'content'))) return { dir: d, problem: `npm-docs: no npm docs at ${join(d, 'content')}; ${NPM_DOCS_GET}` };
  const pkg = join(d, '..', 'package.json');
  if (existsSync(pkg)) {
    const version = /** @type {{ version?: unknown }} */ (JSON.parse(readFileSync(pkg, 'utf8'))).version;
    if (version !== NPM_DOCS_VERSION) return { dir: d, problem: `npm-docs: ${d} holds npm ${String(version)}'s docs, but the questions quote npm ${NPM_DOCS_VERSION}'s; ${NPM_DOCS_GET}` };
  }
  return { dir: d, problem: null };
}

/** @type {Record<string, SetInfo>} */
export const SETS = {
  /** Chroma's 5 corpora and 472 generated questions (third-party, ../shared/eval/chroma). */
  chroma: { data: '../shared/eval/chroma', corpora: 'corpora', questions: null },
  /**
   * Our held-out docs set: 8 dotnet/docs articles (CC BY 4.0, ../shared/corpora/dotnet-docs)
   * and hand-written questions in eval/dotnet-docs/questions.json (answers quoted, located here). Corpus ids are the
   * articles' paths under docs/ without `.md`.
   */
  'dotnet-docs': { data: '../shared/corpora/dotnet-docs', corpora: 'docs', questions: 'eval/dotnet-docs/questions.json' },
  /**
   * Our second held-out docs set: 12 articles of the npm CLI's own docs (npm 11.19.1, Artistic-2.0), found
   * at run time (findNpmDocs), and hand-written questions in eval/npm-docs/questions.json. Corpus ids are
   * the paths under docs/content/ without `.md`; only these 12 are pooled (the command pages repeat config.md's
   * option texts, so the other 79 would hold second copies of answers).
   */
  'npm-docs': {
    data: '$(npm root -g)/npm/docs',
    corpora: 'content',
    questions: 'eval/npm-docs/questions.json',
    locate: (dataDir) => {
      const found = findNpmDocs(dataDir === undefined ? undefined : resolve(dataDir));
      if (found.problem) throw new Error(found.problem);
      return found.dir;
    },
    files: [
      'commands/npm-ci', 'commands/npm-exec', 'commands/npm-trust', 'commands/npm-version',
      'configuring-npm/folders', 'configuring-npm/npmrc', 'configuring-npm/package-json', 'configuring-npm/package-lock-json',
      'using-npm/config', 'using-npm/package-spec', 'using-npm/scripts', 'using-npm/workspaces',
    ],
  },
};

/**
 * Every `.md` file under dir, as [path relative to dir without .md, text], sorted by path.
 * @param {string} dir
 * @returns {[string, string][]}
 */
export function readMarkdownTree(dir) {
  /** @type {[string, string][]} */
  const out = [];
  /** @param {string} d */
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.md')) out.push([relative(dir, p).split('\\').join('/').replace(/\.md$/, ''), readFileSync(p, 'utf8')]);
    }
  };
  walk(dir);
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * @param {string} name a key of SETS
 * @param {string} root the repository
 * @param {string | undefined} dataDir overrides the set's data folder
 * @param {(csv: string, file: string, corpora: Map<string, string>) => import('./excerpts.mjs').Question[]} parseCsv
 *   @chunkyard/quality's parseChromaCsv (passed in: this module is plain ESM, quality is built)
 */
export function loadSet(name, root, dataDir, parseCsv) {
  const set = SETS[name];
  if (!set) throw new Error(`unknown set ${name}`);
  const data = set.locate ? set.locate(dataDir) : resolve(dataDir ?? join(root, set.data));
  const files = set.files;
  const tree = readMarkdownTree(join(data, set.corpora)).filter(([id]) => !files || files.includes(id));
  const missing = (files ?? []).filter((id) => !tree.some(([t]) => t === id));
  if (missing.length) throw new Error(`${name}: ${join(data, set.corpora)} has no ${missing.join(', ')}`);
  const corpora = new Map(tree);
  if (set.questions) {
    const file = join(root, set.questions);
    return { corpora, questions: questionsFromQuotes(JSON.parse(readFileSync(file, 'utf8')), corpora, relative(root, file)) };
  }
  const file = join(data, 'questions_df.csv');
  return { corpora, questions: parseCsv(readFileSync(file, 'utf8'), 'questions_df.csv', corpora) };
}
