/**
 * Seed 000's LLM evaluation, the pure part: answer metrics, Context Recall through the
 * continuity graph, Latency Delta and the gates.
 *
 *   Control group       the LLM answers from the unsplit document
 *   Experimental group  the LLM answers from the retrieved chunks, restored through the CT graph
 *                       (each retrieved chunk with its prev and next neighbours)
 *
 *   Answer F1           token F1 of the answer against the reference (SQuAD normalisation:
 *                       lower case, punctuation and the articles a/an/the dropped)
 *   Exact match         normalised answer == normalised reference
 *   Context Recall      share of the reference's required tokens present in the restored context
 *   Latency Delta       (mean experimental ms − mean control ms) / mean control ms × 100
 *
 * Gates (seed 000, "AIO compliance threshold"): F1 ≥ 0.92, Context Recall ≥ 0.97, PIS ≥ 98,
 * Latency Delta ≤ +15 %.
 */

export const LLM_GATES = { f1: 0.92, contextRecall: 0.97, pis: 98, latencyDeltaPct: 15 } as const;

/** SQuAD's answer normalisation, Unicode-aware: letters and digits of any script count as word characters. */
export function normalizeAnswer(s: string): string {
  // Articles are dropped as whole tokens (a regex \b is ASCII-only and would split "éa").
  return s
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, ' ')
    .split(' ')
    .filter((t) => t !== '' && t !== 'a' && t !== 'an' && t !== 'the')
    .join(' ');
}

export function answerTokens(s: string): string[] {
  const n = normalizeAnswer(s);
  return n === '' ? [] : n.split(' ');
}

/** Token F1 with multiset overlap; two empty answers agree (1), one empty one does not (0). */
export function tokenF1(prediction: string, reference: string): number {
  const p = answerTokens(prediction);
  const r = answerTokens(reference);
  if (p.length === 0 || r.length === 0) return p.length === r.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of r) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of p) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      common++;
      counts.set(t, c - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / p.length;
  const recall = common / r.length;
  return (2 * precision * recall) / (precision + recall);
}

export function exactMatch(prediction: string, reference: string): boolean {
  return normalizeAnswer(prediction) === normalizeAnswer(reference);
}

/** The tokens a context must hold for the question to be answerable: of `required` when given, else of the reference answer; distinct. */
export function requiredTokens(reference: string, required?: readonly string[]): string[] {
  const source = required && required.length > 0 ? required.join(' ') : reference;
  return [...new Set(answerTokens(source))];
}

/** Share of `required` tokens present in `context` (1 when nothing is required). */
export function contextRecall(required: readonly string[], context: string): number {
  if (required.length === 0) return 1;
  const have = new Set(answerTokens(context));
  return required.filter((t) => have.has(t)).length / required.length;
}

export interface GraphChunk {
  id: string;
  prevId: string | null;
  nextId: string | null;
}

/**
 * The chunks the continuity graph restores around `hits` (indexes into `chunks`): each hit and
 * the chunks up to `hops` prev/next links away, in document order. Links are followed by id, so
 * the graph as written is what is measured; a dangling link restores nothing (the continuity
 * check reports it), and a cycle cannot loop, each chunk being taken once.
 */
export function restoreThroughGraph(chunks: readonly GraphChunk[], hits: readonly number[], hops = 1): number[] {
  const byId = new Map<string, number>();
  chunks.forEach((c, i) => {
    if (!byId.has(c.id)) byId.set(c.id, i);
  });
  const taken = new Set<number>();
  for (const hit of hits) {
    if (hit < 0 || hit >= chunks.length) continue;
    taken.add(hit);
    for (const dir of ['prevId', 'nextId'] as const) {
      let at = hit;
      for (let h = 0; h < hops; h++) {
        const link = chunks[at]![dir];
        const next = link === null ? undefined : byId.get(link);
        if (next === undefined) break;
        taken.add(next);
        at = next;
      }
    }
  }
  return [...taken].sort((a, b) => a - b);
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

/** Latency Delta in percent: how much slower (positive) or faster the experimental group is on average. */
export function latencyDeltaPct(controlMs: readonly number[], experimentalMs: readonly number[]): number {
  const c = mean(controlMs);
  return c > 0 ? ((mean(experimentalMs) - c) / c) * 100 : 0;
}

export type GateStatus = 'pass' | 'fail' | 'skipped';

export interface Gate {
  metric: 'f1' | 'recall' | 'pis' | 'latency';
  value: number | null;
  threshold: number;
  /** `>=` for F1, recall and PIS; `<=` for Latency Delta. */
  op: '>=' | '<=';
  status: GateStatus;
}

export function gate(metric: Gate['metric'], value: number | null, threshold: number): Gate {
  const op = metric === 'latency' ? '<=' : '>=';
  const status: GateStatus = value === null ? 'skipped' : (op === '>=' ? value >= threshold : value <= threshold) ? 'pass' : 'fail';
  return { metric, value, threshold, op, status };
}

export { mean };
