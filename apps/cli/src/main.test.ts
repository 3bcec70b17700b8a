import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS, HELP, main } from './main.js';

const APP = join(import.meta.dirname, '..');
const REPO = join(APP, '../..');
const BIN = join(APP, 'bin/chunkyard.js');
const pkg = JSON.parse(readFileSync(join(APP, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
const scratch = mkdtempSync(join(tmpdir(), 'chunkyard-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}

/** Runs the built bin (npm test builds first), as `npx chunkyard` would. */
function bin(args: string[], nodeArgs: string[] = []) {
  return spawnSync(process.execPath, [...nodeArgs, BIN, ...args], { cwd: scratch, encoding: 'utf8' });
}

describe('chunkyard', () => {
  it('--help lists the ten commands, one line each, and exits 0', async () => {
    const r = await run(['--help']);
    expect(r).toEqual({ code: 0, stdout: HELP, stderr: '' });
    const names = ['chunk', 'keywords', 'spec', 'index', 'query', 'serve', 'store', 'export', 'score', 'inspect'];
    expect(Object.keys(COMMANDS)).toEqual(names);
    for (const name of names) expect(r.stdout).toMatch(new RegExp(`^  ${name} +\\S.{10,}$`, 'm'));
    for (const c of Object.values(COMMANDS)) expect(r.stdout).toContain(c.tool);
    expect(Math.max(...r.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(100);
  });

  it('--help names every form it answers: help COMMAND, -h and help alone (issue 15 probe: only the README told of them)', async () => {
    for (const form of ['chunkyard <command> --help', 'chunkyard help <command>', 'chunkyard -h, --help', 'chunkyard help)', 'chunkyard --version']) expect(HELP, form).toContain(form);
    for (const argv of [['-h'], ['help'], ['help', 'help']]) expect(await run(argv), argv.join(' ')).toEqual({ code: 0, stdout: HELP, stderr: '' });
    expect((await run(['help', 'chunk'])).code).toBe(0);
  });

  it('help with more than one word is a usage error naming them, not the first one\'s help', async () => {
    const r = await run(['help', 'chunk', 'extra\u001b[2J']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'chunkyard: help takes one command name, got 2: "chunk" "extra\\u001b[2J"\nRun chunkyard help COMMAND, or chunkyard --help for usage.\n',
    });
  });

  it('--version or --help with anything after it is a usage error naming it, not the version or help (s40 probe)', async () => {
    // `chunkyard --version extra` printed the version, exit 0, the word dropped unseen.
    for (const [first, rest, shown] of [
      ['--version', ['extra'], '"extra"'],
      ['--version', ['--json'], '"--json"'],
      ['--help', ['chunk'], '"chunk"'],
      ['-h', ['a', 'b\u001b[2J'], '"a" "b\\u001b[2J"'],
    ] as const) {
      expect(await run([first, ...rest]), [first, ...rest].join(' ')).toEqual({
        code: 2,
        stdout: '',
        stderr: `chunkyard: ${first} takes no arguments, got ${shown}\nRun chunkyard COMMAND --help for a command's help, or chunkyard --help for usage.\n`,
      });
    }
    const b = bin(['--version', 'extra']);
    expect([b.status, b.stdout, b.stderr]).toEqual([2, '', 'chunkyard: --version takes no arguments, got "extra"\nRun chunkyard COMMAND --help for a command\'s help, or chunkyard --help for usage.\n']);
  });

  it('with no command prints the help on stderr and exits 2', async () => {
    expect(await run([])).toEqual({ code: 2, stdout: '', stderr: HELP });
  });

  it('--version prints the version in its package.json', async () => {
    expect(await run(['--version'])).toEqual({ code: 0, stdout: `chunkyard ${pkg.version}\n`, stderr: '' });
  });

  it('an unknown command or a leading option is a usage error (exit 2) naming the commands', async () => {
    const r = await run(['chunks', 'docs']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('chunkyard: unknown command "chunks"');
    expect(r.stderr).toContain('chunk, keywords, spec, index, query, serve, store, export, score, inspect');
    const opt = await run(['--json', 'chunk']);
    expect(opt.code).toBe(2);
    expect(opt.stderr).toContain('unknown option "--json"');
    // Not an inherited property of the command table either.
    expect((await run(['toString'])).code).toBe(2);
    // Control characters in the name are escaped, C1 included.
    const evil = await run(['bad\u001b]0;X\u0007\u009b2J']);
    expect(evil.code).toBe(2);
    expect(evil.stderr).toContain('chunkyard: unknown command "bad\\u001b]0;X\\u0007\\u009b2J"');
    // So are the bidi overrides and isolates (issue 15 probe: U+202E went out raw).
    expect((await run(['x\u202eexe.\u2066'])).stderr).toContain('chunkyard: unknown command "x\\u202eexe.\\u2066"');
    expect(evil.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });

  it('an unknown command or option near a known one says which it probably was (helper-77 probe: only the list was given)', async () => {
    for (const [word, meant] of [
      ['chunks', 'chunk'],
      ['sepc', 'spec'],
      ['Chunk', 'chunk'],
      ['SCORE', 'score'],
      ['indexes', 'index'],
      ['insp', 'inspect'],
      ['keyword', 'keywords'],
      ['kewyords', 'keywords'],
      ['exprot', 'export'],
      ['topic-spec', 'spec'],
      ['chunking-tool', 'chunk'],
      ['docs-store', 'store'],
      ['chunk-inspector', 'inspect'],
      ['sore', 'store or score'],
      ['--verison', '--version'],
      ['--vesion', '--version'],
      ['-v', '--version'],
      ['-V', '--version'],
      ['--hlep', '--help'],
      ['-help', '--help'],
    ] as const) {
      const r = await run([word, 'docs']);
      expect(r.code, word).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0], word).toMatch(new RegExp(`^chunkyard: unknown (command|option) "${word}".*; did you mean ${meant}\\?$`));
    }
    // Nothing near: no guess, the list alone.
    for (const word of ['xyz', 'in', 'deploy', '--json', '-q', 'build']) {
      const r = await run([word]);
      expect(r.code, word).toBe(2);
      expect(r.stderr, word).not.toContain('did you mean');
      expect(r.stderr).toContain('Commands: chunk, keywords');
    }
    // The built bin says the same.
    const b = bin(['sepc', 'docs']);
    expect([b.status, b.stdout, b.stderr.split('\n')[0]]).toEqual([2, '', 'chunkyard: unknown command "sepc"; did you mean spec?']);
  });

  it('a suggestion is always a command (or --version / --help), and a command itself is never unknown (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 12 }).filter((w) => w !== '' && !Object.hasOwn(COMMANDS, w) && !['--help', '-h', '--version', 'help'].includes(w)), async (word) => {
        const r = await run([word]);
        expect(r.code).toBe(2);
        const m = /; did you mean (.*)\?$/m.exec(r.stderr.split('\n')[0]!);
        if (m) for (const s of m[1]!.split(' or ')) expect([...Object.keys(COMMANDS), '--version', '--help']).toContain(s);
      }),
    );
  });

  it('an unknown command is shown escaped whatever it holds: no raw control, DEL, C1 or bidi character reaches the terminal', async () => {
    const hostile = fc.constantFrom('\u0000', '\u0007', '\u001b', '\r', '\u007f', '\u0085', '\u009b', '\u202a', '\u202e', '\u2066', '\u2069', 'a', 'é', ' ', '"', '\\');
    await fc.assert(
      fc.asyncProperty(fc.array(hostile, { minLength: 1, maxLength: 12 }).map((cs) => `x${cs.join('')}`), async (name) => {
        const r = await run([name]);
        expect(r.code).toBe(2);
        expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        // What it shows is the name, JSON-quoted: read back, it is what was typed.
        const shown = /^chunkyard: unknown command (".*")\n/.exec(r.stderr)![1]!;
        expect(JSON.parse(shown)).toBe(name);
      }),
    );
  });

  it.each(Object.entries(COMMANDS))('%s loads the package whose bin is its tool, a declared dependency', async (_name, c) => {
    const mod = (await c.load()) as { main: unknown; HELP: string };
    expect(typeof mod.main).toBe('function');
    expect(mod.HELP.startsWith(`${c.tool} — `)).toBe(true);
    // Every tool's package is @chunkyard/<its bin>, or the package it names.
    const owner = c.package ?? `@chunkyard/${c.tool}`;
    const toolPkg = JSON.parse(readFileSync(join(REPO, 'node_modules', owner, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(Object.keys(toolPkg.bin)).toEqual([c.tool]);
    expect(pkg.dependencies[owner]).toBe(pkg.version);
  });

  it('the built bin: `chunkyard <command> --help` prints what the tool bin prints', () => {
    for (const [name, c] of Object.entries(COMMANDS)) {
      const viaCli = bin([name, '--help']);
      const direct = spawnSync(process.execPath, [join(REPO, 'node_modules/.bin', c.tool), '--help'], { encoding: 'utf8' });
      expect(viaCli.status, `${name}: ${viaCli.stderr}`).toBe(0);
      expect(viaCli.stdout).toBe(direct.stdout);
      expect(viaCli.stdout.startsWith(`${c.tool} — `)).toBe(true);
    }
    expect(bin(['help', 'score']).stdout).toBe(bin(['score', '--help']).stdout);
  });

  it('every tool\'s --help keeps its lines within 110 columns (index-tool\'s exit status ran to 141)', async () => {
    for (const c of Object.values(COMMANDS)) {
      const { HELP: help } = (await c.load()) as unknown as { HELP: string };
      const long = help.split('\n').filter((l) => l.length > 110);
      expect({ tool: c.tool, long }).toEqual({ tool: c.tool, long: [] });
    }
  });

  it('the built bin: `chunkyard export` writes the chunks `chunkyard chunk` made as JSON lines', () => {
    const dir = join(scratch, 'export-docs');
    mkdirSync(dir);
    writeFileSync(join(dir, 'guide.md'), '# Guide\n\nOne paragraph of text.\n\n## Part\n\nAnother paragraph.\n');
    expect(bin(['chunk', 'export-docs/guide.md']).status).toBe(0);
    const r = bin(['export', 'export-docs', '--format', 'langchain']);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; pageContent: string; metadata: { headerPath: string[] } });
    expect(lines[0]!.id).toBe('doc:guide::ch0');
    expect(lines.map((l) => l.pageContent).join('')).toContain('Another paragraph.');
    expect(r.stderr).toBe(`docs-export: ${lines.length} chunk${lines.length === 1 ? '' : 's'} of 1 document in 1 topic as langchain\n`);
  });

  it('the built bin: `chunkyard chunk` never loads the store, SQLite or the MCP SDK; `chunkyard store` does', () => {
    // A resolve hook that logs every module URL the process loads.
    const hook = join(scratch, 'log-resolve.mjs');
    const log = join(scratch, 'resolved.log');
    const hookBody = `import { appendFileSync } from 'node:fs';
export async function resolve(spec, ctx, next) { const r = await next(spec, ctx); appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }`;
    writeFileSync(hook, `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hookBody)}`)});\n`);
    const loaded = (args: string[]) => {
      writeFileSync(log, '');
      const r = bin(args, ['--import', hook]);
      expect(r.status, r.stderr).toBe(0);
      return readFileSync(log, 'utf8');
    };
    writeFileSync(join(scratch, 'doc.md'), '# Title\n\nOne paragraph of text.\n\n## Part\n\nAnother paragraph.\n');
    const chunk = loaded(['chunk', 'doc.md']);
    expect(chunk).toContain('/chunking-tool/dist/main.js');
    for (const heavy of ['better-sqlite3', '@modelcontextprotocol', '/docs-store/']) expect(chunk).not.toContain(heavy);
    expect(readFileSync(join(scratch, '_chunks/doc.json'), 'utf8')).toContain('"source": "doc.md"');
    // The control: the hook does see them when the store runs.
    const store = loaded(['store', '--version']);
    expect(store).toContain('better-sqlite3');
    expect(store).toContain('@modelcontextprotocol');
  });

  it('the built bin: every command refuses a single-valued option given twice (exit 2), where it took the last (issue 15 probe)', () => {
    const repeats: Record<string, string[]> = {
      chunk: ['--out', 'a', '--out', 'b', 'x.md'],
      keywords: ['--max', '3', '--max', '5', 'x'],
      spec: ['--cache-dir', 'a', '--cache-dir=b', 'x'],
      index: ['--root', 'a', '--root', 'b'],
      query: ['-n', '3', '-n', '5', 'q'],
      serve: ['--port', '1', '--port', '2'],
      store: ['search', '--limit', '3', '--limit', '5', 'q'],
      export: ['--format', 'a', '--format', 'b', 'x'],
      score: ['--k', '3', '--k', '-3', 'x'],
      inspect: ['--out', 'a', '--out', 'b'],
    };
    expect(Object.keys(repeats)).toEqual(Object.keys(COMMANDS));
    for (const [name, args] of Object.entries(repeats)) {
      const r = bin([name, ...args]);
      const flag = args.find((a) => a.startsWith('-'))!.split('=')[0]!.replace(/^-(\w)$/, '--$1');
      expect({ name, status: r.status, stdout: r.stdout }).toEqual({ name, status: 2, stdout: '' });
      expect(r.stderr, name).toMatch(new RegExp(`^${COMMANDS[name]!.tool}: ${flag}: given twice \\(".+", then ".+"\\); give it once\nRun ${COMMANDS[name]!.tool} --help for usage\\.\n$`));
    }
  });

  it('the built bin: every command names a path that is not a usable folder in the same words (issue 15 probe)', () => {
    // fs-atomic's folderProblem/fileProblem wording, path as given. Before: docs-query said
    // "not a folder (a file)", docs-store named the absolute path and "not a regular file (a
    // FIFO); left out", and keyword-extractor and topic-spec called a missing folder, a
    // dangling link and a FIFO alike "not a topic folder (not a folder holding …)".
    const dir = join(scratch, 'paths');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'file.md'), '# A file\n\nWith a sentence.\n');
    symlinkSync('nowhere', join(dir, 'dangling'));
    symlinkSync('loop', join(dir, 'loop'));
    spawnSync('mkfifo', [join(dir, 'fifo')]);
    const dangling = 'a dangling symlink (its target does not exist); fix or remove the link';
    const loop = 'a symlink loop (it never reaches a file); fix or remove the link';
    const folder = { missing: 'no such folder', dangling, loop, fifo: 'not a folder (a FIFO (named pipe))', 'file.md': 'not a folder (a regular file)' };
    const fileOrFolder = { missing: 'no such file or folder', dangling, loop, fifo: 'a FIFO (named pipe), not a regular file' };
    const cases: [string[], string, Record<string, string>][] = [
      [['query', '--list'], '', folder],
      [['serve', '--port', '0'], '', folder],
      [['export', '--format', 'jsonl'], '', folder],
      [['score'], '', folder],
      [['index', 'x', '--root'], '--root ', folder],
      [['keywords'], '', folder],
      [['spec'], '', folder],
      [['store', 'ingest'], '', fileOrFolder],
      [['chunk'], '', { ...fileOrFolder, missing: 'no such file' }],
    ];
    for (const [args, prefix, reasons] of cases) {
      for (const [name, reason] of Object.entries(reasons)) {
        const r = spawnSync(process.execPath, [BIN, ...args, `paths/${name}`], { cwd: scratch, encoding: 'utf8', timeout: 20_000 });
        const tool = COMMANDS[args[0]!]!.tool;
        expect(r.status, `${args.join(' ')} ${name}: ${r.stderr}`).not.toBe(0);
        expect(r.stderr.split('\n')[0], `${args.join(' ')} ${name}`).toMatch(new RegExp(`^${tool}: ${prefix}paths/${name}: ${reason.replace(/[()]/g, '\\$&')}(;|$)`));
      }
    }
  });

  it('the built bin: every command taking --config refuses a FIFO there in the same words, exit 2 (issue 15 probe)', () => {
    // docs-store and docs-export said "<file>: cannot read config (a FIFO (named pipe), not a
    // regular file)", docs-query "not a regular file (a FIFO, device or socket); give a YAML file".
    const dir = join(scratch, 'config-fifo');
    mkdirSync(join(dir, 'docs'), { recursive: true });
    spawnSync('mkfifo', [join(dir, 'c.yaml')]);
    // (docs-query reads its docs first; packages/retrieval words its config check alike.)
    for (const args of [['chunk', 'x.md'], ['spec', 'docs'], ['score', 'docs'], ['export', '--format', 'jsonl', 'docs'], ['store', 'search', 'x']]) {
      const r = spawnSync(process.execPath, [BIN, ...args, '--config', 'c.yaml'], { cwd: dir, encoding: 'utf8', timeout: 20_000 });
      expect({ args, status: r.status }).toEqual({ args, status: 2 });
      expect(r.stderr.split('\n')[0], args.join(' ')).toMatch(/c\.yaml: a FIFO \(named pipe\), not a regular file; point it at a regular file$/);
    }
  });
});

describe('numeric options: one wording in every command, ranges as --help states them (issue 15)', () => {
  // Before: docs-query and docs-serve said "expected an integer 0..N", docs-store "--limit must
  // be a whole number from A to B", docs-score "--k must be an integer from 1 to 1000" and
  // "--min-f1 must be a number from 0 to 1"; --k '' was "--k: empty" in docs-score alone.
  const cases: [args: string[], option: string, kind: 'a whole number' | 'a number', range: [number, number], given: string][] = [
    [['query', '-n', '1e9'], '-n/--n', 'a whole number', [0, 100_000], '1e9'],
    [['query', '-k', 'x'], '-k/--k', 'a whole number', [0, 1000], 'x'],
    [['query', '--max-distance', '65'], '--max-distance', 'a whole number', [0, 64], '65'],
    [['serve', 'docs', '--port', '70000'], '--port', 'a whole number', [0, 65535], '70000'],
    [['store', 'search', 'x', '--limit', '1e9'], '--limit', 'a whole number', [1, 100], '1e9'],
    [['store', 'search', 'x', '--expand', '11'], '--expand', 'a whole number', [0, 10], '11'],
    [['store', 'search', 'x', '--mode', 'vector', '--probes', '0'], '--probes', 'a whole number', [1, 4096], '0'],
    [['store', 'expand', 'id', '--k', '1.5'], '--k', 'a whole number', [0, 20], '1.5'],
    [['store', 'mcp', '--http', '--port', '-1'], '--port', 'a whole number', [0, 65535], '-1'],
    [['score', 'd', '--k', ''], '--k', 'a whole number', [1, 1000], ''],
    [['score', 'd', '--min-recall', '2'], '--min-recall', 'a number', [0, 1], '2'],
    [['score', 'd', '--min-iou', '0x1'], '--min-iou', 'a number', [0, 1], '0x1'],
    [['score', 'd', '--min-f1', '5e-1'], '--min-f1', 'a number', [0, 1], '5e-1'],
    [['score', 'd', '--min-context-recall', '-1'], '--min-context-recall', 'a number', [0, 1], '-1'],
    [['score', 'd', '--min-pis', '101'], '--min-pis', 'a number', [0, 100], '101'],
    [['score', 'd', '--max-latency-delta', '-101'], '--max-latency-delta', 'a number', [-100, 10_000], '-101'],
    [['keywords', 't', '--max', '1e9'], '--max', 'a whole number', [0, 100_000], '1e9'],
    [['spec', 't', '--prompt-threshold', ''], '--prompt-threshold', 'a number', [0, 1], ''],
  ];
  const helps = new Map<string, string>();
  it.each(cases)('chunkyard %j', (args, option, kind, [min, max], given) => {
    const tool = COMMANDS[args[0]!]!.tool;
    const r = bin(args);
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 2, stdout: '' });
    expect(r.stderr.split('\n')[0]).toBe(`${tool}: ${option}: expected ${kind} from ${min} to ${max}, got ${JSON.stringify(given)}`);
    if (!helps.has(tool)) helps.set(tool, bin([args[0]!, '--help']).stdout);
    // The help names the same range in the option's entry (docs-store in its Ranges block):
    // the line that starts with the option, and the lines indented under it.
    const long = option.split('/').at(-1)!;
    const entry = new RegExp(`^ +(?:-\\w, )?${long}\\b.*(?:\\n {8,}.*)*`, 'm').exec(helps.get(tool)!);
    expect(entry?.[0], `${tool} --help: ${long}`).toContain(`${min}..${max}`);
  });
});

describe('a command whose tool cannot be loaded', () => {
  // helper-77 probe: an install missing a tool's package (a failed or partial install, a
  // pruned node_modules) printed Node's ERR_MODULE_NOT_FOUND stack trace, exit 1, with nothing
  // saying which command needed it or how to repair it.
  it('the built bin, installed without the tool packages: one line naming the command, the package and the fix, exit 1; the rest still works', () => {
    const inst = join(scratch, 'partial-install/node_modules/@chunkyard/cli');
    mkdirSync(inst, { recursive: true });
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(APP, part), join(inst, part), { recursive: true });
    const run = (args: string[]) => spawnSync(process.execPath, [join(inst, 'bin/chunkyard.js'), ...args], { cwd: scratch, encoding: 'utf8' });
    for (const [name, c] of Object.entries(COMMANDS)) {
      const pkgName = c.package ?? `@chunkyard/${c.tool}`;
      const r = run([name, '--help']);
      expect(r.status, name).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr, name).toBe(
        `chunkyard: cannot load ${pkgName}, which runs "chunkyard ${name}": Cannot find package '${pkgName}'\nReinstall @chunkyard/cli (npm i @chunkyard/cli), or install ${pkgName}.\n`,
      );
    }
    expect(run(['--version']).stdout).toBe(`chunkyard ${pkg.version}\n`);
  });
});
