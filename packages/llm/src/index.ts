/**
 * @chunkyard/llm — chat models for chunkyard's LLM work (seed 000):
 *
 *   createChatClient  ollama or openai (and compatible servers), through their client packages
 *   LlmCache          generated text cached by (provider, model, temperature, prompt, content)
 *   generateLeadSentences / applyLeadSentences
 *                     paginate's lead-in/lead-out sentences from the model, at T = 0.2
 *
 *   const client = createChatClient({ provider: 'ollama', model: 'llama3.2' });
 *   const cache = new LlmCache('.llm-cache');
 *   const sentences = await generateLeadSentences(result, client, cache);
 *   const withLeads = applyLeadSentences(result, sentences);
 */
export {
  createChatClient,
  LlmError,
  LLM_DEFAULT_MODELS,
  LLM_DEFAULT_TEMPERATURE,
  OLLAMA_DEFAULT_HOST,
  OPENAI_DEFAULT_BASE_URL,
  ollamaBaseUrl,
  type ChatClient,
  type ChatMessage,
  type Env,
  type LlmProviderName,
  type LlmSettings,
} from './client.js';
export { cacheKey, cachedChat, LlmCache, LLM_CACHE_VERSION, promptSha256, sha256, type CacheKeyParts, type CacheStats, type PromptTemplate } from './cache.js';
export { applyLeadSentences, generateLeadSentences, LEAD_PROMPTS, oneLine, type LeadSentences } from './lead.js';
