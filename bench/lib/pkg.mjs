// Version lookup for the record: walks up from bench/ through node_modules folders.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** @param {string} name package name @returns {string} its installed version, or 'unknown' */
export function pkgVersion(name) {
  let dir = here;
  for (;;) {
    const file = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(file)) {
      try {
        return JSON.parse(readFileSync(file, 'utf8')).version ?? 'unknown';
      } catch {
        return 'unknown';
      }
    }
    const up = dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}
