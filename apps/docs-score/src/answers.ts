/**
 * docs-score's LLM evaluation (seed 000's Testing Protocols), the edge around
 * @chunkyard/quality's pure metrics: reads queries.yaml, retrieves, restores context through
 * the continuity graph, asks the configured model, and scores.
 *
 *   Control group       the model answers from the unsplit source document
 *   Experimental group  the model answers from the top-k chunks of that document, each with its
 *                       prev/next neighbours restored through the CT graph (prevId/nextId)
 *
 * Without a model (no `llm:` section) F1 and Latency Delta are skipped, and Context Recall,
 * which needs only retrieval, still runs — as does PIS.
 */
import { performance } from 'node:perf_hooks';
import { cosine, type EmbeddingProvider } from '@chunkyard/embeddings';
import {
  contextRecall,
  exactMatch,
  gate,
  latencyDeltaPct,
  LLM_GATES,
  mean,
  normalizeAnswer,
  requiredTokens,
  restoreThroughGraph,
  tokenF1,
  topK,
  type Gate,
  type LoadedTopic,
} from '@chunkyard/quality';
import { docNameOf, TOPIC_MARKER, UsageError } from '@chunkyard/topic-io';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type YAMLMap } from 'yaml';
import { duplicateKeyText, firstDuplicateKey, yamlErrorText } from '@chunkyard/config';

export const METRICS = ['f1', 'recall', 'pis', 'latency'] as const;
export type MetricName = (typeof METRICS)[number];

/** `--metrics f1,recall,pis,latency` → the list; an unknown name is a usage error. */
export function parseMetrics(value: string): MetricName[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = names.filter((n) => !(METRICS as readonly string[]).includes(n));
  if (bad.length || names.length === 0) throw new UsageError(`--metrics: unknown metric ${JSON.stringify(bad[0] ?? value)} (known: ${METRICS.join(', ')})`);
  return [...new Set(names)] as MetricName[];
}

export interface Query {
  /** `q1`, `q2`, … in file order. */
  id: string;
  /** The document: `<topic>` (its golden-reference.md) or `<topic>/<doc>`, topic paths as below the folder given. */
  corpusId: string;
  question: string;
  answer: string;
  /** Tokens the context must hold; default: the answer's tokens. */
  required?: string[];
  line: number | null;
}

/**
 * A bad queries file: usage error (exit 2), one line naming file:line and the problem. Its own
 * class (not topic-io's UsageError) so the published declarations need no bundled package.
 */
export class QueriesError extends Error {
  override name = 'QueriesError';
}

/** What the evaluation needs of a chat client (@chunkyard/llm's ChatClient satisfies it). */
export interface AnswerModel {
  readonly provider: string;
  readonly model: string;
  chat(messages: { role: 'system' | 'user' | 'assistant'; content: string }[]): Promise<string>;
}

const QUERY_KEYS = ['topic', 'question', 'answer', 'required'] as const;

/**
 * The largest queries.yaml parsed: over 10,000 queries of a usual length, each asking the model
 * twice. Parsing costs 0.5–2.5 s per MB (8 MiB of short queries took 22 s), so a wrong file
 * (a log, a dump) is refused at once instead.
 */
export const MAX_QUERIES_CHARS = 2 * 1024 * 1024;

/**
 * queries.yaml:
 *
 *   queries:
 *     - topic: deployment/native-aot        # the document: <topic> or <topic>/<doc>
 *       question: Which property turns on Native AOT publishing?
 *       answer: PublishAot
 *       required: [PublishAot, true]        # optional; default: the answer's tokens
 */
export function parseQueries(text: string, file: string): Query[] {
  if (text.length > MAX_QUERIES_CHARS) {
    const mib = (text.length / (1024 * 1024)).toFixed(1);
    throw new QueriesError(`${file}: ${mib} MiB is larger than a queries file can be (2 MiB); each query is two model calls, so check that this is the right file`);
  }
  const lc = new LineCounter();
  // uniqueKeys off: yaml compares each key with every earlier key of its mapping (10,000 keys
  // took 1.3 s, 20,000 3.2 s); firstDuplicateKey finds them with a Set per mapping instead.
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: false });
  const lineOf = (n: unknown): number | null => {
    const range = (n as Node | null)?.range;
    return range ? lc.linePos(range[0]).line : null;
  };
  const fail = (n: unknown, msg: string): never => {
    const line = lineOf(n);
    throw new QueriesError(`${file}${line ? `:${line}` : ''}: ${msg}`);
  };
  if (doc.errors.length) throw new QueriesError(`${file}:${lc.linePos(doc.errors[0]!.pos[0]).line}: ${yamlErrorText(doc.errors[0]!)}`);
  const twice = firstDuplicateKey(doc);
  if (twice) throw new QueriesError(`${file}:${lc.linePos(twice.offset).line}: ${duplicateKeyText(twice.path, lc.linePos(twice.firstOffset).line)}`);
  const top = doc.contents;
  if (!isMap(top)) return fail(top, 'expected a mapping with a `queries:` list');
  const list = (top as YAMLMap).get('queries', true) as Node | undefined;
  for (const item of (top as YAMLMap).items) {
    const key = isScalar(item.key) ? String(item.key.value) : String(item.key);
    if (key !== 'queries') fail(item.key, `${key}: unknown key (known: queries)`);
  }
  if (!isSeq(list) || list.items.length === 0) return fail(list ?? top, 'queries: expected a non-empty list of { topic, question, answer, required? }');
  return list.items.map((node, i): Query => {
    if (!isMap(node)) return fail(node, `queries[${i}]: expected a mapping with topic, question and answer`);
    const m = node as YAMLMap;
    const value: Record<string, unknown> = {};
    for (const item of m.items) {
      const key = isScalar(item.key) ? String(item.key.value) : String(item.key);
      if (!(QUERY_KEYS as readonly string[]).includes(key)) fail(item.key, `queries[${i}].${key}: unknown key (known: ${QUERY_KEYS.join(', ')})`);
      value[key] = (item.value as Node | null)?.toJSON();
    }
    for (const key of ['topic', 'question', 'answer'] as const) {
      const v = value[key];
      // A number or true as an answer ("42", "true") is fine: YAML reads it unquoted as a scalar.
      if (typeof v === 'number' || typeof v === 'boolean') value[key] = String(v);
      else if (typeof v !== 'string' || v.trim() === '') fail(node, `queries[${i}].${key}: expected a non-empty string`);
    }
    const required = value.required;
    // YAML reads unquoted true / 42 as a boolean / number; as words they are text.
    if (required !== undefined && (!Array.isArray(required) || !required.every((r) => typeof r === 'string' || typeof r === 'number' || typeof r === 'boolean'))) {
      fail(node, `queries[${i}].required: expected a list of words`);
    }
    return {
      id: `q${i + 1}`,
      corpusId: withoutTrailingSlashes(String(value.topic)),
      question: String(value.question),
      answer: String(value.answer),
      ...(required !== undefined ? { required: (required as unknown[]).map(String) } : {}),
      line: lineOf(node),
    };
  });
}

interface ManifestChunk {
  id: string;
  prevId: string | null;
  nextId: string | null;
  originalText: string;
  embedText: string;
  tier?: { level: string };
}

export interface AnswerDoc {
  id: string;
  source: string;
  chunks: ManifestChunk[];
}

/** `s.replace(/\/+$/, '')` in linear time (that pattern is quadratic in a run of slashes not at the end). */
function withoutTrailingSlashes(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x2f) end--;
  return s.slice(0, end);
}

/** One per built document, ids as for --questions; hierarchical manifests give their snippet tier. */
export function answerDocsOf(topics: readonly { id: string; topic: LoadedTopic }[]): AnswerDoc[] {
  const out: AnswerDoc[] = [];
  for (const { id, topic } of topics) {
    for (const doc of topic.documents) {
      const m = doc.manifest as { chunks?: ManifestChunk[] } | null;
      if (!m?.chunks || doc.source === null) continue;
      const tiered = m.chunks.some((c) => c.tier);
      out.push({
        id: doc.name === docNameOf(TOPIC_MARKER) ? id : `${id}/${doc.name}`,
        source: doc.source,
        chunks: tiered ? m.chunks.filter((c) => c.tier?.level === 'snippet') : m.chunks,
      });
    }
  }
  return out;
}

export const ANSWER_SYSTEM = 'Answer the question from the context only. Reply with the answer alone: as few words as possible, no sentence around it, no markdown.';
export const answerPrompt = (context: string, question: string): string => `Context:\n<<<\n${context}\n>>>\n\nQuestion: ${question}`;

export interface GroupScores {
  f1: number;
  exactMatch: number;
  /** Mean cosine of answer and reference embeddings (the configured embedder). */
  semantic: number;
  latencyMs: number;
}

export interface QueryResult {
  id: string;
  corpusId: string;
  question: string;
  reference: string;
  retrieved: number[];
  restored: number[];
  contextRecall: number;
  /** Recall of the retrieved chunks alone, before the CT graph restores their neighbours. */
  retrievedRecall: number;
  control?: { answer: string; f1: number; exactMatch: boolean; semantic: number; ms: number };
  experimental?: { answer: string; f1: number; exactMatch: boolean; semantic: number; ms: number };
}

export interface AnswerReport {
  queries: number;
  k: number;
  hops: number;
  metrics: MetricName[];
  llm: string | null;
  embedder: string;
  /** Why metrics were skipped, one line each. */
  skipped: string[];
  contextRecall: { restored: number; retrievedOnly: number } | null;
  control: GroupScores | null;
  experimental: GroupScores | null;
  latencyDeltaPct: number | null;
  gates: Gate[];
  perQuery: QueryResult[];
}

export interface Thresholds {
  f1: number;
  contextRecall: number;
  pis: number;
  latencyDeltaPct: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = { ...LLM_GATES };

export interface AnswerInput {
  queries: readonly Query[];
  docs: readonly AnswerDoc[];
  embedder: EmbeddingProvider;
  chat: AnswerModel | null;
  k: number;
  hops: number;
  metrics: readonly MetricName[];
  thresholds: Thresholds;
  pis: number;
  file: string;
}

function similarity(embedder: EmbeddingProvider, pairs: [string, string][]): Promise<number[]> {
  return embedder.embed(pairs.flat()).then((v) =>
    pairs.map(([a, b], i) => {
      // An empty answer embeds to a zero vector; say 1 only when both are empty.
      if (!normalizeAnswer(a) || !normalizeAnswer(b)) return normalizeAnswer(a) === normalizeAnswer(b) ? 1 : 0;
      const c = cosine(v[2 * i]!, v[2 * i + 1]!);
      return Number.isFinite(c) ? c : 0;
    }),
  );
}

export async function measureAnswers(input: AnswerInput): Promise<AnswerReport> {
  const { queries, docs, embedder, chat, k, hops, metrics, thresholds, pis, file } = input;
  const byId = new Map(docs.map((d) => [d.id, d]));
  for (const q of queries) {
    if (!byId.has(q.corpusId)) {
      throw new QueriesError(`${file}${q.line ? `:${q.line}` : ''}: topic ${JSON.stringify(q.corpusId)} is not a built document here (known: ${[...byId.keys()].join(', ')})`);
    }
  }
  const wantLlm = metrics.includes('f1') || metrics.includes('latency');
  const skipped: string[] = [];
  if (wantLlm && !chat) {
    skipped.push(`no LLM configured (an llm: section in chunkyard.config.yaml): skipping ${metrics.filter((m) => m === 'f1' || m === 'latency').join(' and ')}`);
  }
  const llm = wantLlm ? chat : null;

  // Retrieval within each query's document: its chunks' embedText, embedded once per document.
  const used = [...new Set(queries.map((q) => q.corpusId))];
  const vectors = new Map<string, Float32Array[]>();
  for (const id of used) vectors.set(id, await embedder.embed(byId.get(id)!.chunks.map((c) => c.embedText)));
  const questionVectors = await embedder.embed(queries.map((q) => q.question));

  const rows: QueryResult[] = [];
  for (let i = 0; i < queries.length; i++) {
    const q = queries[i]!;
    const doc = byId.get(q.corpusId)!;
    const units = vectors.get(q.corpusId)!.map((v) => Float64Array.from(unitOf(v)));
    const retrieved = topK(questionVectors[i]!, units, Math.min(k, doc.chunks.length));
    const restored = restoreThroughGraph(doc.chunks, retrieved, hops);
    const context = restored.map((j) => doc.chunks[j]!.originalText).join('\n\n');
    const required = requiredTokens(q.answer, q.required);
    const row: QueryResult = {
      id: q.id,
      corpusId: q.corpusId,
      question: q.question,
      reference: q.answer,
      retrieved,
      restored,
      contextRecall: contextRecall(required, context),
      retrievedRecall: contextRecall(required, [...retrieved].sort((a, b) => a - b).map((j) => doc.chunks[j]!.originalText).join('\n\n')),
    };
    if (llm) {
      const ask = async (ctx: string) => {
        const t0 = performance.now();
        const answer = await llm.chat([
          { role: 'system', content: ANSWER_SYSTEM },
          { role: 'user', content: answerPrompt(ctx, q.question) },
        ]);
        return { answer: answer.trim(), ms: performance.now() - t0 };
      };
      // Alternate which group goes first, so a model's warm-up does not always favour one.
      let c: Awaited<ReturnType<typeof ask>>;
      let e: Awaited<ReturnType<typeof ask>>;
      if (i % 2 === 0) {
        c = await ask(doc.source);
        e = await ask(context);
      } else {
        e = await ask(context);
        c = await ask(doc.source);
      }
      row.control = { answer: c.answer, f1: tokenF1(c.answer, q.answer), exactMatch: exactMatch(c.answer, q.answer), semantic: 0, ms: c.ms };
      row.experimental = { answer: e.answer, f1: tokenF1(e.answer, q.answer), exactMatch: exactMatch(e.answer, q.answer), semantic: 0, ms: e.ms };
    }
    rows.push(row);
  }
  if (llm) {
    const sims = await similarity(
      embedder,
      rows.flatMap((r) => [
        [r.control!.answer, r.reference] as [string, string],
        [r.experimental!.answer, r.reference] as [string, string],
      ]),
    );
    rows.forEach((r, i) => {
      r.control!.semantic = sims[2 * i]!;
      r.experimental!.semantic = sims[2 * i + 1]!;
    });
  }
  const group = (pick: (r: QueryResult) => QueryResult['control']): GroupScores | null =>
    llm
      ? {
          f1: mean(rows.map((r) => pick(r)!.f1)),
          exactMatch: mean(rows.map((r) => (pick(r)!.exactMatch ? 1 : 0))),
          semantic: mean(rows.map((r) => pick(r)!.semantic)),
          latencyMs: mean(rows.map((r) => pick(r)!.ms)),
        }
      : null;
  const control = group((r) => r.control);
  const experimental = group((r) => r.experimental);
  const delta = llm ? latencyDeltaPct(rows.map((r) => r.control!.ms), rows.map((r) => r.experimental!.ms)) : null;
  const recall = { restored: mean(rows.map((r) => r.contextRecall)), retrievedOnly: mean(rows.map((r) => r.retrievedRecall)) };
  const gates: Gate[] = [];
  for (const m of METRICS) {
    if (!metrics.includes(m)) continue;
    if (m === 'f1') gates.push(gate('f1', experimental ? experimental.f1 : null, thresholds.f1));
    if (m === 'recall') gates.push(gate('recall', recall.restored, thresholds.contextRecall));
    if (m === 'pis') gates.push(gate('pis', pis, thresholds.pis));
    if (m === 'latency') gates.push(gate('latency', delta, thresholds.latencyDeltaPct));
  }
  return {
    queries: queries.length,
    k,
    hops,
    metrics: [...metrics],
    llm: llm ? `${llm.provider}/${llm.model}` : null,
    embedder: `${embedder.provider}/${embedder.model}`,
    skipped,
    contextRecall: metrics.includes('recall') ? recall : null,
    control,
    experimental,
    latencyDeltaPct: delta,
    gates,
    perQuery: rows,
  };
}

function unitOf(v: ArrayLike<number>): Float64Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
  return Float64Array.from(v, (x) => x * inv);
}

const NAMES: Record<Gate['metric'], string> = { f1: 'Answer F1', recall: 'Context Recall', pis: 'PIS', latency: 'Latency Delta' };

function shownValue(g: Gate): string {
  if (g.value === null) return '—';
  if (g.metric === 'latency') return `${g.value >= 0 ? '+' : ''}${g.value.toFixed(1)}%`;
  if (g.metric === 'pis') return g.value.toFixed(1);
  return g.value.toFixed(3);
}

export function formatAnswers(r: AnswerReport): string {
  const lines = ['', `LLM evaluation (seed 000): ${r.queries} quer${r.queries === 1 ? 'y' : 'ies'}, k = ${r.k} restored ±${r.hops} through the CT graph, LLM ${r.llm ?? 'none'}, embedder ${r.embedder}`];
  for (const s of r.skipped) lines.push(`  ${s}`);
  if (r.control && r.experimental) {
    const f = (x: number) => x.toFixed(3);
    lines.push(
      '',
      '| group | F1 | exact match | semantic | latency (ms) |',
      '| --- | ---: | ---: | ---: | ---: |',
      `| control (unsplit document) | ${f(r.control.f1)} | ${f(r.control.exactMatch)} | ${f(r.control.semantic)} | ${r.control.latencyMs.toFixed(0)} |`,
      `| experimental (chunks + CT graph) | ${f(r.experimental.f1)} | ${f(r.experimental.exactMatch)} | ${f(r.experimental.semantic)} | ${r.experimental.latencyMs.toFixed(0)} |`,
    );
  }
  if (r.contextRecall) lines.push('', `Context Recall: ${r.contextRecall.restored.toFixed(3)} restored through the CT graph (${r.contextRecall.retrievedOnly.toFixed(3)} from the retrieved chunks alone)`);
  lines.push('', 'gate             value      threshold  status');
  for (const g of r.gates) {
    // A negative latency gate (--max-latency-delta -10: the chunks must be faster) read "<= +-10%".
    const threshold = `${g.op} ${g.metric === 'latency' ? `${g.threshold >= 0 ? '+' : ''}${g.threshold}%` : g.threshold}`;
    lines.push(`${NAMES[g.metric].padEnd(16)} ${shownValue(g).padEnd(10)} ${threshold.padEnd(10)} ${g.status === 'pass' ? 'pass' : g.status === 'fail' ? 'FAIL' : 'skipped'}`);
  }
  return `${lines.join('\n')}\n`;
}
