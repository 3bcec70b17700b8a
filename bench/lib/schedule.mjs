// The run's schedule, whatever runs the adapters (lib/runners.mjs): set every adapter up,
// then warm-up and timed rounds with one pass per adapter per round (A B A B …, so drift in
// machine load hits every adapter alike), one pass at a time, then each adapter's chunks
// from its last timed pass.
import { errorText } from './runners.mjs';

/**
 * @typedef {object} AdapterRun
 * @property {string} name
 * @property {string} peer
 * @property {string} version
 * @property {string} description
 * @property {'ok' | 'unavailable' | 'failed'} status
 * @property {string} [error]
 * @property {object} [settings]
 * @property {import('./runners.mjs').Runner} runner
 * @property {number[]} warmupMs
 * @property {number[]} passesMs
 * @property {number} consoleMessagesSuppressed
 * @property {any} [timing]
 * @property {any} [rss]
 * @property {any} [metrics]
 */

/** @typedef {(msg: string) => void} Progress */

/** @param {AdapterRun[]} runs */
export const active = (runs) => runs.filter((a) => a.status === 'ok');

/**
 * Starts every runner in turn (setup() is not timed); one that cannot start is 'unavailable'.
 * @param {import('./runners.mjs').Runner[]} runners
 * @param {Progress} progress
 * @returns {Promise<AdapterRun[]>}
 */
export async function startAll(runners, progress) {
  /** @type {AdapterRun[]} */
  const runs = [];
  for (const runner of runners) {
    const { name } = runner;
    /** @type {AdapterRun} */
    const a = { name, peer: name, version: 'unknown', description: '', status: 'ok', runner, warmupMs: [], passesMs: [], consoleMessagesSuppressed: 0 };
    runs.push(a);
    try {
      const { suppressed, ...info } = await runner.start();
      Object.assign(a, info);
      a.consoleMessagesSuppressed += suppressed ?? 0;
      progress(`adapter ${name}: ${a.peer}@${a.version} ready`);
    } catch (err) {
      Object.assign(a, /** @type {any} */ (err).info);
      await drop(a, 'unavailable', errorText(err));
      progress(`adapter ${name}: unavailable: ${a.error}`);
    }
  }
  return runs;
}

/**
 * @param {AdapterRun[]} runs
 * @param {{ warmup: number, runs: number, slowMs: number, slowRuns: number, progress: Progress }} opts
 *   an adapter whose warm-up pass took over slowMs (0: never) gets only slowRuns timed passes,
 *   so one pathologically slow peer cannot hold the whole run hostage; the report marks it
 */
export async function runRounds(runs, { warmup, runs: timedRuns, slowMs, slowRuns, progress }) {
  /** @param {AdapterRun} a */
  const budget = (a) => (slowMs > 0 && a.warmupMs.some((ms) => ms > slowMs) ? Math.min(slowRuns, timedRuns) : timedRuns);
  for (let round = 0; round < warmup + timedRuns; round++) {
    const timed = round >= warmup;
    const label = timed ? `pass ${round - warmup + 1}/${timedRuns}` : `warm-up ${round + 1}/${warmup}`;
    for (const a of active(runs)) {
      if (timed && a.passesMs.length >= budget(a)) continue;
      try {
        const { ms, suppressed } = await a.runner.pass(timed && a.passesMs.length === budget(a) - 1);
        a.consoleMessagesSuppressed += suppressed;
        (timed ? a.passesMs : a.warmupMs).push(ms);
        progress(`${label} ${a.name}: ${ms.toFixed(0)} ms`);
      } catch (err) {
        await drop(a, 'failed', failure('chunk() threw', err));
        progress(`${label} ${a.name}: ${a.error}`);
      }
    }
  }
}

/**
 * The chunks of the adapter's last timed pass, per file; null (and the adapter 'failed') if
 * toChunks() throws or its process dies. The runner is closed either way.
 * @param {AdapterRun} a
 * @param {Progress} progress
 * @returns {Promise<import('./metrics.mjs').BenchChunk[][] | null>}
 */
export async function collectChunks(a, progress) {
  try {
    const chunks = await a.runner.finish();
    await a.runner.close();
    return chunks;
  } catch (err) {
    await drop(a, 'failed', failure('metrics failed', err));
    progress(`${a.name}: ${a.error}`);
    return null;
  }
}

/** @param {AdapterRun[]} runs */
export async function closeAll(runs) {
  await Promise.all(runs.map((a) => a.runner.close()));
}

/** @param {string} what @param {unknown} err */
function failure(what, err) {
  // A dead child says so itself; "chunk() threw" would misdescribe it.
  return /** @type {any} */ (err)?.died ? errorText(err) : `${what}: ${errorText(err)}`;
}

/** @param {AdapterRun} a @param {'unavailable' | 'failed'} status @param {string} error */
async function drop(a, status, error) {
  a.status = status;
  a.error = error;
  // Frees its memory (or its process) now rather than at the end of the run.
  await a.runner.close();
}
