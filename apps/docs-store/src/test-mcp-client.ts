// The built `docs-store mcp` as an MCP client sees it: spawned over stdio by the SDK's own
// Client, in a workspace of the test's, with only PATH and CI from the environment (so no
// provider key or config of the machine running the tests reaches it).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN } from './test-build.js';

/** A Client connected to `docs-store mcp` started in `cwd` with `args` after `mcp` (e.g. `--db`). */
export async function connectMcpClient(cwd: string, name: string, args: string[] = []): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    cwd,
    env: { PATH: process.env.PATH ?? '', CI: '1' },
    stderr: 'pipe',
  });
  const client = new Client({ name, version: '0.0.0' });
  await client.connect(transport);
  return { client, transport };
}
