// Our chunker's paginate strategy (seed 000) with Nmax = --max. The reported text is each
// page's exact source text; the emitted page (CT comment and lead lines, within Nmax)
// is reported as embedText.
import { benchChunk, chunkyardAdapter } from '../lib/chunkyard.mjs';

export default chunkyardAdapter({
  name: 'chunkyard-paginate',
  description: "chunkDocument(text, { docName, strategy: 'paginate', ctxSize: max, bufSize: 0 }) (Nmax = max)",
  options: ({ maxTokens }) => ({ strategy: 'paginate', ctxSize: maxTokens, bufSize: 0 }),
  // The emitted page (CT comment and lead lines) is what must fit Nmax: report it as embedText.
  mapChunk: (c) => ({ ...benchChunk(c), embedText: c.page.text, embedTokens: c.page.tokens }),
});
