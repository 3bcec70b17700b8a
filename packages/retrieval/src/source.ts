/**
 * Where built docs are read from: a folder (fs) or a base URL (fetch). Both speak URLs, so
 * the walker and retrieval resolve every href with plain `new URL(href, indexUrl)` and never
 * care which one they have. A folder is given a private URL origin (`chunkyard-docs://folder`)
 * whose path `/x/y` is the file `<docsRoot>/x/y`.
 *
 * Both refuse to leave the docs tree: a folder source refuses paths (and symlinks) resolving
 * outside its root, a URL source refuses URLs on another origin or above its base path.
 */
import { constants } from 'node:fs';
import { brokenLink, describeFsError, fileKind, invalidJsonMessage, notUtf8Reason, oneLine } from '@chunkyard/fs-atomic';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { elideMiddle, MESSAGE_PROBLEM_MAX, MESSAGE_WHERE_MAX } from './contract.js';

export class SourceError extends Error {
  override name = 'SourceError';
  constructor(
    /** The file or URL, whole; the message elides one longer than MESSAGE_WHERE_MAX. */
    readonly where: string,
    readonly problem: string,
  ) {
    super(`${elideMiddle(where, MESSAGE_WHERE_MAX)}: ${elideMiddle(problem, MESSAGE_PROBLEM_MAX)}`);
  }
}

/** A file or body past the byte cap readText was given (or the source's own). */
export class SourceTooLargeError extends SourceError {}

export interface DocsSource {
  /** URL of the root index.json. */
  readonly rootIndexUrl: URL;
  /** The docs folder (absolute) when reading from a folder; null for a URL source. */
  readonly folder: string | null;
  /** How to name `url` in a message: the file path for a folder, the URL otherwise. */
  describe(url: URL): string;
  /** The file's text; more than `maxBytes` (default: the source's own cap) is a SourceTooLargeError. */
  readText(url: URL, maxBytes?: number): Promise<string>;
}

/**
 * The most JSON values a docs index or chunk manifest may hold: objects, arrays and the members
 * and elements in them, counted as `{`, `[` and `,` outside strings (jsonValueCount). JSON.parse's
 * time and memory grow with them, not with bytes: 64 MiB of `{},{},…` took about 1.5 GB, and
 * 400 MB of `[0,0,…]` aborted the process with a V8 fatal error (an array longer than V8
 * allows), which no catch sees (session 46's probe). A manifest is mostly its chunks' text, about
 * 60 values a chunk (9 MB of the sample docs: 23,775 chunks, 1.4 million values), so this is
 * some 130,000 chunks, a document of about 50 MB; at most about 300 MB to parse. Until
 * session 56 the bound was 64 MiB of bytes, and docs-query refused the manifest of a 7 MB table
 * or of 9 MB of prose that index-tool had just built, as "larger than a docs index or manifest
 * can be; is this a built docs tree?".
 */
export const MAX_JSON_VALUES = 8_000_000;

/**
 * jsonValueCount's tally of `text`: `{`, `[` and `,` outside strings. One pass; the inside of a
 * string is skipped by indexOf, so a manifest (mostly strings) costs little more than a read.
 */
export function jsonValueCount(text: string): number {
  let n = 0;
  const end = text.length;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // To the closing quote: one preceded by an even run of backslashes.
      let q = text.indexOf('"', i + 1);
      for (;;) {
        if (q === -1) return n; // unterminated: JSON.parse will say so
        let b = q - 1;
        while (text.charCodeAt(b) === 0x5c) b--;
        if ((q - 1 - b) % 2 === 0) break;
        q = text.indexOf('"', q + 1);
      }
      i = q;
    } else if (c === 0x7b || c === 0x5b || c === 0x2c) n++;
  }
  return n;
}

/**
 * readText's cap: a whole number of bytes ≥ 0. NaN turned it off (no size is greater than NaN),
 * so a file or a body of any size was read whole.
 */
function checkMaxBytes(maxBytes: number): void {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new RangeError(`readText maxBytes: expected a whole number of bytes from 0, got ${String(maxBytes)}`);
}

/** Reads and parses JSON, with errors naming the file or URL. */
export async function readJson(source: DocsSource, url: URL): Promise<unknown> {
  return (await readJsonCounted(source, url)).json;
}

/** readJson, with the file's jsonValueCount (for a bound across files: walkTopics's maxValues). */
export async function readJsonCounted(source: DocsSource, url: URL): Promise<{ json: unknown; values: number }> {
  const text = await source.readText(url);
  const values = jsonValueCount(text);
  if (values > MAX_JSON_VALUES) {
    throw new SourceError(
      source.describe(url),
      `holds ${values.toLocaleString('en-US')} JSON values, more than a docs index or manifest may (${MAX_JSON_VALUES.toLocaleString('en-US')}, some 130,000 chunks); split the document into smaller ones, or check that this is a built docs tree`,
    );
  }
  try {
    return { json: JSON.parse(text) as unknown, values };
  } catch (err) {
    // Never the parser's words: they quote the file (or the body a server sent).
    throw new SourceError(source.describe(url), invalidJsonMessage(text, err));
  }
}

const FOLDER_ORIGIN = 'chunkyard-docs://folder';

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

export class FolderSource implements DocsSource {
  readonly folder: string;
  readonly rootIndexUrl = new URL(`${FOLDER_ORIGIN}/index.json`);
  private realRoot: Promise<string> | null = null;

  constructor(folder: string) {
    this.folder = resolve(folder);
  }

  /** The file a URL of this source names; throws for another origin or a path outside the root. */
  fileOf(url: URL): string {
    if (`${url.protocol}//${url.host}` !== FOLDER_ORIGIN) throw new SourceError(url.href, `not inside the docs folder ${this.folder}`);
    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      throw new SourceError(url.href, 'malformed percent-encoding in the path');
    }
    const file = join(this.folder, path);
    if (path.includes('\0') || !isInside(this.folder, file)) throw new SourceError(url.href, `outside the docs folder ${this.folder}`);
    return file;
  }

  describe(url: URL): string {
    try {
      return this.fileOf(url);
    } catch {
      return url.href;
    }
  }

  async readText(url: URL, maxBytes = DEFAULT_MAX_RESPONSE_BYTES): Promise<string> {
    checkMaxBytes(maxBytes);
    const file = this.fileOf(url);
    this.realRoot ??= realpath(this.folder).catch(() => {
      throw new SourceError(this.folder, brokenLink(this.folder) ?? 'docs folder not found');
    });
    const root = await this.realRoot;
    let real: string;
    try {
      real = await realpath(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new SourceError(file, code === 'ENOENT' ? (danglingLinkOn(file, this.folder) ?? 'no such file') : cannotRead(err));
    }
    // A symlink may not lead out of the tree (the server refuses the same).
    if (!isInside(root, real)) throw new SourceError(file, `a link to ${real}, outside the docs folder`);
    // Opened non-blocking and checked on the same descriptor: a FIFO would block the read until
    // killed and /dev/zero would never end, so anything but a regular file is refused at once.
    let handle: FileHandle;
    try {
      handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (err) {
      throw new SourceError(file, cannotRead(err));
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new SourceError(file, `${stat.isDirectory() ? 'a folder' : fileKind(stat)}, not a regular file; replace it with the built file`);
      if (stat.size > maxBytes) {
        const mib = (n: number) => (n / (1024 * 1024)).toFixed(1);
        // A file past V8's longest string (a 600 MB chunk file) was "cannot read: Invalid string length".
        throw new SourceTooLargeError(file, `${mib(stat.size)} MiB, larger than a docs file can be (${mib(maxBytes).replace(/\.0$/, '')} MiB); is this a built docs tree?`);
      }
      // A leading BOM dropped, as the URL source drops it: an index.json saved with one was "not
      // valid JSON (byte order mark …)" from the folder and read fine over HTTP.
      const release = stat.size > LARGE_BODY_BYTES ? await takeLargeTurn() : null;
      try {
        return decodeBuiltText(await handle.readFile(), file);
      } finally {
        release?.();
      }
    } catch (err) {
      if (err instanceof SourceError) throw err;
      throw new SourceError(file, cannotRead(err));
    } finally {
      await handle.close();
    }
  }
}

/**
 * Why `file`, which realpath did not find, is no plain missing file: it or a folder on its way
 * down from `root` is a symlink that leads nowhere (a link is there, and the fix is the link).
 * "no such file" sent the user looking for a file they could see in the listing.
 */
function danglingLinkOn(file: string, root: string): string | null {
  for (let p = file; isInside(root, p); p = dirname(p)) {
    const broken = brokenLink(p);
    if (broken !== null) return p === file ? broken : `${p}, a folder on its path, is ${broken}`;
    if (p === root) break;
  }
  return null;
}

export interface UrlSourceOptions {
  /** Per-request timeout, body included (default 30 s). */
  timeoutMs?: number;
  /** Largest response body read, in bytes (default DEFAULT_MAX_RESPONSE_BYTES). */
  maxBytes?: number;
}

/** The statuses whose Location is where the resource went (RFC 9110 15.4). */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * 512 MiB: about the longest string V8 can make (2^29 − 24 UTF-16 units), so a larger body
 * could not be returned as text anyway. Without a cap, a server that never ends its body grew
 * docs-query past 10 GB of memory before any timeout fired.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 512 * 1024 * 1024;

/**
 * 4 MiB: past this a read takes its turn, one such read at a time in the process, from a
 * server or a folder (takeLargeTurn). The walk reads 16 indexes at once and disclosure 8 chunk
 * files ahead, and each read may hold up to its 512 MiB cap: 8 topics whose index.json were
 * 100 MB took docs-query --list to 935 MB, and 16 of 512 MiB would take it past 8 GiB. So the
 * bodies held at once are at most (reads under way) × 4 MiB plus one body whole. Chunk files and the index.json of most topics are far smaller; a large
 * manifest or index waits for the one before it, its timeout stopped while it waits.
 */
export const LARGE_BODY_BYTES = 4 * 1024 * 1024;

let largeTurns: Promise<void> = Promise.resolve();

/** Waits for the turn to read a body past LARGE_BODY_BYTES; returns its release (call it once). */
async function takeLargeTurn(): Promise<() => void> {
  const before = largeTurns;
  let release!: () => void;
  largeTurns = new Promise<void>((r) => (release = r));
  await before;
  return release;
}

/**
 * A request's timeout that can stop while the request waits for its turn: `expired` rejects
 * (and `onExpire` runs) once `ms` of running time have passed.
 */
class Deadline {
  readonly expired: Promise<never>;
  private left: number;
  private since = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private fire!: () => void;

  constructor(ms: number, onExpire: (reason: Error) => void) {
    this.left = ms;
    this.expired = new Promise<never>((_, reject) => {
      this.fire = () => {
        const reason = new DOMException(`no answer within ${ms} ms`, 'TimeoutError');
        onExpire(reason);
        reject(reason);
      };
    });
    this.expired.catch(() => {}); // rejected only while a read is pending; never unhandled
    this.resume();
  }

  pause(): void {
    clearTimeout(this.timer);
    this.left -= Date.now() - this.since;
  }

  resume(): void {
    this.since = Date.now();
    this.timer = setTimeout(this.fire, Math.max(0, this.left));
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/**
 * The longest timeout a Node timer keeps (2^31 − 1 ms, about 25 days): AbortSignal.timeout
 * takes up to 2^32 − 1, but beyond this its timer fires at once.
 */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export class UrlSource implements DocsSource {
  readonly folder = null;
  readonly base: URL;
  readonly rootIndexUrl: URL;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  constructor(baseUrl: string | URL, options: UrlSourceOptions = {}) {
    let base: URL;
    try {
      base = new URL(baseUrl);
    } catch {
      throw new SourceError(String(baseUrl), 'not a valid URL');
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new SourceError(base.href, 'only http and https URLs are supported');
    // fetch refuses a URL with credentials, so every request failed as "request failed (Request
    // cannot be constructed from a URL that includes credentials: …)", the password shown twice.
    if (base.username !== '' || base.password !== '') {
      base.username = '';
      base.password = '';
      throw new SourceError(base.href, 'a user name or password in the URL is not sent (fetch refuses such URLs); leave it out');
    }
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    base.search = '';
    base.hash = '';
    this.base = base;
    this.rootIndexUrl = new URL('index.json', base);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    // Checked here, not at each request: a NaN maxBytes turned the cap off (no size compares
    // greater than NaN), and a timeout AbortSignal.timeout refuses failed every request as
    // "request failed (The value of "delay" is out of range …)", blaming the server.
    if (!Number.isInteger(this.timeoutMs) || this.timeoutMs < 1 || this.timeoutMs > MAX_TIMEOUT_MS) {
      throw new RangeError(`UrlSource timeoutMs: expected a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${String(this.timeoutMs)}`);
    }
    if (!Number.isInteger(this.maxBytes) || this.maxBytes < 0 || this.maxBytes > DEFAULT_MAX_RESPONSE_BYTES) {
      throw new RangeError(`UrlSource maxBytes: expected a whole number of bytes from 0 to ${DEFAULT_MAX_RESPONSE_BYTES}, got ${String(this.maxBytes)}`);
    }
  }

  describe(url: URL): string {
    return url.href;
  }

  async readText(url: URL, maxBytes = this.maxBytes): Promise<string> {
    checkMaxBytes(maxBytes);
    const limit = Math.min(maxBytes, this.maxBytes);
    if (url.origin !== this.base.origin || !url.pathname.startsWith(this.base.pathname)) {
      throw new SourceError(url.href, `outside the docs at ${this.base.href}`);
    }
    let res: Response;
    // One clock for the headers and the body, stopped while a large body waits for its turn:
    // it aborts the request itself, and each body read races it too (the fetch signal did not
    // always end a body read: a server that sent its headers and then stalled kept docs-query
    // waiting for good, seen with Node 20's fetch when the abort came 10 s or more into the body).
    const controller = new AbortController();
    const deadline = new Deadline(this.timeoutMs, (reason) => controller.abort(reason));
    let release: (() => void) | null = null;
    try {
      try {
        // Not followed (a redirect could lead out of the docs), and 'manual' rather than 'error' so
        // the message can say where it pointed: 'error' was "request failed (fetch failed); is the
        // server running?" for a server that was running.
        // Uncompressed: fetch unpacks gzip, deflate and br itself, and a compressed body is
        // unpacked ahead of the reader (a 64 KB piece of a gzip bomb makes 64 MB), so neither
        // the byte cap nor the turn a large body waits for bounded it: 16 topics whose
        // index.json were 0.5 MB of gzip each (512 MiB unpacked) took docs-query --list to
        // 1.8 GB and 30 s of unpacking.
        res = await fetch(url, { signal: controller.signal, redirect: 'manual', headers: { 'accept-encoding': 'identity' } });
      } catch (err) {
        // "Is the server running?" fits a connection that failed (a system error code, a
        // timeout), not a port fetch refuses or a server that closed the connection.
        throw new SourceError(url.href, `request failed (${this.why(err)})${this.unreachable(err) ? '; is the server running?' : ''}`);
      }
      if (!REDIRECTS.has(res.status) && res.status >= 300 && res.status < 400) {
        // 304 answers a conditional request and we send none; 300 and 305 point nowhere usable.
        await res.body?.cancel();
        throw new SourceError(url.href, `${statusLine(res)} to a plain GET; is this a chunkyard docs server?`);
      }
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel();
        const location = res.headers.get('location');
        const target = location === null ? 'nowhere (no Location header)' : (URL.canParse(location, url) ? new URL(location, url).href : location).slice(0, 200);
        throw new SourceError(url.href, `HTTP ${res.status}: a redirect to ${target}, which is not followed; use the address the docs are served at`);
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw new SourceError(url.href, statusLine(res));
      }
      const encoding = (res.headers.get('content-encoding') ?? '').trim();
      if (encoding !== '' && encoding.toLowerCase() !== 'identity') {
        await res.body?.cancel();
        throw new SourceError(
          url.href,
          `the body came with Content-Encoding: ${oneLine(encoding.slice(0, 40))}, though the request asked for none (Accept-Encoding: identity); a compressed body can unpack to a thousand times its size, so it is not read: serve the docs uncompressed`,
        );
      }
      const tooLarge = () => new SourceTooLargeError(url.href, `response larger than ${limit} bytes; is this a chunkyard docs server?`);
      if (Number(res.headers.get('content-length')) > limit) {
        await res.body?.cancel();
        throw tooLarge();
      }
      if (!res.body) return '';
      // Read piece by piece so that an endless or oversized body stops at the cap.
      const reader = res.body.getReader();
      const parts: Uint8Array[] = [];
      let size = 0;
      try {
        for (;;) {
          const { done, value } = await Promise.race([reader.read(), deadline.expired]);
          if (done) break;
          size += value.byteLength;
          if (size > limit) {
            await reader.cancel();
            throw tooLarge();
          }
          parts.push(value);
          if (release === null && size > LARGE_BODY_BYTES) {
            deadline.pause();
            release = await takeLargeTurn();
            deadline.resume();
          }
        }
      } catch (err) {
        // Closes the connection, which would otherwise keep the process alive after the error.
        reader.cancel().catch(() => {});
        if (err instanceof SourceError) throw err;
        // "No answer" was wrong here: the server had answered, and then stalled or trickled.
        if ((err as Error).name === 'TimeoutError') throw new SourceError(url.href, `the response did not finish within ${this.timeoutMs} ms (it began, then stalled or came too slowly)`);
        throw new SourceError(url.href, `reading the response failed (${this.why(err)})`);
      }
      return decodeBuiltText(Buffer.concat(parts, size), url.href);
    } finally {
      deadline.clear();
      release?.();
    }
  }

  /**
   * Why a request failed: a system error code (ECONNREFUSED) alone, else the cause's own words
   * with its code. Only the code was shown, else fetch's "fetch failed", so a port fetch refuses
   * was "fetch failed" and a connection the server closed the bare "UND_ERR_SOCKET" (issue 15 probe).
   */
  private why(err: unknown): string {
    const e = err as Error & { cause?: unknown };
    if (e.name === 'TimeoutError') return `no answer within ${this.timeoutMs} ms`;
    const cause = e.cause as (Error & { code?: unknown }) | undefined;
    const code = typeof cause?.code === 'string' ? cause.code : null;
    if (code !== null && SYSTEM_CODE.test(code)) return code;
    if (!(cause instanceof Error) || !cause.message) return code ?? e.message;
    // undici's words for the Fetch standard's blocked ports (6000, 6666, 10080 …).
    if (cause.message === 'bad port') return 'bad port: fetch refuses this port, as browsers do; serve the docs on another port';
    // https:// to a plain HTTP server (docs-serve is one): OpenSSL's own line ("802C…:error:0A00010B:
    // SSL routines:ssl3_get_record:wrong version number:../deps/openssl/…") said nothing of the fix.
    // (Newer OpenSSL versions may call the same reply a record "too long".)
    if ((code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG') && this.base.protocol === 'https:') {
      return `the server does not speak HTTPS, ${code}; if it serves plain HTTP (docs-serve does), use http://`;
    }
    const words = oneLine(cause.message.length > 200 ? `${cause.message.slice(0, 200)}…` : cause.message);
    return code === null ? words : `${words}, ${oneLine(code)}`;
  }

  /** Whether nothing answered: a timeout or a system error code (ECONNREFUSED, ENOTFOUND …). */
  private unreachable(err: unknown): boolean {
    const e = err as Error & { cause?: { code?: unknown } };
    return e.name === 'TimeoutError' || (typeof e.cause?.code === 'string' && SYSTEM_CODE.test(e.cause.code));
  }
}

/**
 * "HTTP 404 Not Found", the reason phrase cut at 80 characters: it is the server's to choose,
 * and one of 5,000 was printed whole.
 */
function statusLine(res: Response): string {
  const reason = res.statusText.length > 80 ? `${res.statusText.slice(0, 80)}…` : res.statusText;
  return `HTTP ${res.status} ${reason}`.trim();
}

/** A system error code (ECONNREFUSED, ENOTFOUND, ETIMEDOUT …), not undici's (UND_ERR_…) or its parser's (HPE_…). */
const SYSTEM_CODE = /^E[A-Z0-9]+$/;

/**
 * The UTF-8 text of a built docs file, a leading BOM dropped; bytes that are not UTF-8 are a
 * SourceError naming the file or URL. Decoded with replacement characters (readFile('utf8'),
 * res.text()), each bad byte became U+FFFD without a word, so a damaged chunk was shown and
 * embedded altered, where every other chunkyard reader (topic-io, the store's ingest) refuses it.
 */
function decodeBuiltText(bytes: Uint8Array, where: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (err) {
    // The size caps (512 MiB) sit a few bytes above V8's longest string (2^29 − 24 UTF-16 units):
    // text just under the cap was "not valid UTF-8 (first bad byte at offset 536870904)".
    if ((err as NodeJS.ErrnoException).code === 'ERR_STRING_TOO_LONG') {
      throw new SourceError(where, `${bytes.length} bytes of text, more than one JavaScript string holds; is this a built docs tree?`);
    }
    // UTF-16 text was "first bad byte at offset 0", which says nothing of why.
    throw new SourceError(where, `${notUtf8Reason(bytes)}; built docs files are UTF-8, so this one was damaged or replaced after the build: rebuild the docs (npx nx run-many -t index)`);
  }
}

/**
 * A URL source for `http(s)://…`, a folder source for a `file:` URL or a path. Any other URL is
 * refused: `ftp://host/docs` was taken as the folder `./ftp:/host/docs` and reported as a docs
 * folder not found; an empty target was the working directory; a target that is not a string
 * failed in node:path ('The "paths[0]" argument must be of type string').
 */
export function openSource(target: string): DocsSource {
  if (typeof target !== 'string') {
    throw new TypeError(`openSource: the target must be a docs folder or an http(s) URL, got ${target === null ? 'null' : typeof target}`);
  }
  if (target.trim() === '') throw new SourceError('(empty)', 'no docs folder or URL given; name the built docs folder (docs) or the URL it is served at');
  if (/^https?:\/\//i.test(target)) return new UrlSource(target);
  if (/^file:\/\//i.test(target)) {
    let path: string;
    try {
      path = fileURLToPath(target);
    } catch (err) {
      throw new SourceError(target, `not a file URL of a local folder (${(err as Error).message})`);
    }
    return new FolderSource(path);
  }
  // Two letters at least before "://", so a Windows drive (C:/docs, C://docs) stays a path.
  const scheme = /^([a-z][a-z0-9+.-]+):\/\//i.exec(target);
  if (scheme) throw new SourceError(target, `${schemeArticle(scheme[1]!)} ${scheme[1]}: URL cannot be read; give the docs folder or an http(s) URL it is served at`);
  return new FolderSource(target);
}

/** Letters whose names start with a vowel sound (eff, aitch, ell, em, en, ar, ess, ex, and the vowels but u). */
const VOWEL_SOUND_LETTERS = new Set('aefhilmnorsx');

/**
 * "a" or "an" before `<scheme>:`, as the scheme is read aloud: every scheme was "a", so
 * ftp://host was "a ftp: URL". The scheme's first part (before `+`, `.`, `-` or a digit) is
 * spelled out when it has no vowel (ftp, ssh, s3, svn+ssh, nntp: "an") or is ldap; otherwise
 * it is read as a word, "an" before a, e, i, o (irc, ipfs) and "a" before u (unix, urn) and
 * consonants (file, git, mailto, data).
 */
function schemeArticle(scheme: string): 'a' | 'an' {
  const head = /^[a-z]*/i.exec(scheme)![0].toLowerCase();
  const spelled = !/[aeiou]/.test(head) || head === 'ldap' || head === 'ldaps';
  const first = head[0] ?? '';
  return (spelled ? VOWEL_SOUND_LETTERS.has(first) : 'aeio'.includes(first) && first !== '') ? 'an' : 'a';
}

/**
 * "cannot read: permission denied (EACCES); check its permissions …": what the errno means and
 * what to do, in fs-atomic's words as every CLI says them ("cannot read (EACCES)" named the
 * errno alone). The error is passed without its path: SourceError names the file already.
 */
function cannotRead(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return `cannot read: ${describeFsError(Object.assign(new Error(e?.message ?? String(err)), { code: e?.code }))}`;
}
