/**
 * The static files, confined to the docs root. `send` (what serve-static uses) does the HTTP:
 * Range (206, 416), ETag / If-None-Match (304), Last-Modified, HEAD, content types. Before
 * handing a path to it, this module refuses (403) what must never be served: `..` segments,
 * dot-files and dot-folders (`.embedding-cache`, `.git`), NUL bytes, and any path whose real
 * location (symlinks resolved) lies outside the root's real location.
 */
import { existsSync, fstatSync, type ReadStream, type Stats } from 'node:fs';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import { realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { describeFsError, oneLine, unfinishedBuild } from '@chunkyard/fs-atomic';
import send from 'send';
import { clearSendHeaders, plain, sendFailed, type Handler } from './handlers.js';

export type PathVerdict = { ok: true; path: string } | { ok: false; status: 400 | 403; reason: string };

/** Checks a request target's path (percent-decoded) before any file system access. */
export function checkRequestPath(rawUrl: string): PathVerdict {
  const rawPath = rawUrl.split('?')[0]!.split('#')[0]!;
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return { ok: false, status: 400, reason: 'malformed percent-encoding' };
  }
  if (!path.startsWith('/')) return { ok: false, status: 400, reason: 'not an absolute path' };
  if (path.includes('\0')) return { ok: false, status: 400, reason: 'NUL byte in path' };
  const segments = path.split(/[\\/]/);
  if (segments.some((s) => s === '..')) return { ok: false, status: 403, reason: 'path traversal' };
  if (segments.some((s) => s.startsWith('.') && s !== '')) return { ok: false, status: 403, reason: 'dot-file' };
  return { ok: true, path };
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * RFC 9110 §14.1.2: a suffix range longer than the file selects the whole file. range-parser
 * (under send) answers 416 instead, so `bytes=-N` with N > size becomes `bytes=0-` first.
 * An empty file has no byte range to send, yet a suffix range with N > 0 is satisfiable there
 * (§14.1.1): null then, for "ignore the Range header" (200, the empty body), where it was 416.
 */
export function widenSuffixRanges(header: string, size: number): string | null {
  const m = /^\s*bytes\s*=(.*)$/i.exec(header);
  if (!m) return header;
  let emptySatisfied = false;
  const parts = m[1]!.split(',').map((part) => {
    const suffix = /^\s*-(\d+)\s*$/.exec(part);
    if (suffix && size === 0 && Number(suffix[1]) > 0) emptySatisfied = true;
    return suffix && Number(suffix[1]) > size && size > 0 ? '0-' : part.trim();
  });
  return emptySatisfied ? null : `bytes=${parts.join(',')}`;
}

/** An If-Match no ETag of send's equals, loosely or not (it is no entity-tag at all). */
const IF_MATCH_NEVER = 'never-a-strong-match';

/**
 * Readies a request's Range headers for send, which gets three things wrong: a suffix range
 * longer than the `size`-byte file (widenSuffixRanges), If-Range, and If-Match (below). RFC 9110
 * 13.1.5: If-Range holds only on a strong match, and a weak ETag (all send makes) never is one, so the whole file is
 * the answer. send compared the strings and served the range, which a client resuming a
 * download could splice onto a file that had changed.
 */
export function fixRangeHeaders(req: IncomingMessage, size: number): void {
  const range = req.headers.range;
  if (range !== undefined) {
    const widened = widenSuffixRanges(range, size);
    if (widened === null) delete req.headers.range;
    else req.headers.range = widened;
  }
  // Any entity-tag at all (a quote), not only a header that starts with W/: every ETag this
  // server sends is weak, so no tag can hold, and send looks for its ETag anywhere in the header,
  // so `"other", W/"…"` or `xW/"…"` served the range (helper-84 probe). A date is left to send.
  const ifRange = req.headers['if-range'];
  if (typeof ifRange === 'string' && ifRange.includes('"')) delete req.headers.range;
  // RFC 9110 13.1.1: If-Match compares strongly too, so here only `*` can hold. send compared
  // loosely (`W/` + tag, either way round) and sent the file or its range (helper-103 probe); a
  // value it can never match makes it answer 412, as the RFC asks.
  const ifMatch = req.headers['if-match'];
  if (typeof ifMatch === 'string' && ifMatch.trim() !== '' && ifMatch.trim() !== '*') req.headers['if-match'] = IF_MATCH_NEVER;
}

/** What send's error carries: its status, and for a 416 the `Content-Range: bytes *\/size` a client needs to retry. */
export type SendError = Error & { status?: number; headers?: Record<string, string>; code?: string };

/**
 * The Content-Security-Policy of every answer of the docs route. The docs tree is authored (or
 * pulled in) by many hands: an .html or .svg there, or a file with no extension a browser
 * sniffs, holding a script ran as a page of this server's origin, the origin of the chunk
 * inspector at /_inspect/ and of every other document (it could script them, read their storage,
 * pose as the inspector). `sandbox` gives each docs document an opaque origin of its own; its
 * scripts still run (an interactive diagram works, and so does the inspector page copied into
 * docs/_inspect/ by `chunk-inspector build`, which reads the docs through CORS as any other
 * origin may), as do its links in a new tab and downloads, but it shares nothing with the
 * server's origin. An `<img>` of an .svg is unaffected (an image runs no script).
 */
export const DOCS_CSP = 'sandbox allow-scripts allow-popups allow-popups-to-escape-sandbox allow-downloads';

/** The file that makes a folder a topic (topic-io's TOPIC_MARKER). */
const TOPIC_MARKER = 'golden-reference.md';

/**
 * For a path that does not resolve: when it lies in a topic's `_chunks/` (`/<topic>/_chunks/…`)
 * and that topic has no `_chunks/` but a build's temp of it, the topic folder and the temp. A
 * chunking-tool SIGKILLed between its two renames left the previous folder moved aside, and
 * every chunk of the topic was a plain 404, as if the topic had none, with no log line.
 */
function interruptedChunks(realRoot: string, path: string): { topic: string; temp: string } | null {
  const segments = path.split('/').filter(Boolean);
  const at = segments.indexOf('_chunks');
  if (at < 1) return null;
  const topic = join(realRoot, ...segments.slice(0, at));
  if (!existsSync(join(topic, TOPIC_MARKER))) return null;
  const left = unfinishedBuild(topic, '_chunks');
  return left === null ? null : { topic, temp: left.temp };
}

/**
 * Serves files under `root` (an absolute path, resolved again at each request); `log` hears of
 * files it cannot read.
 */
export function staticFiles(root: string, log: (line: string) => void = () => undefined): Handler {
  // Whether the last request found the root gone, so the operator hears of it once, not per request.
  let rootGone = false;
  // The temps of interrupted chunk builds already logged (interruptedChunks).
  const reported = new Set<string>();
  // Each request's Range and If-Range as the client sent them (fixRangeHeaders rewrites them for
  // one size, and a request whose file is replaced under it is answered again), and how many
  // times it has been answered again.
  const asked = new WeakMap<IncomingMessage, { tries: number; range: string | undefined; ifRange: string | undefined }>();
  const handler: Handler = async (req, res, next) => {
    const first = { tries: 0, range: req.headers.range, ifRange: req.headers['if-range'] as string | undefined };
    const orig = asked.get(req) ?? first;
    asked.set(req, orig);
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    const verdict = checkRequestPath(req.url ?? '/');
    if (!verdict.ok) return plain(res, verdict.status, verdict.status === 403 ? 'Forbidden' : 'Bad Request');
    // The folder `root` names now, symlinks resolved: a root that is a link swapped to a new
    // release (`current -> releases/2`, the usual atomic deploy) was resolved once at start-up,
    // so the old release went on being served, and once it was removed every request was 503
    // "the served folder is gone", though `current` led to a folder (probe).
    const realRoot = await realpath(root).catch(() => null);
    const real = realRoot === null ? null : await realpath(join(realRoot, verdict.path)).catch(() => null);
    // The served folder removed or renamed under the server (a rebuild that replaces it, a
    // clean): every request was a 404 with no log line, as if each file were missing. Looked
    // at only when a path does not resolve, so a served file costs nothing more.
    if (real === null && !(realRoot !== null && (await stat(realRoot).then((s) => s.isDirectory(), () => false)))) {
      // oneLine: the CLI's io escapes ESC and the like, but a name's line break (CR LF) went
      // out raw, and the rest of the folder's name read as a line of its own.
      if (!rootGone) log(`${oneLine(root)}: the served folder is gone (removed, renamed or no longer a folder); answering 503 until it is back`);
      rootGone = true;
      return plain(res, 503, 'Service Unavailable (the served folder is gone)');
    }
    if (rootGone) log(`${oneLine(root)}: the served folder is back`);
    rootGone = false;
    if (real === null || realRoot === null) {
      const left = realRoot === null ? null : interruptedChunks(realRoot, verdict.path);
      if (left !== null) {
        // Once per temp: another killed build leaves another name, and is said again.
        if (!reported.has(left.temp)) log(`${oneLine(left.topic)}: this topic has no _chunks/, only ${oneLine(basename(left.temp))}: a chunk build of it was killed before it finished, or is running now; answering 503 for its chunks until it is rebuilt (npx nx run-many -t index, or chunkyard chunk ${oneLine(left.topic)})`);
        reported.add(left.temp);
        return plain(res, 503, "Service Unavailable (this topic's _chunks/ is missing: a chunk build of it was killed before it finished, or is running now)");
      }
      return plain(res, 404, 'Not Found');
    }
    if (!inside(realRoot, real)) return plain(res, 403, 'Forbidden');
    // A folder is answered with its index.json (send's `index`), which must pass the same check.
    const index = await realpath(join(real, 'index.json')).catch(() => null);
    if (index !== null && !inside(realRoot, index)) return plain(res, 403, 'Forbidden');
    // Only regular files and folders are served: send would stream a FIFO or a device (a
    // symlink to /dev/zero) forever, holding the request open and never finishing.
    const info = await stat(real).catch(() => null);
    if (!info) return plain(res, 404, 'Not Found');
    const served = info.isDirectory() && index !== null ? await stat(index).catch(() => null) : info;
    if (served !== null && !served.isFile() && !served.isDirectory()) return plain(res, 403, 'Forbidden');
    // The file send looked at (its size, ETag and Last-Modified go in the headers).
    let described: Stats | undefined;
    const sendPath = verdict.path.split('/').map(encodeURIComponent).join('/');
    send(req, sendPath, {
      root: realRoot,
      dotfiles: 'deny',
      index: ['index.json'],
      etag: true,
      lastModified: true,
      acceptRanges: true,
    })
      // A folder URL without its slash: send's own redirect dropped the query (`/topic?q=x` went
      // to `/topic/`). The path is the one send was given (every segment percent-encoded, so a
      // backslash is %5C) with leading slashes made one (`//evil.example` is `/evil.example/`,
      // never a URL of another host); the query follows as the client sent it.
      .on('directory', () => {
        const url = req.url ?? '';
        const q = url.indexOf('?');
        const query = q < 0 ? '' : url.slice(q).split('#')[0]!.replace(/[^\x21-\x7e]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
        plain(res, 301, 'Moved Permanently', { Location: `${sendPath.replace(/^\/+/, '/')}/${query}` });
      })
      .on('error', (err: SendError) => {
        // send answers 500 to every file-system error but "not found", and nothing was logged:
        // a file the server may not read is forbidden to the client, and the operator learns
        // which file and what to do.
        const denied = err.code === 'EACCES' || err.code === 'EPERM';
        const status = denied ? 403 : (err.status ?? 500);
        // A read error carries no path ("EINVAL: invalid argument, read" named no file): the
        // file is the one served, a folder URL's index.json.
        if (denied || status >= 500) log(describeFsError(err, info.isDirectory() && index !== null ? index : real));
        // A 416 carries `Content-Range: bytes */size`, which a client needs to retry.
        // Node's own reason phrases: a fixed table of four left a failed If-Match (412) saying "Error".
        sendFailed(res, status, STATUS_CODES[status] ?? 'Error', err.headers ?? {});
      })
      .on('file', (_path: string, st: Stats) => {
        described = st;
        // The Range is fixed for the size send found, just before it reads the header: for a
        // folder URL that is its index.json's (sized as the folder, a suffix range longer than
        // the file was 416 at /t/ and 206 at /t/index.json), and a stat of our own taken before
        // send's could be of a file since replaced (bytes=-2000 was 416, or the whole file as a 206).
        delete req.headers.range;
        delete req.headers['if-range'];
        if (orig.range !== undefined) req.headers.range = orig.range;
        if (orig.ifRange !== undefined) req.headers['if-range'] = orig.ifRange;
        if (st.isFile()) fixRangeHeaders(req, st.size);
      })
      .on('stream', (stream: ReadStream) => {
        // A file replaced (renamed over, as every chunkyard tool writes) between send's stat and
        // its open: the headers told of the old file and the body was the new one's, cut to the
        // old size, as a whole 200 with the old ETag (probe: 1 answer in 10 during a rebuild was
        // such a mix). Checked when the file opens, before a byte is sent: the request is then
        // answered again from the start, at most 3 times, and then the connection is cut.
        stream.once('open', (fd: number) => {
          let opened: Stats | null = null;
          try {
            opened = fstatSync(fd);
          } catch {
            // the read that follows fails and says so
          }
          if (!described || !opened || (opened.ino === described.ino && opened.dev === described.dev && opened.size === described.size && opened.mtimeMs === described.mtimeMs)) return;
          stream.unpipe(res);
          stream.destroy();
          orig.tries++;
          if (res.headersSent || orig.tries > 3) {
            res.destroy();
            return;
          }
          clearSendHeaders(res);
          res.statusCode = 200;
          Promise.resolve(handler(req, res, next)).catch(() => res.destroy());
        });
        // A file cut short while it is sent ends its read early, and the pipe then ended the
        // response as if whole: the connection stayed open and the answer to the client's next
        // request arrived as the rest of the promised body. Listening before the pipe does, the
        // connection is closed instead, so the client sees the body cut off. (A file that grows
        // is read only up to the size its headers gave.)
        stream.on('end', () => {
          const promised = Number(res.getHeader('Content-Length'));
          if (Number.isFinite(promised) && stream.bytesRead < promised) res.destroy();
        });
      })
      .pipe(res);
  };
  return handler;
}
