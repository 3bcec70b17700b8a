// Our chunker: @chunkyard/chunking's chunkDocument (semantic strategy), built with
// `node tools/build.mjs packages/chunking` (dist/index.js).
import { chunkyardAdapter } from '../lib/chunkyard.mjs';

export default chunkyardAdapter({
  name: 'chunkyard-semantic',
  description: 'chunkDocument(text, { docName, maxTokens: max, targetTokens: target })',
  options: ({ maxTokens, targetTokens }) => ({ maxTokens, targetTokens }),
});
