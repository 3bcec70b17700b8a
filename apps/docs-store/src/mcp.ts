/**
 * The MCP server (stdio): the store's ingest, search and neighbour expansion as tools, so an
 * agent can read the docs directly. Results are JSON text; failures come back as tool errors
 * (`isError`) with the store's message, so the agent sees what was wrong.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import type { ContentHint } from '@chunkyard/chunking';
import { DocStore, type StoreEmbedder } from '@chunkyard/store';
import { guardRequests, StrictStdioServerTransport } from './jsonrpc.js';

export const SERVER_NAME = 'chunkyard-docs-store';
const HINTS = ['prose', 'table', 'code', 'list', 'quote', 'mixed'] as const;

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

async function answer(work: () => unknown): Promise<ToolResult> {
  try {
    const value = await work();
    return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
  } catch (err) {
    return { content: [{ type: 'text', text: err instanceof Error ? err.message : String(err) }], isError: true };
  }
}

export function createMcpServer(store: DocStore, embedder: StoreEmbedder, version: string): McpServer {
  const server = new McpServer({ name: SERVER_NAME, version });

  server.registerTool(
    'ingest_artifact',
    {
      title: 'Ingest a document',
      description:
        'Store a text/markdown document: up to 1200 tokens it is stored whole, larger it is chunked. ' +
        'The id derives from source_system:source_id when given (re-ingesting replaces it), else from the content. ' +
        'Identical content is a no-op. Returns artifact_id, is_chunked, num_chunks, stored_ids, status.',
      inputSchema: {
        content: z.string().describe('The document text'),
        title: z.string().optional(),
        artifact_type: z.string().optional().describe('Content type, default doc'),
        source_system: z.string().optional().describe('Where it comes from, default mcp'),
        source_id: z.string().optional().describe('Stable id in the source system'),
        topic: z.string().optional(),
      },
    },
    (args) =>
      answer(async () => {
        const [out] = await store.ingest(
          [
            {
              content: args.content,
              sourceSystem: args.source_system ?? 'mcp',
              ...(args.title !== undefined ? { title: args.title } : {}),
              ...(args.artifact_type !== undefined ? { artifactType: args.artifact_type } : {}),
              ...(args.source_id !== undefined ? { sourceId: args.source_id, sourceFile: args.source_id } : {}),
              ...(args.topic !== undefined ? { topic: args.topic } : {}),
            },
          ],
          embedder,
        );
        return { artifact_id: out!.artifactId, status: out!.status, is_chunked: out!.isChunked, num_chunks: out!.numChunks, token_count: out!.tokenCount, stored_ids: out!.storedIds };
      }),
  );

  server.registerTool(
    'search_docs',
    {
      title: 'Search the docs',
      description:
        'Hybrid (full-text BM25 + vector, fused by reciprocal rank), fts or vector search. Each hit names its source_file and unit_id ' +
        '(a chunk id, or an artifact id for a document stored whole); pass expand=k to include ±k neighbouring chunks joined by [CHUNK BOUNDARY].',
      inputSchema: {
        query: z.string().min(1),
        limit: z.number().int().min(1).max(100).optional(),
        mode: z.enum(['hybrid', 'fts', 'vector']).optional(),
        topic: z.string().optional(),
        content_type: z.string().optional(),
        content_hints: z.array(z.enum(HINTS)).optional(),
        expand: z.number().int().min(0).max(10).optional(),
      },
    },
    (args) =>
      answer(async () => {
        const hits = await store.search(args.query, {
          mode: args.mode ?? 'hybrid',
          limit: args.limit ?? 5,
          expand: args.expand ?? 0,
          embedder,
          filters: {
            ...(args.topic !== undefined ? { topic: args.topic } : {}),
            ...(args.content_type !== undefined ? { contentType: args.content_type } : {}),
            ...(args.content_hints ? { contentHints: args.content_hints as ContentHint[] } : {}),
          },
        });
        return hits.map((h) => ({
          unit_id: h.unitId,
          artifact_id: h.artifactId,
          chunk_index: h.chunkIndex,
          source_file: h.sourceFile,
          title: h.title,
          section: h.sectionTitle,
          topic: h.topic,
          score: h.score,
          ranks: h.ranks,
          text: h.expanded ?? h.content,
        }));
      }),
  );

  server.registerTool(
    'expand_chunk',
    {
      title: 'Expand a chunk with its neighbours',
      description: 'The chunk and up to k chunks on each side (default 1), in order, joined by [CHUNK BOUNDARY] (seed 004).',
      inputSchema: { chunk_id: z.string().min(1), k: z.number().int().min(0).max(20).optional() },
    },
    (args) =>
      answer(() => {
        const e = store.expand(args.chunk_id, args.k ?? 1);
        return { unit_id: e.unitId, artifact_id: e.artifactId, chunk_indices: e.chunkIndices, text: e.text };
      }),
  );

  server.registerTool(
    'store_stats',
    { title: 'Store statistics', description: 'Counts of artifacts, chunks and tokens; the embedding model; topics.', inputSchema: {} },
    () => answer(() => store.stats()),
  );

  return server;
}

/**
 * Connects `server` to `transport` with the JSON-RPC checks of jsonrpc.ts in between, so a
 * request with params of the wrong shape gets -32602 rather than the SDK's -32603.
 */
export async function connectGuarded(server: McpServer, transport: Transport, log: (line: string) => void): Promise<void> {
  await server.connect(transport);
  // The SDK keeps its handler table private; without it every known method is checked.
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, unknown> })._requestHandlers;
  const tools = (server as unknown as { _registeredTools?: Record<string, unknown> })._registeredTools;
  guardRequests(transport, {
    handles: (method) => handlers?.has(method) ?? true,
    tools: () => Object.keys(tools ?? {}),
    log,
  });
}

/** Serves `store` on stdin/stdout until the client disconnects. */
export async function serveStdio(store: DocStore, embedder: StoreEmbedder, version: string): Promise<void> {
  const server = createMcpServer(store, embedder, version);
  const log = (line: string) => void process.stderr.write(`${line}\n`);
  const transport = new StrictStdioServerTransport(process.stdin, process.stdout, log);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  await connectGuarded(server, transport, log);
  // stdin ending (the client went away) closes the transport.
  process.stdin.once('end', () => void server.close());
  await closed;
}
