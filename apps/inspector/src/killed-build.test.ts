// A chunking-tool SIGKILLed between StagedDir.commit's two renames (the topic's _chunks/ moved
// aside as ._chunks.aside-*, the new folder not yet in) left the topic with no _chunks/.
// docs-serve answers its chunks 503 with a body saying why (3019d2c), but the page said only
// "<manifest URL>: HTTP 503": no word of why nor what to run. It now gives the server's words,
// the manifest's URL (the topic's path) and the command. Real docs-serve, real tools, the page's
// own loader (static/data.js) in Node with Node's fetch; the kill is real: strace injects SIGKILL
// into the real chunking-tool at the rename that would put the new folder in (skipped without
// strace).
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApps, doc, hasStrace, killAtRename, ok, stagedRenameNumber } from '../../chunking-tool/src/test-killed-build.js';
import { startServer } from '../../docs-serve/src/server.js';
import { loadTopic } from '../static/data.js';

let ws: string;
beforeAll(() => {
  if (hasStrace) buildApps(['apps/chunking-tool', 'apps/keyword-extractor', 'apps/topic-spec', 'apps/index-tool']);
  ws = mkdtempSync(join(tmpdir(), 'inspector-killed-'));
}, 300_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

describe.runIf(hasStrace)('the inspector page after a chunk build killed between its two renames', () => {
  it("says why the topic's manifest cannot be had and what to run, and draws it again once rebuilt", async () => {
    const topic = join(ws, 'docs/guides/t');
    mkdirSync(topic, { recursive: true });
    writeFileSync(join(topic, 'golden-reference.md'), doc('alpha'));
    const at = stagedRenameNumber(ws, 'docs/guides/t');
    ok(ws, 'keyword-extractor', ['docs/guides/t']);
    ok(ws, 'topic-spec', ['docs/guides/t']);
    ok(ws, 'index-tool', ['docs/guides/t', 'docs/guides', 'docs', '--root', 'docs']);
    const srv = await startServer({ root: join(ws, 'docs'), port: 0, inspector: false, log: () => {} });
    try {
      const root = new URL(srv.url);
      expect((await loadTopic(root, 'guides/t', null)).manifest.chunks.length).toBeGreaterThan(1);

      writeFileSync(join(topic, 'golden-reference.md'), doc('beta'));
      killAtRename(ws, 'docs/guides/t', at);
      expect(readdirSync(topic).some((n) => n.startsWith('._chunks.aside-'))).toBe(true);

      // Before: "<root>guides/t/_chunks/golden-reference.json: HTTP 503", and nothing more.
      await expect(loadTopic(root, 'guides/t', null)).rejects.toThrow(
        `${srv.url}guides/t/_chunks/golden-reference.json: HTTP 503: Service Unavailable (this topic's _chunks/ is missing: a chunk build of it was killed before it finished, or is running now); the server cannot give it while a build of this topic is under way or after one was killed before it finished: wait for the build, or build the topic again (npx nx run-many -t index, or chunkyard chunk <topic folder>), then reload`,
      );

      // What it says to run puts the previous folder back and builds the topic again.
      ok(ws, 'chunking-tool', ['docs/guides/t']);
      ok(ws, 'topic-spec', ['docs/guides/t']);
      ok(ws, 'index-tool', ['docs/guides/t', '--root', 'docs']);
      expect((await loadTopic(root, 'guides/t', null)).source).toBe(doc('beta'));
    } finally {
      await srv.close();
    }
  }, 180_000);
});
