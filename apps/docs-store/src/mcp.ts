/**
 * The MCP server (stdio or Streamable HTTP): the store's ingest, search and neighbour
 * expansion as tools, so an agent can read the docs directly; every stored unit as a
 * `chunk://` resource; and a prompt that answers a question from retrieved chunks. Tool
 * results are JSON text; failures come back as tool errors (`isError`) with the store's
 * message, so the agent sees what was wrong.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import { CONTENT_TYPE, type ContentHint } from '@chunkyard/chunking';
import { oneLine } from '@chunkyard/fs-atomic';
import { DocStore, EmptyStoreError, queryWithoutWords, sqliteFailure, UnknownFilterError, type StoreEmbedder } from '@chunkyard/store';
import { guardRequests, quoteSome, StrictStdioServerTransport } from './jsonrpc.js';
import { WorkQueue } from './work-queue.js';

export const SERVER_NAME = 'chunkyard-docs-store';

/**
 * Resource URIs: chunk://<artifact id>/<chunk index> for a chunk, chunk://<artifact id>/whole
 * for a document stored whole. Unit ids themselves hold "::", which a URI authority cannot.
 */
export const CHUNK_URI_TEMPLATE = 'chunk://{artifact_id}/{chunk_index}';
/** The template as the SDK matches it (on the URL's normalized form, as its resources/read does). */
const CHUNK_URI = new UriTemplate(CHUNK_URI_TEMPLATE);
export const chunkUri = (artifactId: string, chunkIndex: number | null): string => `chunk://${artifactId}/${chunkIndex ?? 'whole'}`;
/**
 * A part of a URI with each percent-encoded unreserved character (RFC 3986 §2.3: letters,
 * digits, `-._~`) decoded, as §6.2.2.2 normalizes it: `%33` is `3`, and chunk://<id>/%33 the
 * same URI as chunk://<id>/3. Any other escape stays as it is (`%2F` is a `/` that is data, not
 * a separator, and no byte of a non-ASCII character is in an id or index), and so does a `%`
 * not followed by two hex digits: nothing here decodes to a separator, a dot segment or a
 * string that is not well formed, and nothing throws (decodeURIComponent does for `%zz`).
 */
export function decodeUnreserved(part: string): string {
  return part.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const ch = String.fromCharCode(Number.parseInt(hex, 16));
    return /^[A-Za-z0-9\-._~]$/.test(ch) ? ch : escape;
  });
}

/**
 * Why a part decodeUnreserved left a `%` in names no resource, or null when it has none: ids
 * and indexes are ASCII letters, digits and `_`, so the part names none whatever the store holds.
 */
function escapeProblem(what: string, part: string): string | null {
  const at = part.indexOf('%');
  if (at < 0) return null;
  const escape = part.slice(at, at + 3);
  const why = !/^%[0-9A-Fa-f]{2}$/.test(escape)
    ? `${JSON.stringify(cut(escape))} is a malformed percent-escape (a % takes two hex digits)`
    : Number.parseInt(escape.slice(1), 16) < 0x80
      ? `${escape} encodes ${JSON.stringify(String.fromCharCode(Number.parseInt(escape.slice(1), 16)))} as data, which no ${what} holds`
      : `${escape} is a byte of a non-ASCII character, which no ${what} holds`;
  return `${what} ${JSON.stringify(cut(part))}: ${why}`;
}

/** How many units resources/list returns (the SDK passes no cursor to a template's list); search reaches the rest. */
export const RESOURCE_LIST_LIMIT = 1000;
export const PROMPT_NAME = 'answer_from_docs';
/** A part of a request as a message names it: at most 200 characters, with the length when cut. */
const cut = (s: string): string => (s.length > 200 ? `${s.slice(0, 200)}… (${s.length} characters)` : s);
const HINTS = ['prose', 'table', 'code', 'list', 'quote', 'mixed'] as const;
/**
 * A name or filter given as "" is a mistake (issue 15 probe): search_docs with topic "" came
 * back empty without a word, and ingest_artifact stored the topic "". Leave the field out instead.
 */
const nonEmpty = z.string().min(1, 'empty: give a value, or leave the field out');

/**
 * A tool's arguments as an object that takes no others (issue 15 probe): the SDK's raw shapes
 * dropped an unknown argument without a word, so `limt: 2` (a typo of limit) searched with the
 * default limit, and the published schemas allowed any. Now it is a tool error naming the
 * argument, and each inputSchema says `additionalProperties: false`.
 */
const strictArgs = <T extends z.ZodRawShape>(shape: T) =>
  z.strictObject(shape, {
    // Named as the JSON-RPC errors name members (issue 15 probe): zod's message listed every
    // one whole, so 300,000 of them came back as a 3.8 MB tool error, and one 3 MB name as 3 MB.
    error: (issue) => (issue.code === 'unrecognized_keys' ? `Unrecognized key${issue.keys.length > 1 ? 's' : ''}: ${quoteSome(issue.keys)}` : undefined),
  });

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

/**
 * `queue` orders the work of every tool call and prompt this server (and any other sharing
 * the queue) answers: one started per turn of the event loop, and one whose client left or
 * cancelled it before its turn never started (see work-queue.ts). A request's signal is
 * the SDK's, which aborts on notifications/cancelled and when the transport closes.
 */
export function createMcpServer(store: DocStore, embedder: StoreEmbedder, version: string, queue: WorkQueue = new WorkQueue()): McpServer {
  const server = new McpServer({ name: SERVER_NAME, version });
  // A SQLite failure names the store and what to do, as the CLI does: "database is locked" or
  // "attempt to write a readonly database" named no file. (For a request whose client left,
  // the SDK sends nothing, whatever this returns.)
  // `note`, when given and it has something to say of the value, follows the JSON as a second text.
  const answer = async (signal: AbortSignal, work: () => unknown, note?: (value: unknown) => string | null): Promise<ToolResult> => {
    try {
      const value = await queue.run(signal, () => {
        store.assertStillAtPath();
        return work();
      });
      const said = note?.(value);
      return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }, ...(said ? [{ type: 'text' as const, text: said }] : [])] };
    } catch (err) {
      return { content: [{ type: 'text', text: sqliteFailure(store.path, err) ?? (err instanceof Error ? err.message : String(err)) }], isError: true };
    }
  };
  /**
   * The same for a resource or prompt handler, whose errors are JSON-RPC errors: the SDK
   * answers a plain Error with -32603 (the store, not the request, failed) and its message as
   * it is.
   */
  const storeFailed = (err: unknown): unknown => {
    const message = sqliteFailure(store.path, err);
    return message === null ? err : new Error(message);
  };
  /**
   * A search of a store with no document is refused, naming it: an empty result (and a prompt
   * saying "the docs do not cover it") read as if the docs had been searched. The server may
   * have been started on a new --db, or one an ingest whose provider failed left empty.
   */
  const assertDocuments = (): void => {
    if (!store.hasDocuments()) throw new EmptyStoreError(store.path, `the ingest_artifact tool, or docs-store ingest … --db ${store.path}`);
  };
  // Resource handlers are not queued: a read is one row and a list at most RESOURCE_LIST_LIMIT
  // summaries, cheaper than the queue's turn, and answered in the order they came.
  const guarded =
    <A extends unknown[], R>(handler: (...args: A) => R) =>
    (...args: A): R => {
      try {
        store.assertStillAtPath();
        return handler(...args);
      } catch (err) {
        throw storeFailed(err);
      }
    };

  server.registerTool(
    'ingest_artifact',
    {
      title: 'Ingest a document',
      description:
        'Store a text/markdown document: up to 1200 tokens it is stored whole, larger it is chunked. ' +
        'The id derives from source_system:source_id when given (re-ingesting replaces it), else from the content. ' +
        'Identical content with the same topic and artifact_type is a no-op. Returns artifact_id, is_chunked, num_chunks, stored_ids, status.',
      inputSchema: strictArgs({
        content: z.string().describe('The document text'),
        title: z.string().optional(),
        // It opens every chunk id, as chunkDocument's contentType: chunking's own pattern.
        artifact_type: nonEmpty
          .regex(CONTENT_TYPE, 'one word without ":" (it opens every chunk id)')
          .optional()
          .describe('Content type, default doc: one word without ":"'),
        source_system: nonEmpty.optional().describe('Where it comes from, default mcp'),
        source_id: nonEmpty.optional().describe('Stable id in the source system'),
        topic: nonEmpty.optional(),
      }),
    },
    (args, extra) =>
      answer(extra.signal, async () => {
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
        'Hybrid search (default) returns units as docs-query does: cosine + BM25 with window scores, adjacent matching chunks merged into one unit ' +
        '(chunks.from..chunks.to, text joined by [CHUNK BOUNDARY]), edge sentences sharing no query term trimmed. routes=false gives the older ' +
        'ranking (full-text BM25 + vector fused by reciprocal rank, one chunk per hit); fts and vector are single rankers. Each hit names its ' +
        'source_file and unit_id (the best chunk\'s id, or an artifact id for a document stored whole); pass expand=k to include ±k neighbouring chunks.',
      inputSchema: strictArgs({
        // A blank query matched everything with score 0.
        query: z.string().regex(/\S/, 'query is blank: give the words to search for'),
        limit: z.number().int().min(1).max(100).optional(),
        mode: z.enum(['hybrid', 'fts', 'vector']).optional(),
        topic: nonEmpty.optional(),
        content_type: nonEmpty.optional(),
        // At most 100 (six hints, so any more repeat one): zod overflowed the stack on 200,000
        // that were no hint, and that was the whole answer (issue 15 probe).
        content_hints: z.array(z.enum(HINTS)).max(100).optional(),
        expand: z.number().int().min(0).max(10).optional(),
        routes: z.boolean().optional().describe('Hybrid only: return routed units (default true); false for reciprocal-rank fusion of single chunks'),
      }),
    },
    (args, extra) =>
      answer(extra.signal, async () => {
        // As the CLI's --no-routes with --mode fts or vector (a usage error there): taken without
        // a word, routes: false with mode vector let an agent believe it had asked for something.
        if (args.routes !== undefined && args.mode !== undefined && args.mode !== 'hybrid') {
          throw new Error(`routes is for hybrid search; mode ${args.mode} has no routes: leave routes out`);
        }
        assertDocuments();
        const hits = await store.search(args.query, {
          mode: args.mode ?? 'hybrid',
          limit: args.limit ?? 5,
          expand: args.expand ?? 0,
          embedder,
          signal: extra.signal,
          ...(args.routes === false ? { routes: false as const } : {}),
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
          ...(h.unit
            ? { chunks: h.unit.chunks, merged_hits: h.unit.hits, similarity: h.unit.similarity, bm25: h.unit.bm25, text: h.unit.text }
            : { ranks: h.ranks, text: h.expanded ?? h.content }),
        }));
      },
      // An empty list for a query with no word to search for (`the`, `?!`) says why: a bare []
      // told the agent the docs do not cover the question (helper 102 probe).
      (hits) => {
        const why = Array.isArray(hits) && hits.length === 0 ? queryWithoutWords(args.query) : null;
        return why ? `no results: ${why}` : null;
      }),
  );

  server.registerTool(
    'expand_chunk',
    {
      title: 'Expand a chunk with its neighbours',
      description: 'The chunk and up to k chunks on each side (default 1), in order, joined by [CHUNK BOUNDARY] (seed 004).',
      inputSchema: strictArgs({
        // As search_docs's query: a blank id was looked up and said "no chunk or artifact with id " (s55 probe).
        chunk_id: z.string().regex(/\S/, 'chunk_id is blank: give a chunk id (search_docs returns them as unit_id)'),
        k: z.number().int().min(0).max(20).optional(),
      }),
    },
    (args, extra) =>
      answer(extra.signal, () => {
        const e = store.expand(args.chunk_id, args.k ?? 1);
        return { unit_id: e.unitId, artifact_id: e.artifactId, chunk_indices: e.chunkIndices, text: e.text };
      }),
  );

  server.registerTool(
    'store_stats',
    { title: 'Store statistics', description: 'Counts of artifacts, chunks and tokens; the embedding model; topics.', inputSchema: strictArgs({}) },
    (_args, extra) => answer(extra.signal, () => store.stats()),
  );

  server.registerResource(
    'chunk',
    new ResourceTemplate(CHUNK_URI_TEMPLATE, {
      list: guarded(() => ({
        resources: store.listUnits({ limit: RESOURCE_LIST_LIMIT }).map((u) => ({
          uri: chunkUri(u.artifactId, u.chunkIndex),
          name: u.unitId,
          title: [u.title, u.sectionTitle].filter(Boolean).join(' › ') || u.unitId,
          description: `${u.sourceFile ?? '(no file)'}${u.chunkIndex === null ? ', stored whole' : `, chunk ${u.chunkIndex}`}, ${u.tokenCount} tokens`,
          mimeType: 'text/markdown',
        })),
      })),
    }),
    {
      title: 'Stored chunks',
      description: `One chunk of a stored document (chunk://<artifact id>/<chunk index>), or a document stored whole (chunk://<artifact id>/whole). The list holds the first ${RESOURCE_LIST_LIMIT} units; search_docs finds any.`,
      mimeType: 'text/markdown',
    },
    guarded((uri: URL, variables: Record<string, string | string[]>) => {
      // The SDK hands the parts as they are in the URI: chunk://<id>/%33 was "no chunk %33",
      // though RFC 3986 makes it the same URI as chunk://<id>/3 (see decodeUnreserved).
      const artifactId = decodeUnreserved(String(variables.artifact_id));
      const index = decodeUnreserved(String(variables.chunk_index));
      // Only the index as chunkUri writes it: /02 read chunk 2, so one chunk had many URIs, and a
      // client comparing URIs (citations, a cache) took them for different resources.
      const chunkIndex = index === 'whole' ? null : /^(?:0|[1-9]\d{0,5})$/.test(index) ? Number(index) : NaN;
      // The artifact id is the URI's host, which RFC 3986 (3.2.2, 6.2.2.1) makes case-insensitive
      // (ASCII letters only), and ids are `art_` + lower-case hex: chunk://ART_BCE4897F/3 was
      // -32002 though it names chunk://art_bce4897f/3. The path (the index, `whole`) keeps its case.
      const asciiLower = artifactId.replace(/[A-Z]+/g, (run) => run.toLowerCase());
      const unit = Number.isNaN(chunkIndex)
        ? undefined
        : (store.unitAt(artifactId, chunkIndex) ?? (asciiLower !== artifactId ? store.unitAt(asciiLower, chunkIndex) : undefined));
      // -32002 is MCP's "resource not found". The message names the URI and its parts cut short:
      // whole, a 500 KB URI came back three times in a 1.5 MB reply (s47 probe); data.uri has it.
      if (!unit) {
        const why = escapeProblem('chunk index', index) ?? escapeProblem('artifact id', artifactId) ?? `no ${index === 'whole' ? 'document stored whole' : `chunk ${cut(index)}`} in ${cut(artifactId)}`;
        throw new McpError(-32002, `Resource not found: ${cut(uri.href)} (${why})`, { uri: uri.href });
      }
      return {
        // The URI the list gives it: one resource, one URI, however the request spelled it.
        contents: [{ uri: chunkUri(unit.artifactId, chunkIndex), mimeType: 'text/markdown', text: unit.content, _meta: { unit_id: unit.unitId, source_file: unit.sourceFile, title: unit.title, section: unit.sectionTitle, topic: unit.topic } }],
      };
    }),
  );

  server.registerPrompt(
    PROMPT_NAME,
    {
      title: 'Answer from the docs',
      description: 'Retrieves the chunks most relevant to a question (hybrid search) and asks for an answer grounded in them, citing chunk:// URIs.',
      argsSchema: {
        // As search_docs's query: a blank one matched every unit with score 0, and the prompt
        // asked the agent to answer "Question: " from them (s47 probe).
        question: z.string().regex(/\S/, 'question is blank: give the question to answer').describe('The question to answer'),
        topic: nonEmpty.optional().describe('Only search this topic'),
        limit: z.string().regex(/^([1-9]|1\d|20)$/, 'a whole number from 1 to 20').optional().describe('How many chunks to retrieve, 1-20 (default 5)'),
      },
    },
    async (args, extra) => {
      const hits = await queue
        .run(extra.signal, () => {
          store.assertStillAtPath();
          assertDocuments();
          return store.search(args.question, {
            mode: 'hybrid',
            limit: args.limit ? Number(args.limit) : 5,
            embedder,
            signal: extra.signal,
            filters: args.topic !== undefined ? { topic: args.topic } : {},
          });
        })
        .catch((err: unknown) => {
          // The SDK answers what a prompt throws with -32603, a server fault; a topic that
          // matches nothing is the client's argument to fix.
          throw err instanceof UnknownFilterError ? new McpError(-32602, err.message) : storeFailed(err);
        });
      const excerpts = hits.map((h, i) => {
        const where = [h.sourceFile ?? '(no file)', h.title, h.sectionTitle].filter(Boolean).join(' › ');
        const span = h.unit?.chunks && h.unit.chunks.to > h.unit.chunks.from ? `, chunks ${h.unit.chunks.from}-${h.unit.chunks.to}` : '';
        return `[${i + 1}] ${chunkUri(h.artifactId, h.chunkIndex)} (${where}${span})\n${(h.unit?.text ?? h.content).trim()}`;
      });
      // A question with no word to search for (`how do I`, `?`) found nothing because it asked
      // nothing: "say that the docs do not cover it" was wrong there (helper 102 probe).
      const noWords = hits.length === 0 ? queryWithoutWords(args.question) : null;
      const text =
        hits.length === 0
          ? noWords
            ? `The documentation search could not search for this question: ${noWords.replace('the query', 'the question')}. Ask what the user wants to know; do not say the docs do not cover it.\n\nQuestion: ${args.question}`
            : `The documentation search found nothing for this question. Say that the docs do not cover it.\n\nQuestion: ${args.question}`
          : 'Answer the question using only the documentation excerpts below. Cite the excerpts you use as [n] with their chunk:// URI. ' +
            'If the excerpts do not contain the answer, say so instead of guessing.\n\n' +
            `Question: ${args.question}\n\nExcerpts:\n\n${excerpts.join('\n\n')}`;
      return { description: `${hits.length} chunk${hits.length === 1 ? '' : 's'} retrieved for the question`, messages: [{ role: 'user', content: { type: 'text', text } }] };
    },
  );

  // The SDK advertises resources.listChanged, which promises notifications/resources/list_changed
  // whenever the list changes (MCP spec, server/resources). The list is the store's units: every
  // ingest changes it, this server's or another process's, and over stateless HTTP there is no
  // channel to send one on. Nothing here sent it; the promise is withdrawn instead of half kept.
  // (The tools and prompts never change after start, so their listChanged holds.)
  server.server.registerCapabilities({ resources: { listChanged: false } });
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
  const prompts = (server as unknown as { _registeredPrompts?: Record<string, { argsSchema?: { shape?: Record<string, unknown> } }> })._registeredPrompts;
  guardRequests(transport, {
    handles: (method) => handlers?.has(method) ?? true,
    tools: () => Object.keys(tools ?? {}),
    // Without the SDK's table (a future version may rename it) the SDK's own lookup answers.
    ...(prompts
      ? {
          prompts: () => Object.keys(prompts),
          promptArguments: (name: string) => {
            const shape = prompts[name]?.argsSchema?.shape;
            return shape ? Object.keys(shape) : undefined;
          },
        }
      : {}),
    log,
    // match throws for a URI over its length limit (1,000,000 characters): no resource has one.
    resourceUri: (uri) => {
      try {
        return CHUNK_URI.match(new URL(uri).toString()) !== null;
      } catch {
        return false;
      }
    },
    resourceForm: 'chunk://<artifact id>/<chunk index> or chunk://<artifact id>/whole',
  });
}

/**
 * stderr carries only log lines, and a client may close its end of it (one that does not read
 * a server's log): the next line failed with EPIPE, an unhandled 'error' event that stopped
 * the server with a stack trace, exit 1, and the replies it still owed were lost. Such lines
 * are dropped; the protocol on stdout goes on. Installed once per process.
 */
export function tolerateClosedStderr(): void {
  if (process.stderr.listeners('error').includes(ignoreStderrError)) return;
  process.stderr.on('error', ignoreStderrError);
}
function ignoreStderrError(): void {
  // Nowhere left to report it.
}

/** Serves `store` on stdin/stdout until the client disconnects. */
export async function serveStdio(store: DocStore, embedder: StoreEmbedder, version: string): Promise<void> {
  tolerateClosedStderr();
  const server = createMcpServer(store, embedder, version);
  // A line can quote the client (the method of a notification it dropped): control characters
  // in it are escaped, so a client cannot clear or retitle the terminal showing stderr.
  const log = (line: string) => void process.stderr.write(`${oneLine(line)}\n`);
  const transport = new StrictStdioServerTransport(process.stdin, process.stdout, log);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  await connectGuarded(server, transport, log);
  // stdin ending (the client went away) closes the transport once the requests it sent are answered.
  await closed;
}
