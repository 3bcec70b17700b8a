// progressReporter draws a bar only for a person at a terminal: never on a pipe or in CI.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressReporter } from './progress.js';

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
  it('does nothing when the stream is not a TTY', async () => {
    const s = fakeStream(false);
    const bar = progressReporter(10, 'embedding', s, {});
    bar.update(5);
    bar.stop();
    await tick();
    expect(s.text()).toBe('');
  });

  it('does nothing in CI, even on a TTY', async () => {
    const s = fakeStream(true);
    const bar = progressReporter(10, 'embedding', s, { CI: 'true' });
    bar.update(5);
    bar.stop();
    await tick();
    expect(s.text()).toBe('');
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
