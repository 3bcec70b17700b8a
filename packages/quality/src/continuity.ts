/**
 * Seed 000's continuity graph and its Pagination Integrity Score.
 *
 * A graph is a list of nodes in reading order, each declaring `prev` and `next`
 * ids. Seed 000's scorer "reconstructs context by following CT links"; a link
 * that names no node (dangling) or a walk that comes back to a node (circular)
 * makes reconstruction impossible and fails the run (EXIT_CODE=13). A duplicate
 * id is the seed's "CT collision": the walk is ambiguous, so it fails the same way.
 *
 * PIS = continuity_hits / (continuity_hits + continuity_misses) × 100, where each
 * node contributes two continuity checks, its `prev` and its `next`: a hit when
 * the pointer names the node's neighbour in reading order (null at the ends), a
 * miss otherwise. A graph whose pointers all agree with reading order scores 100.
 */
export interface GraphNode {
  id: string;
  prev: string | null;
  next: string | null;
}

export type BreakKind = 'dangling' | 'circular' | 'duplicate';

export interface GraphBreak {
  kind: BreakKind;
  id: string;
  message: string;
}

export interface GraphReport {
  hits: number;
  misses: number;
  /** Pointers that disagree with reading order (not breaks by themselves). */
  mismatches: string[];
  breaks: GraphBreak[];
}

export function checkGraph(nodes: readonly GraphNode[]): GraphReport {
  const byId = new Map<string, GraphNode>();
  const breaks: GraphBreak[] = [];
  for (const n of nodes) {
    if (byId.has(n.id)) breaks.push({ kind: 'duplicate', id: n.id, message: `id ${n.id} is used by more than one chunk` });
    else byId.set(n.id, n);
  }
  let hits = 0;
  let misses = 0;
  const mismatches: string[] = [];
  nodes.forEach((n, i) => {
    const want = { prev: nodes[i - 1]?.id ?? null, next: nodes[i + 1]?.id ?? null };
    for (const side of ['prev', 'next'] as const) {
      const got = n[side];
      if (got !== null && !byId.has(got)) {
        breaks.push({ kind: 'dangling', id: n.id, message: `${n.id}: ${side} points to ${got}, which does not exist` });
      }
      if (got === want[side]) hits++;
      else {
        misses++;
        mismatches.push(`${n.id}: ${side} is ${JSON.stringify(got)}, reading order says ${JSON.stringify(want[side])}`);
      }
    }
  });
  for (const side of ['next', 'prev'] as const) {
    const cycle = findCycle(nodes, byId, side);
    if (cycle) breaks.push({ kind: 'circular', id: cycle[0]!, message: `${side} links form a cycle: ${cycle.join(' -> ')}` });
  }
  return { hits, misses, mismatches, breaks };
}

/** The first cycle met following one pointer from every node, as a closed id path. */
function findCycle(nodes: readonly GraphNode[], byId: ReadonlyMap<string, GraphNode>, side: 'prev' | 'next'): string[] | null {
  const done = new Set<string>();
  for (const start of nodes) {
    if (done.has(start.id)) continue;
    const path: string[] = [];
    const onPath = new Map<string, number>();
    let cur: GraphNode | undefined = start;
    while (cur && !done.has(cur.id)) {
      if (onPath.has(cur.id)) return [...path.slice(onPath.get(cur.id)!), cur.id];
      onPath.set(cur.id, path.length);
      path.push(cur.id);
      const to: string | null = cur[side];
      cur = to === null ? undefined : byId.get(to);
    }
    for (const id of path) done.add(id);
  }
  return null;
}

/** PIS in percent over any number of graphs; 100 when there is nothing to check. */
export function paginationIntegrityScore(reports: readonly GraphReport[]): number {
  let hits = 0;
  let total = 0;
  for (const r of reports) {
    hits += r.hits;
    total += r.hits + r.misses;
  }
  return total === 0 ? 100 : (100 * hits) / total;
}

const CT = /^\s*<!--CT (\{.*?\})-->/;

/** The continuity token of a page's leading `<!--CT {...}-->` comment, or null if it has none. */
export function parseCtComment(text: string): GraphNode | null | 'invalid' {
  const m = CT.exec(text);
  if (!m) return null;
  try {
    const v = JSON.parse(m[1]!) as Record<string, unknown>;
    const ok = (x: unknown): x is string | null => x === null || typeof x === 'string';
    if (typeof v.id !== 'string' || !ok(v.prev) || !ok(v.next)) return 'invalid';
    return { id: v.id, prev: v.prev, next: v.next };
  } catch {
    return 'invalid';
  }
}
