/**
 * Progressive disclosure (seed 001 §4, "Retrieval behavior"): the first n chunks of a stripe
 * order. The stripe orders are computed at build time, so this is a prefix and nothing more:
 * asking for more chunks only ever appends.
 */
import type { ChunkGroup } from './contract.js';
import { checkCount } from './similarity.js';

export interface DisclosureOptions {
  /** How many chunks of the stripe order (baselines not counted). */
  n: number;
  /** Use `stripe_order_technical` (falls back to `stripe_order` when the document has none). */
  technical?: boolean;
  /**
   * Put the baseline(s) first: chunk 0 for the conceptual order; chunks 0 and 1 for the
   * technical order, which excludes both (so the overview would otherwise never appear).
   */
  withBaseline?: boolean;
}

export interface Disclosure {
  order: 'conceptual' | 'technical';
  /** True when the technical order was asked for but the document has no technical baseline. */
  technicalUnavailable: boolean;
  indices: number[];
}

export function disclose(group: ChunkGroup, options: DisclosureOptions): Disclosure {
  // checkCount, as discloseTopics: Number.isInteger took 1e300 and showed a string "3" as `got 3`.
  checkCount('n', options.n);
  const technical = options.technical === true && group.stripe_order_technical !== undefined;
  const order = technical ? group.stripe_order_technical! : group.stripe_order;
  const baselines = technical ? [group.baseline_conceptual, group.baseline_technical!] : [group.baseline_conceptual];
  return {
    order: technical ? 'technical' : 'conceptual',
    technicalUnavailable: options.technical === true && !technical,
    indices: [...(options.withBaseline ? baselines : []), ...order.slice(0, options.n)],
  };
}
