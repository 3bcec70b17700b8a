// A file replaced while docs-serve answers for it, the way every chunkyard tool writes (a temp
// file renamed over the old one): send looked at the old file for the headers and opened the new
// one for the body, so about one answer in ten during the swaps was a 200 whose body was the new
// file cut to the old file's length, under the old file's ETag: neither version, looking whole
// (probe). Now every 200 is one version whole; a request whose file is replaced under it is
// answered again. Real server, real renames, real HTTP.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startServer } from './server.js';

it('every answer for a file renamed over again and again is of one version, whole or the range asked, never a mix of two', async () => {
  const root = mkdtempSync(join(tmpdir(), 'serve-replaced-'));
  writeFileSync(join(root, 'index.json'), '{}');
  // Two versions of different lengths, so a mix shows in the length or the bytes.
  const versions = [`[${'1'.repeat(1000)}]\n`, `[${'2'.repeat(3000)}]\n`];
  const file = join(root, 'x.json');
  writeFileSync(file, versions[0]!);
  const srv = await startServer({ root, port: 0, inspector: false });
  let swapping = true;
  const swapper = (async () => {
    for (let i = 0; swapping; i++) {
      const tmp = `${file}.tmp${i % 2}`;
      writeFileSync(tmp, versions[i % 2]!);
      renameSync(tmp, file);
      await new Promise((r) => setTimeout(r, i % 7 === 0 ? 1 : 0));
    }
  })();
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const answers = { whole: 0, mixed: [] as string[], cut: 0 };
  // Every other request asks for the last 2000 bytes: the whole of the short version (200 or 206)
  // or the tail of the long one, as the client asked (Range is rewritten per size, and restored
  // before a request is answered again).
  const tail = (v: string) => v.slice(-2000);
  const one = (k: number) =>
    new Promise<void>((resolve) => {
      const ranged = k % 2 === 1;
      get(`${srv.url}x.json`, { agent, headers: ranged ? { Range: 'bytes=-2000' } : {} }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => {
          const body = Buffer.concat(parts).toString();
          const fits = ranged ? versions.some((v) => tail(v) === body && (res.statusCode === 200 ? v === body : res.statusCode === 206 && res.headers['content-range'] === `bytes ${v.length - body.length}-${v.length - 1}/${v.length}`)) : res.statusCode === 200 && versions.includes(body);
          if (fits && Number(res.headers['content-length']) === body.length) answers.whole++;
          else answers.mixed.push(`${res.statusCode} ${res.headers['content-length']} ${JSON.stringify(body.slice(0, 4))}…${JSON.stringify(body.slice(-4))} (${body.length} bytes)`);
          resolve();
        });
        res.on('error', () => {
          answers.cut++;
          resolve();
        });
      }).on('error', () => {
        answers.cut++;
        resolve();
      });
    });
  try {
    const until = Date.now() + 3000;
    while (Date.now() < until) await Promise.all(Array.from({ length: 8 }, (_, k) => one(k)));
    // Before: hundreds, such as `200 1003 "[222"…"222]" (1003 bytes)`.
    expect(answers.mixed.slice(0, 5)).toEqual([]);
    expect(answers.whole).toBeGreaterThan(100);
    // A request whose file is replaced under it more than 3 times running is cut (the swaps here
    // are thousands a second; a rebuild replaces each file once). How many depends on the
    // machine's load (CI read 326 cut against 258 whole once, with other suites running, where
    // "fewer cut than whole" was asserted): what must hold is that once the file stops changing
    // every request is answered whole again.
    swapping = false;
    await swapper;
    const before = { ...answers, mixed: answers.mixed.length };
    await Promise.all(Array.from({ length: 8 }, (_, k) => one(k)));
    expect({ whole: answers.whole - before.whole, cut: answers.cut - before.cut, mixed: answers.mixed.slice(before.mixed) }).toEqual({ whole: 8, cut: 0, mixed: [] });
  } finally {
    swapping = false;
    await swapper;
    agent.destroy();
    await srv.close(0);
    rmSync(root, { recursive: true, force: true });
  }
}, 30_000);
