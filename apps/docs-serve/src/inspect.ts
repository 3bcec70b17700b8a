/**
 * The chunk inspector at /_inspect/: the static page of @chunkyard/inspector (index.html and
 * its ES modules), served ahead of the docs files. Only the files present in the inspector's
 * static folder at start-up are served (a fixed list, so no path from the URL reaches the
 * file system); the page then reads the docs through the ordinary static route.
 */
import { readdirSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import send from 'send';
import { plain, sendFailed, type Handler } from './handlers.js';
import { fixRangeHeaders, type SendError } from './static.js';

export const INSPECT_PREFIX = '/_inspect/';

/**
 * The inspector's static folder, found through the workspace package (node_modules/@chunkyard/
 * inspector), not relative to this file: docs-serve is bundled into dist/, so its own location
 * says nothing about the inspector's. Null when the package is not installed.
 */
export function inspectorStaticDir(): string | null {
  try {
    const pkg = createRequire(import.meta.url).resolve('@chunkyard/inspector/package.json');
    const dir = join(dirname(pkg), 'static');
    return statSync(dir).isDirectory() ? dir : null;
  } catch {
    return null;
  }
}

/** Serves `dir`'s files at /_inspect/<name>; /_inspect/ is index.html, /_inspect redirects. */
export function inspectorRoute(dir: string | null): Handler {
  const files = new Set(dir ? readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => e.name) : []);
  return async (req, res, next) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q);
    if (path === '/_inspect') return plain(res, 301, 'Moved Permanently', { Location: `${INSPECT_PREFIX}${query}` });
    if (!path.startsWith(INSPECT_PREFIX)) return next();
    if (!dir) return plain(res, 404, 'Not Found (the inspector is not installed: @chunkyard/inspector)');
    const name = path === INSPECT_PREFIX ? 'index.html' : path.slice(INSPECT_PREFIX.length);
    if (!files.has(name)) return plain(res, 404, 'Not Found');
    // The same Range and If-Range rules as the docs: a suffix range longer than the page was
    // 416 here and the whole file there, and a weak If-Range that matched served the range.
    const info = await stat(join(dir, name)).catch(() => null);
    if (info?.isFile()) fixRangeHeaders(req, info.size);
    // no-cache: the page is small and revalidates by ETag, so an upgrade shows at once.
    res.setHeader('Cache-Control', 'no-cache');
    send(req, `/${name}`, { root: dir, etag: true, lastModified: true, index: false })
      // Node's reason phrase and send's headers, as the docs route answers: a 416 said "Error"
      // without the `Content-Range: bytes */size` a client needs to retry, a failed If-Match too.
      // A failed read keeps its short "Error": the page's files are ours, not the client's fault.
      .on('error', (err: SendError) => {
        const status = err.status ?? 500;
        sendFailed(res, status, status === 500 ? 'Error' : (STATUS_CODES[status] ?? 'Error'), err.headers ?? {});
      })
      .pipe(res);
  };
}
