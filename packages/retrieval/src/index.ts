/**
 * @chunkyard/retrieval — a client for built chunkyard docs, from a folder or a base URL.
 *
 *   const client = new DocsClient(openSource('docs'));          // or 'http://127.0.0.1:4000/'
 *   const first = await discloseTopics(client, { n: 3 });        // progressive disclosure
 *   const hits = await search(client, { query: 'How do I …?', k: 1, embeddings: () => createBackend({ folder: 'docs' }) });
 *
 * See README.md for the data flow and the contract it reads.
 */
export * from './contract.js';
export * from './source.js';
export * from './walk.js';
export * from './client.js';
export * from './disclose.js';
export * from './prompt-match.js';
export * from './similarity.js';
export * from './hybrid.js';
export * from './cjk-terms.js';
export * from './expand.js';
export * from './routes.js';
export * from './embed.js';
export * from './pack-cache.js';
export * from './retrieve.js';
export * from './measure.js';
