// @ts-check
/**
 * A worker thread of a batch (executor.cjs): runs the tasks the batch sends it, one at a time,
 * with the tools loaded once in this thread, and posts each result back.
 */
const { parentPort, workerData } = require('node:worker_threads');
const { runOne } = require('./executor.cjs');

if (parentPort) {
  const port = parentPort;
  const { root } = /** @type {{ root: string }} */ (workerData);
  port.on('message', (/** @type {{ id: string, options: import('./executor.cjs').RunOptions }} */ msg) => {
    runOne(msg.options, root).then((result) => port.postMessage({ id: msg.id, result }));
  });
}
