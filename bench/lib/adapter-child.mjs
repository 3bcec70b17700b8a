// One adapter in a process of its own, forked by childRunner (lib/runners.mjs). Real users
// run one chunker per process; sharing one with other adapters lets their type feedback and
// optimized code in shared modules (our strategies' common code, one gpt-tokenizer instance)
// slow each other down. Requests arrive one at a time over IPC:
//   {type:'setup', name, file?, corpusDir, expect, maxTokens, targetTokens}
//        -> {type:'ready', peer, version, description, settings, suppressed}
//   {type:'pass', keep}  -> {type:'passed', ms, suppressed}   (gc(), then the timed loop, here)
//   {type:'finish'}      -> {type:'chunks', chunks}, then the child exits
// Any failure replies {type:'error', error, info?} instead.
import { loadCorpus } from './corpus.mjs';
import { corpusFingerprint, errorText, localRunner } from './runners.mjs';

/** @type {import('./runners.mjs').Runner | null} */
let runner = null;

// An orphan must not linger: without a parent there is nobody to report to.
process.on('disconnect', () => process.exit(0));
process.on('message', (msg) => void handle(/** @type {any} */ (msg)));

/** @param {any} msg */
async function handle(msg) {
  let reply;
  try {
    reply = await dispatch(msg);
  } catch (err) {
    reply = { type: 'error', error: errorText(err), info: /** @type {any} */ (err).info };
  }
  send(reply, msg.type === 'finish');
}

/** @param {any} msg */
async function dispatch(msg) {
  switch (msg.type) {
    case 'setup':
      return { type: 'ready', ...(await setup(msg)) };
    case 'pass':
      return { type: 'passed', ...(await ready().pass(msg.keep === true)) };
    case 'finish':
      return { type: 'chunks', chunks: await ready().finish() };
    default:
      throw new Error(`unknown request ${JSON.stringify(msg.type)}`);
  }
}

function ready() {
  if (!runner) throw new Error('adapter is not set up');
  return runner;
}

/** @param {any} msg */
async function setup(msg) {
  const files = loadCorpus(msg.corpusDir);
  const got = corpusFingerprint(files);
  const want = msg.expect;
  if (got.files !== want.files || got.bytes !== want.bytes || got.sha256 !== want.sha256) {
    throw new Error(
      `corpus mismatch: the parent read ${want.files} files / ${want.bytes} bytes, this child ` +
        `${got.files} files / ${got.bytes} bytes${got.sha256 !== want.sha256 ? ' (contents differ)' : ''}`,
    );
  }
  runner = localRunner({
    name: msg.name,
    file: msg.file,
    texts: files.map((f) => f.text),
    ctxs: files.map((f) => ({ docName: f.docName, fileName: f.rel })),
    maxTokens: msg.maxTokens,
    targetTokens: msg.targetTokens,
  });
  return runner.start();
}

/**
 * Chunks that cannot be cloned (functions, class instances with hidden state) are reported
 * as a failure rather than crashing the child.
 * @param {object} reply @param {boolean} last
 */
function send(reply, last) {
  const done = () => last && process.exit(0);
  try {
    /** @type {NonNullable<typeof process.send>} */ (process.send)(reply, undefined, undefined, done);
  } catch (err) {
    process.send?.({ type: 'error', error: `could not send the reply to the parent: ${errorText(err)}` }, undefined, undefined, done);
  }
}
