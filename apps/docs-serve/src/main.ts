/**
 * docs-serve: serves built chunkyard docs over HTTP until SIGINT or SIGTERM.
 *
 *   docs-serve <docs-dir> [--port N] [--host H]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_HOST, DEFAULT_PORT, ServeError, startServer, type RunningServer } from './server.js';
import { emptyArgument, folderProblem, guardEnvironment, numberOption, oneLine, parseCliArgs, processIo } from '@chunkyard/fs-atomic';
import { exitOnStdoutError as exitOnStdoutErrorOf } from '@chunkyard/fs-atomic';

/** This package's version, read from its own package.json (../ from src/ and dist/ alike), so an installed copy reports itself. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const HELP = `docs-serve — serve built chunkyard docs (index.json and chunk files) over HTTP

Usage:
  docs-serve <docs-dir> [--port N] [--host H]

<docs-dir> is the built docs root (the folder holding the root index.json); it is served
as "/", so a client starts at http://HOST:PORT/index.json and follows the links
(docs-query --base-url http://HOST:PORT/).

  - GET and HEAD; Range requests (206, or 416 with Content-Range: bytes */size)
  - ETag and Last-Modified, with If-None-Match / If-Modified-Since (304)
  - CORS for any origin, preflight (OPTIONS) included; no credentials
  - content types by extension (.json application/json, .md text/markdown)
  - a folder URL answers with its index.json
  - the chunk inspector page at /_inspect/ (?topic=<topic path>): chunk boundaries,
    overlap, tokens and stripe order drawn over each topic's source
  - nothing outside <docs-dir>: ".." segments, dot-files and dot-folders, and symlinks
    leading out of the folder are refused with 403

Options:
  --port N     port to listen on, 0..65535 (default ${DEFAULT_PORT}; 0 picks a free one)
  --host H     address to listen on (default ${DEFAULT_HOST}, loopback only; 0.0.0.0 or ::
               makes the docs reachable from other machines)
  -h, --help   show this help
  --version    print docs-serve's version

Prints the URL once listening. Stops on SIGINT (Ctrl-C) or SIGTERM: stops accepting, gives
requests in flight up to 2 s to finish, then cuts their connections (and says how many).
Exit status: 0 stopped by a signal; 1 could not listen; 2 usage error.
`;

/**
 * The ports browsers and fetch() refuse without trying (the Fetch standard's "bad ports"). Served
 * on one, the docs were out of reach of the inspector page and of docs-query, without a word.
 */
const FETCH_BAD_PORTS: ReadonlySet<string> = new Set(
  '1 7 9 11 13 15 17 19 20 21 22 23 25 37 42 43 53 69 77 79 87 95 101 102 103 104 109 110 111 113 115 117 119 123 135 137 139 143 161 179 389 427 465 512 513 514 515 526 530 531 532 540 548 554 556 563 587 601 636 989 990 993 995 1719 1720 1723 2049 3659 4045 4190 5060 5061 6000 6566 6665 6666 6667 6668 6669 6679 6697 10080'.split(' '),
);

/**
 * What is wrong with a --host that is a URL or carries a port: `--host http://127.0.0.1` and
 * `--host 127.0.0.1:9000` were "not an address of this machine (ENOTFOUND); use --host
 * 127.0.0.1", which did not say what was wrong with them (probe). Null for anything else,
 * which listen() judges. A bare IPv6 address (several colons) is left alone.
 */
export function hostProblem(host: string): string | null {
  const shown = JSON.stringify(host);
  // No host name or address holds one, and listen()'s error quoted it as given: a CR LF went
  // raw to stderr and the rest of the value read as a line of its own (helper-78 probe).
  if (/[\s\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(host)) return `--host ${shown}: not a host name or address (it holds a space or control character); use --host 127.0.0.1, or an address this machine has`;
  const url = /^[a-z][a-z0-9+.-]*:\/\/\[?([^/\]]*?)\]?(?::(\d+))?(?:[/?#].*)?$/i.exec(host);
  if (url) return `--host ${shown} is a URL; give the host alone${url[1] ? ` (--host ${url[1]}${url[2] ? ` --port ${url[2]}` : ''})` : ''}`;
  const withPort = /^(\[[^\]]*\]|[^:\[\]]+):(\d*)$/.exec(host);
  if (withPort) return `--host ${shown} carries a port; give it with --port (--host ${withPort[1]!.replace(/^\[(.*)\]$/, '$1')}${withPort[2] ? ` --port ${withPort[2]}` : ''})`;
  return null;
}

export interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

/** Resolves with the signal's name on the first SIGINT or SIGTERM. */
function untilSignal(): Promise<string> {
  return new Promise((resolvePromise) => {
    const on = (sig: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolvePromise(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/** Runs the CLI; a file-system error that escapes becomes one line and exit 1, never a trace. */
export async function main(argv: string[], io: Io = processIo, until: (s: RunningServer) => Promise<string> = untilSignal): Promise<number> {
  return guardEnvironment('docs-serve', io, (safe) => run(argv, safe, until));
}

async function run(argv: string[], io: Io, until: (s: RunningServer) => Promise<string>): Promise<number> {
  let values: { port?: string; host?: string; help: boolean; version: boolean };
  let positionals: string[];
  try {
    const options = {
      port: { type: 'string' },
      host: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', default: false },
    } as const;
    ({ values, positionals } = parseCliArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options,
    }));
    if (!values.help && !values.version && positionals.length !== 1) throw new Error(positionals.length === 0 ? 'no docs folder given' : 'one docs folder only');
    // "" (an unset variable) resolved to the current folder, which was then served.
    const empty = emptyArgument({}, positionals);
    if (empty) throw new Error(empty);
    if (values.port !== undefined) numberOption('--port', values.port, { min: 0, max: 65535 });
    if (values.host !== undefined && values.host.trim() === '') throw new Error('--host: empty');
    if (values.host !== undefined) {
      const host = hostProblem(values.host);
      if (host) throw new Error(host);
    }
  } catch (err) {
    io.stderr(`docs-serve: ${(err as Error).message}\nRun docs-serve --help for usage.\n`);
    return 2;
  }
  if (values.help) {
    io.stdout(HELP);
    return 0;
  }
  if (values.version) {
    io.stdout(`docs-serve ${VERSION}\n`);
    return 0;
  }
  const dir = resolve(positionals[0]!);
  // A link that leads nowhere is not a missing folder (it is there, and needs fixing); a file
  // given as the folder is not "a part of this path is a file" (ENOTDIR): it is the path itself.
  const problem = folderProblem(dir);
  if (problem) {
    io.stderr(`docs-serve: ${oneLine(positionals[0]!)}: ${problem.reason}${problem.problem === 'not-a-folder' ? '; give the built docs root' : ''}\n`);
    return 2;
  }
  // A folder the server cannot list or read would answer every request with an error; say so now.
  readdirSync(dir);
  // Paths on one line (oneLine): a folder named with a line break split these lines, the second
  // half passing for a line of docs-serve's own.
  if (!existsSync(join(dir, 'index.json'))) io.stderr(`docs-serve: warning: ${oneLine(join(dir, 'index.json'))} does not exist; is ${oneLine(positionals[0]!)} the built docs root?\n`);
  let running: RunningServer;
  try {
    running = await startServer({
      root: dir,
      ...(values.port !== undefined ? { port: Number(values.port) } : {}),
      ...(values.host !== undefined ? { host: values.host } : {}),
      onError: (err) => io.stderr(`docs-serve: ${(err as Error).stack ?? String(err)}\n`),
      log: (line) => io.stderr(`docs-serve: ${line}\n`),
    });
  } catch (err) {
    if (err instanceof ServeError) {
      io.stderr(`docs-serve: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  io.stdout(`docs-serve: serving ${oneLine(running.root)} at ${running.url} (root index: ${running.url}index.json)\n`);
  io.stdout(`docs-serve: chunk inspector at ${running.url}_inspect/\n`);
  const port = new URL(running.url).port;
  if (FETCH_BAD_PORTS.has(port)) {
    io.stderr(`docs-serve: warning: port ${port} is one that browsers and fetch() refuse to connect to (a "bad port" of the Fetch standard): the chunk inspector page and docs-query --base-url cannot reach it; choose another --port\n`);
  }
  const signal = await until(running);
  const cut = await running.close();
  io.stdout(`docs-serve: stopped (${signal})${cut > 0 ? `; ${cut} connection${cut === 1 ? '' : 's'} still sending after 2 s cut off` : ''}\n`);
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
