import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCorpus } from './corpus.mjs';
import { childRunner, corpusFingerprint, liveChildCount, localRunner } from './runners.mjs';
import { active, closeAll, collectChunks, runRounds, startAll } from './schedule.mjs';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const RUNNERS_URL = new URL('./runners.mjs', import.meta.url).href;

const CORPUS: Record<string, string> = {
  'a.md': '# A\n\nFirst paragraph.\nStill first.\n\nSecond paragraph.\n',
  'b.md': '# B\n\n```js\nconst x = 1;\n```\n\nTail — with a non-ASCII dash.\n',
  'sub/c.md': 'Only one paragraph here.',
};

let corpusDir = '';
beforeAll(() => {
  corpusDir = mkdtempSync(join(tmpdir(), 'bench-adapter-child-'));
  for (const [rel, text] of Object.entries(CORPUS)) {
    mkdirSync(join(corpusDir, rel, '..'), { recursive: true });
    writeFileSync(join(corpusDir, rel), text);
  }
});
afterAll(() => rmSync(corpusDir, { recursive: true, force: true }));

const SIZES = { maxTokens: 64, targetTokens: 48 };
const fixture = (name: string) => join(FIXTURES, `${name}.mjs`);
const forked = (name: string, expect = corpusFingerprint(loadCorpus(corpusDir))) =>
  childRunner({ name, file: fixture(name), corpusDir, expect, ...SIZES });

/** The paragraph fixture's chunks, computed here independently of the fixture. */
function expectedParagraphs() {
  return loadCorpus(corpusDir).map((f) => {
    const chunks: { text: string; start: number; end: number; file: string }[] = [];
    let start = 0;
    for (const para of f.text.split('\n\n')) {
      const text = para.replace(/\n+$/, '');
      if (text) chunks.push({ text, start, end: start + text.length, file: f.rel });
      start += para.length + 2;
    }
    return chunks;
  });
}

/** Alive and not a zombie (the container's init may never reap orphans). */
function isRunning(pid: number) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

async function waitUntil(cond: () => boolean, ms = 10_000) {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

describe('adapters in child processes', () => {
  it('runs the rounds, reports each adapter status and returns the chunks intact', async () => {
    const log: string[] = [];
    const names = ['paragraphs', 'setup-throws', 'chunk-throws', 'exits', 'tochunks-throws'];
    const runners = names.map((n) => forked(n));
    const pids = runners.map((r) => r.pid as number);
    expect(liveChildCount()).toBe(names.length);

    const runs = await startAll(runners, (m) => log.push(m));
    await runRounds(runs, { warmup: 1, runs: 2, slowMs: 0, slowRuns: 1, progress: (m) => log.push(m) });
    const byName = Object.fromEntries(runs.map((a) => [a.name, a]));

    const setupThrows = byName['setup-throws']!;
    expect(setupThrows.status).toBe('unavailable');
    expect(setupThrows.error).toBe('no model here');
    expect([setupThrows.peer, setupThrows.version]).toEqual(['fixture-setup-throws', '2.0.0']);

    const chunkThrows = byName['chunk-throws']!;
    expect(chunkThrows.status).toBe('failed');
    expect(chunkThrows.error).toBe('chunk() threw: b.md: cannot chunk this one');
    expect(chunkThrows.warmupMs).toEqual([]);

    const exits = byName['exits']!;
    expect(exits.status).toBe('failed');
    expect(exits.error).toMatch(/^child process died during a pass \(exit code 3; stderr: about to exit\)$/);

    // Failed adapters drop out; the others keep their interleaved turns, one pass each per round.
    expect(log.filter((m) => /^(warm-up|pass) .*: \d+ ms$/.test(m)).map((m) => m.replace(/: \d+ ms$/, ''))).toEqual([
      'warm-up 1/1 paragraphs',
      'warm-up 1/1 tochunks-throws',
      'pass 1/2 paragraphs',
      'pass 1/2 tochunks-throws',
      'pass 2/2 paragraphs',
      'pass 2/2 tochunks-throws',
    ]);

    const ok = byName['paragraphs']!;
    expect(active(runs).map((a) => a.name)).toEqual(['paragraphs', 'tochunks-throws']);
    expect([ok.peer, ok.version, ok.description]).toEqual(['fixture-paragraphs', '1.0.0', 'paragraph splitter for the adapter-child tests']);
    expect(ok.settings).toEqual({ ...SIZES, pid: ok.runner.pid });
    expect(ok.settings).not.toHaveProperty('pid', process.pid);
    expect(ok.warmupMs).toHaveLength(1);
    expect(ok.passesMs).toHaveLength(2);
    for (const ms of [...ok.warmupMs, ...ok.passesMs]) expect(ms).toBeGreaterThan(0);
    // One console.log in setup, one console.warn per file per pass (3 passes × 3 files).
    expect(ok.consoleMessagesSuppressed).toBe(1 + 9);

    const chunks = await collectChunks(ok, () => {});
    expect(chunks).toEqual(expectedParagraphs());
    const texts = loadCorpus(corpusDir).map((f) => f.text);
    for (const [i, file] of (chunks ?? []).entries()) for (const c of file) expect(texts[i]!.slice(c.start, c.end)).toBe(c.text);

    const badConvert = byName['tochunks-throws']!;
    expect(await collectChunks(badConvert, () => {})).toBeNull();
    expect(badConvert.status).toBe('failed');
    expect(badConvert.error).toBe('metrics failed: unexpected raw output');

    await closeAll(runs);
    expect(liveChildCount()).toBe(0);
    for (const pid of pids) expect(isRunning(pid)).toBe(false);
  });

  it('returns the same chunks as the in-process runner', async () => {
    const files = loadCorpus(corpusDir);
    const local = localRunner({
      name: 'paragraphs',
      file: fixture('paragraphs'),
      texts: files.map((f) => f.text),
      ctxs: files.map((f) => ({ docName: f.docName, fileName: f.rel })),
      ...SIZES,
    });
    const child = forked('paragraphs');
    const results = [];
    for (const r of [local, child]) {
      await r.start();
      await r.pass(true);
      results.push(await r.finish());
      await r.close();
    }
    expect(results[1]).toEqual(results[0]);
    expect(results[0]).toEqual(expectedParagraphs());
    expect(liveChildCount()).toBe(0);
  });

  it('refuses to run when the child reads a different corpus than the parent', async () => {
    const real = corpusFingerprint(loadCorpus(corpusDir));
    const runs = await startAll([forked('paragraphs', { ...real, bytes: real.bytes + 1 })], () => {});
    expect(runs[0]!.status).toBe('unavailable');
    expect(runs[0]!.error).toMatch(/^corpus mismatch: the parent read 3 files \/ \d+ bytes, this child 3 files/);
    expect(liveChildCount()).toBe(0);
  });

  it('gives an adapter slower than slowMs in warm-up only slowRuns timed passes', async () => {
    const runs = await startAll([forked('slow'), forked('paragraphs')], () => {});
    await runRounds(runs, { warmup: 1, runs: 3, slowMs: 50, slowRuns: 1, progress: () => {} });
    expect(runs.map((a) => [a.name, a.status, a.passesMs.length])).toEqual([
      ['slow', 'ok', 1],
      ['paragraphs', 'ok', 3],
    ]);
    expect(runs[0]!.warmupMs[0]).toBeGreaterThan(50);
    // The slow adapter's only timed pass is its last one, so its output was kept.
    expect((await collectChunks(runs[0]!, () => {}))?.map((f) => f.length)).toEqual([1, 1, 1]);
    await closeAll(runs);
    expect(liveChildCount()).toBe(0);
  });
});

describe('child processes outlive nothing', () => {
  /** Starts a parent that sets up one forked fixture, prints the child's pid, then waits. */
  function startParent() {
    const expectJson = JSON.stringify(corpusFingerprint(loadCorpus(corpusDir)));
    const script = `
      import { childRunner } from ${JSON.stringify(RUNNERS_URL)};
      const r = childRunner({ name: 'paragraphs', file: ${JSON.stringify(fixture('paragraphs'))},
        corpusDir: ${JSON.stringify(corpusDir)}, expect: ${expectJson}, maxTokens: 64, targetTokens: 48 });
      await r.start();
      process.stdout.write(r.pid + '\\n');
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = new Promise<number>((resolve, reject) => {
      parent.stdout.setEncoding('utf8').once('data', (s: string) => resolve(Number(s.trim())));
      parent.once('exit', (code) => reject(new Error(`parent exited early (${code})`)));
    });
    const exited = new Promise<number | null>((resolve) => parent.once('exit', (code) => resolve(code)));
    return { parent, pid, exited };
  }

  it('kills the children when the parent is interrupted', async () => {
    const { parent, pid, exited } = startParent();
    const childPid = await pid;
    expect(isRunning(childPid)).toBe(true);
    parent.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(await waitUntil(() => !isRunning(childPid))).toBe(true);
  });

  it('a child whose parent is killed outright exits on its own', async () => {
    const { parent, pid, exited } = startParent();
    const childPid = await pid;
    parent.kill('SIGKILL');
    await exited;
    expect(await waitUntil(() => !isRunning(childPid))).toBe(true);
  });
});
