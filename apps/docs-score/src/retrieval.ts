/**
 * Retrieval quality of built topics on question sets, with the Chroma metric:
 * every chunk of every scored document goes into one pooled collection (its
 * span from the manifest's exact sourcePosition, its embedText embedded); each
 * question retrieves its top k; recall / precision / IoU over characters.
 *
 * Questions come from each topic's qa-pairs.md (reference excerpts located in
 * golden-reference.md) or from a Chroma-format CSV whose corpus_id names a
 * document as `<topic>/<doc>` (or `<topic>` for its golden-reference).
 */
import { join } from 'node:path';
import type { EmbeddingProvider } from '@chunkyard/embeddings';
import { evaluate, manifestShape, parseChromaCsv, questionsFromQaPairs, summarizeByCorpus, type ChunkSpan, type LoadedDocument, type LoadedTopic, type PerQuestion, type Question, type Summary } from '@chunkyard/quality';
import { docNameOf, entryExists, TOPIC_MARKER } from '@chunkyard/topic-io';
import { decodeUtf8, readFileBytes, TooLargeFileError } from './load.js';
import { parseQaPairs, QaPairsError } from '@chunkyard/qa-pairs';
import { QuestionsError } from '@chunkyard/quality';

export interface Corpus {
  id: string;
  source: string;
  spans: ChunkSpan[];
  embedTexts: string[];
}

interface ManifestChunk {
  embedText: string;
  sourcePosition: { charStart: number; charEnd: number };
  tier?: { level: string };
}

/** A document the retrieval and answer scoring leave out, and why. */
export interface SkippedDocument {
  file: string;
  problem: string;
}

/**
 * The topics with only the documents scoring can read: a manifest the checks accept as one
 * (manifestShape) and its source. A manifest that was not valid JSON, or whose chunk had no
 * sourcePosition, stopped --qa with "Cannot read properties of undefined (reading
 * 'charStart')" and no file named; the checks report such a manifest, and each is named here.
 */
export function usableTopics<T extends { id: string; topic: LoadedTopic }>(topics: readonly T[]): { topics: T[]; skipped: SkippedDocument[] } {
  const skipped: SkippedDocument[] = [];
  const problemOf = (doc: LoadedDocument): string | null => {
    if (doc.manifestError !== undefined) return `manifest unreadable: ${doc.manifestError}`;
    const shape = manifestShape(doc.manifest);
    if (shape !== null) return `not a chunk manifest: ${shape}`;
    if (doc.source === null) return `its source ${doc.sourceFile} cannot be read (${doc.sourceError ?? 'missing'})`;
    return null;
  };
  const usable = topics.map((t) => {
    const documents = t.topic.documents.filter((doc) => {
      const problem = problemOf(doc);
      if (problem !== null) skipped.push({ file: doc.manifestFile, problem });
      return problem === null;
    });
    return { ...t, topic: { ...t.topic, documents } };
  });
  return { topics: usable, skipped };
}

/** One corpus per built document (given usableTopics' documents); hierarchical manifests contribute their snippet tier. */
export function corporaOf(topics: readonly { id: string; topic: LoadedTopic }[]): Corpus[] {
  const out: Corpus[] = [];
  for (const { id, topic } of topics) {
    for (const doc of topic.documents) {
      const m = doc.manifest as { chunks?: ManifestChunk[] } | null;
      if (!m?.chunks || doc.source === null) continue;
      const corpusId = doc.name === docNameOf(TOPIC_MARKER) ? id : `${id}/${doc.name}`;
      const tiered = m.chunks.some((c) => c.tier);
      const chunks = tiered ? m.chunks.filter((c) => c.tier?.level === 'snippet') : m.chunks;
      out.push({
        id: corpusId,
        source: doc.source,
        spans: chunks.map((c) => ({ corpusId, start: c.sourcePosition.charStart, end: c.sourcePosition.charEnd })),
        embedTexts: chunks.map((c) => c.embedText),
      });
    }
  }
  return out;
}

/** A qa-pairs.md read for --qa: how many questions it gave, and why none when it gave none. */
export interface QaFile {
  file: string;
  questions: number;
  /** Why the file gave no question (empty, no question heading, no excerpt), or null. */
  problem: string | null;
}

/**
 * The questions of each topic's qa-pairs.md, and each file read. A file that gives none is
 * named with the reason: an empty one, or one whose questions have no excerpt, added nothing
 * to the score without a word, so a topic's questions could be lost unnoticed.
 */
export function qaQuestions(topics: readonly { id: string; topic: LoadedTopic }[], corpora: readonly Corpus[]): { questions: Question[]; files: QaFile[] } {
  const out: Question[] = [];
  const files: QaFile[] = [];
  for (const { id, topic } of topics) {
    const file = join(topic.dir, 'qa-pairs.md');
    // entryExists, not existsSync (which follows links): a qa-pairs.md that is a dangling or
    // looping symlink read as none, and --qa said "no qa-pairs.md with reference excerpts"
    // (exit 2); read, it is named as the broken link it is, as a FIFO or a folder there is.
    if (!entryExists(file)) continue;
    const corpus = corpora.find((c) => c.id === id);
    if (!corpus) {
      // Its golden-reference's manifest was left out (named with its problem before this).
      files.push({ file, questions: 0, problem: `${TOPIC_MARKER} has no usable chunk manifest (see above)` });
      continue;
    }
    const text = readText(file, (problem) => new QaPairsError(file, null, problem));
    const questions = questionsFromQaPairs(text, file, corpus.source, TOPIC_MARKER, id);
    out.push(...questions);
    files.push({ file, questions: questions.length, problem: questions.length > 0 ? null : whyNoQuestions(text, file) });
  }
  return { questions: out, files };
}

/** Why a qa-pairs.md that parsed gave no question. Parsed again only here, for a file that gave none. */
function whyNoQuestions(text: string, file: string): string {
  if (text.trim() === '') return 'empty';
  const pairs = parseQaPairs(text, file).length;
  if (pairs === 0) return 'no question in it (a question is a "## " heading ending with "?")';
  return `${pairs} question(s), none with a reference excerpt (a "> " quote of ${TOPIC_MARKER})`;
}

export function csvQuestions(file: string, corpora: readonly Corpus[]): Question[] {
  return parseChromaCsv(readText(file, (problem) => new QuestionsError(`${file}: ${problem}`)), file, new Map(corpora.map((c) => [c.id, c.source])));
}

/**
 * A questions file's text (CSV, queries.yaml, qa-pairs.md), or `toError(problem)` (a usage
 * error, exit 2) when it is not UTF-8: decoded with replacement characters, a UTF-16 CSV was
 * "Invalid Record Length: columns length is 3, got 1 on line 2" (issue 15 probe).
 */
export function readText(file: string, toError: (problem: string) => Error): string {
  let bytes: Buffer;
  try {
    bytes = readFileBytes(file);
  } catch (err) {
    if (err instanceof TooLargeFileError) throw toError(err.message);
    throw err;
  }
  // decodeUtf8: a file of valid UTF-8 too long for a string was "not valid UTF-8 (first bad byte
  // at offset <its length>)" (helper-84 probe). A BOM is kept, as bytes.toString kept it.
  const decoded = decodeUtf8(bytes);
  if ('notUtf8' in decoded) throw toError(`${decoded.notUtf8}; save it as UTF-8`);
  if ('tooLarge' in decoded) throw toError(decoded.tooLarge);
  return decoded.text;
}

export interface RetrievalReport {
  k: number;
  embedder: string;
  questions: number;
  chunks: number;
  all: Summary;
  corpora: Record<string, Summary>;
  perQuestion: PerQuestion[];
}

export async function measureRetrieval(questions: readonly Question[], corpora: readonly Corpus[], provider: EmbeddingProvider, k: number): Promise<RetrievalReport> {
  const chunks = corpora.flatMap((c) => c.spans);
  const chunkVectors = await provider.embed(corpora.flatMap((c) => c.embedTexts));
  const questionVectors = await provider.embed(questions.map((q) => q.text));
  const rows = evaluate({ questions, chunks, chunkVectors, questionVectors, k });
  const { all, corpora: by } = summarizeByCorpus(rows);
  return { k, embedder: `${provider.provider}/${provider.model}`, questions: questions.length, chunks: chunks.length, all, corpora: by, perQuestion: rows };
}
