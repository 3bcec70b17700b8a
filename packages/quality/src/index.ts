/**
 * @chunkyard/quality — measuring chunks.
 *
 *   retrieval: the Chroma chunking-evaluation metric (spans, pooled top-k,
 *              recall / precision / IoU / precision_Ω, mean ± population std)
 *   questions: Chroma CSV or a topic's qa-pairs.md → questions with reference ranges
 */
export { intersect, union, sum, difference, type Range } from './ranges.js';
export { locateChunk, type Span } from './spans.js';
export {
  scoreRetrieval,
  precisionOmega,
  stat,
  summarize,
  summarizeByCorpus,
  type ChunkSpan,
  type PerQuestion,
  type Question,
  type QuestionScores,
  type Reference,
  type Stat,
  type Summary,
} from './metric.js';
export { evaluate, topK, type EvaluationInput, type Vector } from './retrieve.js';
export { parseChromaCsv, questionsFromQaPairs, QuestionsError } from './questions.js';
export {
  checkGraph,
  paginationIntegrityScore,
  parseCtComment,
  type BreakKind,
  type GraphBreak,
  type GraphNode,
  type GraphReport,
} from './continuity.js';
export { markdownProblems, type MarkdownProblem } from './markdown-checks.js';
export {
  CHECKS,
  checkIndexes,
  checkTopic,
  manifestShape,
  report,
  Tally,
  type BuiltReport,
  type CheckName,
  type CheckTally,
  type Finding,
  type LoadedDocument,
  type LoadedIndex,
  type LoadedPages,
  type LoadedTopic,
} from './built-checks.js';
export { checkUniqueIds, findIdCollisions, type IdCollision, type IdKind } from './unique-ids.js';
export {
  answerTokens,
  contextRecall,
  exactMatch,
  gate,
  latencyDeltaPct,
  LLM_GATES,
  mean,
  normalizeAnswer,
  requiredTokens,
  restoreThroughGraph,
  tokenF1,
  type Gate,
  type GateStatus,
  type GraphChunk,
} from './answers.js';
