// The inspector on documents a hostile (or careless) author can write, in a real browser: Debian's
// Chromium through playwright-core, the real docs-serve on loopback, topics built by the real
// tools (issue 15's fresh probe of the page, session 55). Each case failed before its fix.
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../docs-serve/src/server.js';
import { buildDocs, type BuiltDocs } from './fixture.js';

const CHROMIUM = process.env.CHROMIUM_PATH || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

/** Lines ended by a lone CR (old Mac files, some generators): markdown and the chunker end a line there. */
const CR_TOPIC = 'tests/cr-only';
const CR_LINES = 40;
const CR_MD = ['# CR only', '', ...Array.from({ length: CR_LINES }, (_, k) => `Line ${k}.`), ''].join('\r');

let built: BuiltDocs;
let server: RunningServer;
let browser: Browser;
let setupError: Error | undefined;

beforeAll(async () => {
  if (!CHROMIUM || !existsSync(CHROMIUM)) {
    setupError = new Error(`Chromium not found at ${CHROMIUM ?? '/usr/bin/chromium'}. Install Debian's package (apt-get install -y --no-install-recommends chromium) or set CHROMIUM_PATH. These tests need a real browser and never download one.`);
    return;
  }
  built = await buildDocs({ sample: false, extra: { [CR_TOPIC]: CR_MD } });
  server = await startServer({ root: built.docs, port: 0 });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 300_000);

beforeEach(() => {
  if (setupError) throw setupError;
});

afterAll(async () => {
  await browser?.close();
  await server?.close(0);
  if (built) rmSync(built.dir, { recursive: true, force: true });
});

/** Opens a page and waits until the inspector says it is ready; collects page errors. */
async function open(path: string) {
  const page = await browser.newPage({ viewport: { width: 1500, height: 940 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(new URL(path, server.url).href);
  await page.waitForSelector('body[data-ready=true]');
  return { page, errors };
}

/** How many lines the browser drew `selector`'s text on: the distinct tops of its text's line boxes. */
function drawnLines(page: Page, selector: string) {
  return page.evaluate((sel) => {
    const range = document.createRange();
    range.selectNodeContents(document.querySelector(sel)!);
    return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
  }, selector);
}

describe('a document whose lines end in a lone CR', () => {
  it('is drawn a line per line, in the source and in embedText, every position kept', async () => {
    const index = JSON.parse(readFileSync(join(built.docs, CR_TOPIC, 'index.json'), 'utf8')) as { _embedded: { chunks: Record<string, { manifest: string; source: string }> } };
    const group = index._embedded.chunks['golden-reference']!;
    const manifest = JSON.parse(readFileSync(join(built.docs, CR_TOPIC, group.manifest), 'utf8')) as { chunks: { embedText: string; sourcePosition: { charStart: number; charEnd: number } }[] };
    const source = readFileSync(join(built.docs, CR_TOPIC, group.source), 'utf8');
    expect(source).toBe(CR_MD);
    expect(manifest.chunks).toHaveLength(1); // one chunk holds every line
    const { page, errors } = await open(`/_inspect/?topic=${CR_TOPIC}`);
    // Before: the lines ran together, "Line 0.Line 1.Line 2.…" wrapped on 3 lines.
    expect(await drawnLines(page, '#source [data-chunk-index="0"]')).toBeGreaterThanOrEqual(CR_LINES);
    expect(await drawnLines(page, '#detail .embed-text')).toBeGreaterThanOrEqual(CR_LINES);
    // The drawn text is the source character for character, a CR shown as a line break.
    const all = (await page.textContent('#source'))!;
    expect(all.length).toBe(source.length);
    expect(all).toBe(source.replaceAll('\r', '\n'));
    const c = manifest.chunks[0]!;
    expect(await page.textContent('#source [data-chunk-index="0"]')).toBe(source.slice(c.sourcePosition.charStart, c.sourcePosition.charEnd).replaceAll('\r', '\n'));
    expect(await page.isVisible('#warning')).toBe(false); // the SHA-256 is of the text as served
    expect(errors).toEqual([]);
    await page.close();
  });
});
