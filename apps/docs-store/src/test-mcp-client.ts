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

/** What `ingest_artifact` answers (the fields the tests read). */
export interface IngestedArtifact {
  artifact_id: string;
  num_chunks: number;
  is_chunked: boolean;
}

/** Stores `content` through the server's `ingest_artifact` tool, under `sourceId`. */
export async function ingestArtifact(client: Client, content: string, sourceId: string): Promise<IngestedArtifact> {
  const r = (await client.callTool({ name: 'ingest_artifact', arguments: { content, source_id: sourceId } })) as { content: { text: string }[] };
  return JSON.parse(r.content[0]!.text) as IngestedArtifact;
}

/** The first content of resource `uri`, as `resources/read` answers it. */
export function readResource(client: Client, uri: string): Promise<{ uri: string; text: string }> {
  return client.readResource({ uri }).then((r) => r.contents[0] as { uri: string; text: string });
}
