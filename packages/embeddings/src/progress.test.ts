// progressReporter draws a bar only for a person at a terminal: never on a pipe or in CI.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { plainProgress, progressReporter } from './progress.js';

function fakeStream(isTTY: boolean): PassThrough & { isTTY?: boolean; columns?: number; text(): string } {
  const chunks: Buffer[] = [];
  const s = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number; text(): string };
  s.on('data', (c: Buffer) => chunks.push(c));
  if (isTTY) {
    s.isTTY = true;
    s.columns = 100;
  }
  s.text = () => Buffer.concat(chunks).toString('utf8');
  return s;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('progressReporter', () => {
  it('prints no bar and nothing at all for a short run when the stream is not a TTY', async () => {
    const s = fakeStream(false);
    const bar = progressReporter(10, 'embedding', s, {});
    bar.update(5);
    bar.stop();
    await tick();
    expect(s.text()).toBe('');
  });

  it('in CI, even on a TTY, draws no bar', async () => {
    const s = fakeStream(true);
    const bar = progressReporter(10, 'embedding', s, { CI: 'true' });
    bar.update(5);
    bar.stop();
    await tick();
    expect(s.text()).toBe('');
  });

  it('without a terminal, a long run prints a plain line every interval, never escape codes, nothing after stop', async () => {
    const s = fakeStream(false);
    let t = 0;
    const p = plainProgress(200, 'embedding chunks', s, 5000, () => t);
    for (let done = 1; done <= 200; done++) {
      t += 100; // 100 ms per item: 20 s in all
      p.update(done);
    }
    p.stop();
    t += 10_000;
    p.update(200);
    await tick();
    const lines = s.text().split('\n').filter(Boolean);
    expect(lines).toEqual(['embedding chunks: 50/200 (25%)', 'embedding chunks: 100/200 (50%)', 'embedding chunks: 150/200 (75%)', 'embedding chunks: 200/200 (100%)']);
    // eslint-disable-next-line no-control-regex
    expect(s.text()).not.toMatch(/\u001b/);
  });

  it('draws a labelled bar with counts on a TTY outside CI, and stops once', async () => {
    const s = fakeStream(true);
    const bar = progressReporter(10, 'embedding chunks', s, {});
    bar.update(4);
    bar.update(10);
    bar.stop();
    bar.stop();
    bar.update(11); // after stop: ignored
    await tick();
    const out = s.text();
    expect(out).toContain('embedding chunks');
    expect(out).toContain('10/10');
    expect(out).toContain('100%');
    expect(out).not.toContain('11/10');
  });
});
