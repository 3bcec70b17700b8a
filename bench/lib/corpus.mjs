// Loads a corpus directory: every *.md / *.markdown file below it (recursively,
// skipping dot-folders and node_modules), in sorted relative-path order.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';

const MARKDOWN = /\.(md|markdown)$/i;

/**
 * @typedef {object} CorpusFile
 * @property {string} rel      path relative to the corpus directory (POSIX separators)
 * @property {string} docName  file name without its .md / .markdown extension
 * @property {string} text
 * @property {number} bytes    UTF-8 size
 */

/** @param {string} dir @returns {string[]} absolute paths of markdown files */
export function listMarkdownFiles(dir) {
  /** @type {string[]} */
  const out = [];
  const walk = (/** @type {string} */ d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && MARKDOWN.test(e.name)) out.push(p);
    }
  };
  walk(dir);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * @param {string} dir
 * @returns {CorpusFile[]}
 * @throws {Error} with a user-facing message when the directory is missing or holds no markdown
 */
export function loadCorpus(dir) {
  let st;
  try {
    st = statSync(dir);
  } catch {
    throw new Error(`--corpus ${dir}: no such directory`);
  }
  if (!st.isDirectory()) throw new Error(`--corpus ${dir}: not a directory`);
  const files = listMarkdownFiles(dir);
  if (files.length === 0) throw new Error(`--corpus ${dir}: holds no .md files`);
  return files.map((p) => {
    const text = readFileSync(p, 'utf8');
    return {
      rel: relative(dir, p).split(sep).join('/'),
      docName: basename(p).replace(MARKDOWN, ''),
      text,
      bytes: Buffer.byteLength(text, 'utf8'),
    };
  });
}
