#!/usr/bin/env node
// How responsive is the inspector on a big document? Builds the generated ~200 KB topic (about
// 540 chunks at maxTokens 128) with the real tool CLIs, serves it with docs-serve, and times in
// Debian's Chromium (playwright-core): page ready (navigation start to everything drawn),
// click to detail, and one stripe step (event to the next frame). Medians of --runs page loads.
//
//   node apps/inspector/bench/measure.mjs [--runs 5] [--keep] [--sections 620] [--docs DIR] [--page DIR]
//
// Growth with size: --sections N generates a bigger document (about one chunk a section:
// 12500 gives ~12,500 chunks); --keep prints the built docs
// folder and --docs DIR measures that folder again without rebuilding. Time to ready should
// grow about linearly with the chunk count. --page DIR measures another copy of the page's
// static folder (an older one, to compare), copied beside the docs as `inspector build` does.
//
// Needs the built apps (npm ci builds them) and /usr/bin/chromium (or CHROMIUM_PATH).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { bigMarkdown } from '../scripts/big-doc.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, keep: { type: 'boolean', default: false }, sections: { type: 'string', default: '620' }, docs: { type: 'string' }, page: { type: 'string' } },
});
const sections = Number(values.sections);
if (!Number.isInteger(sections) || sections < 3) throw new Error(`--sections ${values.sections}: expected a whole number of at least 3`);
const runs = Math.max(1, Number(values.runs) || 5);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM}: no Chromium (apt-get install -y --no-install-recommends chromium)`);

const tool = (name, args) => execFileSync(process.execPath, [join(REPO, `apps/${name}/bin/${name}.js`), ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
const dir = values.docs ? resolve(values.docs, '..') : mkdtempSync(join(tmpdir(), 'inspector-bench-'));
const docs = values.docs ? resolve(values.docs) : join(dir, 'docs');
const topic = 'generated/big-topic';
const topicDir = join(docs, topic);
if (!values.docs) {
  mkdirSync(topicDir, { recursive: true });
  writeFileSync(join(topicDir, 'golden-reference.md'), bigMarkdown(sections));
  writeFileSync(join(dir, 'big.yaml'), 'chunking:\n  minTokens: 16\n  targetTokens: 86\n  maxTokens: 128\n');
  const t = Date.now();
  tool('chunking-tool', [topicDir, '--config', join(dir, 'big.yaml')]);
  tool('keyword-extractor', [topicDir]);
  tool('topic-spec', [topicDir, '--config', join(dir, 'big.yaml')]);
  tool('index-tool', [topicDir, '--root', docs]);
  tool('index-tool', [join(docs, 'generated'), docs, '--root', docs]);
  console.log(`built ${topic} (${statSync(join(topicDir, 'golden-reference.md')).size} bytes) in ${Date.now() - t} ms`);
} else if (!existsSync(join(topicDir, 'index.json'))) throw new Error(`--docs ${values.docs}: no ${topic}/index.json there (make one with --keep)`);

// The page under test: docs-serve's own /_inspect/, or a copy of --page beside the docs.
let pagePath = '_inspect/';
if (values.page) {
  if (!existsSync(join(values.page, 'index.html'))) throw new Error(`--page ${values.page}: no index.html there`);
  pagePath = '_page-under-test/index.html'; // a static host has no folder index
  rmSync(join(docs, '_page-under-test'), { recursive: true, force: true });
  cpSync(values.page, join(docs, '_page-under-test'), { recursive: true });
}

const server = spawn(process.execPath, [join(REPO, 'apps/docs-serve/bin/docs-serve.js'), docs, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise((res, rej) => {
  let out = '';
  server.stdout.on('data', (d) => {
    out += d;
    const m = /at (http:\/\/\S+\/) /.exec(out);
    if (m) res(m[1]);
  });
  server.on('exit', (code) => rej(new Error(`docs-serve exited with ${code}`)));
});

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const samples = { loaded: [], checked: [], drawn: [], ready: [], frame: [], click: [], step: [] };
let chunks = 0;
try {
  for (let r = 0; r < runs; r++) {
    const page = await browser.newPage({ viewport: { width: 1500, height: 940 } });
    page.setDefaultTimeout(600_000);
    await page.goto(`${base}${pagePath}?topic=${topic}`);
    await page.waitForSelector('body[data-ready=true]', { timeout: 600_000 });
    samples.ready.push(Number(await page.getAttribute('body', 'data-ready-ms')));
    // The first frame drawn after ready (from navigation start, plus a round trip to the page):
    // layout and paint the page put off until then are counted too.
    samples.frame.push(await page.evaluate(() => new Promise((res) => requestAnimationFrame(() => setTimeout(() => res(Math.round(performance.now())), 0)))));
    // The page's marks: files fetched, SHA-256 checked, DOM built (all from navigation start).
    const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, Math.round(m.startTime)])));
    for (const k of ['loaded', 'checked', 'drawn']) samples[k].push(marks[`inspector:${k}`]);
    chunks = await page.locator('#source [data-chunk-index]').count();
    // Event to the next frame, inside the page: what a person waits for after clicking.
    const nextFrame = (fn) =>
      page.evaluate(
        (code) =>
          new Promise((res) => {
            const t0 = performance.now();
            new Function(code)();
            requestAnimationFrame(() => setTimeout(() => res(performance.now() - t0), 0));
          }),
        fn,
      );
    const k = chunks - 1 - r;
    samples.click.push(await nextFrame(`document.querySelector('#source [data-chunk-index="${k}"]').click()`));
    samples.step.push(await nextFrame(`document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight' }))`));
    await page.close();
  }
} finally {
  await browser.close();
  server.kill('SIGTERM');
  if (values.page) rmSync(join(docs, '_page-under-test'), { recursive: true, force: true });
  if (values.docs) {
    // measured someone's folder: leave it
  } else if (!values.keep) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${docs}`);
}
const m = Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]));
console.log(`${chunks} chunks, ${runs} runs, medians from navigation start: files fetched ${m.loaded} ms, source checked ${m.checked} ms, drawn ${m.drawn} ms, page ready ${m.ready} ms, first frame after ready ${m.frame} ms`);
console.log(`  click to detail ${m.click.toFixed(1)} ms, stripe step ${m.step.toFixed(1)} ms (event to next frame)`);
console.log(JSON.stringify({ chunks, runs, samples }));
