/**
 * A progress bar for the CLIs that embed many chunks. Drawn only for a person watching a
 * terminal: on a pipe, a log file or CI, escape codes and redraws would be noise, so the
 * reporter is silent there (the CLIs print their own one-line summaries).
 */
import cliProgress from 'cli-progress';

export interface ProgressReporter {
  update(done: number): void;
  stop(): void;
}

const SILENT: ProgressReporter = { update() {}, stop() {} };

/**
 * A bar counting `total` items, labelled `label`, on `stream` — or a reporter that does
 * nothing when `stream` is not a TTY or `CI` is set in `env`. Feed it from
 * `embed(texts, { onProgress: (done) => bar.update(done) })` and call `stop()` at the end.
 */
export function progressReporter(
  total: number,
  label: string,
  stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr,
  env: Record<string, string | undefined> = process.env,
): ProgressReporter {
  if (!stream.isTTY || env.CI) return SILENT;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${label} [{bar}] {value}/{total} {percentage}% | ETA {eta_formatted}`,
      hideCursor: true,
      clearOnComplete: false,
      // Redraw at most ~10 times a second: embedding reports per batch, which can be faster.
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
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
