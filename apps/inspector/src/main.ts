/**
 * chunk-inspector: copies the chunk inspector page (static/: index.html, ES modules, CSS) into a
 * folder, so any static host serves it beside the docs. docs-serve serves the same files at
 * /_inspect/ without this step.
 *
 *   chunk-inspector build --out docs/_inspect
 */
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fileKind, guardEnvironment, oneLine, parseCliArgs, processIo, tempName, writeFilesAtomic } from '@chunkyard/fs-atomic';
import { exitOnStdoutError as exitOnStdoutErrorOf } from '@chunkyard/fs-atomic';

/** The page's files: ../static from both src/main.ts and the bundled dist/main.js. */
export const STATIC_DIR = fileURLToPath(new URL('../static/', import.meta.url));

/** This package's version, read from its own package.json (../ from src/ and dist/ alike), so an installed copy reports itself. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const HELP = `chunk-inspector — the chunk inspector page, as static files

Usage:
  chunk-inspector build --out DIR

Copies the page (index.html, inspect.js and its modules, inspect.css) into DIR. Put DIR
one level below the built docs root (e.g. docs/_inspect) and open
  <docs URL>/_inspect/?topic=<topic path under the docs root>
The page reads ../index.json, the topic's index.json, its chunk manifest and source; no
build step and no server code. docs-serve serves the same page at /_inspect/ by itself.
Elsewhere, ?root=<docs URL> points the page at docs on another host (which must allow CORS).

Options:
  --out DIR    where to copy the page (created if missing)
  -h, --help   show this help
  --version    print chunk-inspector's version

DIR may be new, empty, hold other files, or hold an earlier copy of the page (which is
replaced); a file of the page's names that is not the page's (a site's own index.html or
data.js) is never replaced. DIR is never a topic folder, nor a topic's _chunks/ or
_keywords/ or below them (the next build replaces those whole, the page with them): exit 2.

Exit status: 0 copied; 1 the files could not be written (none of them is replaced: a
folder, a symlink or another page's file where one goes, a full disk, a dangling link for
DIR); 2 usage error.
`;

type Io = { stdout: (s: string) => void; stderr: (s: string) => void };

/**
 * Copies the page into `out`; returns the file names copied. The files land together or not
 * at all (issue 15 probe): copied one by one into `out`, a failure halfway (a full disk, a
 * folder standing where render.js goes) left new modules beside old ones, a page that loads
 * and breaks. fs-atomic's writeFilesAtomic writes each beside its target under a temp name
 * (made with mkdirp, which does not loop under /proc, and swept by the next run if this one is
 * killed), checks every target, and only then renames each into place, as it does for
 * index-tool's llms.txt and llms-full.txt. The page is a few small files, read whole.
 */
export function buildStatic(out: string): string[] {
  const names = pageNames();
  writeFilesAtomic(new Map(names.map((n) => [join(out, n), readFileSync(join(STATIC_DIR, n))])));
  return names;
}

/** The page's file names (static/, dot files left out), sorted. */
function pageNames(): string[] {
  return readdirSync(STATIC_DIR).filter((n) => !n.startsWith('.') && statSync(join(STATIC_DIR, n)).isFile()).sort();
}

/** The longest name a file system takes (ext4, XFS, Btrfs, tmpfs, APFS), in bytes. */
const NAME_MAX = 255;
/** The longest path the kernel takes, in bytes (PATH_MAX less its NUL): 4095 on Linux, 1023 on macOS; Windows has none Node keeps to. */
const PATH_BYTES = process.platform === 'darwin' ? 1023 : process.platform === 'win32' ? Infinity : 4095;

/**
 * Why `out` (absolute) is a path the page cannot be written under, or null. Each file of the
 * page is first written beside its target under a temp name (`.<name>.tmp-<pid>~<space>-<8 hex>`,
 * fs-atomic's tempName), so the longest path a run makes is such a temp name in `out`: an `--out`
 * within PATH_MAX but not that far within it failed after the check, exit 1, 'cannot write in this
 * folder: name too long (ENAMETOOLONG)' (issue 15 leftover). A name over NAME_MAX likewise.
 */
export function outPathProblem(out: string): string | null {
  const long = Math.max(...out.split(process.platform === 'win32' ? /[\\/]/ : '/').map((name) => Buffer.byteLength(name)));
  if (long > NAME_MAX) return `name too long (a name in it is ${long} bytes; a file system takes at most ${NAME_MAX}); use a shorter path`;
  const longest = Math.max(...pageNames().map((n) => Buffer.byteLength(tempName(join(out, n)))));
  if (longest > PATH_BYTES) {
    return `path too long (the page's temp files in it would be ${longest} bytes from the root, ${Buffer.byteLength(out)} of them the folder's; a path may be at most ${PATH_BYTES} bytes); use a shorter path`;
  }
  return null;
}

/** Whether `html` is a copy of this page, of any version: each had this title and loaded inspect.js. */
export function isInspectorPage(html: string): boolean {
  return html.includes('<title>Chunk inspector</title>') && html.includes('src="inspect.js"');
}

/**
 * The files of `out` that copying the page would replace and that are not the page's (probe:
 * `--out public`, a site's folder, replaced its index.html and any data.js without a word). A
 * file is the page's when it is byte for byte the one copied, or when `out`'s index.html is
 * the page (an earlier copy, whose modules are upgraded with it). Folders and symlinks in the
 * way are left to writeFilesAtomic, which refuses them with their own words.
 */
export function foreignFiles(out: string): string[] {
  const regular = (p: string) => {
    try {
      return lstatSync(p).isFile();
    } catch {
      return false;
    }
  };
  const names = pageNames();
  const differing = names.filter((n) => regular(join(out, n)) && !readFileSync(join(out, n)).equals(readFileSync(join(STATIC_DIR, n))));
  if (differing.length === 0) return [];
  const index = join(out, 'index.html');
  if (regular(index) && isInspectorPage(readFileSync(index, 'utf8'))) return [];
  return differing;
}

/** What a topic's document is named (topic-io's TOPIC_MARKER: CHUNKYARD_TOPIC_MARKER, else golden-reference.md). */
const topicMarker = (): string => process.env.CHUNKYARD_TOPIC_MARKER || 'golden-reference.md';

/** Whether `dir` is a topic folder: it holds the topic's document, or index-tool's index.json says so. */
function isTopicFolder(dir: string): boolean {
  if (existsSync(join(dir, topicMarker()))) return true;
  try {
    return (JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { kind?: unknown }).kind === 'topic';
  } catch {
    return false;
  }
}

/** The folders the topic tools write whole, and which tool: the page copied there is removed by its next run. */
const GENERATED_FOLDERS: Record<string, string> = { _chunks: 'chunking-tool', _keywords: 'keyword-extractor' };

/**
 * Why `out` (absolute) is no place for the page inside a topic, or null (s59 probe). A topic's
 * _chunks/ or _keywords/: "copied 6 files", and the next build (chunking-tool, keyword-extractor)
 * replaced the folder whole and the page was gone without a word. The topic folder itself: the
 * page sat among the topic's sources and read the section above as the docs root (its
 * `../index.json`), so it called the very topic it sat in "not built".
 */
export function topicPlace(out: string): string | null {
  // Where the page would really land: `--out link` with link -> <topic>/_chunks, or a path
  // through a linked parent (`--out docs-link/lib/t/_chunks/page`), passed the check on the
  // path as given and was "copied 6 files" into _chunks/ (issue 15 leftover).
  const real = realPathOf(out);
  const through = real === out ? '' : ` (through a symlink: ${oneLine(real)})`;
  // Any folder below one of them too: `--out <topic>/_chunks/page` was "copied 6 files", and
  // the next chunking-tool run removed _chunks/ whole, the page with it (helper-84 probe).
  for (let d = real; ; d = dirname(d)) {
    const tool = GENERATED_FOLDERS[basename(d)];
    if (tool !== undefined && isTopicFolder(dirname(d))) {
      return d === real
        ? `a topic's generated folder (${basename(real)}/, replaced whole by ${tool})${through}; the next build removes the page with it`
        : `inside a topic's generated folder (${oneLine(d)}, replaced whole by ${tool})${through}; the next build removes the page with it`;
    }
    if (dirname(d) === d) break;
  }
  if (isTopicFolder(real)) {
    return `a topic folder${through} (it holds ${existsSync(join(real, topicMarker())) ? oneLine(topicMarker()) : 'a topic index.json'}); the page reads the docs root one folder above itself (../index.json), which here is not the docs root`;
  }
  return null;
}

/**
 * The path the kernel would write `p` (absolute, normalized) at: the real path of its deepest
 * existing ancestor joined with the rest. A dangling symlink on the way is followed to where it
 * points (the folder is made there). Past 40 links (the kernel's own limit), `p` as it is.
 */
export function realPathOf(p: string): string {
  let path = p;
  for (let hops = 0; hops <= 40; hops++) {
    const rest: string[] = [];
    let d = path;
    let followed = false;
    for (;;) {
      try {
        return join(realpathSync(d), ...rest);
      } catch {
        // Missing, or a dangling link: a link is followed (its target read relative to its folder).
        let target: string | null = null;
        try {
          if (lstatSync(d).isSymbolicLink()) target = readlinkSync(d);
        } catch {
          target = null;
        }
        if (target !== null) {
          path = resolve(dirname(d), target, ...rest);
          followed = true;
          break;
        }
      }
      const parent = dirname(d);
      if (parent === d) return path;
      rest.unshift(basename(d));
      d = parent;
    }
    if (!followed) return path;
  }
  return p;
}

/** Runs the CLI; a file-system error that escapes becomes one line and exit 1, never a trace. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  return guardEnvironment('chunk-inspector', io, (safe) => run(argv, safe));
}

async function run(argv: string[], io: Io): Promise<number> {
  let out: string | undefined;
  try {
    const options = { out: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false }, version: { type: 'boolean', default: false } } as const;
    const { values, positionals } = parseCliArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options,
    });
    if (values.help) {
      io.stdout(HELP);
      return 0;
    }
    if (values.version) {
      io.stdout(`chunk-inspector ${VERSION}\n`);
      return 0;
    }
    if (positionals.length === 0) throw new Error('no command given (build)');
    if (positionals[0] !== 'build') throw new Error(`unknown command ${JSON.stringify(positionals[0])} (build)`);
    if (positionals.length > 1) throw new Error(`build takes no arguments, got ${positionals.slice(1).map((a) => JSON.stringify(a)).join(' ')} (the folder is --out DIR)`);
    // `--out ''` was "--out DIR is required", though it was given.
    if (values.out === '') throw new Error('--out: empty; give the folder to copy the page into');
    if (!values.out) throw new Error('build: --out DIR is required');
    out = resolve(values.out);
    const tooLong = outPathProblem(out);
    if (tooLong) throw new Error(`--out ${oneLine(values.out)}: ${tooLong}`);
    // The words of every other CLI's --out (topic-io's checkFolderOption), path escaped; it was
    // "--out /dev/null: exists and is not a folder", the path raw. oneLine, since escapeControl
    // keeps line breaks: "--out a\nb" split the message, and its second half read as a line of ours.
    const stat = existsSync(out) ? statSync(out) : null;
    if (stat && !stat.isDirectory()) throw new Error(`--out ${oneLine(values.out)}: ${stat.isFile() ? 'a file' : fileKind(stat)}, not a folder; give a folder (or one not yet made)`);
    const inTopic = topicPlace(out);
    if (inTopic) throw new Error(`--out ${oneLine(values.out)}: ${inTopic}; give a folder one level below the docs root (e.g. docs/_inspect)`);
  } catch (err) {
    io.stderr(`chunk-inspector: ${(err as Error).message}\nRun chunk-inspector --help for usage.\n`);
    return 2;
  }
  const foreign = foreignFiles(out);
  if (foreign.length > 0) {
    io.stderr(
      `chunk-inspector: ${oneLine(out)} holds ${foreign.join(', ')}, which the chunk inspector did not write; copying would replace ${foreign.length === 1 ? 'it' : 'them'}, so nothing was written; give a folder of the page's own below the docs root (e.g. docs/_inspect), or move ${foreign.length === 1 ? 'that file' : 'those files'} away\n`,
    );
    return 1;
  }
  const names = buildStatic(out);
  // One line whatever the path holds, as the errors are.
  io.stdout(`chunk-inspector: copied ${names.length} files to ${oneLine(out)} (${names.join(', ')})\n`);
  return 0;
}

// Run when executed directly (node dist/main.js …), not when imported by the bin or tests.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}

/** For the bin: a failed write to its stdout (a full disk) is one line naming it, not a stack trace. */
export function exitOnStdoutError(tool: string): void {
  exitOnStdoutErrorOf(tool);
}
