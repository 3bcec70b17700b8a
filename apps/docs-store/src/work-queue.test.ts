// The MCP server's work queue (work-queue.ts): whatever the interleaving of new jobs, aborts
// and turns of the event loop, the jobs that start do so in the order they came, one per
// turn, never in the turn they came in, and a job aborted before its turn never starts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.js';

/** One turn of the event loop (a timer would be the clock; this is the loop's own order). */
const turn = () => new Promise<void>((r) => setImmediate(r));

type Op = { kind: 'add'; aborted: boolean } | { kind: 'abort'; job: number } | { kind: 'turn' };
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), aborted: fc.boolean() }),
  fc.record({ kind: fc.constant('abort' as const), job: fc.nat(40) }),
  fc.record({ kind: fc.constant('turn' as const) }),
);

describe('WorkQueue', () => {
  it('starts live jobs in order, one per turn, not in the turn they came; aborted ones never', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const queue = new WorkQueue();
        const started: number[] = [];
        const startTurn: number[] = [];
        const addedTurn: number[] = [];
        const controllers: AbortController[] = [];
        const abortedBeforeStart = new Set<number>();
        const outcomes: Promise<unknown>[] = [];
        let turns = 0;
        for (const o of ops) {
          if (o.kind === 'add') {
            const id = controllers.length;
            const c = new AbortController();
            if (o.aborted) {
              c.abort(new Error(`gone ${id}`));
              abortedBeforeStart.add(id);
            }
            controllers.push(c);
            addedTurn[id] = turns;
            outcomes[id] = queue.run(c.signal, () => {
              started.push(id);
              startTurn[id] = turns;
              return id * 2;
            });
            outcomes[id]!.catch(() => undefined);
          } else if (o.kind === 'abort') {
            const c = controllers[o.job];
            if (c && !started.includes(o.job) && !c.signal.aborted) {
              c.abort(new Error(`gone ${o.job}`));
              abortedBeforeStart.add(o.job);
            }
          } else {
            await turn();
            turns++;
          }
        }
        while (queue.waiting > 0) {
          await turn();
          turns++;
        }
        const live = controllers.map((_, i) => i).filter((i) => !abortedBeforeStart.has(i));
        expect(started).toEqual(live);
        expect(new Set(started.map((i) => startTurn[i])).size).toBe(started.length);
        for (const i of started) expect(startTurn[i]!).toBeGreaterThan(addedTurn[i]!);
        for (const [i, p] of outcomes.entries()) {
          if (abortedBeforeStart.has(i)) await expect(p).rejects.toThrow(`gone ${i}`);
          else await expect(p).resolves.toBe(i * 2);
        }
        expect(queue.started).toBe(live.length);
        expect(queue.dropped).toBe(abortedBeforeStart.size);
      }),
      { numRuns: 200 },
    );
  });

  it('a job that throws rejects with its error, and the jobs behind it still run', async () => {
    const queue = new WorkQueue();
    const failing = queue.run(undefined, () => {
      throw new Error('store failed');
    });
    const next = queue.run(undefined, () => 'ok');
    await expect(failing).rejects.toThrow('store failed');
    await expect(next).resolves.toBe('ok');
  });
});
