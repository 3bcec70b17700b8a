// The inspector on documents a hostile (or careless) author can write, in a real browser: Debian's
// Chromium through playwright-core, the real docs-serve on loopback, topics built by the real
// tools (issue 15's fresh probe of the page, session 55). Each case failed before its fix.
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { startServer, type RunningServer } from '../../docs-serve/src/server.js';
import { buildDocs, type BuiltDocs } from './fixture.js';

const CHROMIUM = process.env.CHROMIUM_PATH || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

/** Lines ended by a lone CR (old Mac files, some generators): markdown and the chunker end a line there. */
const CR_TOPIC = 'tests/cr-only';
const CR_LINES = 40;
const CR_MD = ['# CR only', '', ...Array.from({ length: CR_LINES }, (_, k) => `Line ${k}.`), ''].join('\r');

/** A topic whose document is chunked again (fewer chunks) after its index.json was built. */
const STALE_TOPIC = 'tests/stale-index';
const section = (k: number) => `## Section ${k}\n\n${'Serializer options and converters are described in this section at some length. '.repeat(6)}\n`;
const STALE_MD = ['# Stale index', '', ...[1, 2, 3, 4, 5].map(section)].join('\n');

/**
 * A line that opens with a right-to-left override (U+202E, no closing U+202C) and is long enough
 * to be cut into several chunks mid-line: what follows it on the line is drawn right to left.
 */
const RLO_TOPIC = 'tests/rlo-line';
const RLO_MD = ['# Override', '', `\u202e${Array.from({ length: 40 }, (_, k) => `Sentence number ${k} says something about serializers and converters.`).join(' ')}`, ''].join('\n');

/** A topic whose folder name holds a right-to-left override. */
const RLO_ID_TOPIC = 'tests/rlo-\u202eid';

/** Titles, a heading and breadcrumbs of 10,000 characters with no break opportunity. */
const LONG_TOPIC = 'tests/long-title';
const LONG = 10_000;
const LONG_MD = [`# ${'T'.repeat(LONG)}`, '', 'The first section says a little.', '', `## ${'H'.repeat(LONG)}`, '', 'The second section says a little more about serializers.', ''].join('\n');

let built: BuiltDocs;
let server: RunningServer;
let browser: Browser;
let setupError: Error | undefined;

beforeAll(async () => {
  if (!CHROMIUM || !existsSync(CHROMIUM)) {
    setupError = new Error(`Chromium not found at ${CHROMIUM ?? '/usr/bin/chromium'}. Install Debian's package (apt-get install -y --no-install-recommends chromium) or set CHROMIUM_PATH. These tests need a real browser and never download one.`);
    return;
  }
  built = await buildDocs({ sample: false, extra: { [CR_TOPIC]: CR_MD, [LONG_TOPIC]: LONG_MD, [STALE_TOPIC]: STALE_MD, [RLO_TOPIC]: RLO_MD, [RLO_ID_TOPIC]: '# Folder name with an override\n\nA little text.\n' }, configs: { [RLO_TOPIC]: 'chunking:\n  minTokens: 16\n  targetTokens: 40\n  maxTokens: 64\n' } });
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

/** The parts of the page wider than the viewport or than the pane that holds them (a pane that scrolls sideways hides what sticks out). */
function overflowing(page: Page) {
  return page.evaluate(() => {
    const wide: string[] = [];
    if (document.documentElement.scrollWidth > innerWidth) wide.push(`the page (${document.documentElement.scrollWidth} > ${innerWidth})`);
    for (const el of document.querySelectorAll<HTMLElement>('.pane, .topics, .heading')) {
      if (el.scrollWidth > el.clientWidth + 1) wide.push(`${el.className || el.id} (${el.scrollWidth} > ${el.clientWidth})`);
    }
    for (const el of document.querySelectorAll<HTMLElement>('.topic-list a')) {
      const box = el.getBoundingClientRect();
      for (const child of el.children) if (child.getBoundingClientRect().right > box.right + 1) wide.push(`topic card ${child.className || child.tagName}`);
    }
    return wide;
  });
}

describe('titles, headings, breadcrumbs and keywords of 10,000 characters without a space', () => {
  it('wrap inside their pane in the detail, the topic list and the header; none is pushed out of sight', async () => {
    // A keyword as long, from a hand-edited index.json (a pull request's): the extractor writes short ones.
    const file = join(built.docs, LONG_TOPIC, 'index.json');
    const index = JSON.parse(readFileSync(file, 'utf8')) as { _embedded: { chunks: Record<string, { items: { keywords: { name: string; score: number }[] }[] }> } };
    for (const item of index._embedded.chunks['golden-reference']!.items) item.keywords.unshift({ name: 'K'.repeat(LONG), score: 1 });
    writeFileSync(file, JSON.stringify(index));
    const { page, errors } = await open(`/_inspect/?topic=${LONG_TOPIC}`);
    const chunks = await page.locator('#chunk-list [data-chunk-index]').count();
    expect(chunks).toBeGreaterThanOrEqual(2);
    // The heading's chunks come first (its 10,000 characters cut into many), the second section's last.
    for (const i of [0, 1, chunks - 1]) {
      await page.click(`#chunk-list [data-chunk-index="${i}"]`);
      // Before: the detail's title, breadcrumb and keyword ran 10,000 characters past the pane's edge.
      // (By length: a failure must not print 10,000 characters; the chunker cuts a section title short.)
      expect(((await page.textContent('#detail .detail-title')) ?? '').length).toBeGreaterThan(200);
      expect(await overflowing(page)).toEqual([]);
    }
    expect(errors).toEqual([]);
    await page.close();
    const list = await open('/_inspect/');
    expect(Math.max(...(await list.page.$$eval('.topic-list .topic-title', (els) => els.map((e) => (e.textContent ?? '').length))))).toBeGreaterThan(200);
    expect(await overflowing(list.page)).toEqual([]);
    expect(list.errors).toEqual([]);
    await list.page.close();
  });
});

describe('a chunk manifest newer than its topic index.json', () => {
  it('is named as such, with both files and what to run, not drawn with the old stripe order and keywords', async () => {
    const dir = join(built.docs, STALE_TOPIC);
    const before = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { _embedded: { chunks: Record<string, { count: number; stripe_order: number[] }> } };
    const group = before._embedded.chunks['golden-reference']!;
    expect(group.count).toBeGreaterThanOrEqual(3);
    // The document cut to one section and chunked again, the index not rebuilt (chunking-tool
    // alone, or a pull request that changed one file and not the other).
    writeFileSync(join(dir, 'golden-reference.md'), ['# Stale index', '', section(1)].join('\n'));
    expect(await chunk([dir], { stdout: () => {}, stderr: () => {} })).toBe(0);
    const { page, errors } = await open(`/_inspect/?topic=${STALE_TOPIC}`);
    // Before: drawn with no message; the strip's cells for the chunks gone did nothing and none was selected.
    const message = (await page.textContent('#error')) ?? '';
    expect(message).toContain(`${server.url}${STALE_TOPIC}/index.json: _embedded.chunks["golden-reference"].count is ${group.count}, but ${server.url}${STALE_TOPIC}/_chunks/golden-reference.json has 1 chunk`);
    expect(message).toContain('rebuild: npx nx run-many -t index');
    expect(await page.isVisible('#workspace')).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('a right-to-left override in the document', () => {
  /**
   * The columns of ink in a chunk's label as drawn, left to right: the label painted a colour
   * nothing else has, the screenshot read back in the page through a canvas, and each column of
   * the label's box counted for pixels that are not that colour (its text). `ref` draws the same
   * label in a block of its own, where no override reaches.
   */
  async function labelInk(page: Page, selector: string) {
    const clip = await page.evaluate((sel) => {
      const el = document.querySelector(sel)!;
      el.scrollIntoView({ block: 'center' });
      const r = el.getBoundingClientRect();
      const pane = document.querySelector('.source-pane')!.getBoundingClientRect();
      // The label is on the chunk's first line, which may begin anywhere on the pane's width.
      return { x: pane.x, y: Math.max(pane.y, r.y - 4), width: pane.width, height: 32 };
    }, selector);
    const png = (await page.screenshot({ clip })).toString('base64');
    return page.evaluate(async (data) => {
      const img = new Image();
      img.src = `data:image/png;base64,${data}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      [canvas.width, canvas.height] = [img.width, img.height];
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const { data: px, width, height } = ctx.getImageData(0, 0, img.width, img.height);
      const isLabel = (i: number) => px[i] === 255 && px[i + 1] === 0 && px[i + 2] === 255;
      let [x0, x1, y0, y1] = [width, -1, height, -1];
      for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (isLabel((y * width + x) * 4)) [x0, x1, y0, y1] = [Math.min(x0, x), Math.max(x1, x), Math.min(y0, y), Math.max(y1, y)];
      const columns: number[] = [];
      for (let x = x0; x <= x1; x++) {
        let ink = 0;
        for (let y = y0; y <= y1; y++) if (!isLabel((y * width + x) * 4)) ink++;
        columns.push(ink);
      }
      return columns;
    }, png);
  }

  it("does not reverse the page's own chunk labels (#N · tokens/cap tok) drawn on that line", async () => {
    // bypassCSP only lets the test add its colouring style; the page's own policy is tested elsewhere.
    const page = await browser.newPage({ viewport: { width: 1500, height: 940 }, bypassCSP: true });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(new URL(`/_inspect/?topic=${RLO_TOPIC}`, server.url).href);
    await page.waitForSelector('body[data-ready=true]');
    const chunks = await page.locator('#source [data-chunk-index]').count();
    expect(chunks).toBeGreaterThanOrEqual(4); // the line is cut into several chunks
    const k = 2;
    const label = await page.getAttribute(`#source [data-chunk-index="${k}"]`, 'data-label');
    expect(label).toMatch(/^#2 · \d+\/64 tok$/);
    // The same label in a block of its own, where no override reaches, and both painted magenta.
    await page.evaluate(([l, i]) => {
      const pre = document.createElement('pre');
      pre.className = 'source';
      pre.id = 'ref';
      pre.style.padding = '4px';
      const span = document.createElement('span');
      span.className = `chunk hue${i}`;
      span.dataset.label = l;
      span.textContent = 'x';
      pre.append(span);
      document.getElementById('source')!.before(pre);
    }, [label!, String(k)] as const);
    await page.addStyleTag({ content: `#ref .chunk::before, #source [data-chunk-index="${k}"]::before { background: rgb(255, 0, 255) !important; color: #000 !important; box-shadow: none !important; border-radius: 0 !important; }` });
    const ref = await labelInk(page, '#ref .chunk');
    await page.evaluate(() => document.getElementById('ref')!.remove());
    const drawn = await labelInk(page, `#source [data-chunk-index="${k}"]`);
    expect(ref.length).toBeGreaterThan(40);
    // Before: the label read "kot 46/33 · 2#", its ink in other columns.
    const width = Math.min(ref.length, drawn.length);
    const diff = (a: number[], b: number[]) => a.slice(0, width).reduce((n, v, x) => n + Math.abs(v - (b[x] ?? 0)), 0);
    const total = ref.reduce((n, v) => n + v, 0);
    expect(Math.abs(ref.length - drawn.length)).toBeLessThanOrEqual(1);
    expect(diff(drawn, ref) / total).toBeLessThan(0.15);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('in a topic folder name does not reorder the header line it is named on', async () => {
    const { page, errors } = await open(`/_inspect/?topic=${encodeURIComponent(RLO_ID_TOPIC)}`);
    expect(await page.textContent('#subtitle code')).toBe(RLO_ID_TOPIC);
    // "All topics / tests/rlo-<RLO>id / golden-reference.md": before, the override ran on to the
    // end of the line and drew the source link left of the folder name, its text reversed.
    const boxes = await page.evaluate(() => ['#subtitle code', '#subtitle a[href$=".md"]'].map((sel) => document.querySelector(sel)!.getBoundingClientRect().left));
    expect(boxes[1]!).toBeGreaterThan(boxes[0]!);
    const link = await page.evaluate(() => {
      const a = document.querySelector('#subtitle a[href$=".md"]')!;
      const range = document.createRange();
      range.setStart(a.firstChild!, 0);
      range.setEnd(a.firstChild!, 1);
      const first = range.getBoundingClientRect().left;
      range.setStart(a.firstChild!, a.textContent!.length - 1);
      range.setEnd(a.firstChild!, a.textContent!.length);
      return { first, last: range.getBoundingClientRect().left };
    });
    expect(link.last).toBeGreaterThan(link.first); // "golden-reference.md" reads left to right
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('a script in an .html or .svg of the docs tree (s59 probe)', () => {
  it('runs in an opaque origin of its own, never the origin of the inspector at /_inspect/', async () => {
    // Before: the page's script ran as http://127.0.0.1:<port>, the inspector's origin: it could
    // script an /_inspect/ frame, read its storage, or draw a fake inspector over the docs.
    const probe = `document.documentElement.setAttribute('data-origin', self.origin);
      try { localStorage.setItem('x', '1'); document.documentElement.setAttribute('data-storage', 'yes'); } catch { document.documentElement.setAttribute('data-storage', 'no'); }`;
    writeFileSync(join(built.docs, 'tests/active.html'), `<!doctype html><title>x</title><script>${probe}</script><iframe src="/_inspect/"></iframe>\n`);
    writeFileSync(join(built.docs, 'tests/active.svg'), `<svg xmlns="http://www.w3.org/2000/svg"><script>${probe}</script></svg>\n`);
    const origin = new URL(server.url).origin;
    for (const file of ['tests/active.html', 'tests/active.svg']) {
      const page = await browser.newPage();
      await page.goto(new URL(file, server.url).href);
      await page.waitForFunction(() => document.documentElement.hasAttribute('data-storage'));
      expect(await page.getAttribute(':root', 'data-origin'), file).toBe('null');
      expect(await page.getAttribute(':root', 'data-storage'), file).toBe('no');
      if (file.endsWith('.html')) {
        // The inspector in a frame of it is another origin to it: its document is out of reach.
        await page.frames()[1]!.waitForSelector('body[data-ready=true]');
        expect(await page.evaluate(() => { try { return document.querySelector('iframe')!.contentDocument?.title ?? 'unreachable'; } catch { return 'unreachable'; } })).toBe('unreachable');
      }
      await page.close();
    }
    // The inspector itself keeps the server's origin.
    const { page, errors } = await open('/_inspect/');
    expect(await page.evaluate(() => self.origin)).toBe(origin);
    expect(errors).toEqual([]);
    await page.close();
  });
});
