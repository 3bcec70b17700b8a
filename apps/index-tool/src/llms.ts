/**
 * The file edge of llms.txt: gathers every topic from the built index.json files, following
 * links from the root's as a client would, and writes `<root>/llms.txt` atomically. It reads
 * only index.json files, so the Nx target that runs it hashes exactly those.
 */
import { join } from 'node:path';
import { writeFileAtomic } from '@chunkyard/fs-atomic';
import { describeChunk, llmsTxt, type IndexJson, type LlmsTopic } from '@chunkyard/topic-index';
import { readRegularFile } from '@chunkyard/topic-io';

/** Something the built tree lacks; the message names the file and the fix. */
export class LlmsError extends Error {}

function readIndex(file: string): IndexJson {
  let text: string;
  try {
    text = readRegularFile(file).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new LlmsError(`${file}: missing; build the indexes first (nx run-many -t index)`);
    throw err;
  }
  try {
    return JSON.parse(text) as IndexJson;
  } catch (err) {
    throw new LlmsError(`${file}: not valid JSON (${(err as Error).message}); rebuild it with index-tool`);
  }
}

export interface LlmsOptions {
  title?: string;
  summary?: string;
}

/** Writes `<root>/llms.txt`; returns its path and the number of topics listed. */
export function writeLlmsTxt(root: string, options: LlmsOptions): { out: string; topics: number } {
  const topics: LlmsTopic[] = [];
  const sectionTitles: Record<string, string> = {};
  const seen = new Set<string>();
  let rootTitle = '';
  const visit = (id: string) => {
    // A link cycle or a duplicate link lists a topic once.
    if (seen.has(id)) return;
    seen.add(id);
    const index = readIndex(join(root, ...(id === '' ? [] : id.split('/')), 'index.json'));
    if (id === '') rootTitle = index.title;
    if (index.kind === 'section' && id !== '' && !id.includes('/')) sectionTitles[id] = index.title;
    if (index.kind === 'topic') {
      const first = Object.values(index._embedded.chunks ?? {})[0];
      topics.push({ id, title: index.title, source: first?.source ?? '', description: index.description ?? '' });
    }
    for (const child of index._embedded.topics) visit(child.id);
  };
  visit('');
  const summary =
    options.summary ??
    `${topics.length} topic${topics.length === 1 ? '' : 's'}, each linked to its markdown source. Retrieval-ready chunks of each are listed in its index.json (HAL+JSON), built by chunkyard.`;
  const out = join(root, 'llms.txt');
  writeFileAtomic(out, llmsTxt({ title: options.title ?? rootTitle, summary, sectionTitles, topics }));
  return { out, topics: topics.length };
}

/** The one-line description of a topic: the first sentence of its first document's first chunk. */
export function topicDescription(topicDir: string, firstChunkHref: string | undefined): string {
  if (firstChunkHref === undefined) return '';
  try {
    return describeChunk(readRegularFile(join(topicDir, firstChunkHref)).toString('utf8'));
  } catch (err) {
    // The chunk files are the chunk step's output: without them the index is still useful.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}
