// Child process of concurrency.test.ts: one of several processes writing the same document
// keys at once, like parallel Nx tasks sharing one .embedding-cache. Plain node cannot load
// .ts, so it imports the package bundle the test built (path in argv[2]).
//
// Protocol (IPC, 'advanced' serialization so Float32Arrays arrive intact):
//   child → parent  { type: 'ready' }                                once loaded
//   parent → child  { type: 'go', round, key, texts, vectors }       write this entry now
//   child → parent  { type: 'done', round, read, corrupt, error }    read: 'equal' | 'null' | 'different'
//   parent → child  { type: 'exit' }
import { pathToFileURL } from 'node:url';

const [bundle, root] = process.argv.slice(2);
const { EmbeddingCache } = await import(pathToFileURL(bundle).href);
const cache = new EmbeddingCache(root);
let corrupt = [];
cache.onCorrupt = (path, reason) => corrupt.push({ path, reason });

const sameBits = (a, b) =>
  a.length === b.length &&
  a.every((v, i) => {
    const w = b[i];
    if (v.length !== w.length) return false;
    const x = new Uint32Array(v.buffer, v.byteOffset, v.length);
    const y = new Uint32Array(w.buffer, w.byteOffset, w.length);
    return x.every((bits, j) => bits === y[j]);
  });

process.on('message', (msg) => {
  if (msg.type === 'exit') {
    process.disconnect();
    return;
  }
  if (msg.type !== 'go') return;
  corrupt = [];
  try {
    cache.putDocument(msg.key, msg.texts, msg.vectors);
    const got = cache.getDocument(msg.key, msg.texts);
    const read = got === null ? 'null' : sameBits(got, msg.vectors) ? 'equal' : 'different';
    process.send({ type: 'done', round: msg.round, read, corrupt });
  } catch (err) {
    process.send({ type: 'done', round: msg.round, read: 'null', corrupt, error: String(err?.stack ?? err) });
  }
});

process.send({ type: 'ready' });
