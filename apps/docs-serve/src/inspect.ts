/**
 * The chunk inspector at /_inspect/: the static page of @chunkyard/inspector (index.html and
 * its ES modules), served ahead of the docs files. Only the files present in the inspector's
 * static folder at start-up are served (a fixed list, so no path from the URL reaches the
 * file system); the page then reads the docs through the ordinary static route.
 */
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import send from 'send';
import { plain, sendFailed, type Handler } from './handlers.js';

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
  return (req, res, next) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q);
    if (path === '/_inspect') return plain(res, 301, 'Moved Permanently', { Location: `${INSPECT_PREFIX}${query}` });
    if (!path.startsWith(INSPECT_PREFIX)) return next();
    if (!dir) return plain(res, 404, 'Not Found (the inspector is not installed: @chunkyard/inspector)');
    const name = path === INSPECT_PREFIX ? 'index.html' : path.slice(INSPECT_PREFIX.length);
    if (!files.has(name)) return plain(res, 404, 'Not Found');
    // no-cache: the page is small and revalidates by ETag, so an upgrade shows at once.
    res.setHeader('Cache-Control', 'no-cache');
    send(req, `/${name}`, { root: dir, etag: true, lastModified: true, index: false })
      .on('error', (err: Error & { status?: number }) => sendFailed(res, err.status ?? 500, err.status === 404 ? 'Not Found' : 'Error'))
      .pipe(res);
  };
}
