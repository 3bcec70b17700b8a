// A child process that writes to a store, for the crash and concurrency tests. Bundled by
// the test with esbuild and run with `node`:
//
//   writer.js <db> hang <doc>...     ingest the docs; inside the write transaction, after the
//                                    first rows, tell the parent "mid" and block until killed
//   writer.js <db> churn <rounds> <doc>...
//                                    alternate every doc between two versions, one ingest per
//                                    round, telling the parent each round that committed
import { readFileSync } from 'node:fs';
import { createProvider } from '@chunkyard/embeddings';
import { DocStore } from '../index.js';

const [dbPath, mode, ...rest] = process.argv.slice(2);
const send = (msg: unknown) => process.send?.(msg);
const store = DocStore.open(dbPath!);
const provider = createProvider({ provider: 'local' });
const input = (file: string, content: string) => ({ content, sourceSystem: 'file', sourceId: file, sourceFile: file, topic: 'fixtures' });

if (mode === 'hang') {
  const docs = rest.map((f) => input(f, readFileSync(f, 'utf8')));
  await store.ingest(docs, provider, {
    onProgress: (e) => {
      if (e.stage === 'write' && e.done === Math.ceil(e.total / 2)) {
        send({ type: 'mid', done: e.done, total: e.total });
        // Block inside the open transaction (no await can happen here) until SIGKILL.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
      }
    },
  });
  send({ type: 'finished' });
} else if (mode === 'churn') {
  const [rounds, ...files] = rest;
  const texts = files.map((f) => readFileSync(f, 'utf8'));
  for (let round = 0; round < Number(rounds); round++) {
    // Odd rounds drop the second half of each document: other chunk counts, other ids.
    const docs = files.map((f, i) => input(f, round % 2 ? texts[i]!.slice(0, Math.floor(texts[i]!.length / 2)) : texts[i]!));
    await store.ingest(docs, provider);
    send({ type: 'round', round });
  }
  send({ type: 'finished' });
}
store.close();
