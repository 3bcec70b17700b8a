/**
 * The order in which the MCP server starts the work of its requests: one job per turn of the
 * event loop, first come first served, none in the turn it came in, and a job whose signal
 * aborted before its turn (its client left, or cancelled it) is dropped without running.
 *
 * A search is synchronous CPU work once its query is embedded. Started as soon as its request
 * was read, it ran before Node looked at the sockets again: 250 searches whose clients had
 * already closed their connections all ran, one per accepted connection, before the server
 * got to the next live request, which was answered ~10 s later (issue 15 probe). Node reads a
 * request and the close that follows it in two turns of its loop (libuv stops reading a
 * socket at a short read, and Node accepts one connection per turn), so a job waits for the
 * turn after the one it came in: by then its client's close has been read and the job is
 * dropped. The wait is one turn of the loop, not a timer: an idle server loses nothing.
 *
 * A job only starts in its turn; the queue does not wait for it to finish, so a search that
 * awaits a remote embedding provider does not hold up the ones behind it.
 */
export class WorkQueue {
  readonly #jobs: Job[] = [];
  /** Index of the next job in #jobs: shift() on every turn was quadratic in a long queue. */
  #head = 0;
  #scheduled = false;
  /** Turns taken so far; a job may start from the second turn after it came. */
  #turns = 0;
  /** Jobs started and jobs dropped, for tests and diagnostics. */
  started = 0;
  dropped = 0;

  /**
   * Runs `work` in its turn and settles with its result; rejects with the signal's reason,
   * without running it, when `signal` aborts first.
   */
  run<T>(signal: AbortSignal | undefined, work: () => T | Promise<T>): Promise<T> {
    if (signal?.aborted) {
      this.dropped++;
      return Promise.reject(signal.reason as Error);
    }
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        done: false,
        from: this.#turns + 2,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          try {
            resolve(work());
          } catch (err) {
            reject(err as Error);
          }
        },
      };
      // Settled at once, not at its turn: its caller (and what it holds) is let go now.
      const onAbort = () => {
        if (job.done) return;
        job.done = true;
        this.dropped++;
        reject(signal!.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#jobs.push(job);
      this.#schedule();
    });
  }

  /** Jobs waiting for their turn (dropped ones excluded once their turn has passed). */
  get waiting(): number {
    return this.#jobs.length - this.#head;
  }

  #schedule(): void {
    if (this.#scheduled || this.waiting === 0) return;
    this.#scheduled = true;
    // setImmediate, not a microtask: the next turn comes after Node has polled its sockets.
    setImmediate(() => this.#turn());
  }

  #turn(): void {
    this.#scheduled = false;
    this.#turns++;
    // Dropped jobs are passed over in the same turn: they cost nothing. Jobs come in order, so
    // when the first live one must wait, the ones behind it must too.
    while (this.#head < this.#jobs.length) {
      const job = this.#jobs[this.#head]!;
      if (!job.done && job.from > this.#turns) break;
      this.#jobs[this.#head++] = undefined as unknown as Job;
      if (job.done) continue;
      job.done = true;
      this.started++;
      job.start();
      break;
    }
    if (this.#head === this.#jobs.length) {
      this.#jobs.length = 0;
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#jobs.length) {
      this.#jobs.splice(0, this.#head);
      this.#head = 0;
    }
    this.#schedule();
  }
}

interface Job {
  /** Started or dropped. */
  done: boolean;
  /** The first turn it may start in. */
  from: number;
  start: () => void;
}
