// Our chunker's hierarchical strategy (seed 003): snippets capped at --max, sections at
// their default 2048. Both tiers are built inside the timed call; only the snippets (the
// retrieval unit, which cover the document on their own) are reported, so the size
// columns compare with the other adapters.
import { chunkyardAdapter } from '../lib/chunkyard.mjs';

export default chunkyardAdapter({
  name: 'chunkyard-hierarchical',
  description: "chunkDocument(text, { docName, strategy: 'hierarchical', snippetMaxTokens: max, snippetTargetTokens: target }); snippets reported",
  options: ({ maxTokens, targetTokens }) => ({ strategy: 'hierarchical', snippetMaxTokens: maxTokens, snippetTargetTokens: targetTokens }),
  select: (chunks) => chunks.filter((c) => c.tier?.level === 'snippet'),
});
