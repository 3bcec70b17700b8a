/**
 * bareImports, which the manifest check uses to find what each published file needs from its own
 * package.json. A `createRequire` of another folder resolves that folder's dependencies:
 * chunking's micromark-linear.ts finds micromark-util-edit-map from micromark's folder, which
 * works under pnpm's strict layout (tools/packaging/pnpm-install.test.ts). Counting it as
 * chunking's own import failed the manifest check for packages/chunking and apps/chunking-tool
 * after e80b174.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bareImports } from './workspace.js';

/** Names a package could have, quotes and backslashes included (embedded with JSON.stringify). */
const specifier = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9._-]{0,20}$/),
  fc.tuple(fc.stringMatching(/^@[a-z][a-z0-9-]{0,8}$/), fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/)).map(([s, n]) => `${s}/${n}`),
  fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.startsWith('.') && !s.startsWith('/')),
);
/** A local name that is not `__filename`; `v_` keeps reserved words out. */
const localName = fc.stringMatching(/^[A-Za-z_$][\w$]{0,10}$/).map((s) => `v_${s}`);

describe('bareImports', () => {
  it('counts what a createRequire of the file itself loads or resolves, esbuild\'s renamed createRequire2 included', () => {
    const text = `
      import { createRequire } from 'node:module';
      import { createRequire as createRequire2 } from 'node:module';
      const require2 = createRequire(import.meta.url);
      require2('a');
      require2.resolve('b');
      createRequire2(import.meta.url)('c');
      createRequire(import.meta.url).resolve('d');
      createRequire(__filename)('e');
    `;
    expect(bareImports(text).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'node:module']);
  });

  it('does not count what resolves from another package\'s folder (micromark-linear.ts as esbuild bundles it)', () => {
    const text = `
      import { createRequire } from "node:module";
      const require2 = createRequire(import.meta.url);
      const fromMarkdown = createRequire(require2.resolve("remark-parse")).resolve("mdast-util-from-markdown");
      const micromark = createRequire(fromMarkdown).resolve("micromark");
      const editMapPath = createRequire(micromark).resolve("micromark-util-edit-map");
      const { EditMap } = require2(editMapPath);
    `;
    expect(bareImports(text)).toEqual(['node:module', 'remark-parse']);
  });

  it('for any specifier: counted from import.meta.url or __filename, never from a folder held in a variable', () => {
    fc.assert(
      fc.property(specifier, localName, fc.constantFrom('', '2', '3'), fc.boolean(), (spec, folder, suffix, resolve) => {
        const call = (arg: string) => `createRequire${suffix}(${arg})${resolve ? '.resolve' : ''}(${JSON.stringify(spec)});`;
        expect(bareImports(call('import.meta.url'))).toEqual([spec]);
        expect(bareImports(call('__filename'))).toEqual([spec]);
        expect(bareImports(`const ${folder} = x; ${call(folder)}`)).toEqual([]);
        expect(bareImports(call(`${folder}.resolve("p")`))).toEqual([]);
      }),
    );
  });
});
