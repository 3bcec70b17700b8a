// A server's index.json names the hrefs, ids and document names that errors quote: a child href
// of 200 KB made docs-query print a 200 KB error line, and only the index's 64 MiB cap bounded
// it (issue 15 probe). Messages keep the start and end of such a value and count what they
// leave out; the error's `where` and `problem` stay whole. A real HTTP server on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractError, elideMiddle, MESSAGE_PROBLEM_MAX, MESSAGE_WHERE_MAX } from './contract.js';
import { SourceError, UrlSource } from './source.js';
import { walkTopics } from './walk.js';

const LONG_HREF = `/${'a'.repeat(200_000)}/index.json`;
const LONG_ID = `id-${'b'.repeat(100_000)}-end`;
let root = '';
let server: Server;
let base: string;
beforeAll(async () => {
  // Node's parser refuses a 200 KB request line by default (431); this server, as a hostile one
  // may, answers whatever it is asked.
  server = createServer({ maxHeaderSize: 1 << 20 }, (_req, res) => res.end(root));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const section = (children: { id: string; href: string }[]) =>
  JSON.stringify({
    kind: 'section',
    id: '',
    title: 'Root',
    _links: { self: { href: '/index.json' } },
    _embedded: { topics: children.map((c) => ({ id: c.id, kind: 'section', title: 'S', _links: { self: { href: c.href } } })) },
  });

async function walkError(): Promise<Error> {
  try {
    await walkTopics(new UrlSource(base));
  } catch (err) {
    return err as Error;
  }
  throw new Error('the walk did not fail');
}

describe('errors quoting what a server sent', () => {
  it('a 200 KB child href: the message names the start and end of the URL and the problem, in a few KB (it was 200 KB)', async () => {
    // Every URL answers with the root index, so the child says it is /index.json: a mismatch.
    root = section([{ id: 's', href: LONG_HREF }]);
    const err = await walkError();
    expect(err).toBeInstanceOf(ContractError);
    expect((err as ContractError).where).toBe(new URL(LONG_HREF, base).href);
    expect(err.message.length).toBeLessThan(MESSAGE_WHERE_MAX + MESSAGE_PROBLEM_MAX + 100);
    expect(err.message.startsWith(`${base}aaaa`)).toBe(true);
    expect(err.message).toMatch(/…\[\d+ characters\]…/);
    expect(err.message).toMatch(/aaaa\/index\.json: _links\.self says \/index\.json, but it was loaded from \/aaaa.*…\[\d+ characters\]…a+\/index\.json$/);
  });

  it('a 100 KB child id linking back to the root: the problem is cut in the middle, its end kept', async () => {
    root = section([{ id: LONG_ID, href: '/index.json' }]);
    const err = await walkError();
    expect(err).toBeInstanceOf(ContractError);
    expect((err as ContractError).problem.length).toBeGreaterThan(100_000);
    expect(err.message.length).toBeLessThan(MESSAGE_PROBLEM_MAX + 200);
    expect(err.message).toMatch(new RegExp(`^${base}index\\.json: id-b+…\\[\\d+ characters\\]….*which is this index or one above it \\(a cycle\\)$`));
  });

  it('short values are shown whole, as before', () => {
    expect(new SourceError('http://h/x.json', 'HTTP 404 Not Found').message).toBe('http://h/x.json: HTTP 404 Not Found');
    expect(new ContractError('/d/index.json', 'title: expected a string, got 5').message).toBe('/d/index.json: title: expected a string, got 5');
  });

  it('elideMiddle: at most about max units, start and end kept, the count right, no surrogate pair split (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '😀', '\ud800', 'é', '\n'), maxLength: 400 }), fc.integer({ min: 2, max: 300 }), (s, max) => {
        const out = elideMiddle(s, max);
        if (s.length <= max) {
          expect(out).toBe(s);
          return;
        }
        const m = /^([^]*)…\[(\d+) characters\]…([^]*)$/.exec(out)!;
        expect(m).not.toBeNull();
        const [, head, count, tail] = m as unknown as [string, string, string, string];
        expect(s.startsWith(head) && s.endsWith(tail)).toBe(true);
        expect(head.length + Number(count) + tail.length).toBe(s.length);
        expect(head.length + tail.length).toBeLessThanOrEqual(max);
        expect(head.length + tail.length).toBeGreaterThanOrEqual(max - 2);
        // A pair of s never cut in two: the text kept has no lone surrogate s did not have.
        const lone = (t: string) => (t.match(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g) ?? []).length;
        expect(lone(head) + lone(tail)).toBeLessThanOrEqual(lone(s));
      }),
      { numRuns: 300 },
    );
  });
});
