/**
 * The published READMEs' TypeScript examples, as a new user meets them: the packages packed
 * with `npm pack`, installed from the tarballs in an empty folder outside the repo (with the
 * LangChain.js and LlamaIndex.TS peers the examples import, at the versions this repo tests
 * against), and every ```ts block of a package's or app's README that imports an @chunkyard
 * package type-checked there under `--strict`, once with moduleResolution node16 and once with
 * bundler. What a block leaves to the reader (`markdown`, `texts`, `config`) is declared `any`;
 * everything else is the README's text as it stands, so a renamed export, a wrong option or
 * argument, or a missing declaration fails here. And every name a README imports as a value
 * (`import { x } from '@chunkyard/…'`, in a code block or in prose) must be an export of the
 * installed module, as plain Node ESM loads it: a type-only name there is a SyntaxError at
 * run time, which the type check alone does not show. And every long option a README's command
 * lines give one of chunkyard's bins (`npx docs-query docs --list`) is in that bin's `--help`.
 *
 * `--ignore-scripts`: no example needs better-sqlite3's native build (pack-install.test.ts runs
 * the store from an install), and without it the install takes seconds, not minutes.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runChecked, workspacePackages } from './workspace.js';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
const temp = mkdtempSync(join(realpathSync(tmpdir()), 'chunkyard-readme-'));
const tarballDir = join(temp, 'tarballs');
const consumer = join(temp, 'consumer');
afterAll(() => {
  if (!KEEP) rmSync(temp, { recursive: true, force: true });
});

const run = runChecked;

const packages = workspacePackages().filter((p) => !p.pkg.private);

interface Example {
  /** `packages/spec/README.md#2`: the README and the block's index among its ```ts blocks. */
  where: string;
  code: string;
}

/** Each ```ts block of a published README that imports an @chunkyard package. */
function examples(): Example[] {
  const out: Example[] = [];
  for (const p of packages) {
    const file = join(p.dir, 'README.md');
    if (!existsSync(file)) continue;
    let i = 0;
    for (const m of readFileSync(file, 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
      const code = m[1]!;
      if (/^import\b[^;]*from '@chunkyard\//m.test(code)) out.push({ where: `${p.folder}/README.md#${i}`, code });
      i++;
    }
  }
  return out;
}

/** Every `import { a, type B } from '@chunkyard/x'` in a published README, code or prose: x -> value names. */
function valueImports(): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const p of packages) {
    const file = join(p.dir, 'README.md');
    if (!existsSync(file)) continue;
    for (const m of readFileSync(file, 'utf8').matchAll(/import\s+\{([^}]*)\}\s*from\s*'(@chunkyard\/[^']+)'/g)) {
      const names = out.get(m[2]!) ?? new Map<string, string>();
      for (const raw of m[1]!.split(',')) {
        const name = raw.trim().split(/\s+as\s+/)[0]!;
        if (name !== '' && !name.startsWith('type ')) names.set(name, `${p.folder}/README.md`);
      }
      out.set(m[2]!, names);
    }
  }
  return out;
}

/**
 * Each command line of a fenced block in a published README (or the root README) that runs one
 * of chunkyard's bins (`npx docs-query docs -q …`, `chunkyard export …`, `$ npx docs-store …`),
 * with the long options it gives: bin (or `chunkyard <command>`) -> option -> where.
 */
function commandOptions(bins: Set<string>): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  const readmes = [...packages.map((p) => join(p.dir, 'README.md')), join(ROOT, 'README.md')].filter((f) => existsSync(f));
  for (const file of readmes) {
    const where = file.slice(ROOT.length + 1);
    for (const block of readFileSync(file, 'utf8').matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)) {
      for (const line of block[1]!.split('\n')) {
        // One command per segment of a shell line; a comment ends the line.
        for (const segment of line.replace(/^\$ /, '').replace(/\s#.*$/, '').split(/&&|\|\||[|;&]/)) {
          const words = segment.trim().split(/\s+/);
          if (words[0] === 'npx') words.shift();
          const bin = words[0];
          if (bin === undefined || !bins.has(bin)) continue;
          const command = bin === 'chunkyard' && words[1] && /^[a-z]+$/.test(words[1]) ? `chunkyard ${words[1]}` : bin;
          const options = out.get(command) ?? new Map<string, string>();
          for (const w of words) for (const m of w.matchAll(/^\[?(--[a-z][a-z0-9-]*)/g)) options.set(m[1]!, where);
          out.set(command, options);
        }
      }
    }
  }
  return out;
}

const FREE_NAME = new Set([2304, 2552, 18004]); // cannot find name (did you mean …), shorthand without a value
// A callback over a free (any) value has an implicitly-any parameter: the reader's data, not the API.
const IMPLICIT_ANY = new Set([7006, 7031]);

/** The compiler options of a strict consumer under one resolution. */
function optionsFor(resolution: 'node16' | 'bundler'): ts.CompilerOptions {
  return {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: resolution === 'node16' ? ts.ModuleKind.Node16 : ts.ModuleKind.ESNext,
    moduleResolution: resolution === 'node16' ? ts.ModuleResolutionKind.Node16 : ts.ModuleResolutionKind.Bundler,
    types: ['node'],
    typeRoots: [join(consumer, 'node_modules/@types')],
  };
}

/** Parsed declaration files, shared by the programs below (parsing node_modules is most of a program's cost). */
const parsed = new Map<string, ts.SourceFile>();

/** Diagnostics of the blocks (and of the @chunkyard declarations they load), under one resolution. */
function check(files: Map<string, Example>, resolution: 'node16' | 'bundler', oldProgram?: ts.Program): { program: ts.Program; diagnostics: ts.Diagnostic[] } {
  const options = optionsFor(resolution);
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, fresh) => {
    if (files.has(fileName)) return getSourceFile(fileName, languageVersion, onError, fresh);
    const key = `${fileName}\0${JSON.stringify(languageVersion)}`;
    let sf = parsed.get(key);
    if (!sf) {
      sf = getSourceFile(fileName, languageVersion, onError, fresh);
      if (sf) parsed.set(key, sf);
    }
    return sf;
  };
  const program = ts.createProgram({ rootNames: [...files.keys()], options, host, oldProgram });
  // Only the blocks and chunkyard's own declarations are checked: third-party declarations are
  // the peers' own business (llamaindex 0.12's do not check under --strict without
  // skipLibCheck), and checking them all is most of the time a full check takes.
  const ours = program.getSourceFiles().filter((f) => files.has(f.fileName) || f.fileName.includes('/node_modules/@chunkyard/'));
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...ours.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ];
  return { program, diagnostics };
}

function render(d: ts.Diagnostic, files: Map<string, Example>, declared: Map<string, number>): string {
  const file = d.file?.fileName ?? '';
  const where = files.get(file)?.where ?? file;
  const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 - (declared.get(file) ?? 0) : 0;
  return `${where}:${line}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
}

beforeAll(() => {
  mkdirSync(tarballDir);
  mkdirSync(consumer);
  const packed = JSON.parse(run('npm', ['pack', '--workspaces', '--pack-destination', tarballDir, '--json', '--loglevel=error'], ROOT).stdout) as { filename: string }[];
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'readme-consumer', version: '1.0.0', private: true, type: 'module' }));
  const version = (name: string) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  const extra = ['@langchain/core', '@langchain/textsplitters', 'llamaindex', '@types/node'].map((n) => `${n}@${version(n)}`);
  run('npm', ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', ...packed.map((p) => join(tarballDir, p.filename)), ...extra], consumer);
}, 300_000);

describe('the published READMEs, against the packed packages', () => {
  it('type-check every TypeScript example that imports chunkyard, under --strict with node16 and bundler resolution', () => {
    const all = examples();
    // The READMEs of chunking, config, embedding-cache, embeddings, fs-atomic, keywords, llm,
    // qa-pairs, quality, retrieval, simhash, spec, store, topic-index, topic-io and docs-export.
    expect(all.length).toBeGreaterThanOrEqual(20);
    const files = new Map<string, Example>();
    all.forEach((e, i) => {
      const file = join(consumer, `example-${i}.mts`);
      writeFileSync(file, `${e.code}\nexport {};\n`);
      files.set(file, e);
    });
    // First pass: what each block leaves to the reader; declare it and check again.
    const first = check(files, 'node16');
    const free = new Map<string, Set<string>>();
    for (const d of first.diagnostics) {
      if (!d.file || !FREE_NAME.has(d.code)) continue;
      const name = /'([^']+)'/.exec(ts.flattenDiagnosticMessageText(d.messageText, '\n'))?.[1];
      if (name) free.set(d.file.fileName, (free.get(d.file.fileName) ?? new Set()).add(name));
    }
    const declared = new Map<string, number>();
    for (const [file, e] of files) {
      const names = [...(free.get(file) ?? [])];
      declared.set(file, names.length);
      writeFileSync(file, `${names.map((n) => `declare const ${n}: any;\n`).join('')}${e.code}\nexport {};\n`);
    }
    let previous: ts.Program | undefined = first.program;
    for (const resolution of ['node16', 'bundler'] as const) {
      const { program, diagnostics } = check(files, resolution, previous);
      previous = program;
      const problems = diagnostics.filter((d) => !IMPLICIT_ANY.has(d.code)).map((d) => render(d, files, declared));
      expect(problems, `moduleResolution ${resolution}`).toEqual([]);
    }
  }, 120_000);

  it('every name a README imports as a value is an export of the installed ES module', () => {
    const imports = valueImports();
    expect(imports.size).toBeGreaterThan(10);
    const script = `const wanted = JSON.parse(process.argv[1]);
const missing = [];
for (const [specifier, names] of Object.entries(wanted)) {
  const mod = await import(specifier);
  for (const [name, readme] of Object.entries(names)) if (!(name in mod)) missing.push(readme + ': ' + name + ' from ' + specifier);
}
console.log(JSON.stringify(missing));`;
    const wanted = Object.fromEntries([...imports].map(([m, names]) => [m, Object.fromEntries(names)]));
    const r = run(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(wanted)], consumer);
    expect(JSON.parse(r.stdout)).toEqual([]);
  }, 60_000);

  it('every long option a README command line gives one of chunkyard\'s bins is in that bin\'s --help', () => {
    const bins = new Set(packages.flatMap((p) => (typeof p.pkg.bin === 'object' ? Object.keys(p.pkg.bin) : [])));
    expect(bins).toContain('docs-query');
    const commands = commandOptions(bins);
    expect(commands.size).toBeGreaterThanOrEqual(8);
    const missing: string[] = [];
    for (const [command, options] of commands) {
      const [bin, ...rest] = command.split(' ');
      const help = run(process.execPath, [join(consumer, 'node_modules/.bin', bin!), ...rest, '--help'], consumer).stdout;
      for (const [option, where] of options) {
        if (!new RegExp(`(^|[\\s,\\[(])${option}(?![a-z0-9-])`, 'm').test(help)) missing.push(`${where}: ${command} ${option}`);
      }
    }
    expect(missing).toEqual([]);
  }, 60_000);
});
