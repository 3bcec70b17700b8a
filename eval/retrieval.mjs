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
const { fitTfidf, tfidfTokens } = await import('../tools/eval/tfidf.mjs');
const { pairedBootstrap } = await import('../tools/eval/stats.mjs');
const { expandByScore, fuseScores, mergeAdjacent, mergeRanked, topIndexes, trimUnit, windowTexts, withNeighbours } = await import('../tools/eval/routes.mjs');
const { Bm25Index, bm25Terms, windowVectors } = await import(dist('retrieval'));
const { loadSet, SETS } = await import('../tools/eval/sets.mjs');
const { contextualTexts, parseContextModes } = await import('../tools/eval/context.mjs');

const HELP = `eval/retrieval.mjs — retrieval quality of chunkers on the Chroma set or one of our two docs sets

Usage: npm run eval -- [options]

Options:
  --set NAME        question set: chroma (default; 5 corpora, 472 questions),
                    dotnet-docs (our own docs set, eval/dotnet-docs/) or npm-docs
                    (a second docs set, never tuned on, eval/npm-docs/)
  --data DIR        corpora of the set (default: ../shared/eval/chroma,
                    ../shared/corpora/dotnet-docs next to the repository, or the
                    docs of the npm that comes with Node: $(npm root -g)/npm/docs)
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
  --context MODES   route "contextual embed text": our chunks' embedded text also gets, within
                    the cap, context from the document's own records (tools/eval/context.mjs):
                    path, lead (the section's first sentence), kw:N (section key terms),
                    nkw:N (key terms of the chunks before and after), comma-separated
  --expand-gate T   route "expansion by neighbours' scores": after ranking, each returned unit
                    takes in the chunk just before / after it when that chunk's fused score is
                    at least T times the best score (needs --hybrid or --window-score)
  --expand-own      with --expand-gate: gate on the chunk's own-text scores, not the window's
  --merge-fill      with --merge-adjacent: walk on to --merge-depth past a hit that would open
                    unit k + 1, taking only hits that touch a unit
  --trim MIN        each returned unit drops the sentences at its edges sharing fewer than MIN
                    terms with the question (--trim-terms prefix5 (default) or bm25)
  --mmr L           maximal marginal relevance over the 30 best (L in (0, 1]; neighbours exempt)
  --skip-near R     one slot per region: pass over chunks within ±R of one taken
  --local-idf W[@R] add W times a score with idf over the chunk's ±R region (default R 3)
  --bm25-weight W, --bm25-k1 K   BM25's weight in the fusion and its k1 (with --hybrid)
  --window-score W@R[+W@R...]    several window scores, radius R each
  --window-vectors text|sum      a window's embedder score: its text embedded (default), or
                    (not with tf-idf) the sum of its chunks' vectors, as search() in
                    @chunkyard/retrieval does (windowVectors)
  --bridge B        with --merge-adjacent: a hit within B chunks of a unit joins it, the chunks
                    between included (structure-free "parent when several snippets match")
  --fill-gate G     with --merge-adjacent: past rank k, only hits scoring ≥ G × the best join or
                    join units (how far units grow adapts to the ranking; --merge-depth is the
                    cap); --gate-open gates the hits that would open a unit too (then fewer
                    than k units can come back)
  --half even|odd   only the questions at even (0, 2, …) or odd positions of the set: tune on
                    one half, report the other untouched
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
async function chunkCorpus(cfg, text, corpusId, lc, embedField, neighbours, context) {
  if (cfg.kind === 'ours') {
    const r = chunkDocument(text, { ...cfg.options, strategy: cfg.strategy, docName: corpusId, sourceFile: `${corpusId}.md` });
    let chunks = r.chunks;
    // hierarchical: retrieval runs over the snippet tier (sections are its parents, for expansion).
    if (cfg.strategy === 'hierarchical') chunks = chunks.filter((c) => c.tier?.level === 'snippet');
    const cap = cfg.strategy === 'hierarchical' ? r.options.snippetMaxTokens : r.options.maxTokens;
    const embeds = context
      ? contextualTexts(chunks, context, { cap, countTokens, stopWords: STOP_WORDS })
      : chunks.map((c) => (embedField === 'originalText' ? c.originalText : c.embedText));
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
      context: { type: 'string' },
      'expand-gate': { type: 'string' },
      'expand-own': { type: 'boolean' },
      'merge-fill': { type: 'boolean' },
      mmr: { type: 'string' },
      'bm25-weight': { type: 'string' },
      'skip-near': { type: 'string' },
      'local-idf': { type: 'string' },
      trim: { type: 'string' },
      'trim-terms': { type: 'string', default: 'prefix5' },
      'window-vectors': { type: 'string', default: 'text' },
      'bm25-k1': { type: 'string' },
      bridge: { type: 'string' },
      'fill-gate': { type: 'string' },
      'gate-open': { type: 'boolean' },
      half: { type: 'string' },
      out: { type: 'string' },
      list: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return void console.log(HELP);
  const k = Number(values.k);
  if (!Number.isInteger(k) || k < 1) throw new Error(`--k must be a positive integer, got ${values.k}`);
  // W (radius 1) or W@R[+W@R...]: one window score per radius R (chunks within ±R), weight W.
  const windows = (values['window-score'] ?? '').split('+').filter(Boolean).map((part) => {
    const [w, r] = part.split('@');
    const out = { weight: Number(w), radius: r === undefined ? 1 : Number(r) };
    if (!(out.weight >= 0) || !Number.isInteger(out.radius) || out.radius < 1) throw new Error(`--window-score must be W or W@R[+W@R…] (W ≥ 0, R ≥ 1), got ${values['window-score']}`);
    return out;
  });
  const windowWeight = windows.reduce((s, w) => s + w.weight, 0);
  const mergeDepth = values['merge-depth'] === undefined ? 4 * k : Number(values['merge-depth']);
  if (!Number.isInteger(mergeDepth) || mergeDepth < k) throw new Error(`--merge-depth must be an integer ≥ k, got ${values['merge-depth']}`);
  const context = values.context ? parseContextModes(values.context) : null;
  const gate = values['expand-gate'] === undefined ? 0 : Number(values['expand-gate']);
  if (!(gate >= 0 && gate <= 1)) throw new Error(`--expand-gate must be a number in [0, 1], got ${values['expand-gate']}`);
  if (!['embedText', 'originalText'].includes(values.embed)) throw new Error(`--embed must be embedText or originalText`);
  if (!['text', 'sum'].includes(values['window-vectors'])) throw new Error(`--window-vectors must be text or sum, got ${values['window-vectors']}`);
  let configs = [...DEFAULTS, ...(values.add ?? [])].map(parseSpec);
  if (values.list) return void console.log(configs.map((c) => `${c.name}\t${c.spec}`).join('\n'));
  if (values.only) {
    const want = new Set(values.only.split(','));
    const unknown = [...want].filter((n) => !configs.some((c) => c.name === n));
    if (unknown.length) throw new Error(`--only: unknown configuration(s) ${unknown.join(', ')} (see --list)`);
    configs = configs.filter((c) => want.has(c.name));
  }

  if (!SETS[values.set]) throw new Error(`--set must be one of ${Object.keys(SETS).join(', ')}, got ${values.set}`);
  const loaded = loadSet(values.set, root, values.data, parseChromaCsv);
  const { corpora } = loaded;
  if (values.half !== undefined && !['even', 'odd'].includes(values.half)) throw new Error(`--half must be even or odd, got ${values.half}`);
  const questions = values.half ? loaded.questions.filter((_, i) => i % 2 === (values.half === 'odd' ? 1 : 0)) : loaded.questions;
  const bridge = values.bridge === undefined ? 0 : Number(values.bridge);
  if (!Number.isInteger(bridge) || bridge < 0) throw new Error(`--bridge must be an integer ≥ 0, got ${values.bridge}`);
  const fillGate = values['fill-gate'] === undefined ? 0 : Number(values['fill-gate']);
  if (!(fillGate >= 0 && fillGate <= 1)) throw new Error(`--fill-gate must be a number in [0, 1], got ${values['fill-gate']}`);

  const embedder = values.embedder ?? values.provider ?? 'local';
  let provider;
  if (TFIDF[embedder]) {
    provider = { provider: embedder, model: embedder === 'tfidf' ? 'tfidf-sublinear-stopwords' : 'sklearn-TfidfVectorizer-defaults' };
  } else {
    let settings = { provider: 'local' };
    if (values.config) settings = { ...settings, ...(parseConfig(readFileSync(values.config, 'utf8'), values.config).embeddings ?? {}) };
    provider = createProvider({ ...settings, provider: embedder });
  }
  if (values['window-vectors'] === 'sum' && TFIDF[embedder]) throw new Error('--window-vectors sum needs an embedder with vectors (not tf-idf)');
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
      const out = await chunkCorpus(cfg, text, corpusId, lc, values.embed, values.neighbours, cfg.kind === 'ours' || values['routes-on-baselines'] ? context : null);
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
    /** @type {((q: any, i: number) => Float64Array) | null} */
    let fused = null;
    /** @type {((q: any, i: number) => Float64Array) | null} */
    let own = null;
    if (routed && (values.hybrid || windowWeight > 0)) {
      // Score fusion: every chunk scored by the embedder (and BM25 with --hybrid), on its own
      // text and (--window-score) on its window's, the lists max-normalised and summed.
      const texts = [embedTexts, ...windows.map((w) => windowTexts(ordered, w.radius))];
      const scorers = [];
      for (const [t, docs] of texts.entries()) {
        const weight = t === 0 ? 1 : (windows[t - 1]?.weight ?? 0);
        if (TFIDF[embedder]) {
          const index = fitTfidf(docs, TFIDF[embedder]);
          scorers.push({ weight, window: t > 0, score: (q) => index.scores(q.text) });
        } else if (t > 0 && values['window-vectors'] === 'sum') {
          // @chunkyard/retrieval's search(): the window's vector is the sum of its chunks' vectors.
          const own = await provider.embed(embedTexts);
          const units = windowVectors(ordered.map((c, j) => ({ group: c.corpusId, vector: own[j] })), windows[t - 1].radius).map(unitVector);
          scorers.push({ weight, window: true, score: (_q, i) => units.map((u) => dot(u, questionVectors[i])) });
        } else {
          const units = (await provider.embed(docs)).map(unitVector);
          scorers.push({ weight, window: t > 0, score: (_q, i) => units.map((u) => dot(u, questionVectors[i])) });
        }
        if (values.hybrid) {
          // The product's BM25 (docs-query --ranking hybrid), so the rows measure what users get.
          const bm = new Bm25Index(docs, values['bm25-k1'] ? { k1: Number(values['bm25-k1']) } : {});
          scorers.push({ weight: weight * Number(values['bm25-weight'] ?? 1), window: t > 0, score: (q) => bm.scores(q.text) });
        }
      }
      fused = (q, i) => fuseScores(scorers.map((s) => ({ weight: s.weight, scores: s.score(q, i) })));
      if (values['local-idf']) {
        // Local contrast: among the 50 best, each chunk also scores the query's words weighed
        // by their idf over its own region (chunks within ±R, same corpus): words the whole
        // region shares (its topic, which the window score already found) count little there,
        // so the chunk that holds the rest of the question wins within the region.
        const [lw, lr] = values['local-idf'].split('@');
        const lambda = Number(lw);
        const radius = lr === undefined ? 3 : Number(lr);
        const bags = embedTexts.map((t) => {
          const m = new Map();
          for (const w of tfidfTokens(t)) if (!STOP_WORDS.has(w)) m.set(w, (m.get(w) ?? 0) + 1);
          return m;
        });
        const base = fused;
        fused = (q, i) => {
          const sc = base(q, i);
          const qt = [...new Set(tfidfTokens(q.text).filter((w) => !STOP_WORDS.has(w)))];
          const cand = topIndexes(sc, 50);
          const local = new Float64Array(sc.length);
          for (const j of cand) {
            const region = [];
            for (let r = j - radius; r <= j + radius; r++) if (spans[r] && spans[r].corpusId === spans[j].corpusId) region.push(r);
            let v = 0, norm = 0;
            for (const [w, c] of bags[j]) {
              let df = 0;
              for (const r of region) if (bags[r].has(w)) df++;
              const x = (1 + Math.log(c)) * (Math.log((1 + region.length) / (1 + df)) + 1);
              norm += x * x;
              if (qt.includes(w)) v += x;
            }
            local[j] = norm > 0 ? v / Math.sqrt(norm) : 0;
          }
          return fuseScores([{ weight: 1, scores: sc }, { weight: lambda, scores: local }]);
        };
      }
      // The chunks' own-text scorers alone (the window's shared score makes neighbours look alike).
      own = (q, i) => fuseScores(scorers.filter((s) => !s.window).map((s) => ({ weight: s.weight, scores: s.score(q, i) })));
      const lambda = values.mmr === undefined ? 1 : Number(values.mmr);
      if (!(lambda > 0 && lambda <= 1)) throw new Error(`--mmr must be in (0, 1], got ${values.mmr}`);
      if (lambda < 1) {
        // Maximal marginal relevance over the 30 best: relevance (fused, max-normalised) minus
        // redundancy (tf-idf cosine to a chunk already picked); neighbours are not redundant
        // (small-to-big merges them), so the chunks adjacent to a pick are exempt.
        const sims = fitTfidf(embedTexts, { stopWords: STOP_WORDS, sublinear: true });
        const cache = new Map();
        const row = (j) => {
          if (!cache.has(j)) {
            const sc = sims.scores(embedTexts[j]);
            const self = sc[j] || 1;
            cache.set(j, (x) => sc[x] / self);
          }
          return cache.get(j);
        };
        rank = (q, i) => {
          const sc = fused(q, i);
          const pool = topIndexes(sc, 30);
          const max = sc[pool[0]] || 1;
          const picked = [];
          while (picked.length < Math.min(depth, pool.length)) {
            let best = -Infinity, at = -1;
            for (const c of pool) {
              if (picked.includes(c)) continue;
              let red = 0;
              for (const p of picked) if (Math.abs(p - c) > 1 || spans[p].corpusId !== spans[c].corpusId) red = Math.max(red, row(p)(c));
              const v = lambda * (sc[c] / max) - (1 - lambda) * red;
              if (v > best) (best = v), (at = c);
            }
            picked.push(at);
          }
          return picked;
        };
      } else rank = (q, i) => topIndexes(fused(q, i), depth);
    } else if (TFIDF[embedder]) {
      const index = fitTfidf(embedTexts, TFIDF[embedder]);
      rank = (q) => index.search(q.text, depth);
    } else {
      const units = (await provider.embed(embedTexts)).map(unitVector);
      rank = (q, i) => topK(questionVectors[i], units, depth);
    }
    const startAt = new Map(spans.map((s, j) => [`${s.corpusId}\0${s.start}`, j]));
    const endAt = new Map(spans.map((s, j) => [`${s.corpusId}\0${s.end}`, j]));
    // --trim's terms: prefix5 (tf-idf's words without stop words, cut to 5 letters) or bm25 (BM25's stems).
    const trimTerms = values['trim-terms'] === 'bm25' ? bm25Terms : (t) => tfidfTokens(t).filter((w) => !STOP_WORDS.has(w)).map((w) => w.slice(0, 5));
    const skipNear = values['skip-near'] === undefined ? 0 : Number(values['skip-near']);
    const rows = questions.map((q, i) => {
      let order = rank(q, i);
      if (skipNear > 0 && fused && routed) {
        // Region diversity: down the whole ranking, a chunk within ±skipNear of one already
        // taken (same corpus) is passed over, so each of the k slots goes to another place.
        const all = topIndexes(fused(q, i), 200);
        const taken = [];
        for (const j of all) {
          if (taken.length >= depth) break;
          if (taken.some((t) => spans[t].corpusId === spans[j].corpusId && Math.abs(t - j) <= skipNear)) continue;
          taken.push(j);
        }
        order = taken;
      }
      const ranked = order.map((j) => spans[j]);
      let retrieved;
      if (depth > k && (bridge > 0 || fillGate > 0)) {
        const sc = fused ? fused(q, i) : null;
        retrieved = mergeRanked(order.map((j) => ({ ...spans[j], index: j, score: sc ? sc[j] : 0 })), k, { fill: !!values['merge-fill'], bridge, gate: sc ? fillGate : 0, gateOpen: !!values['gate-open'] });
      } else retrieved = depth > k ? mergeAdjacent(ranked, k, !!values['merge-fill']) : ranked.map((s) => ({ ...s }));
      if (values.trim && routed) retrieved = retrieved.map((u) => trimUnit(u, corpora.get(u.corpusId) ?? '', q.text, Number(values.trim), trimTerms));
      if (gate > 0 && fused && routed) retrieved = expandByScore(retrieved, (values['expand-own'] ? own : fused)(q, i), spans, startAt, endAt, gate);
      const row = { id: q.id, corpusId: q.corpusId, units: retrieved.length, chars: retrieved.reduce((s, u) => s + u.end - u.start, 0), ...scoreRetrieval(q, retrieved), precisionOmega: precisionOmega(q, spans) };
      // CHUNKYARD_EVAL_DUMP=1: each question's ranking (chunk indexes, best first), for miss analysis.
      if (process.env.CHUNKYARD_EVAL_DUMP) row.ranking = fused ? topIndexes(fused(q, i), 50) : rank(q, i);
      return row;
    });
    const summary = summarizeByCorpus(rows);
    const size = cfg.kind === 'ours' ? (cfg.options.targetTokens ?? cfg.options.windowTokens ?? cfg.options.snippetTargetTokens ?? options?.targetTokens ?? '') : cfg.size;
    const overlap = cfg.kind === 'ours' ? (cfg.options.windowOverlapTokens ?? cfg.options.snippetOverlapTokens ?? (cfg.strategy === 'semantic' ? `${options?.overlapSentences ?? 2} sent.` : options?.snippetOverlapTokens ?? options?.windowOverlapTokens ?? '')) : cfg.overlap;
    const route = routed ? { hybrid: !!values.hybrid, windowScore: values['window-score'] ?? 0, mergeAdjacent: !!values['merge-adjacent'], mergeDepth: values['merge-adjacent'] ? mergeDepth : null, bridge: bridge || null, fillGate: fillGate || null, half: values.half ?? null, neighbours: !!values.neighbours, context: values.context ?? null, expandGate: gate || null, trim: values.trim ?? null, trimTerms: values.trim ? values['trim-terms'] : null, windowVectors: values['window-vectors'] } : null;
    const dump = process.env.CHUNKYARD_EVAL_DUMP ? { spans, embeds: embedTexts } : {};
    const r = { ...dump, name: cfg.name, spec: cfg.spec, route, kind: cfg.kind, size, overlap, options, chunks: spans.length, meanTokens: tokens / Math.max(1, spans.length), mapping, chunkMs: Math.round(chunkMs), summary, perQuestion: rows };
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
