/**
 * @chunkyard/spec — TopicSpec's pure stages (seed 001 "TopicSpec"): per-chunk similarity to
 * the conceptual and technical baselines, the keywords of `_keywords/words.md` present in each
 * chunk, and the SimHashes of the qa-pairs.md questions close to each chunk; and the
 * topic-spec.md format that carries them to `index`.
 *
 *   const spec = buildTopicSpec({ title, embedding, documents, keywords, questions, promptThreshold });
 *   writeFileAtomic('topic-spec.md', formatTopicSpecMd(spec));
 *   parseTopicSpecMd(text, 'topic-spec.md');   // what index-tool reads
 */
export { buildTopicSpec, MAX_PROMPT_HASHES, PromptHashLimitError, type BuildSpecInput, type ManifestChunk, type SpecInputDocument, type SpecInputQuestion } from './build.js';
export { checkSpec, formatTopicSpecMd, parseTopicSpecMd, TopicSpecError } from './format.js';
export { cosine, isTechnicalBaselineTitle, roundSimilarity, TECHNICAL_TITLE } from './similarity.js';
export type * from './types.js';

/**
 * Default similarity a question needs to a chunk for its hash to be stored there. Chosen by
 * measurement on the sample topics with the local embedder (see the README, "Prompt threshold").
 */
export const DEFAULT_PROMPT_THRESHOLD = 0.3;
