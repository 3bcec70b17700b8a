// Our chunker's token-window strategy (seed 004), sized from --max: windows of max tokens
// with seed 004's overlap ratio (100/900), so its size discipline compares with the others.
import { chunkyardAdapter } from '../lib/chunkyard.mjs';

export default chunkyardAdapter({
  name: 'chunkyard-token-window',
  description: "chunkDocument(text, { docName, strategy: 'token-window', windowTokens: max, windowOverlapTokens: round(max / 9), singlePieceMaxTokens: max })",
  options: ({ maxTokens }) => ({ strategy: 'token-window', windowTokens: maxTokens, windowOverlapTokens: Math.round(maxTokens / 9), singlePieceMaxTokens: maxTokens }),
});
