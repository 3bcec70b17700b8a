import { createServer } from 'node:http';
import { main } from './main.js';

/** docs-query's main on `argv`, with what it wrote to each stream and its exit code. */
export async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

/**
 * A server on loopback that answers every request with `status` and no body, and records the
 * paths asked for: what a test of a refused --base-url reads to see nothing was requested.
 */
export async function recordingServer(status: number): Promise<{ base: string; requested: string[]; close: () => Promise<void> }> {
  const requested: string[] = [];
  const server = createServer((req, res) => {
    requested.push(req.url ?? '');
    res.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
  return { base, requested, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
