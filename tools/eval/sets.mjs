// The evaluation sets `npm run eval --set NAME` knows: where their corpora and
// questions live. Both use the Chroma CSV format (question, references as JSON
// {content, start_index, end_index}, corpus_id), checked by parseChromaCsv.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { questionsFromQuotes } from './excerpts.mjs';

/** @typedef {{ data: string, corpora: string, questions: string | null }} SetInfo */

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
  const data = resolve(dataDir ?? join(root, set.data));
  const corpora = new Map(readMarkdownTree(join(data, set.corpora)));
  if (set.questions) {
    const file = join(root, set.questions);
    return { corpora, questions: questionsFromQuotes(JSON.parse(readFileSync(file, 'utf8')), corpora, relative(root, file)) };
  }
  const file = join(data, 'questions_df.csv');
  return { corpora, questions: parseCsv(readFileSync(file, 'utf8'), 'questions_df.csv', corpora) };
}
