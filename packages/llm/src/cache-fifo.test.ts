// LlmCache entries that are not regular files (issue 15 probe): a FIFO planted at an entry's
// path made readFileSync wait for a writer for ever, hanging chunking-tool's lead lines and
// docs-score. Real FIFOs on a real file system; a child process holds the FIFO's write end
// open for a few seconds, so that the old code blocked for that long instead of for ever.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LlmCache, type CacheKeyParts } from './index.js';

let dir: string;
let writer: ChildProcess | null = null;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkyard-llm-fifo-'));
});
afterEach(() => {
  // Its open of the FIFO never returns once no reader comes: ended by its own pid.
  if (writer?.pid !== undefined && writer.exitCode === null) writer.kill('SIGKILL');
  writer = null;
  rmSync(dir, { recursive: true, force: true });
});

const parts: CacheKeyParts = { provider: 'ollama', model: 'llama3.2', temperature: 0.2, promptSha256: 'p'.repeat(64), contentSha256: 'c'.repeat(64) };

/**
 * A FIFO at `path`, with a writer that holds it open 4 s, writing nothing; resolved once the
 * writer has it open. Before, the test went on while the shell was still starting: one that
 * opened the path only after put() had replaced the FIFO with the entry's file truncated that
 * file (`>`), and the next get() found it empty (a CI flake in session 55). Now the FIFO is open
 * before get() runs, and read-write (`<>`: a write end all the same, which never blocks on a FIFO
 * and never truncates a file).
 */
async function fifoWithSlowWriter(path: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  await new Promise<void>((resolve, reject) => spawn('mkfifo', [path]).on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo: ${code}`)))));
  const child = spawn('sh', ['-c', 'exec 3<>"$1"; echo open; sleep 4', 'sh', path], { stdio: ['ignore', 'pipe', 'ignore'] });
  writer = child;
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the FIFO's writer exited (${code}) before opening it`)));
  });
}

describe.skipIf(process.platform === 'win32')('LlmCache: an entry that is not a regular file', () => {
  it('a FIFO at the entry is corrupt at once, not waited on; put() replaces it with a file the next get() serves', async () => {
    const cache = new LlmCache(dir);
    const file = cache.fileOf(parts);
    await fifoWithSlowWriter(file);
    const started = Date.now();
    expect(cache.get(parts)).toBeNull();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(cache.stats).toEqual({ hits: 0, misses: 0, corrupt: 1 });
    cache.put(parts, 'a lead sentence');
    expect(statSync(file).isFile()).toBe(true);
    expect(cache.get(parts)).toBe('a lead sentence');
  });

  it('a symlink to a FIFO elsewhere is corrupt at once too', async () => {
    const cache = new LlmCache(dir);
    const file = cache.fileOf(parts);
    const fifo = join(dir, 'elsewhere.fifo');
    await fifoWithSlowWriter(fifo);
    mkdirSync(dirname(file), { recursive: true });
    symlinkSync(fifo, file);
    const started = Date.now();
    expect(cache.get(parts)).toBeNull();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(cache.stats.corrupt).toBe(1);
  });
});
