// Child process of unwritable.test.ts: one embedThroughCache run against a cache the test made
// unwritable (a read-only folder, a full disk, a file size limit), as a separate process so it
// can run as another user (root ignores modes) or under `ulimit -f`. Plain node cannot load
// .ts, so it imports the bundle the test built (path in argv[2]): the package, fs-atomic's
// guardEnvironment and the test helpers.
//
// argv: bundle, cache root, JSON { model, dims, key, texts, guarded, prune }
// (prune: trackUse before the run and pruneUnused after it, as topic-spec --prune-cache does)
// stdout: JSON { vectors (each as its float32 bit patterns), calls, exit, stderr (guarded: the tool's lines), error }
import { pathToFileURL } from 'node:url';

const [bundle, root, spec] = process.argv.slice(2);
const { EmbeddingCache, embedThroughCache, guardEnvironment, CountingEmbedder } = await import(pathToFileURL(bundle).href);
const { model, dims, key, texts, guarded, prune } = JSON.parse(spec);
const embedder = new CountingEmbedder(model, dims);
const out = { vectors: null, calls: null, exit: null, stderr: [], error: null, pruned: null };
const run = async () => {
  const cache = new EmbeddingCache(root);
  if (prune) cache.trackUse();
  const r = await embedThroughCache(cache, embedder, key, texts);
  if (prune) out.pruned = cache.pruneUnused();
  out.vectors = r.vectors.map((v) => [...new Uint32Array(v.buffer, v.byteOffset, v.length)]);
  return 0;
};
try {
  out.exit = guarded ? await guardEnvironment('tool', { stdout: () => {}, stderr: (s) => out.stderr.push(s) }, run) : await run();
} catch (err) {
  out.error = String(err?.stack ?? err);
}
out.calls = embedder.calls;
process.stdout.write(JSON.stringify(out));
