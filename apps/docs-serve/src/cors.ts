/**
 * CORS for a public, read-only, credential-free file tree: any origin may read, with the
 * headers a Range client needs (Range, If-None-Match … in; Content-Range, ETag … out).
 * A preflight (OPTIONS with Access-Control-Request-Method) is answered here with 204.
 */
import type { Handler } from './handlers.js';

export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
const ALLOWED_HEADERS = 'Range, If-None-Match, If-Modified-Since, If-Match, If-Unmodified-Since, If-Range';
const EXPOSED_HEADERS = 'Content-Range, Content-Length, Accept-Ranges, ETag, Last-Modified';

export const cors: Handler = (req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  // Every answer is what its Content-Type says: a file with no extension (octet-stream) or a
  // .md was left to the browser to sniff, and one that looked like HTML was drawn as a page.
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
    res.writeHead(204, {
      'Access-Control-Allow-Methods': ALLOWED_METHODS,
      'Access-Control-Allow-Headers': ALLOWED_HEADERS,
      'Access-Control-Max-Age': '86400',
      'Content-Length': '0',
    });
    res.end();
    return;
  }
  next();
};

/** Only GET and HEAD reach the files; a plain OPTIONS gets the allowed methods. */
export const readOnly: Handler = (req, res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD') return next();
  res.setHeader('Allow', ALLOWED_METHODS);
  if (req.method === 'OPTIONS') {
    res.writeHead(204, { 'Content-Length': '0' }).end();
    return;
  }
  res.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Method Not Allowed\n');
};
