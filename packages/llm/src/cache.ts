/**
 * Generated text, cached like embeddings: one JSON file per answer, keyed by the SHA-256 of
 * (provider, model, temperature, prompt hash, content hash), so a rerun over unchanged pages
 * makes no request, and any change to the model, the prompt or the page makes a new key.
 *
 *   <dir>/<model>/<key[0..2]>/<key>.json
 *
 * Every read is validated (the key, the model and the text's own SHA-256 must match what was
 * asked); an entry that fails is reported as corrupt, regenerated and rewritten. Writes are
 * atomic (temp file + rename), so parallel Nx tasks sharing the folder never see half a file;
 * two tasks generating the same entry write the same bytes.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { NotRegularFileError, readRegularFile, writeFileAtomic } from '@chunkyard/fs-atomic';
import { withoutReasoning, type ChatClient, type ChatMessage } from './client.js';

export const LLM_CACHE_VERSION = 1;

export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

export interface CacheKeyParts {
  provider: string;
  model: string;
  temperature: number;
  /** SHA-256 of the prompt template (its id and instructions), without the content. */
  promptSha256: string;
  /** SHA-256 of the content the prompt is about (a page's text). */
  contentSha256: string;
}

export function cacheKey(parts: CacheKeyParts): string {
  const { provider, model, temperature, promptSha256, contentSha256 } = parts;
  return sha256(JSON.stringify({ v: LLM_CACHE_VERSION, provider, model, temperature, promptSha256, contentSha256 }));
}

interface Entry extends CacheKeyParts {
  version: number;
  key: string;
  text: string;
  textSha256: string;
}

export interface CacheStats {
  hits: number;
  misses: number;
  /** Entries that existed but failed validation, and were regenerated. */
  corrupt: number;
}

/** Longest model folder name: a file name may hold 255 bytes. */
const MAX_MODEL_FOLDER = 120;

/**
 * A model name as one folder name below the cache: characters outside [A-Za-z0-9._-] become
 * `_`; a name starting with `.` (`..`, `.`, `.hidden`) gets a leading `_`, since `..` put the
 * entries in the cache folder's parent and `.` straight in the cache folder; a name longer than
 * 120 characters keeps 100, then `~` and 16 hex of its sha256 (a longer one failed every
 * write with ENAMETOOLONG, after the model had answered). Names that were safe are unchanged,
 * so existing caches stay valid.
 */
export function modelFolder(model: string): string {
  let name = model.replace(/[^A-Za-z0-9._-]+/g, '_');
  if (name === '' || name.startsWith('.')) name = `_${name}`;
  return name.length > MAX_MODEL_FOLDER ? `${name.slice(0, 100)}~${sha256(model).slice(0, 16)}` : name;
}

export class LlmCache {
  readonly stats: CacheStats = { hits: 0, misses: 0, corrupt: 0 };
  constructor(readonly dir: string) {}

  /**
   * Folder-safe model name: `llama3.2:8b` and `org/model` become one path segment. Names of
   * the same folder are told apart by the key and model every entry holds.
   */
  fileOf(parts: CacheKeyParts, key = cacheKey(parts)): string {
    return join(this.dir, modelFolder(parts.model), key.slice(0, 2), `${key}.json`);
  }

  /** The cached text, or null when there is none or it is corrupt (counted in stats). */
  get(parts: CacheKeyParts): string | null {
    const key = cacheKey(parts);
    let raw: string;
    try {
      // Regular files only: a FIFO planted at an entry's path (or a link to one, or to
      // /dev/zero) made readFileSync wait for a writer for ever, hanging chunking-tool's lead
      // lines and docs-score. Not a file is a corrupt entry, which put() replaces.
      raw = readRegularFile(this.fileOf(parts, key)).toString('utf8');
    } catch (err) {
      if (err instanceof NotRegularFileError) {
        this.stats.corrupt++;
        return null;
      }
      this.stats.misses++;
      return null;
    }
    try {
      const e = JSON.parse(raw) as Partial<Entry>;
      if (e.version === LLM_CACHE_VERSION && e.key === key && e.model === parts.model && typeof e.text === 'string' && e.textSha256 === sha256(e.text)) {
        this.stats.hits++;
        return e.text;
      }
    } catch {
      // Not JSON (a truncated or overwritten file): corrupt, like a failed check.
    }
    this.stats.corrupt++;
    return null;
  }

  put(parts: CacheKeyParts, text: string): void {
    const key = cacheKey(parts);
    const entry: Entry = { version: LLM_CACHE_VERSION, key, ...parts, text, textSha256: sha256(text) };
    writeFileAtomic(this.fileOf(parts, key), `${JSON.stringify(entry, null, 2)}\n`);
  }
}

/** A prompt template: an id and instructions, and how the content goes into the messages. */
export interface PromptTemplate {
  id: string;
  system: string;
  user: (content: string) => string;
}

export function promptSha256(p: PromptTemplate): string {
  // The user template is hashed by what it does to a marker, so a change to its wording counts.
  return sha256(JSON.stringify({ id: p.id, system: p.system, user: p.user('\u0000CONTENT\u0000') }));
}

/** The model's answer about `content`, from the cache when there, else asked and cached. */
export async function cachedChat(client: ChatClient, cache: LlmCache | null, prompt: PromptTemplate, content: string): Promise<{ text: string; cached: boolean }> {
  const parts: CacheKeyParts = {
    provider: client.provider,
    model: client.model,
    temperature: client.temperature,
    promptSha256: promptSha256(prompt),
    contentSha256: sha256(content),
  };
  const hit = cache?.get(parts) ?? null;
  // An entry written before chat() dropped a thinking model's reasoning may still hold it.
  if (hit !== null) return { text: withoutReasoning(hit), cached: true };
  const messages: ChatMessage[] = [
    { role: 'system', content: prompt.system },
    { role: 'user', content: prompt.user(content) },
  ];
  const text = await client.chat(messages);
  cache?.put(parts, text);
  return { text, cached: false };
}
