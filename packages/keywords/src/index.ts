/**
 * @chunkyard/keywords — KeywordExtractor: the keyword authority table of a topic
 * (`_keywords/words.md`, seed 001 "Keyword Authority") from the topic's own markdown.
 *
 *   const entries = extractKeywords([{ name: 'golden-reference.md', text }], { handWritten });
 *   const md = formatWordsMd(entries, { source: ['golden-reference.md'] });
 *   const again = parseWordsMd(md, 'docs/x/_keywords/words.md');   // what `spec` reads
 *   const inChunk = matchKeywords(again, chunkText);                 // the table's keywords in one chunk
 *   const matcher = new KeywordMatcher(again);                       // the same, for many chunks of one document
 *   matcher.match(chunkText);
 */
export {
  COMMON_PENALTY,
  compareEntries,
  DEFAULT_MAX,
  extractKeywords,
  MIN_BODY_COUNT,
  PHRASE_FACTOR,
  validateEntries,
  WEIGHTS,
  type ExtractOptions,
  type KeywordEntry,
  type KeywordSource,
} from './extract.js';
export { KeywordMatcher, matchKeywords } from './match.js';
export { plainCoreState, plainInlineState, plainTokenConstructor, usePlainStates } from './markdown-it-states.js';
export { ScanMemo } from './scan.js';
export { formatWordsMd, KeywordTableError, parseWordsMd, type FormatOptions } from './words-md.js';
export { YAML_MAX_DEPTH, yamlDepthBound, yamlStrings } from './yaml-strings.js';
