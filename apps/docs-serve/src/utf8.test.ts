// A built file that is not UTF-8, served over real HTTP on loopback. docs-serve is a static
// server that parses nothing: it sends the bytes as they are (a Range is a byte range, and an
// ETag is the file's), and the reader that decodes them refuses them, naming the URL, where it
// used to turn each bad byte into U+FFFD and carry on.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceError, UrlSource, walkTopics } from '@chunkyard/retrieval';
import { startServer, type RunningServer } from './server.js';

const index = Buffer.concat([Buffer.from('{"title":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]);

let dir: string;
let srv: RunningServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'docs-serve-utf8-'));
  mkdirSync(join(dir, 'docs'));
  writeFileSync(join(dir, 'docs/index.json'), index);
  srv = await startServer({ root: join(dir, 'docs'), port: 0, inspector: false });
});
afterAll(async () => {
  await srv?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an index.json that is not UTF-8, served', () => {
  it('is sent byte for byte, ranges included', async () => {
    const whole = await fetch(`${srv.url}index.json`);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(index);
    const part = await fetch(`${srv.url}index.json`, { headers: { Range: 'bytes=13-13' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(Buffer.from([0xe9]));
  });

  it('is refused by a retrieval client with one line naming the URL and the offset', async () => {
    const err = await walkTopics(new UrlSource(srv.url)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect((err as SourceError).message).toBe(
      `${srv.url}index.json: not valid UTF-8 (first bad byte at offset 13); built docs files are UTF-8, so this one was damaged or replaced after the build: rebuild the docs (npx nx run-many -t index)`,
    );
  });
});
