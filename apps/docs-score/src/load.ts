/**
 * The read edge of docs-score: finds topics under the given folders and reads what
 * a build left in them (manifests, sources, chunk files, chunks.json, index.json)
 * into the plain data @chunkyard/quality checks. Unreadable files become errors in
 * that data, never exceptions, so one bad file does not hide the others.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import type { LoadedDocument, LoadedIndex, LoadedTopic } from '@chunkyard/quality';
import { assertSearchable, foreignEncoding, invalidJsonMessage, linkedFolderHolds, notUtf8Reason, symlinkedFolder } from '@chunkyard/fs-atomic';
import { brokenLink, describeFsError, DocumentReadError, entryExists, folderProblem, readDocument, readRegularFile, statOrNull, TOPIC_MARKER, UsageError } from '@chunkyard/topic-io';

export const CHUNKS_DIR = '_chunks';
export const PAGES_MANIFEST = 'chunks.json';
const INDEX_FILE = 'index.json';

export interface Target {
  /** The folder as given (resolved). */
  dir: string;
  topics: string[];
  indexes: string[];
  /** Symlinked folders below `dir` holding topics, which the walk did not follow. */
  skippedLinks: { link: string; real: string }[];
}

const skip = (name: string): boolean => name.startsWith('.') || name.startsWith('_') || name === 'node_modules';

/** Topic folders (holding golden-reference.md) and index.json files at or below `dir`. */
export function findTarget(arg: string): Target {
  const dir = resolve(arg);
  const problem = folderProblem(dir);
  if (problem) throw new UsageError(`${arg}: ${problem.reason}${problem.problem === 'not-a-folder' ? '; give a topic folder or a docs folder' : ''}`);
  const target: Target = { dir, topics: [], indexes: [], skippedLinks: [] };
  assertSearchable(dir);
  walkTree(dir, target);
  if (target.topics.length === 0) throw new UsageError(`${arg}: no topic folder (holding ${TOPIC_MARKER}) at or below it`);
  return target;
}

/**
 * Adds what is at or below `d` to `into`. Links are not followed (one could lead back into the
 * tree, or out of it), but a linked folder holding topics is recorded as skipped: it was left
 * out unsaid, so the checks passed over less than the tree seemed to hold.
 */
function walkTree(d: string, into: Pick<Target, 'topics' | 'indexes' | 'skippedLinks'>, lookIntoLinks = true): void {
  if (entryExists(join(d, TOPIC_MARKER))) into.topics.push(d);
  if (existsSync(join(d, INDEX_FILE))) into.indexes.push(join(d, INDEX_FILE));
  for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (skip(e.name)) continue;
    if (e.isDirectory()) walkTree(join(d, e.name), into, lookIntoLinks);
    else if (e.isSymbolicLink() && lookIntoLinks) {
      const link = join(d, e.name);
      const real = symlinkedFolder(link);
      if (real === null) continue;
      const holdsTopics = (dir: string) => {
        // The look does not go through further links (they could lead back here).
        const below: Pick<Target, 'topics' | 'indexes' | 'skippedLinks'> = { topics: [], indexes: [], skippedLinks: [] };
        walkTree(dir, below, false);
        return below.topics.length > 0;
      };
      if (linkedFolderHolds(link, real, holdsTopics)) into.skippedLinks.push({ link, real });
    }
  }
}

const mib = (size: number): string => `${(size / 2 ** 20).toFixed(1)} MiB`;

/** A file over the 2 GiB Node reads into one buffer; the message says its size. */
export class TooLargeFileError extends Error {
  override name = 'TooLargeFileError';
}

/**
 * `file`'s bytes (a regular file's). Over 2 GiB is a TooLargeFileError: Node's words were "File
 * size (3221225472) is greater than 2 GiB", naming no file, and for a chunk file they ended the
 * run (helper-84 probe).
 */
export function readFileBytes(file: string): Buffer {
  try {
    return readRegularFile(file);
  } catch (err) {
    if ((err as { code?: unknown })?.code !== 'ERR_FS_FILE_TOO_LARGE') throw err;
    throw new TooLargeFileError(`too large to read (${mib(statOrNull(file)?.size ?? Number.NaN)}; a file is read whole, and at most 2 GiB)`);
  }
}

/**
 * `bytes` as UTF-8 text (a BOM kept, as bytes.toString keeps it), or why not: `notUtf8` (not
 * UTF-8, or UTF-16/32 by its byte order mark) or `tooLarge`. Valid UTF-8 of more characters than
 * a string holds (2^29 - 24) was "not valid UTF-8 (first bad byte at offset <its length>)", a
 * byte past the file's end (fs-atomic's utf8TextProblem takes the decoder's RangeError for a bad
 * byte), and toString threw "Cannot create a string longer than 0x1fffffe8 characters", which
 * ended the run naming no file (helper-84 probe).
 */
export function decodeUtf8(bytes: Uint8Array): { text: string } | { notUtf8: string } | { tooLarge: string } {
  if (foreignEncoding(bytes) !== null) return { notUtf8: notUtf8Reason(bytes) };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA') return { notUtf8: notUtf8Reason(bytes) };
    return { tooLarge: `too large to read (${mib(bytes.length)}; a file is read whole, into at most 512 Mi characters)` };
  }
}

/** What a build output that cannot be read as text needs: it was not written this way. */
const REBUILD = 'so it was damaged or replaced after the build: rebuild it';

function readJson(file: string): { json: unknown; error?: string } {
  let text = '';
  try {
    // Decoded with replacement characters, a damaged byte in a title or a chunk's embedText
    // passed every check (exit 0), where docs-query and docs-export refuse the file (s57 probe).
    const decoded = decodeUtf8(readFileBytes(file));
    if ('notUtf8' in decoded) return { json: null, error: `${decoded.notUtf8}; the build writes UTF-8, ${REBUILD}` };
    if ('tooLarge' in decoded) return { json: null, error: `${decoded.tooLarge}; the build writes none this large, ${REBUILD}` };
    text = decoded.text;
    return { json: JSON.parse(text) };
  } catch (err) {
    if (err instanceof TooLargeFileError) return { json: null, error: `${err.message}; the build writes none this large, ${REBUILD}` };
    // Never the parser's words for a SyntaxError: they quote the file, and a planted link makes it any file.
    return { json: null, error: err instanceof SyntaxError ? (brokenLink(file) ?? invalidJsonMessage(text, err)) : readError(file, err) };
  }
}

/** Why `file` could not be read. A dangling or looping link is named as one (ENOENT and ELOOP said "missing" or "a symlink loop" alike). */
function readError(file: string, err: unknown): string {
  return brokenLink(file) ?? ((err as NodeJS.ErrnoException)?.code === 'ENOENT' ? 'missing' : describeFsError(err as NodeJS.ErrnoException));
}

/**
 * The chunk files (`<name>-<n>.md`) among a _chunks/ folder's entries, by document name, in one
 * pass: a pattern per document tested against every entry was documents × entries, 12 million
 * tests for a topic of 4,000 sources (2.9 s of docs-score's CPU, 0.8 s at 1,000). An entry
 * belongs to the name left when its last `-<n>.md` is cut, the one name whose pattern it matched.
 */
export function chunkFilesByDocument(entries: readonly string[]): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const e of entries) {
    // [\s\S], not `.`: a file name may hold a line break; `*`: a manifest named `.json` is
    // the document "" (basename), whose chunk files are `-<n>.md`.
    const name = /^([\s\S]*)-\d+\.md$/.exec(e)?.[1];
    if (name === undefined) continue;
    const files = byName.get(name);
    if (files) files.push(e);
    else byName.set(name, [e]);
  }
  return byName;
}

/** A topic's build outputs; `null` when it has no _chunks/ folder (not built). */
export function loadTopic(dir: string): LoadedTopic | null {
  const out = join(dir, CHUNKS_DIR);
  if (!statOrNull(out)?.isDirectory()) return null;
  const entries = readdirSync(out).sort();
  const chunkFilesOf = chunkFilesByDocument(entries);
  const documents: LoadedDocument[] = entries
    .filter((f) => f.endsWith('.json') && f !== PAGES_MANIFEST)
    .map((f) => {
      const name = basename(f, '.json');
      const manifestFile = join(out, f);
      const { json, error } = readJson(manifestFile);
      const src = typeof (json as { source?: unknown } | null)?.source === 'string' ? (json as { source: string }).source : `${name}.md`;
      const sourceFile = join(dir, src);
      let source: string | null = null;
      let sourceError: string | undefined;
      try {
        // Empty is a source too: its checksum says it changed, where "missing" said it was gone.
        source = readDocument(sourceFile, { allowEmpty: true });
      } catch (err) {
        // A FIFO, a device, a binary or non-UTF-8 file was reported as "missing" (s37 probe).
        if (!(err instanceof DocumentReadError && err.code === 'missing')) sourceError = err instanceof Error ? err.message : String(err);
      }
      // A chunk file too large to read is a finding naming it, as a manifest is, not the end of
      // the run. (Decoded as before, bytes.toString: markdownProblems reads what is there.)
      const chunkFiles = new Map<string, string>();
      const chunkFileErrors = new Map<string, string>();
      for (const e of chunkFilesOf.get(name) ?? []) {
        const file = join(out, e);
        try {
          const bytes = readFileBytes(file);
          try {
            chunkFiles.set(file, bytes.toString('utf8'));
          } catch (err) {
            if ((err as { code?: unknown }).code !== 'ERR_STRING_TOO_LONG') throw err;
            chunkFileErrors.set(file, `too large to read (${mib(bytes.length)}; a file is read whole, into at most 512 Mi characters); the build writes none this large, ${REBUILD}`);
          }
        } catch (err) {
          // A folder, FIFO or broken link there ended the run too (the file named, every other
          // topic unchecked), where this module's readers make each unreadable file a finding.
          chunkFileErrors.set(file, err instanceof TooLargeFileError ? `${err.message}; the build writes none this large, ${REBUILD}` : readError(file, err));
        }
      }
      return {
        name,
        manifestFile,
        manifest: json,
        ...(error !== undefined ? { manifestError: error } : {}),
        sourceFile,
        source,
        ...(sourceError !== undefined ? { sourceError } : {}),
        chunkFiles,
        ...(chunkFileErrors.size > 0 ? { chunkFileErrors } : {}),
        chunkFileOf: (n: number) => join(out, `${name}-${n}.md`),
      };
    });
  const pagesFile = join(out, PAGES_MANIFEST);
  // A paginate document's pages are checked against chunks.json (their CT graph and SHA-256s):
  // looked for with existsSync alone, a deleted chunks.json (or a dangling link there) left
  // nothing to check it against, and the topic passed, exit 0 (issue 15 probe).
  const paginated = documents.filter((d) => (d.manifest as { strategy?: unknown } | null)?.strategy === 'paginate');
  let pages: LoadedTopic['pages'] = null;
  if (entryExists(pagesFile)) pages = { file: pagesFile, ...readJson(pagesFile) };
  else if (paginated.length > 0) {
    const names = paginated.map((d) => basename(d.manifestFile));
    const which = names.length === 1 ? `${names[0]} was` : `${names.length} manifests (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''}) were`;
    pages = { file: pagesFile, json: null, error: `missing: ${which} chunked with paginate, whose pages it checks (continuity-token graph, SHA-256 per page); chunk the topic again (nx run <topic>:chunk)` };
  }
  return { dir, documents, pages };
}

export function loadIndexes(files: readonly string[]): LoadedIndex[] {
  return files.map((file) => ({ file, ...readJson(file) }));
}

/** A topic's id for messages and corpus ids: its path below the target, or its folder name. */
export function topicId(target: Target, dir: string): string {
  const rel = relative(target.dir, dir).split('\\').join('/');
  return rel === '' ? basename(dir) : rel;
}
