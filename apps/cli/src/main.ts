/**
 * chunkyard: one command in front of the chunkyard tools.
 *
 *   chunkyard <command> [args ...]        runs the tool's own main(args)
 *   chunkyard --help | --version
 *
 * Each command imports its tool's package only when it runs, and tools/build.mjs keeps those
 * packages out of this bundle, so `chunkyard chunk` never loads SQLite or the MCP SDK that
 * `chunkyard store` needs. Every tool is also installed as its own bin.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { editDistance, escapeControl } from '@chunkyard/fs-atomic';
import { exitOnStdoutError as exitOnStdoutErrorOf } from '@chunkyard/fs-atomic';

/** This package's version, read from its own package.json (../ from src/ and dist/ alike), so an installed copy reports itself. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface Command {
  /** The tool's own bin, which takes the same arguments. */
  tool: string;
  /** Its npm package, when that is not `@chunkyard/<tool>` (the inspector's bin is named apart from MCP's `inspector`). */
  package?: string;
  /** One line for `chunkyard --help`. */
  summary: string;
  /** Loads the tool's package; its main(argv) prints through process.stdout/stderr and returns the exit status. */
  load: () => Promise<{ main: (argv: string[]) => Promise<number> }>;
}

// In the order a docs build runs them, then the readers of built docs.
export const COMMANDS: Readonly<Record<string, Command>> = {
  chunk: { tool: 'chunking-tool', summary: 'split topic folders or markdown files into _chunks/ (chunk files + manifest)', load: () => import('@chunkyard/chunking-tool') },
  keywords: { tool: 'keyword-extractor', summary: "write a topic's keyword table (_keywords/words.md)", load: () => import('@chunkyard/keyword-extractor') },
  spec: { tool: 'topic-spec', summary: "embed a topic's chunks (through the cache) and write topic-spec.md", load: () => import('@chunkyard/topic-spec') },
  index: { tool: 'index-tool', summary: 'write index.json for topics and the sections above them', load: () => import('@chunkyard/index-tool') },
  query: { tool: 'docs-query', summary: 'list topics and search built docs, from a folder or a URL', load: () => import('@chunkyard/docs-query') },
  serve: { tool: 'docs-serve', summary: 'serve built docs over HTTP, with the chunk inspector at /_inspect/', load: () => import('@chunkyard/docs-serve') },
  store: { tool: 'docs-store', summary: 'SQLite store: ingest docs, search them, serve them to agents over MCP', load: () => import('@chunkyard/docs-store') },
  export: { tool: 'docs-export', summary: 'every chunk as JSON lines: LangChain Documents, LlamaIndex TextNodes, plain records', load: () => import('@chunkyard/docs-export') },
  score: { tool: 'docs-score', summary: 'check built topics and measure retrieval quality on question sets', load: () => import('@chunkyard/docs-score') },
  inspect: { tool: 'chunk-inspector', package: '@chunkyard/inspector', summary: 'copy the chunk inspector page beside built docs', load: () => import('@chunkyard/inspector') },
};

const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));

export const HELP = `chunkyard — markdown docs to retrieval-ready chunks: one command for every chunkyard tool

Usage:
  chunkyard <command> [options]
  chunkyard <command> --help     the command's own help (also: chunkyard help <command>)
  chunkyard -h, --help           this help (also: chunkyard help)
  chunkyard --version            chunkyard's version

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
  .join('\n')}

Each command is also a bin of its own with the same options: chunking-tool,
keyword-extractor, topic-spec, index-tool, docs-query, docs-serve, docs-store, docs-export,
docs-score and chunk-inspector.

Exit status: the command's own; 2 no or an unknown command, or words after --help or --version;
1 the command's tool cannot be loaded (a partial install: reinstall @chunkyard/cli).
`;

export interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const defaultIo: Io = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.stderr(HELP);
    return 2;
  }
  // A word after them was dropped unseen (`chunkyard --version extra` printed the version, exit
  // 0), so a mistyped command line passed for a good one; `help COMMAND` is the form with a word.
  if ((first === '--help' || first === '-h' || first === '--version') && rest.length > 0) {
    io.stderr(`chunkyard: ${first} takes no arguments, got ${rest.map((w) => escapeControl(JSON.stringify(w))).join(' ')}\nRun chunkyard COMMAND --help for a command's help, or chunkyard --help for usage.\n`);
    return 2;
  }
  // `help help` is help about help: this usage, as `git help help` gives git's help page.
  if (first === '--help' || first === '-h' || (first === 'help' && (rest.length === 0 || (rest.length === 1 && rest[0] === 'help')))) {
    io.stdout(HELP);
    return 0;
  }
  if (first === '--version') {
    io.stdout(`chunkyard ${VERSION}\n`);
    return 0;
  }
  // `chunkyard help chunk` is `chunkyard chunk --help`; a word after the command's name was
  // dropped without a word, as if the help it printed were about it.
  if (first === 'help' && rest.length > 1) {
    io.stderr(`chunkyard: help takes one command name, got ${rest.length}: ${rest.map((w) => escapeControl(JSON.stringify(w))).join(' ')}\nRun chunkyard help COMMAND, or chunkyard --help for usage.\n`);
    return 2;
  }
  const [name, args] = first === 'help' ? [rest[0]!, ['--help']] : [first, rest];
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    // JSON.stringify escapes C0 controls but leaves DEL, C1 (U+009B is a CSI to some terminals)
    // and the bidi overrides and isolates (which reorder what the terminal shows): escapeControl
    // escapes those as it does for every tool.
    const shown = escapeControl(JSON.stringify(name));
    const what = name.startsWith('-') ? `unknown option ${shown} (options go after the command)` : `unknown command ${shown}`;
    const near = nearest(name);
    const hint = near.length > 0 ? `; did you mean ${near.join(' or ')}?` : '';
    io.stderr(`chunkyard: ${what}${hint}\nCommands: ${Object.keys(COMMANDS).join(', ')}. Run chunkyard --help for usage.\n`);
    return 2;
  }
  // A tool that cannot be loaded (its package, or one it imports, missing from a failed or
  // partial install) threw Node's ERR_MODULE_NOT_FOUND stack trace, naming neither the command
  // nor a way to repair it. Only the load is caught: the tool's own errors are its own.
  let run: (argv: string[]) => Promise<number>;
  try {
    ({ main: run } = await command.load());
  } catch (err) {
    const pkg = command.package ?? `@chunkyard/${command.tool}`;
    const why = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.replace(/ imported from .*$/, '');
    io.stderr(`chunkyard: cannot load ${pkg}, which runs "chunkyard ${name}": ${escapeControl(why)}\nReinstall @chunkyard/cli (npm i @chunkyard/cli), or install ${pkg}.\n`);
    return 1;
  }
  return run(args);
}

/**
 * What an unknown first word was probably meant to be: a command one typo away (two for names
 * of 6 letters or more; a swap of two letters is one, so `sepc` is spec), in any case
 * (`Chunk`), a command the word starts (`chunking`, `indexes`) or begins (`insp`), a tool's bin
 * name (`topic-spec` → spec), and `--version` or `--help` for their usual typos and `-v`/`-V`.
 * Several at the same distance are all named (`sore`: score or store); none, nothing.
 */
function nearest(word: string): string[] {
  // A swap of two neighbouring letters is one edit (optimal string alignment).
  const distance = (a: string, b: string) => editDistance(a, b, { swaps: true });
  const given = word.toLowerCase();
  if (given.startsWith('-')) {
    const bare = given.replace(/^-+/, '');
    if (bare === 'v' || (bare.length >= 3 && (distance(bare, 'version') <= 2 || 'version'.startsWith(bare)))) return ['--version'];
    if (bare.length >= 3 && (distance(bare, 'help') <= 1 || 'help'.startsWith(bare))) return ['--help'];
    return [];
  }
  const byTool = Object.entries(COMMANDS).find(([, c]) => c.tool === given)?.[0];
  if (byTool !== undefined) return [byTool];
  let best: string[] = [];
  let bestDistance = Infinity;
  for (const name of Object.keys(COMMANDS)) {
    let d = distance(given, name);
    if (d > (name.length >= 6 ? 2 : 1)) d = given.length >= 3 && (name.startsWith(given) || given.startsWith(name)) ? 3 : Infinity;
    if (d < bestDistance) [best, bestDistance] = [[name], d];
    else if (d === bestDistance && d !== Infinity) best.push(name);
  }
  return best;
}

// Run when executed directly (node dist/main.js …), not when imported by the bin or tests.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}

/** For the bin: a failed write to its stdout (a full disk) is one line naming it, not a stack trace. */
export function exitOnStdoutError(tool: string): void {
  exitOnStdoutErrorOf(tool);
}
