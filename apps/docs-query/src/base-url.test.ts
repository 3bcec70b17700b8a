// --base-url given the root index's URL, as docs-serve prints it beside the base URL
// ("root index: http://HOST:PORT/index.json"), s47 probe: it was read as a folder, and the
// request for …/index.json/index.json answered 404, exit 1, as if the server were broken.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingServer, run } from './test-run.js';

let base: string;
let requested: string[];
let close: () => Promise<void>;
beforeAll(async () => {
  ({ base, requested, close } = await recordingServer(404));
});
afterAll(() => close());

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
