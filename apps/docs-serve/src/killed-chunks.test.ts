// Issue 15: a chunking-tool SIGKILLed between StagedDir.commit's two renames (the topic's
// _chunks/ moved aside, the new folder not yet in) left the topic with no _chunks/. docs-serve
// answered each of its chunks 404, as if the topic had none, and logged nothing. Now 503 with
// a body that says why, one log line naming the topic, the temp and what to run, and the chunks
// again once a run has put the folder back. Real server, real folders, real fetch; the kill is
// real: strace injects SIGKILL into the real CLI at the rename that would put the new folder in
// (skipped without strace).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApps, doc, hasStrace, killAtRename, run, stagedRenameNumber } from '../../chunking-tool/src/test-killed-build.js';
import { startServer } from './server.js';

let ws: string;
beforeAll(() => {
  if (hasStrace) buildApps(['apps/chunking-tool']);
  ws = mkdtempSync(join(tmpdir(), 'docs-serve-killed-'));
}, 240_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

describe.runIf(hasStrace)('docs-serve after a chunk build killed between its two renames', () => {
  it("answers the topic's chunks 503, says why once, and serves them again once the folder is back", async () => {
    const topic = join(ws, 'docs/guides/t');
    mkdirSync(topic, { recursive: true });
    writeFileSync(join(topic, 'golden-reference.md'), doc('alpha'));
    const at = stagedRenameNumber(ws, 'docs/guides/t');
    const manifest = readFileSync(join(topic, '_chunks/golden-reference.json'), 'utf8');
    const lines: string[] = [];
    const srv = await startServer({ root: join(ws, 'docs'), port: 0, inspector: false, log: (line) => lines.push(line) });
    try {
      expect((await fetch(`${srv.url}guides/t/_chunks/golden-reference.json`)).status).toBe(200);
      writeFileSync(join(topic, 'golden-reference.md'), doc('beta'));
      killAtRename(ws, 'docs/guides/t', at);
      const aside = readdirSync(topic).find((n) => n.startsWith('._chunks.aside-'));
      expect(aside).toBeDefined();

      // Before: 404 "Not Found", and no log line.
      for (const path of ['guides/t/_chunks/golden-reference.json', 'guides/t/_chunks/golden-reference-0.md', 'guides/t/_chunks/']) {
        const res = await fetch(`${srv.url}${path}`);
        expect(res.status, path).toBe(503);
        expect(await res.text()).toBe("Service Unavailable (this topic's _chunks/ is missing: a chunk build of it was killed before it finished, or is running now)\n");
      }
      const real = join(realpathSync(join(ws, 'docs')), 'guides/t');
      expect(lines).toEqual([`${real}: this topic has no _chunks/, only ${aside}: a chunk build of it was killed before it finished, or is running now; answering 503 for its chunks until it is rebuilt (npx nx run-many -t index, or chunkyard chunk ${real})`]);
      // A file that is simply not there is still a 404.
      expect((await fetch(`${srv.url}guides/t/nothing.json`)).status).toBe(404);

      // The next chunk run puts the previous folder back (and rebuilds it).
      writeFileSync(join(topic, 'golden-reference.md'), doc('alpha'));
      expect(run(ws, 'chunking-tool', ['docs/guides/t']).status).toBe(0);
      const back = await fetch(`${srv.url}guides/t/_chunks/golden-reference.json`);
      expect(back.status).toBe(200);
      expect(await back.text()).toBe(manifest);
      expect(lines).toHaveLength(1);
    } finally {
      await srv.close();
    }
  }, 120_000);
});
