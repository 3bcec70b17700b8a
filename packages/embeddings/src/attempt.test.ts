// runAttempt: one remote attempt's timeout and caller abort, with real timers and signals.
import { describe, expect, it } from 'vitest';
import { runAttempt } from './attempt.js';

/** Resolves after `ms` unless `signal` aborts first (then rejects with its reason), as fetch does. */
const slow = (ms: number, value: string) => (signal: AbortSignal) =>
  new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => resolve(value), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });

describe('runAttempt', () => {
  it('returns the value of an attempt that finishes in time', async () => {
    expect(await runAttempt(1000, undefined, slow(5, 'ok'))).toEqual({ ok: true, value: 'ok' });
  });

  it('aborts an attempt past its timeout and says it timed out', async () => {
    const outcome = await runAttempt(20, undefined, slow(5000, 'late'));
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.timedOut).toBe(true);
      expect(String(outcome.error)).toMatch(/timed out after 20 ms/);
    }
  });

  it('a caller abort ends the attempt with the caller reason, not as a timeout', async () => {
    const caller = new AbortController();
    setTimeout(() => caller.abort(new Error('stopped by the user')), 10);
    const outcome = await runAttempt(5000, caller.signal, slow(5000, 'late'));
    expect(outcome).toMatchObject({ ok: false, timedOut: false });
    if (!outcome.ok) expect(String(outcome.error)).toMatch(/stopped by the user/);
  });

  it('a caller that aborted before the attempt: it is cancelled at once, not left running until the timeout', async () => {
    const caller = new AbortController();
    caller.abort(new Error('stopped by the user'));
    let sent = false;
    const started = Date.now();
    const outcome = await runAttempt(1000, caller.signal, (signal) => ((sent = true), slow(1000, 'late')(signal)));
    expect(outcome).toMatchObject({ ok: false, timedOut: false });
    if (!outcome.ok) expect(String(outcome.error)).toMatch(/stopped by the user/);
    expect(sent).toBe(false);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('an attempt that throws is a failure that did not time out', async () => {
    const outcome = await runAttempt(1000, undefined, async () => {
      throw new SyntaxError('bad JSON');
    });
    expect(outcome).toMatchObject({ ok: false, timedOut: false });
    if (!outcome.ok) expect(outcome.error).toBeInstanceOf(SyntaxError);
  });
});
