/**
 * chunkyard installed with Yarn 4's Plug'n'Play linker (`nodeLinker: pnp`, no node_modules), from
 * the tarballs of tools/pack-local.mjs, as the root README's **pnpm and yarn** section says:
 *
 * - what works: `nx add @chunkyard/nx@0.1.0` (its init), the topic generator, `nx run-many -t
 *   index` and its cached rerun, the bins of the packages added, and `chunkDocument` with the
 *   default parser from an ES module script;
 * - what Nx needs: an nx.json before the first `nx` command (Nx finds its workspace root by
 *   nx.json or node_modules/nx, and PnP has no node_modules);
 * - what cannot work on Node 20: `parser: 'remark'`, whose stack @chunkyard/chunking loads
 *   lazily with require() (ES modules, resolved past Yarn's loader). It is refused with a message
 *   naming `nodeLinker: node-modules`, never a stack trace, from the library, the CLI and the
 *   Nx task; and `require('@chunkyard/chunking')` from CommonJS, which fails the same way.
 *
 * Needs Yarn 4 from the npm registry (`npx @yarnpkg/cli-dist@4.18.1`; its cache serves later
 * runs): without it the test skips, saying so. Nothing with a native build is installed. Slow
 * (about a minute): run it alone.
 */
import type { SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npxMissing, NX_VERSION, ROOT, spawnChild, succeeded } from './workspace.js';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
const YARN = '@yarnpkg/cli-dist@4.18.1';
const temp = mkdtempSync(join(realpathSync(tmpdir()), 'chunkyard-yarn-pnp-'));
const tarballs = join(temp, 'tarballs');
const repo = join(temp, 'docs-repo');

const run = (cmd: string, args: string[], cwd: string, timeout = 300_000): SpawnSyncReturns<string> => spawnChild(cmd, args, cwd, { timeout });
const yarn = (args: string[]) => run('npx', ['-y', YARN, ...args], repo);
const output = (r: SpawnSyncReturns<string>) => r.stdout + r.stderr;
// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');
/** A line of a JavaScript stack trace. */
const STACK_LINE = /^\s+at .+[(:]\d+/m;
const THE_FIX = 'nodeLinker: node-modules';

let yarnMissing: string | null = null;

beforeAll(() => {
  mkdirSync(repo);
  writeFileSync(join(repo, 'package.json'), '{ "name": "my-docs", "private": true }\n');
  // The project's own root (an empty lockfile), and PnP whatever a global ~/.yarnrc.yml says.
  writeFileSync(join(repo, 'yarn.lock'), '');
  writeFileSync(join(repo, '.yarnrc.yml'), 'nodeLinker: pnp\n');
  succeeded(run(process.execPath, [join(ROOT, 'tools', 'pack-local.mjs'), tarballs, '--into', repo], ROOT), 'pack-local');
  yarnMissing = npxMissing(YARN, repo, 120_000);
}, 180_000);

afterAll(() => {
  if (!KEEP) rmSync(temp, { recursive: true, force: true });
  else console.log(`temp folders kept at ${temp}`);
});

describe("a docs repo that installs with Yarn 4's Plug'n'Play linker", () => {
  it("runs nx add, the topic generator, nx run-many -t index and its cached rerun, the bins and the fast parser; refuses parser 'remark' naming nodeLinker: node-modules", (ctx) => {
    if (yarnMissing) {
      console.warn(`skipped: ${yarnMissing}`);
      ctx.skip(yarnMissing);
    }
    succeeded(yarn(['add', '-D', `nx@${NX_VERSION}`, '@chunkyard/cli@0.1.0', '@chunkyard/docs-query@0.1.0']), 'yarn add -D');
    succeeded(yarn(['add', '@chunkyard/chunking@0.1.0']), 'yarn add @chunkyard/chunking');
    expect(existsSync(join(repo, '.pnp.cjs'))).toBe(true);
    expect(existsSync(join(repo, 'node_modules'))).toBe(false);

    // Nx's limit, which the README states: no nx.json and no node_modules/nx, so no workspace.
    const bare = yarn(['nx', 'add', '@chunkyard/nx@0.1.0']);
    expect(bare.status).not.toBe(0);
    expect(output(bare)).toContain("isn't part of an Nx workspace");

    writeFileSync(join(repo, 'nx.json'), '{}\n');
    succeeded(yarn(['nx', 'add', '@chunkyard/nx@0.1.0']), 'nx add');
    expect(JSON.parse(readFileSync(join(repo, 'nx.json'), 'utf8')).plugins).toEqual([{ plugin: '@chunkyard/nx', options: { docsRoot: 'docs' } }]);
    succeeded(yarn(['nx', 'g', '@chunkyard/nx:topic', 'guides/install', '--title', 'Installing the CLI', '--no-interactive']), 'nx g topic');
    writeFileSync(join(repo, '.gitignore'), `${readFileSync(join(repo, '.gitignore'), 'utf8')}/.nx\n/.yarn\n/.pnp.*\n`);
    const git = (...args: string[]) => succeeded(run('git', ['-c', 'user.name=chunkyard-test', '-c', 'user.email=test@chunkyard.invalid', '-c', 'commit.gpgsign=false', ...args], repo), `git ${args[0]}`);
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'docs repo');

    // Which tasks ran and which came from the cache, by Nx's static log (`index` targets run nothing).
    const runMany = () => {
      const log = plain(succeeded(yarn(['nx', 'run-many', '-t', 'index', '--outputStyle=static']), 'nx run-many -t index'));
      const tasks = [...log.matchAll(/^> nx run (\S+:[\w-]+)( {2}\[local cache\])?\s*$/gm)].filter((m) => !m[1]!.endsWith(':index'));
      return { ran: tasks.filter((m) => !m[2]).map((m) => m[1]), cached: tasks.filter((m) => m[2]).map((m) => m[1]) };
    };
    const first = runMany();
    expect(first.ran).toContain('topic-guides-install:chunk');
    expect(first.ran.length).toBeGreaterThan(3);
    expect(existsSync(join(repo, 'docs', 'guides', 'install', 'index.json'))).toBe(true);
    const again = runMany();
    expect(again.ran).toEqual([]);
    expect(again.cached.sort()).toEqual(first.ran.sort());

    for (const bin of ['chunkyard', 'docs-query']) expect(succeeded(yarn([bin, '--version']), `${bin} --version`)).toContain(`${bin} 0.1.0`);
    expect(succeeded(yarn(['docs-query', '--list']), 'docs-query --list')).toContain('guides/install\tInstalling the CLI');
    succeeded(yarn(['chunkyard', 'chunk', 'docs/guides/install/golden-reference.md', '--out', join(temp, 'fast')]), 'chunkyard chunk');
    expect(existsSync(join(temp, 'fast', 'golden-reference.json'))).toBe(true);

    // parser 'remark' through the CLI: one line naming the fix, exit 1, nothing written.
    writeFileSync(join(temp, 'remark.yaml'), 'chunking:\n  parser: remark\n');
    const cli = yarn(['chunkyard', 'chunk', 'docs/guides/install/golden-reference.md', '--config', join(temp, 'remark.yaml'), '--out', join(temp, 'remark')]);
    expect(cli.status, output(cli)).toBe(1);
    expect(cli.stderr).toContain(THE_FIX);
    expect(cli.stderr).not.toMatch(STACK_LINE);

    // ... and through the Nx task, when chunkyard.config.yaml asks for it.
    const config = join(repo, 'chunkyard.config.yaml');
    const kept = readFileSync(config, 'utf8');
    writeFileSync(config, kept.replace(/^chunking:\n/m, 'chunking:\n  parser: remark\n'));
    const task = yarn(['nx', 'run', 'topic-guides-install:chunk', '--outputStyle=static', '--skip-nx-cache']);
    writeFileSync(config, kept);
    expect(task.status).not.toBe(0);
    expect(plain(output(task))).toContain(THE_FIX);
    expect(plain(output(task))).not.toMatch(STACK_LINE);

    // From a script in the repo: the default parser works without loading the remark stack;
    // 'remark' throws an Error naming the fix (the require's own error is its cause).
    writeFileSync(
      join(repo, 'chunk.mjs'),
      [
        "import { createRequire } from 'node:module';",
        "import { chunkDocument } from '@chunkyard/chunking';",
        "const text = '# Title\\n\\nSome text here, long enough to be a chunk of its own.\\n';",
        "const fast = chunkDocument(text, { docName: 'd' });",
        "const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => /[\\\\/]node_modules[\\\\/](unified|remark-parse|remark-gfm)[\\\\/]/.test(k));",
        "console.log(JSON.stringify({ fast: fast.chunks.length, loaded }));",
        "try { chunkDocument(text, { docName: 'd', parser: 'remark' }); console.log('remark: ok'); }",
        "catch (error) { console.log(`remark: ${error.constructor.name}: ${error.message} [cause: ${error.cause?.code}]`); }",
      ].join('\n'),
    );
    const script = yarn(['node', 'chunk.mjs']);
    expect(script.status, output(script)).toBe(0);
    const [head, remark] = script.stdout.trim().split('\n');
    expect(JSON.parse(head!)).toEqual({ fast: 1, loaded: [] });
    expect(remark).toMatch(/^remark: Error: parser 'remark' cannot load under Yarn Plug'n'Play: .*nodeLinker: node-modules.* \[cause: ERR_MODULE_NOT_FOUND\]$/);

    // CommonJS: Node 20's require of the ES module @chunkyard/chunking resolves its imports past
    // Yarn's loader too, so it fails before any chunkyard code runs (the README says to import).
    writeFileSync(join(repo, 'chunk.cjs'), "require('@chunkyard/chunking');\n");
    const cjs = yarn(['node', 'chunk.cjs']);
    expect(cjs.status).not.toBe(0);
    expect(cjs.stderr).toContain('ERR_MODULE_NOT_FOUND');
  }, 420_000);
});
