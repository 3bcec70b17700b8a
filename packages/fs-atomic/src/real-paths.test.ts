// RealPaths (session 56, from docs-export and docs-score): realpathSync's answers with each
// folder looked up once. Real folders and real symlinks, compared with node's own realpathSync.
import { mkdirSync, mkdtempSync, realpathSync as realRealpath, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealPaths } from './real-paths.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'real-paths-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('RealPaths', () => {
  it('answers as realpathSync does, or fails with its error code, on trees of hostile links', () => {
    let case_ = 0;
    // A few folders and files, then links among them: relative and absolute, to folders, files,
    // nothing, themselves, each other (loops), with `..` and through other links.
    const name = fc.constantFrom('a', 'b', 'c', 'l1', 'l2', 'l3');
    const rel = fc.array(fc.constantFrom('a', 'b', 'c', 'l1', 'l2', 'l3', '..', '.', 'f', 'missing'), { minLength: 1, maxLength: 4 }).map((p) => p.join('/'));
    const link = fc.record({ at: fc.array(name, { minLength: 1, maxLength: 3 }), to: rel, absolute: fc.boolean() });
    fc.assert(
      fc.property(fc.array(fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 3 }), { maxLength: 4 }), fc.array(link, { maxLength: 5 }), fc.array(rel, { minLength: 1, maxLength: 6 }), (folders, links, asks) => {
        const base = join(root, `prop-${case_++}`);
        mkdirSync(base);
        for (const f of folders) {
          mkdirSync(join(base, ...f), { recursive: true });
          writeFileSync(join(base, ...f, 'f'), '');
        }
        for (const l of links) {
          try {
            symlinkSync(l.absolute ? join(base, l.to) : l.to, join(base, ...l.at));
          } catch {
            // a parent missing or the name taken: that link is not made
          }
        }
        const paths = new RealPaths();
        for (const ask of asks) {
          const p = join(base, ask);
          let want: string | { code: unknown };
          try {
            want = realRealpath(p);
          } catch (err) {
            want = { code: (err as NodeJS.ErrnoException).code };
          }
          let got: string | { code: unknown };
          try {
            got = paths.of(p);
          } catch (err) {
            got = { code: (err as NodeJS.ErrnoException).code };
          }
          expect(got, ask).toEqual(want);
        }
      }),
      { numRuns: 300 },
    );
  });
});
