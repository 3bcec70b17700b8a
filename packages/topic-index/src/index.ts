/**
 * @chunkyard/topic-index — IndexTool's pure stages (seed 001 §4 and "Index.json Schema
 * Extensions"): stripe ordering at build time, and index.json for topics and the sections
 * above them, so a client walks from the root index to every chunk by links alone.
 *
 *   const index = topicIndex(parseTopicSpecMd(text, file), 'libraries/x');
 *   writeFileAtomic('docs/libraries/x/index.json', formatIndexJson(index));
 */
export { childEntry, chunkTextSha256, formatIndexJson, indexHref, parentId, sectionIndex, topicIndex } from './build.js';
export { describeChunk, llmsFullTxt, llmsTxt, stripeReadingOrder, type LlmsFullTopic, type LlmsTopic, type LlmsTxtInput } from './llms-txt.js';
export { STRIPE_MIN_CHUNKS, stripeFactor, stripeOrder } from './stripe.js';
export type * from './types.js';
