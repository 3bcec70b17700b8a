// @ts-check
/**
 * A minimal, dependency-free Nx self-hosted remote cache server, for tests and for trying the
 * CI recipe locally. Not meant for production: no eviction, no TLS, no per-branch trust rules.
 *
 * It implements Nx's "custom remote cache specification" (OpenAPI 3.0.0, info.version 1.0.0),
 * published at https://nx.dev/docs/kb/self-hosted-caching (source:
 * nrwl/nx astro-docs/src/content/docs/kb/self-hosted-caching.mdoc), which Nx ≥ 20.8 talks to when
 * NX_SELF_HOSTED_REMOTE_CACHE_SERVER is set:
 *
 *   PUT /v1/cache/{hash}   body: application/octet-stream (a gzipped tar Nx builds), Content-Length
 *                          required. 200 stored · 401 missing/invalid token (text/plain)
 *                          · 403 token may not write, e.g. read-only (text/plain)
 *                          · 409 a record for this hash exists; it is never overwritten.
 *   GET /v1/cache/{hash}   200 application/octet-stream, the exact bytes PUT · 404 no record
 *                          · 403 forbidden (text/plain).
 *   Auth: `Authorization: Bearer <token>`; Nx sends NX_SELF_HOSTED_REMOTE_CACHE_ACCESS_TOKEN.
 *
 * Choices where the spec is silent, matched to Nx's native client
 * (packages/nx/src/native/cache/http_remote_cache.rs and errors.rs in nrwl/nx):
 * - PUT success is exactly 200. Older copies of the spec said 202; Nx's client treats every status
 *   other than 200, 403 and 409 as an error.
 * - A missing or wrong token gets 401 on GET too (the spec's bearerToken security covers GET, but
 *   its GET responses list no 401). Nx reports a 401 as "Unauthorized: <body>" only when the
 *   Content-Type is exactly `text/plain` (no charset); otherwise it reports a misconfigured server.
 *   So every error body here is sent as `text/plain`, bare.
 * - 400 for a malformed hash or Content-Length, 411 for a PUT without Content-Length, 413 above
 *   maxBodyBytes, 404 for other paths, 405 for other methods on /v1/cache/{hash}.
 * - 403 and 409 are answered only after the request body has been read (drained), so a client
 *   still uploading sees the status instead of a reset connection.
 * - A body shorter than its Content-Length (client gave up) is never stored. Writes go to a temp
 *   file and are linked into place with link(2), which fails if the record appeared meanwhile:
 *   concurrent PUTs of one hash store one record and answer the rest 409.
 * - With no token configured the server is open (no auth), like most implementations.
 *
 * Library use: `startRemoteCacheServer({ dir, token })` → `{ url, close(), stats }`; for e2e tests
 * also `remoteCacheEnv`, `nxTaskCacheStatuses` and `cloneWorkspace` (see the end of this file).
 * Script use:  `node remote-cache-server.mjs --dir D [--port P] [--host H] [--token T]
 *               [--read-only-token R]…` prints the URL and serves until SIGINT/SIGTERM.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  cpSync,
  createReadStream,
  createWriteStream,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { link, mkdir, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';

/** 1 GiB: far above any docs task's outputs, well below what would hurt a CI runner's disk. */
export const DEFAULT_MAX_BODY_BYTES = 1024 ** 3;

const ROUTE = /^\/v1\/cache\/([^/?#]+)$/;
/** Nx's hashes are decimal strings; anything safe as a plain file name is accepted. */
const SAFE_HASH = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;
const TEMP_PREFIX = '.tmp-';

/**
 * @typedef {object} RemoteCacheServerOptions
 * @property {string} dir Folder holding one file per cache record (created if missing).
 * @property {string} [token] Read-write bearer token. Unset or empty: no authentication at all.
 * @property {string[]} [readOnlyTokens] Tokens that may GET but get 403 on PUT.
 * @property {number} [port] 0 (default) picks a free port.
 * @property {string} [host] Default 127.0.0.1 (loopback only).
 * @property {number} [maxBodyBytes] PUT bodies above this get 413. Default 1 GiB.
 */

/**
 * @typedef {object} RemoteCacheStats Live counters, updated as requests complete.
 * @property {number} getHits GETs answered 200.
 * @property {number} getMisses GETs answered 404.
 * @property {number} puts PUTs answered 200 (records stored).
 * @property {number} putConflicts PUTs answered 409 (record existed).
 * @property {number} unauthorized Requests answered 401.
 * @property {number} forbidden Requests answered 403.
 * @property {number} rejected Other 4xx (bad hash, missing length, too large, wrong path/method).
 * @property {Array<{ method: string, hash: string | null, status: number }>} requests Every request, in order.
 */

/**
 * @typedef {object} RemoteCacheServer
 * @property {string} url Base URL, e.g. http://127.0.0.1:40123 — the value for NX_SELF_HOSTED_REMOTE_CACHE_SERVER.
 * @property {number} port
 * @property {string} dir Absolute storage folder.
 * @property {RemoteCacheStats} stats
 * @property {() => void} resetStats Zeroes every counter and empties `requests`.
 * @property {() => Promise<void>} close Stops listening and closes open connections.
 */

/** @returns {RemoteCacheStats} */
function emptyStats() {
  return { getHits: 0, getMisses: 0, puts: 0, putConflicts: 0, unauthorized: 0, forbidden: 0, rejected: 0, requests: [] };
}

/** Constant-time comparison that does not leak the length either. */
function sameSecret(/** @type {string} */ a, /** @type {string} */ b) {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}

/**
 * Starts the server and resolves once it listens.
 * @param {RemoteCacheServerOptions} options
 * @returns {Promise<RemoteCacheServer>}
 */
export async function startRemoteCacheServer({
  dir,
  token,
  readOnlyTokens = [],
  port = 0,
  host = '127.0.0.1',
  maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
}) {
  if (!dir) throw new TypeError('startRemoteCacheServer: `dir` is required');
  const root = resolve(dir);
  await mkdir(root, { recursive: true });
  const stats = emptyStats();

  /**
   * @param {string | undefined} header
   * @returns {'write' | 'read' | null} what the caller may do; null = not authenticated
   */
  function access(header) {
    if (!token) return 'write';
    const given = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '')?.[1];
    if (!given) return null;
    if (sameSecret(given, token)) return 'write';
    if (readOnlyTokens.some((t) => t && sameSecret(given, t))) return 'read';
    return null;
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      // A storage failure: say so, never pretend the record was stored.
      if (!res.headersSent) send(res, 500, `Remote cache storage error: ${error?.message ?? error}`);
      else res.destroy();
    });
  });

  /**
   * @param {import('node:http').IncomingMessage} req
   * @param {import('node:http').ServerResponse} res
   */
  async function handle(req, res) {
    const method = req.method ?? '';
    const path = (req.url ?? '').split('?')[0] ?? '';
    const raw = ROUTE.exec(path)?.[1];
    const route = raw !== undefined;
    /** @type {string | null} */
    let hash = null;
    if (raw !== undefined) {
      try {
        hash = decodeURIComponent(raw);
      } catch {
        hash = raw;
      }
    }
    /** Counts the answer, then sends it: the counters are current by the time a client sees it. */
    const record = (/** @type {number} */ status) => {
      stats.requests.push({ method, hash, status });
      if (status === 401) stats.unauthorized++;
      else if (status === 403) stats.forbidden++;
      else if (status === 200 && method === 'GET') stats.getHits++;
      else if (status === 404 && method === 'GET' && route) stats.getMisses++;
      else if (status === 200 && method === 'PUT') stats.puts++;
      else if (status === 409) stats.putConflicts++;
      else if (status >= 400 && status < 500) stats.rejected++;
    };
    const reply = (/** @type {number} */ status, /** @type {string} */ message) => {
      if (res.destroyed) return;
      record(status);
      send(res, status, message);
    };
    /** Reads and discards the body first, so a client still uploading gets to see the status. */
    const drainThenReply = async (/** @type {number} */ status, /** @type {string} */ message) => {
      await drain(req);
      reply(status, message);
    };
    /** Answers at once and closes the connection rather than reading a body we will not store. */
    const refuseBody = (/** @type {number} */ status, /** @type {string} */ message) => {
      res.setHeader('Connection', 'close');
      reply(status, message);
      req.resume();
    };

    if (hash === null) return reply(404, 'Not found');
    if (method !== 'GET' && method !== 'PUT') {
      res.setHeader('Allow', 'GET, PUT');
      return drainThenReply(405, 'Method not allowed');
    }
    const may = access(req.headers.authorization);
    if (may === null) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return drainThenReply(401, 'Missing or invalid authentication token.');
    }
    if (!SAFE_HASH.test(hash)) {
      return method === 'PUT' ? drainThenReply(400, 'Invalid hash') : reply(404, 'The record was not found');
    }
    const file = join(root, hash);

    if (method === 'GET') {
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) return reply(404, 'The record was not found');
      record(200);
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': info.size });
      await pipeline(createReadStream(file), res);
      return;
    }

    // PUT
    if (may !== 'write') return drainThenReply(403, 'Access forbidden: this token is read-only.');
    const lengthHeader = req.headers['content-length'];
    if (lengthHeader === undefined) return refuseBody(411, 'Content-Length header is required');
    if (!/^\d+$/.test(lengthHeader)) return refuseBody(400, 'Invalid Content-Length header');
    const length = Number(lengthHeader);
    if (length > maxBodyBytes) return refuseBody(413, `Body exceeds ${maxBodyBytes} bytes`);
    if (await exists(file)) return drainThenReply(409, 'Cannot override an existing record');

    const temp = join(root, `${TEMP_PREFIX}${hash}-${randomBytes(6).toString('hex')}`);
    let received = 0;
    try {
      await pipeline(
        req,
        async function* count(/** @type {AsyncIterable<Buffer>} */ source) {
          for await (const chunk of source) {
            received += chunk.length;
            yield chunk;
          }
        },
        createWriteStream(temp, { flags: 'wx' }),
      );
      if (received !== length) {
        // Only reachable if the parser let a short body through; Node normally errors instead.
        return reply(400, `Body has ${received} bytes, Content-Length said ${length}`);
      }
      try {
        await link(temp, file); // atomic, and never replaces an existing record
      } catch (error) {
        if (/** @type {NodeJS.ErrnoException} */ (error).code === 'EEXIST') {
          return reply(409, 'Cannot override an existing record');
        }
        throw error;
      }
      reply(200, 'Successfully uploaded the output');
    } catch (error) {
      // The client went away mid-upload (or the disk failed): store nothing.
      if (req.destroyed || req.readableAborted) return void res.destroy();
      throw error;
    } finally {
      await rm(temp, { force: true });
    }
  }

  await new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolveListen(undefined);
    });
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    dir: root,
    stats,
    resetStats() {
      const fresh = emptyStats();
      Object.assign(stats, fresh);
    },
    close() {
      return new Promise((resolveClose) => {
        server.close(() => resolveClose(undefined));
        server.closeAllConnections();
      });
    },
  };
}

/** @param {string} file */
async function exists(file) {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {string} message
 */
function send(res, status, message) {
  const body = Buffer.from(message, 'utf8');
  // Exactly `text/plain`: Nx's client compares the header verbatim for 401s.
  res.writeHead(status, { 'Content-Type': 'text/plain', 'Content-Length': body.length });
  res.end(body);
}

/**
 * Reads and discards the rest of a request body.
 * @param {import('node:http').IncomingMessage} req
 */
async function drain(req) {
  if (req.complete) return;
  await new Promise((done) => {
    req.on('end', done);
    req.on('error', done);
    req.on('close', done);
    req.resume();
  });
}

// ---------------------------------------------------------------------------------------------
// Helpers for e2e tests that run real Nx against this server ("machine A builds, machine B
// restores"). Dependency-free like the server; used by remote-cache-server.test.ts.

/**
 * The environment Nx needs to use a remote cache server. Merge it into the env of every nx run.
 * @param {{ url: string }} server a started server (or anything with the base URL)
 * @param {string} [token] omitted: no NX_SELF_HOSTED_REMOTE_CACHE_ACCESS_TOKEN (Nx then sends no Authorization header)
 * @returns {Record<string, string>}
 */
export function remoteCacheEnv(server, token) {
  /** @type {Record<string, string>} */
  const env = { NX_SELF_HOSTED_REMOTE_CACHE_SERVER: server.url.replace(/\/+$/, '') };
  if (token !== undefined) env.NX_SELF_HOSTED_REMOTE_CACHE_ACCESS_TOKEN = token;
  return env;
}

/**
 * @typedef {'remote' | 'local' | 'kept' | 'run'} NxTaskCacheStatus
 * remote: restored from the remote cache · local: from the local cache (outputs copied back)
 * · kept: local cache hit whose outputs were already in place · run: the command ran.
 */

/**
 * Reads each task's cache status from Nx's terminal output, i.e. the `> nx run <task>  [remote cache]`
 * lines Nx 22 prints with `--outputStyle=static` (or stream) and NX_TUI=false. ANSI colours are
 * ignored. A task whose line has no bracketed status ran.
 * @param {string} output Nx's stdout+stderr
 * @returns {Record<string, NxTaskCacheStatus>} task id (`project:target`) → status
 */
export function nxTaskCacheStatuses(output) {
  // eslint-disable-next-line no-control-regex
  const plain = output.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
  /** @type {Record<string, NxTaskCacheStatus>} */
  const statuses = {};
  for (const line of plain.split(/\r?\n/)) {
    const m = /^\s*>\s+nx run (\S+?)(?:\s{2,}\[([^\]]+)\])?\s*$/.exec(line);
    if (!m || !m[1]) continue;
    const tag = m[2] ?? '';
    statuses[m[1]] =
      tag === 'remote cache' ? 'remote' : tag === 'local cache' ? 'local' : tag.startsWith('existing outputs match') ? 'kept' : 'run';
  }
  return statuses;
}

/**
 * "Machine B": a `git clone` of a workspace's committed HEAD, with an empty `.nx` (no local cache,
 * no workspace data) and none of the outputs, plus a `node_modules` mirroring the source's so Nx
 * and the workspace's tools run. Symlinks in the source's node_modules that point inside the
 * source workspace (e.g. npm workspace links) are re-pointed at the clone's copy; any other
 * entry is linked to the source's (a real machine would `npm ci` instead). Commit first:
 * uncommitted changes are not cloned.
 * @param {string} sourceRoot the workspace to clone (a git repository)
 * @param {string} [destRoot] must not exist; default: a new folder in os.tmpdir()
 * @param {{ copy?: string[] }} [options] copy: workspace-relative paths git does not carry but a
 *   real machine would have after its install step (e.g. the tools' `apps/<tool>/dist` bundles,
 *   git-ignored as `dist`), copied from the source. Never list task outputs here.
 * @returns {string} the clone's absolute path
 */
export function cloneWorkspace(sourceRoot, destRoot, options = {}) {
  const src = realpathSync(sourceRoot);
  const dest = destRoot ? resolve(destRoot) : join(mkdtempSync(join(tmpdir(), 'nx-machine-b-')), 'ws');
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', src, dest], { stdio: ['ignore', 'ignore', 'pipe'] });
  rmSync(join(dest, '.nx'), { recursive: true, force: true });
  mkdirSync(join(dest, '.nx'));
  const nodeModules = join(src, 'node_modules');
  if (existsSync(nodeModules)) mirrorLinks(src, dest, nodeModules, join(dest, 'node_modules'));
  for (const rel of options.copy ?? []) {
    if (isAbsolute(rel) || relative(src, join(src, rel)).startsWith('..')) throw new Error(`cloneWorkspace: copy path outside the workspace: ${rel}`);
    cpSync(join(src, rel), join(dest, rel), { recursive: true, verbatimSymlinks: true });
  }
  return dest;
}

/**
 * @param {string} srcRoot
 * @param {string} destRoot
 * @param {string} from a folder or symlink inside srcRoot
 * @param {string} to where its mirror goes inside destRoot
 */
function mirrorLinks(srcRoot, destRoot, from, to) {
  const retarget = (/** @type {string} */ target) => {
    const rel = relative(srcRoot, target);
    return rel && !rel.startsWith('..') && !isAbsolute(rel) ? join(destRoot, rel) : target;
  };
  const info = lstatSync(from);
  if (info.isSymbolicLink()) {
    symlinkSync(retarget(resolve(dirname(from), readlinkSync(from))), to);
  } else if (info.isDirectory() && (from === join(srcRoot, 'node_modules') || basename(from).startsWith('@') || basename(from) === '.bin')) {
    // node_modules itself, a scope folder or .bin: mirror entry by entry.
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from)) mirrorLinks(srcRoot, destRoot, join(from, name), join(to, name));
  } else {
    symlinkSync(from, to);
  }
}

/**
 * @param {string[]} argv
 * @returns {RemoteCacheServerOptions}
 */
function parseArgs(argv) {
  /** @type {RemoteCacheServerOptions} */
  const options = { dir: '', readOnlyTokens: [] };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--dir') options.dir = value();
    else if (flag === '--port') options.port = Number(value());
    else if (flag === '--host') options.host = value();
    else if (flag === '--token') options.token = value();
    else if (flag === '--read-only-token') options.readOnlyTokens?.push(value());
    else if (flag === '--max-body-bytes') options.maxBodyBytes = Number(value());
    else if (flag === '--help' || flag === '-h') {
      process.stdout.write(
        'usage: node remote-cache-server.mjs --dir DIR [--port 0] [--host 127.0.0.1] [--token T]\n' +
          '       [--read-only-token R]... [--max-body-bytes N]\n' +
          'Serves Nx\'s self-hosted remote cache API; set NX_SELF_HOSTED_REMOTE_CACHE_SERVER to the printed URL\n' +
          'and NX_SELF_HOSTED_REMOTE_CACHE_ACCESS_TOKEN to the token.\n',
      );
      process.exit(0);
    } else throw new Error(`unknown argument: ${flag}`);
  }
  if (!options.dir) throw new Error('--dir is required');
  return options;
}

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`remote-cache-server: ${/** @type {Error} */ (error).message}\n`);
    process.exit(2);
  }
  const server = await startRemoteCacheServer(options);
  process.stdout.write(`Nx remote cache listening on ${server.url} (storage: ${server.dir})\n`);
  const stop = () => {
    server.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

const invokedAs = process.argv[1] ? realpathSync(resolve(process.argv[1])) : '';
if (invokedAs === realpathSync(fileURLToPath(import.meta.url))) {
  main();
}
