#!/usr/bin/env node
// How responsive is the inspector on a big document? Builds the generated ~200 KB topic (about
// 540 chunks at maxTokens 128) with the real tool CLIs, serves it with docs-serve, and times in
// Debian's Chromium (playwright-core): page ready (navigation start to everything drawn),
// click to detail, and one stripe step (event to the next frame). Medians of --runs page loads.
//
//   node apps/inspector/bench/measure.mjs [--runs 5] [--keep]
//
// Needs the built apps (npm ci builds them) and /usr/bin/chromium (or CHROMIUM_PATH).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { bigMarkdown } from '../scripts/big-doc.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, keep: { type: 'boolean', default: false } } });
const runs = Math.max(1, Number(values.runs) || 5);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM}: no Chromium (apt-get install -y --no-install-recommends chromium)`);

const tool = (name, args) => execFileSync(process.execPath, [join(REPO, `apps/${name}/bin/${name}.js`), ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
const dir = mkdtempSync(join(tmpdir(), 'inspector-bench-'));
const docs = join(dir, 'docs');
const topic = 'generated/big-topic';
const topicDir = join(docs, topic);
mkdirSync(topicDir, { recursive: true });
writeFileSync(join(topicDir, 'golden-reference.md'), bigMarkdown());
writeFileSync(join(dir, 'big.yaml'), 'chunking:\n  minTokens: 16\n  targetTokens: 86\n  maxTokens: 128\n');
let t = Date.now();
tool('chunking-tool', [topicDir, '--config', join(dir, 'big.yaml')]);
tool('keyword-extractor', [topicDir]);
tool('topic-spec', [topicDir, '--config', join(dir, 'big.yaml')]);
tool('index-tool', [topicDir, '--root', docs]);
tool('index-tool', [join(docs, 'generated'), docs, '--root', docs]);
console.log(`built ${topic} (${statSync(join(topicDir, 'golden-reference.md')).size} bytes) in ${Date.now() - t} ms`);

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
const samples = { loaded: [], checked: [], drawn: [], ready: [], click: [], step: [] };
let chunks = 0;
try {
  for (let r = 0; r < runs; r++) {
    const page = await browser.newPage({ viewport: { width: 1500, height: 940 } });
    await page.goto(`${base}_inspect/?topic=${topic}`);
    await page.waitForSelector('body[data-ready=true]');
    samples.ready.push(Number(await page.getAttribute('body', 'data-ready-ms')));
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
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${docs}`);
}
const m = Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]));
console.log(`${chunks} chunks, ${runs} runs, medians from navigation start: files fetched ${m.loaded} ms, source checked ${m.checked} ms, drawn ${m.drawn} ms, page ready ${m.ready} ms`);
console.log(`  click to detail ${m.click.toFixed(1)} ms, stripe step ${m.step.toFixed(1)} ms (event to next frame)`);
console.log(JSON.stringify({ chunks, runs, samples }));
