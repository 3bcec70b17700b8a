// Mastra's 'markdown' chunking strategy (settings in ../lib/mastra.mjs).
// Its default separators are regexes; a split drops the matched heading marker and
// merged pieces are re-joined with the regex source (`#{1,6}`): the harness's
// verbatim and offset columns show it.
import { mastraAdapter } from '../lib/mastra.mjs';

export default mastraAdapter('markdown');
