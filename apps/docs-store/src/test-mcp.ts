// The built `docs-store mcp` on stdio as a raw client sees it: the bytes on the wire, through
// real pipes, with no SDK client in between to tidy or check them. Call ensureBuilt() first.
import { spawnSync } from 'node:child_process';
import { BIN } from './test-build.js';

/** One reply line as JSON-RPC 2.0 shapes it (a batch's reply is an array of these). */
export interface RawReply {
  jsonrpc: string;
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** The initialize request a raw client opens with. */
export const initialize = (id: string | number = 'init', protocolVersion = '2025-06-18') => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

/** The notification a client sends once initialize is answered. */
export const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

/**
 * Runs `docs-store mcp` (with `args`, e.g. `--db`) in `cwd` with `input` as its whole stdin,
 * written at once and then closed: a list of frames goes one a line, each string as it is and
 * anything else as its JSON, with a newline after the last; a string goes byte for byte. Every
 * line the server wrote to stdout, parsed, with its exit status and stderr.
 */
export function rawMcp<R = RawReply | RawReply[]>(
  cwd: string,
  input: string | readonly unknown[],
  options: { args?: readonly string[]; timeout?: number } = {},
): { replies: R[]; status: number | null; stdout: string; stderr: string } {
  const stdin = typeof input === 'string' ? input : `${input.map((f) => (typeof f === 'string' ? f : JSON.stringify(f))).join('\n')}\n`;
  const r = spawnSync(process.execPath, [BIN, 'mcp', ...(options.args ?? [])], {
    cwd,
    input: stdin,
    encoding: 'utf8',
    timeout: options.timeout ?? 30_000,
    env: { PATH: process.env.PATH ?? '', CI: '1' },
  });
  const replies = r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as R);
  return { replies, status: r.status, stdout: r.stdout, stderr: r.stderr };
}
