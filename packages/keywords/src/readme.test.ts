// The README's TypeScript examples, type-checked against this package's source as a user's
// strict project would check them (issue 15 walk: the first example passed the questions as
// `{ name: 'qa-pairs.md', qa }`, a source without `text`, which extractKeywords refuses with a
// TypeError at run time). The free names an example leaves to the reader are declared with
// the types it needs; everything else is the README's text as it stands.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// require, as tools/build.mjs loads it: TypeScript is a CommonJS file.
const ts = createRequire(import.meta.url)('typescript') as typeof import('typescript');
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const README = readFileSync(join(REPO, 'packages/keywords/README.md'), 'utf8');

const FREE = `
declare const text: string;
declare const qa: string;
declare const keywordsMd: string;
declare const chunk: { originalText: string; text: string };
declare const chunks: { text: string }[];
export {};
`;

function diagnostics(block: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'chunkyard-keywords-readme-'));
  try {
    // The example's other imports (markdown-it) resolve as they would in a user's project that
    // installed them; the package itself is read from its source, not its dist declarations.
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
    const file = join(dir, 'example.ts');
    writeFileSync(file, FREE + block.replaceAll("'@chunkyard/keywords'", JSON.stringify(join(REPO, 'packages/keywords/src/index.ts'))));
    const program = ts.createProgram([file], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      noEmit: true,
      strict: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(REPO, 'node_modules/@types')],
    });
    return ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName === file)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('packages/keywords README', () => {
  const blocks = [...README.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).filter((b) => b.includes("'@chunkyard/keywords'"));

  it('has the examples this test checks', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
  });

  for (const [i, block] of blocks.entries()) {
    it(`example ${i + 1} type-checks against the package`, () => {
      expect(diagnostics(block)).toEqual([]);
    }, 60_000);
  }
});
