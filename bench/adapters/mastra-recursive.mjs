// Mastra's 'recursive' chunking strategy (settings in ../lib/mastra.mjs).
import { mastraAdapter } from '../lib/mastra.mjs';

export default mastraAdapter('recursive');
