// --base-url given the root index's URL, as docs-serve prints it beside the base URL
// ("root index: http://HOST:PORT/index.json"), s47 probe: it was read as a folder, and the
// request for …/index.json/index.json answered 404, exit 1, as if the server were broken.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './test-run.js';

let server: Server;
let base: string;
const requested: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    requested.push(req.url ?? '');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('docs-query --base-url …/index.json', () => {
  it('is a usage error naming the base URL to give, and nothing is requested', async () => {
    for (const [given, root] of [
      [`${base}index.json`, base],
      [`${base}docs/Index.JSON/?x=1`, `${base}docs/`],
    ] as const) {
      const r = await run('--base-url', given, '--list');
      expect(r.code, given).toBe(2);
      expect(r.stderr, given).toBe(`docs-query: --base-url: give the URL the docs root is served at, not its index.json: ${root}\nRun docs-query --help for usage.\n`);
    }
    expect(requested).toEqual([]);
    // A folder URL is still asked for its index.json.
    expect((await run('--base-url', `${base}docs/`, '--list')).stderr).toBe(`docs-query: ${base}docs/index.json: HTTP 404 Not Found\n`);
    expect(requested).toEqual(['/docs/index.json']);
  });

  it('port 0 is a usage error saying to give the port docs-serve picked (it was ECONNREFUSED, "is the server running?")', async () => {
    for (const given of ['http://127.0.0.1:0/', 'http://[::1]:00/docs/']) {
      const r = await run('--base-url', given, '--list');
      expect(r.code, given).toBe(2);
      expect(r.stderr, given).toBe('docs-query: --base-url: port 0 is no port a server answers on (docs-serve --port 0 prints the port it picked); give that port\nRun docs-query --help for usage.\n');
    }
  });
});
