#!/usr/bin/env node
// The retrieval benchmark: our chunking strategies at several sizes against
// LangChain's RecursiveCharacterTextSplitter and TokenTextSplitter (the Chroma
// report's baselines, at the report's settings), scored with the Chroma
// chunking-evaluation metric (@chunkyard/quality) on the Chroma corpora and
// questions or on our held-out dotnet-docs set, every configuration with the
// same embedder (local, tf-idf or a remote one).
//
// Run through `npm run eval` (tools/eval.mjs installs the LangChain peers into
// bench/ and builds the packages first). See eval/README.md.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (pkg) => pathToFileURL(join(root, 'packages', pkg, 'dist/index.js')).href;
// CHUNKYARD_EVAL_CHUNKING: a chunking build to score instead of packages/chunking/dist (e.g. one
// bundled from a given commit, while the working tree's chunker is being changed).
const { chunkDocument, countTokens } = await import(process.env.CHUNKYARD_EVAL_CHUNKING ? pathToFileURL(resolve(process.env.CHUNKYARD_EVAL_CHUNKING)).href : dist('chunking'));
const { createProvider } = await import(dist('embeddings'));
const { locateChunk, parseChromaCsv, precisionOmega, scoreRetrieval, summarizeByCorpus, topK } = await import(dist('quality'));
const { parseConfig } = await import(dist('config'));
const { STOP_WORDS } = await import(dist('embeddings'));
const { recordSpan } = await import('../tools/eval/spans.mjs');
const { fitTfidf } = await import('../tools/eval/tfidf.mjs');
const { pairedBootstrap } = await import('../tools/eval/stats.mjs');
const { fuseScores, mergeAdjacent, topIndexes, windowTexts, withNeighbours } = await import('../tools/eval/routes.mjs');
const { Bm25Index } = await import(dist('retrieval'));
const { loadSet, SETS } = await import('../tools/eval/sets.mjs');

const HELP = `eval/retrieval.mjs — retrieval quality of chunkers on the Chroma set or the held-out dotnet-docs set

Usage: npm run eval -- [options]

Options:
  --set NAME        question set: chroma (default; 5 corpora, 472 questions) or
                    dotnet-docs (our own held-out docs set, eval/dotnet-docs/)
  --data DIR        corpora of the set (default: ../shared/eval/chroma or
                    ../shared/corpora/dotnet-docs next to the repository)
  --k N             chunks retrieved per question (default 5, as the report)
  --embedder NAME   local (default); tfidf (sublinear tf, English stop words, fitted on
                    each configuration's pooled chunks: close to the published table
                    of issue 17); tfidf-raw (scikit-learn's TfidfVectorizer defaults);
                    ollama or openai; remote settings come
                    from the embeddings: section of --config. --provider is an alias.
  --config FILE     chunkyard.config.yaml to read embeddings settings from
  --only a,b        run only these configurations (names as in the table)
  --add SPEC        add a configuration (repeatable):
                      ours:<strategy>[:key=value,...]   e.g. ours:semantic:targetTokens=300,maxTokens=384
                      recursive:<size>:<overlap> | token:<size>:<overlap>
  --embed FIELD     which text of our chunks is embedded: embedText (default, what
                    the product indexes) or originalText
  --neighbours      route "context in what is embedded": our chunks' embedded text also
                    gets the words of the chunks before and after it (the end of the
                    previous, the start of the next), as many as fit the configuration's
                    maxTokens (snippetMaxTokens for hierarchical); the span scored
                    stays the chunk's own
  --merge-adjacent  route "small-to-big": walking down the ranking, a chunk that touches a
                    unit already returned joins it instead of taking a slot (k units)
  --merge-depth N   with --merge-adjacent: how far down the ranking the walk goes (default 4k)
  --hybrid          route "hybrid ranking": each chunk's score is its embedder similarity
                    plus its BM25 score (@chunkyard/retrieval's, as docs-query --ranking
                    hybrid: the local embedder's stems, k1 1.2, b 0.75), each divided by its
                    maximum for the question
  --window-score W  route "score fusion": add W times the same score(s) computed on the
                    chunk's window (itself and the chunk before and after it, scored as one
                    text); the chunk returned stays the chunk alone
  --routes-on-baselines  apply the routes above to the LangChain rows too (default: ours only)
  --out DIR         results directory (default eval/results)
  --list            print the configuration names and exit
  -h, --help        this help`;

/** Default configurations: ours at several sizes, then the report's baseline rows. */
const DEFAULTS = [
  // At the baselines' caps (200 and 400 tokens), no overlap: the report's settings for Recursive/TokenText 200 and 400.
  'ours:semantic:targetTokens=120,maxTokens=200,minTokens=32,overlapSentences=0',
  'ours:semantic:targetTokens=150,maxTokens=200,minTokens=32,overlapSentences=0',
  'ours:semantic:targetTokens=240,maxTokens=400,minTokens=32,overlapSentences=0',
  'ours:token-window:windowTokens=200,windowOverlapTokens=0',
  'ours:token-window:windowTokens=400,windowOverlapTokens=0',
  'ours:hierarchical:snippetTargetTokens=150,snippetMaxTokens=200,snippetOverlapTokens=0',
  // The product's settings: semantic with its default 2-sentence overlap, hierarchical defaults.
  'ours:semantic:targetTokens=200,maxTokens=256,minTokens=32',
  'ours:semantic:targetTokens=400,maxTokens=512,minTokens=64',
  'ours:hierarchical',
  'recursive:400:200',
  'recursive:400:0',
  'recursive:200:0',
  'token:400:200',
  'token:400:0',
  'token:200:0',
];

/**
 * The tf-idf embedders, fitted on each configuration's pooled chunks. `tfidf` (sublinear tf,
 * English stop words) comes closest to the published table of issue 17 (Recursive 400/200:
 * 90.1 / 3.5 here against 90.7 / 3.5 there; 200/0: 80.9 / 7.1 against 82.3 / 7.3);
 * `tfidf-raw` is scikit-learn's TfidfVectorizer with its defaults.
 */
const TFIDF = { tfidf: { stopWords: STOP_WORDS, sublinear: true }, 'tfidf-raw': {} };

const SEPARATORS = ['\n\n', '\n', '.', '?', '!', ' ', ''];

function parseSpec(spec) {
  const [kind, a, b] = spec.split(':');
  if (kind === 'ours') {
    if (!a) throw new Error(`--add ${spec}: need ours:<strategy>`);
    const options = {};
    for (const kv of (b ?? '').split(',').filter(Boolean)) {
      const [k, v] = kv.split('=');
      if (!k || v === undefined) throw new Error(`--add ${spec}: "${kv}" is not key=value`);
      options[k] = /^-?\d+$/.test(v) ? Number(v) : v;
    }
    const size = options.targetTokens ?? options.windowTokens ?? options.snippetTargetTokens ?? '';
    const overlap = options.windowOverlapTokens ?? options.snippetOverlapTokens ?? (options.overlapSentences !== undefined ? `${options.overlapSentences}s` : '');
    const extra = Object.keys(options).filter((key) => !/^(targetTokens|maxTokens|minTokens|windowTokens|windowOverlapTokens|snippetTargetTokens|snippetMaxTokens|snippetOverlapTokens|overlapSentences)$/.test(key));
    const cap = options.maxTokens ?? options.snippetMaxTokens;
    const name = `chunkyard-${a}${size ? `-${size}` : ''}${cap !== undefined ? `/${cap}` : ''}${overlap !== '' ? `-o${overlap}` : ''}${extra.map((key) => `-${key}=${options[key]}`).join('')}${b ? '' : '-defaults'}`;
    return { name, kind: 'ours', strategy: a, options, spec };
  }
  if (kind === 'recursive' || kind === 'token') {
    const size = Number(a);
    const overlap = Number(b ?? 0);
    if (!Number.isInteger(size) || !Number.isInteger(overlap) || size < 1 || overlap < 0) throw new Error(`--add ${spec}: need ${kind}:<size>:<overlap>`);
    return { name: `${kind === 'recursive' ? 'Recursive' : 'TokenText'}-${size}-o${overlap}`, kind, size, overlap, spec };
  }
  throw new Error(`--add ${spec}: kind must be ours, recursive or token`);
}

/** LangChain from bench/node_modules (installed there by tools/eval.mjs, never into the root). */
async function langchain() {
  const req = createRequire(join(root, 'bench/package.json'));
  const load = async (id) => import(pathToFileURL(req.resolve(id)).href);
  const ts = await load('@langchain/textsplitters');
  const { Tiktoken } = await load('js-tiktoken/lite');
  const ranks = (await load('js-tiktoken/ranks/cl100k_base')).default;
  return {
    version: JSON.parse(readFileSync(join(dirname(req.resolve('@langchain/textsplitters/package.json')), 'package.json'), 'utf8')).version,
    recursive: (size, overlap) =>
      new ts.RecursiveCharacterTextSplitter({ chunkSize: size, chunkOverlap: overlap, separators: SEPARATORS, lengthFunction: (t) => countTokens(t) }),
    token: (size, overlap) => {
      const s = new ts.TokenTextSplitter({ encodingName: 'cl100k_base', chunkSize: size, chunkOverlap: overlap });
      // Offline: the splitter would fetch its ranks over HTTP; js-tiktoken bundles the same cl100k_base data.
      s.tokenizer = new Tiktoken(ranks);
      return s;
    },
  };
}

function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function unitVector(v) {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  const out = new Float64Array(v.length);
  const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
  for (let i = 0; i < v.length; i++) out[i] = v[i] * inv;
  return out;
}

/**
 * One configuration's chunks of one corpus: the text scored, its span (our records
 * carry their own range; a bare string is searched for, Chroma's rule) and the
 * text embedded.
 */
async function chunkCorpus(cfg, text, corpusId, lc, embedField, neighbours) {
  if (cfg.kind === 'ours') {
    const r = chunkDocument(text, { ...cfg.options, strategy: cfg.strategy, docName: corpusId, sourceFile: `${corpusId}.md` });
    let chunks = r.chunks;
    // hierarchical: retrieval runs over the snippet tier (sections are its parents, for expansion).
    if (cfg.strategy === 'hierarchical') chunks = chunks.filter((c) => c.tier?.level === 'snippet');
    const embeds = chunks.map((c) => (embedField === 'originalText' ? c.originalText : c.embedText));
    const cap = cfg.strategy === 'hierarchical' ? r.options.snippetMaxTokens : r.options.maxTokens;
    return {
      options: r.options,
      chunks: chunks.map((c, i) => ({
        text: c.originalText,
        span: recordSpan(text, c),
        embed: neighbours && cap ? withNeighbours(embeds[i], chunks[i - 1]?.originalText, chunks[i + 1]?.originalText, cap, countTokens) : embeds[i],
      })),
    };
  }
  const splitter = cfg.kind === 'recursive' ? lc.recursive(cfg.size, cfg.overlap) : lc.token(cfg.size, cfg.overlap);
  const texts = await splitter.splitText(text);
  return { options: { chunkSize: cfg.size, chunkOverlap: cfg.overlap }, chunks: texts.map((t) => ({ text: t, span: locateChunk(text, t), embed: t })) };
}

const pct = (s) => `${(100 * s.mean).toFixed(1)} ± ${(100 * s.std).toFixed(1)}`;

function table(results) {
  const head = '| chunking | size | overlap | chunks | mean tokens | Recall | Precision | Precision_Ω | IoU |';
  const rule = '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |';
  const rows = results.map((r) => {
    const a = r.summary.all;
    return `| ${r.name} | ${r.size} | ${r.overlap} | ${r.chunks} | ${r.meanTokens.toFixed(0)} | ${pct(a.recall)} | ${pct(a.precision)} | ${pct(a.precisionOmega)} | ${pct(a.iou)} |`;
  });
  return [head, rule, ...rows].join('\n');
}

function corpusTable(results) {
  const ids = Object.keys(results[0]?.summary.corpora ?? {});
  const head = `| chunking | ${ids.map((id) => `IoU ${id}`).join(' | ')} |`;
  const rule = `| --- |${ids.map(() => ' ---: |').join('')}`;
  const rows = results.map((r) => `| ${r.name} | ${ids.map((id) => (100 * r.summary.corpora[id].iou.mean).toFixed(2)).join(' | ')} |`);
  return [head, rule, ...rows].join('\n');
}

async function main() {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      k: { type: 'string', default: '5' },
      set: { type: 'string', default: 'chroma' },
      embedder: { type: 'string' },
      provider: { type: 'string' },
      config: { type: 'string' },
      only: { type: 'string' },
      add: { type: 'string', multiple: true },
      embed: { type: 'string', default: 'embedText' },
      neighbours: { type: 'boolean' },
      'merge-adjacent': { type: 'boolean' },
      'merge-depth': { type: 'string' },
      hybrid: { type: 'boolean' },
      'window-score': { type: 'string' },
      'routes-on-baselines': { type: 'boolean' },
      out: { type: 'string' },
      list: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return void console.log(HELP);
  const k = Number(values.k);
  if (!Number.isInteger(k) || k < 1) throw new Error(`--k must be a positive integer, got ${values.k}`);
  const windowWeight = values['window-score'] === undefined ? 0 : Number(values['window-score']);
  if (!(windowWeight >= 0)) throw new Error(`--window-score must be a number ≥ 0, got ${values['window-score']}`);
  const mergeDepth = values['merge-depth'] === undefined ? 4 * k : Number(values['merge-depth']);
  if (!Number.isInteger(mergeDepth) || mergeDepth < k) throw new Error(`--merge-depth must be an integer ≥ k, got ${values['merge-depth']}`);
  if (!['embedText', 'originalText'].includes(values.embed)) throw new Error(`--embed must be embedText or originalText`);
  let configs = [...DEFAULTS, ...(values.add ?? [])].map(parseSpec);
  if (values.list) return void console.log(configs.map((c) => `${c.name}\t${c.spec}`).join('\n'));
  if (values.only) {
    const want = new Set(values.only.split(','));
    const unknown = [...want].filter((n) => !configs.some((c) => c.name === n));
    if (unknown.length) throw new Error(`--only: unknown configuration(s) ${unknown.join(', ')} (see --list)`);
    configs = configs.filter((c) => want.has(c.name));
  }

  if (!SETS[values.set]) throw new Error(`--set must be one of ${Object.keys(SETS).join(', ')}, got ${values.set}`);
  const { corpora, questions } = loadSet(values.set, root, values.data, parseChromaCsv);

  const embedder = values.embedder ?? values.provider ?? 'local';
  let provider;
  if (TFIDF[embedder]) {
    provider = { provider: embedder, model: embedder === 'tfidf' ? 'tfidf-sublinear-stopwords' : 'sklearn-TfidfVectorizer-defaults' };
  } else {
    let settings = { provider: 'local' };
    if (values.config) settings = { ...settings, ...(parseConfig(readFileSync(values.config, 'utf8'), values.config).embeddings ?? {}) };
    provider = createProvider({ ...settings, provider: embedder });
  }
  const lc = configs.some((c) => c.kind !== 'ours') ? await langchain() : null;

  console.error(`eval: set ${values.set}, ${questions.length} questions, ${corpora.size} corpora, k=${k}, embedder ${provider.provider}/${provider.model}`);
  const questionVectors = TFIDF[embedder] ? null : await provider.embed(questions.map((q) => q.text));
  const results = [];
  for (const cfg of configs) {
    const t0 = performance.now();
    const spans = [];
    const embedTexts = [];
    /** @type {{ corpusId: string, text: string, embed: string }[]} */
    const ordered = [];
    let tokens = 0;
    const mapping = { offsets: 0, exact: 0, whitespace: 0, unmapped: 0 };
    let options = null;
    for (const [corpusId, text] of corpora) {
      const out = await chunkCorpus(cfg, text, corpusId, lc, values.embed, values.neighbours);
      options = out.options;
      for (const c of out.chunks) {
        if (!c.text.trim()) continue;
        const span = c.span;
        if (!span) {
          mapping.unmapped++;
          continue;
        }
        mapping[span.method]++;
        spans.push({ corpusId, start: span.start, end: span.end });
        embedTexts.push(c.embed);
        ordered.push({ corpusId, text: c.text, embed: c.embed });
        tokens += countTokens(c.text);
      }
    }
    const chunkMs = performance.now() - t0;
    // Ranking: the k best chunks, or (--merge-adjacent) k units, where a chunk that touches a
    // unit already returned joins it instead of taking a slot of its own.
    const routed = cfg.kind === 'ours' || values['routes-on-baselines'];
    const depth = values['merge-adjacent'] && routed ? mergeDepth : k;
    let rank;
    if (routed && (values.hybrid || windowWeight > 0)) {
      // Score fusion: every chunk scored by the embedder (and BM25 with --hybrid), on its own
      // text and (--window-score) on its window's, the lists max-normalised and summed.
      const texts = windowWeight > 0 ? [embedTexts, windowTexts(ordered, 1)] : [embedTexts];
      const scorers = [];
      for (const [t, docs] of texts.entries()) {
        const weight = t === 0 ? 1 : windowWeight;
        if (TFIDF[embedder]) {
          const index = fitTfidf(docs, TFIDF[embedder]);
          scorers.push({ weight, score: (q) => index.scores(q.text) });
        } else {
          const units = (await provider.embed(docs)).map(unitVector);
          scorers.push({ weight, score: (_q, i) => units.map((u) => dot(u, questionVectors[i])) });
        }
        if (values.hybrid) {
          // The product's BM25 (docs-query --ranking hybrid), so the rows measure what users get.
          const bm = new Bm25Index(docs);
          scorers.push({ weight, score: (q) => bm.scores(q.text) });
        }
      }
      rank = (q, i) => topIndexes(fuseScores(scorers.map((s) => ({ weight: s.weight, scores: s.score(q, i) }))), depth);
    } else if (TFIDF[embedder]) {
      const index = fitTfidf(embedTexts, TFIDF[embedder]);
      rank = (q) => index.search(q.text, depth);
    } else {
      const units = (await provider.embed(embedTexts)).map(unitVector);
      rank = (q, i) => topK(questionVectors[i], units, depth);
    }
    const rows = questions.map((q, i) => {
      const ranked = rank(q, i).map((j) => spans[j]);
      const retrieved = depth > k ? mergeAdjacent(ranked, k) : ranked;
      return { id: q.id, corpusId: q.corpusId, ...scoreRetrieval(q, retrieved), precisionOmega: precisionOmega(q, spans) };
    });
    const summary = summarizeByCorpus(rows);
    const size = cfg.kind === 'ours' ? (cfg.options.targetTokens ?? cfg.options.windowTokens ?? cfg.options.snippetTargetTokens ?? options?.targetTokens ?? '') : cfg.size;
    const overlap = cfg.kind === 'ours' ? (cfg.options.windowOverlapTokens ?? cfg.options.snippetOverlapTokens ?? (cfg.strategy === 'semantic' ? `${options?.overlapSentences ?? 2} sent.` : options?.snippetOverlapTokens ?? options?.windowOverlapTokens ?? '')) : cfg.overlap;
    const route = routed ? { hybrid: !!values.hybrid, windowScore: windowWeight, mergeAdjacent: !!values['merge-adjacent'], mergeDepth: values['merge-adjacent'] ? mergeDepth : null, neighbours: !!values.neighbours } : null;
    const r = { name: cfg.name, spec: cfg.spec, route, kind: cfg.kind, size, overlap, options, chunks: spans.length, meanTokens: tokens / Math.max(1, spans.length), mapping, chunkMs: Math.round(chunkMs), summary, perQuestion: rows };
    results.push(r);
    const a = summary.all;
    console.error(`  ${cfg.name}: ${spans.length} chunks (${mapping.unmapped} unmapped, ${mapping.whitespace} by whitespace match) IoU ${pct(a.iou)} recall ${pct(a.recall)} precision ${pct(a.precision)}`);
  }

  const machine = { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memGiB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version, loadavg: loadavg() };
  const when = new Date().toISOString();
  const record = { when, set: values.set, machine, k, embedder: { provider: provider.provider, model: provider.model }, embedField: values.embed, langchain: lc?.version ?? null, questions: questions.length, results };
  const outDir = resolve(values.out ?? join(root, 'eval/results'));
  mkdirSync(outDir, { recursive: true });
  const stamp = when.replace(/[:.]/g, '-');
  writeFileSync(join(outDir, `retrieval-${stamp}.json`), `${JSON.stringify(record, null, 1)}\n`);
  writeFileSync(join(outDir, 'latest.json'), `${JSON.stringify(record, null, 1)}\n`);

  console.log(`Retrieval quality, set ${values.set}, ${questions.length} questions pooled, k = ${k}, embedder ${provider.provider}/${provider.model}, ${when.slice(0, 10)}`);
  console.log('Percentages, mean ± population std. Size/overlap in cl100k tokens.\n');
  console.log(table(results));
  console.log('\nIoU by corpus (mean %):\n');
  console.log(corpusTable(results));
  const ours = results.filter((r) => r.kind === 'ours');
  const baselines = results.filter((r) => r.kind !== 'ours');
  if (ours.length && baselines.length) {
    console.log(`\nPaired differences, ours minus each baseline, per question (percentage points; 95% paired bootstrap CI, 2000 resamples, fixed seed; better / worse / equal questions):\n`);
    console.log(`| ours | baseline | Δ recall | 95% CI | Δ IoU | 95% CI | IoU better / worse / equal |`);
    console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
    for (const o of ours) {
      for (const b of baselines) {
        const r = pairedBootstrap(o.perQuestion.map((x) => x.recall), b.perQuestion.map((x) => x.recall));
        const p = pairedBootstrap(o.perQuestion.map((x) => x.iou), b.perQuestion.map((x) => x.iou));
        const f = (x) => (100 * x).toFixed(2);
        console.log(`| ${o.name} | ${b.name} | ${f(r.mean)} | [${f(r.lo)}, ${f(r.hi)}] | ${f(p.mean)} | [${f(p.lo)}, ${f(p.hi)}] | ${p.better} / ${p.worse} / ${p.equal} |`);
      }
    }
  }
  const unmapped = results.filter((r) => r.mapping.unmapped > 0);
  if (unmapped.length) console.log(`\nUnmapped chunks (left out of the collection): ${unmapped.map((r) => `${r.name} ${r.mapping.unmapped}`).join(', ')}`);
}

main().catch((err) => {
  console.error(`eval: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
