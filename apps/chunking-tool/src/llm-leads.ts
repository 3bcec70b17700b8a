/**
 * The LLM edge of chunking-tool: with `llm: { provider, leadLines: true }` in the workspace
 * config, paginate's lead-in/lead-out sentences come from that model (seed 000, T = 0.2),
 * cached in `llm.cacheDir` (default `.llm-cache` beside the config file). Without it, this is
 * the identity and the extractive lead lines stay: the offline default.
 *
 * Nx: the generated text depends on the model, the temperature and the prompts. The first two
 * are in chunkyard.config.yaml and the prompts are in this tool's code, both inputs of the
 * `chunk` target, so a change to either reruns it and nothing stale is served from the cache.
 */
import { resolve } from 'node:path';
import type { ChunkDocumentResult } from '@chunkyard/chunking';
import { applyLeadSentences, createChatClient, generateLeadSentences, LlmCache, LlmError, type ChatClient, type LlmSettings } from '@chunkyard/llm';
import { loadWorkspace, UsageError } from '@chunkyard/topic-io';

export type LeadWriter = <T extends ChunkDocumentResult>(result: T, source: string) => Promise<T>;

export function llmLeadWriter(configFile: string | undefined, log: (line: string) => void): LeadWriter {
  const ws = loadWorkspace(configFile);
  const llm = ws.config.llm;
  if (!llm?.leadLines || !llm.provider) return async <T extends ChunkDocumentResult>(result: T) => result;
  const { leadLines: _leadLines, cacheDir, ...settings } = llm;
  let client: ChatClient;
  try {
    client = createChatClient(settings as LlmSettings);
  } catch (err) {
    // A bad OLLAMA_HOST / OPENAI_BASE_URL is a configuration error: exit 2, nothing written.
    if (err instanceof LlmError) throw new UsageError((err as LlmError).message);
    throw err;
  }
  const cache = new LlmCache(resolve(ws.root, cacheDir ?? '.llm-cache'));
  return async <T extends ChunkDocumentResult>(result: T, source: string): Promise<T> => {
    if (result.strategy !== 'paginate') return result;
    const sentences = await generateLeadSentences(result, client, cache);
    if (sentences.requests > 0) log(`chunking-tool: ${source}: ${sentences.requests} lead sentence(s) from ${client.provider}/${client.model}\n`);
    return applyLeadSentences(result, sentences);
  };
}
