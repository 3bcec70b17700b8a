/**
 * Progress for the CLIs that embed many chunks. A person at a terminal gets a bar. On a pipe,
 * a log file or CI, escape codes and redraws would be noise, yet a long run that prints
 * nothing looks hung: there a plain line goes out every few seconds, and a run shorter than
 * that prints none (the CLIs print their own one-line summaries).
 */
import { createRequire } from 'node:module';
import { escapeControl } from './errors.js';

export interface ProgressReporter {
  update(done: number): void;
  stop(): void;
}

/** Milliseconds between plain progress lines when no terminal is watching. */
export const PLAIN_PROGRESS_INTERVAL_MS = 5000;

/**
 * `label: done/total (p%)` at most once per `intervalMs`, the first only after `intervalMs`.
 * `now` is the clock (injected by tests).
 */
export function plainProgress(total: number, label: string, stream: NodeJS.WritableStream, intervalMs = PLAIN_PROGRESS_INTERVAL_MS, now: () => number = Date.now): ProgressReporter {
  // The label on one line with its control characters escaped (`\u001b`, line breaks, C1 and
  // bidirectional controls), as every message of the CLIs is: it holds a topic folder's name
  // and the configured model, and a name holding a line break wrote a line of its own into a CI
  // log (where `::error::`-style lines are commands), or ESC sequences to a terminal.
  const shown = escapeControl(label);
  let last = now();
  let stopped = false;
  return {
    update(done: number) {
      if (stopped || now() - last < intervalMs) return;
      last = now();
      const pct = total > 0 ? Math.floor((100 * Math.min(done, total)) / total) : 100;
      stream.write(`${shown}: ${Math.min(done, total)}/${total} (${pct}%)\n`);
    },
    stop() {
      stopped = true;
    },
  };
}

/**
 * A bar counting `total` items, labelled `label`, on `stream` when it is a TTY outside CI;
 * otherwise plain lines every few seconds (see plainProgress). Feed it from
 * `embed(texts, { onProgress: (done) => bar.update(done) })` and call `stop()` at the end.
 */
export function progressReporter(
  total: number,
  label: string,
  stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr,
  env: Record<string, string | undefined> = process.env,
): ProgressReporter {
  if (!stream.isTTY || env.CI) return plainProgress(total, label, stream);
  // Loaded only for a terminal: the tools that import this module start without it.
  const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof import('cli-progress');
  const bar = new cliProgress.SingleBar(
    {
      stream,
      // The label goes in as a value, not into the format: a `{bar}` or `{total}` in a folder
      // name was a placeholder there.
      format: '{label} [{bar}] {value}/{total} {percentage}% | ETA {eta_formatted}',
      hideCursor: true,
      clearOnComplete: false,
      // Redraw at most ~10 times a second: embedding reports per batch, which can be faster.
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { label: escapeControl(label) }); // escaped as plainProgress's
  let stopped = false;
  return {
    update(done: number) {
      if (!stopped) bar.update(done);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}
