// Peak-RSS probe, run by run.mjs in a fresh process:
//   node lib/rss-child.mjs '{"corpus":DIR,"adapter":NAME|null,"maxTokens":512,"targetTokens":400}'
// Loads the corpus and the cl100k tokenizer; with an adapter, also runs setup()
// and one pass. Prints one JSON line: { maxRssKiB, ms?, chunks? }.
import { importAdapter, runPass, withQuietConsole } from './adapters.mjs';
import { loadCorpus } from './corpus.mjs';
import { countTokens } from './tokens.mjs';

const cfg = JSON.parse(process.argv[2] ?? '{}');
const files = loadCorpus(cfg.corpus);
const texts = files.map((f) => f.text);
const ctxs = files.map((f) => ({ docName: f.docName, fileName: f.rel }));
countTokens('warm up the cl100k ranks'); // the baseline holds the tokenizer tables too

/** @type {{ maxRssKiB: number, ms?: number, files: number }} */
const result = { maxRssKiB: 0, files: files.length };
if (cfg.adapter) {
  const a = await importAdapter(cfg.adapter);
  const { value } = await withQuietConsole(async () => {
    await a.setup({ maxTokens: cfg.maxTokens, targetTokens: cfg.targetTokens });
    return runPass(a.chunk, texts, ctxs);
  });
  result.ms = value.ms;
}
result.maxRssKiB = process.resourceUsage().maxRSS;
process.stdout.write(`${JSON.stringify(result)}\n`);
