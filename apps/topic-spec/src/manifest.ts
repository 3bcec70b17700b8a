/**
 * Reading a `_chunks/{doc}.json` manifest written by chunking-tool, checking the fields
 * topic-spec relies on, so a hand-edited or truncated manifest is a clear error naming the
 * file, never a crash or a silently wrong spec.
 */
import { escapeControl, invalidJsonMessage } from '@chunkyard/fs-atomic';
import type { ManifestChunk } from '@chunkyard/spec';

export interface Manifest {
  source: string;
  sourceSha256: string;
  strategyKey: string;
  fileTitle: string;
  chunks: (ManifestChunk & { embedText: string })[];
}

export class ManifestError extends Error {
  override name = 'ManifestError';
}

export function readManifest(text: string, file: string): Manifest {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    // Never the parser's words: they quote the file, and a planted link makes it any file.
    throw new ManifestError(`${file}: ${invalidJsonMessage(text, err)}; rebuild it with chunking-tool`);
  }
  const fail = (problem: string): never => {
    throw new ManifestError(`${file}: ${problem}; rebuild it with chunking-tool`);
  };
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return fail('not a chunk manifest (expected a JSON object)');
  const m = data as Record<string, unknown>;
  if (m.schemaVersion !== 1) fail(`schemaVersion ${shown(m.schemaVersion)} is not 1`);
  for (const k of ['source', 'strategyKey', 'fileTitle'] as const) if (typeof m[k] !== 'string') fail(`${k} is not a string`);
  // It names the chunks' folder in the embedding cache, which threw a TypeError with a stack trace for "".
  if (m.strategyKey === '') fail('strategyKey is empty');
  if (typeof m.sourceSha256 !== 'string' || !/^[0-9a-f]{64}$/.test(m.sourceSha256)) fail('sourceSha256 is not a sha256 (64 lowercase hex)');
  if (!Array.isArray(m.chunks) || m.chunks.length === 0) fail('chunks is not a non-empty list');
  (m.chunks as unknown[]).forEach((c, i) => {
    const r = c as Record<string, unknown>;
    const at = `chunks[${i}]`;
    if (typeof c !== 'object' || c === null) fail(`${at} is not an object`);
    if (r.chunkNumber !== i) fail(`${at}.chunkNumber is ${shown(r.chunkNumber)}, expected ${i}`);
    for (const k of ['originalText', 'embedText', 'sectionTitle'] as const) if (typeof r[k] !== 'string') fail(`${at}.${k} is not a string`);
    if (typeof r.isCode !== 'boolean') fail(`${at}.isCode is not true or false`);
    const t = r.tokenStats as Record<string, unknown> | undefined;
    // 0 or more and safe, as topic-spec.md's reader (parseTopicSpecMd) takes it: -5 or 1e308 made a spec index-tool refused.
    if (typeof t !== 'object' || t === null || !Number.isSafeInteger(t.tokens) || (t.tokens as number) < 0) fail(`${at}.tokenStats.tokens is not a whole number`);
  });
  return m as unknown as Manifest;
}

/**
 * A wrong value as a message quotes it: JSON, at most 60 characters, control characters
 * escaped. It was quoted whole, so a megabyte schemaVersion made a megabyte line on stderr.
 */
function shown(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  if (json.length <= 60) return escapeControl(json);
  let cut = json.slice(0, 57);
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1); // not half a surrogate pair
  return `${escapeControl(cut)}... (${json.length} characters)`;
}
