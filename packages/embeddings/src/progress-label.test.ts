// A progress label holds a topic folder's name and the configured model (issue 15 probe): a
// folder named with a line break wrote a line of its own into a CI log (`::error::…` lines are
// commands there), an ESC sequence went to the terminal raw, and on a terminal a `{total}` in
// the name was taken for cli-progress's placeholder. Real streams, the real cli-progress.
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainProgress, progressReporter } from './progress.js';

function fakeStream(isTTY: boolean): PassThrough & { isTTY?: boolean; columns?: number; text(): string } {
  const chunks: Buffer[] = [];
  const s = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number; text(): string };
  s.on('data', (c: Buffer) => chunks.push(c));
  if (isTTY) {
    s.isTTY = true;
    s.columns = 400;
  }
  s.text = () => Buffer.concat(chunks).toString('utf8');
  return s;
}
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('progress labels (issue 15 probe)', () => {
  it('a plain line stays one line with the label escaped, whatever the label holds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 40 }), async (name) => {
        const s = fakeStream(false);
        let t = 0;
        const p = plainProgress(2, `embedding docs/${name} (m)`, s, 10, () => t);
        t += 20;
        p.update(1);
        p.stop();
        await tick();
        const text = s.text();
        expect(text.endsWith(': 1/2 (50%)\n')).toBe(true);
        expect(text.slice(0, -1)).not.toContain('\n');
        expect(text).not.toMatch(CONTROLS);
      }),
      { numRuns: 200 },
    );
  });

  it('a folder name with a line break and a CI command is one escaped line', async () => {
    const s = fakeStream(false);
    let t = 0;
    const p = plainProgress(4, 'embedding docs/x\n::error::pwned\u001b[2J (m)', s, 10, () => t);
    t += 20;
    p.update(2);
    await tick();
    expect(s.text()).toBe('embedding docs/x\\u000a::error::pwned\\u001b[2J (m): 2/4 (50%)\n');
  });

  it('on a terminal, braces in the label are the label, not placeholders, and its controls are escaped', async () => {
    const s = fakeStream(true);
    const bar = progressReporter(10, 'embedding docs/{total}-{bar}\u001b]0;t\u0007 (m)', s, {});
    bar.update(3);
    bar.stop();
    await tick();
    const out = s.text();
    expect(out).toContain('embedding docs/{total}-{bar}\\u001b]0;t\\u0007 (m) [');
    expect(out).toContain('3/10');
    expect(out).not.toContain('\u001b]0;');
  });
});
