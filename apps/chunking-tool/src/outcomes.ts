/**
 * The run's bookkeeping, in time linear in its documents (a topic may list 100,000 sources):
 * a copy of a folder's job list per job, and a search of the lists of summaries and errors per
 * failed document, were quadratic.
 */

/** Jobs by output folder, in the order the folders first come, each folder's jobs in order. */
export function groupByOutDir<J extends { outDir: string }>(jobs: readonly J[]): Map<string, J[]> {
  const byDir = new Map<string, J[]>();
  for (const job of jobs) {
    const group = byDir.get(job.outDir);
    if (group === undefined) byDir.set(job.outDir, [job]);
    else group.push(job);
  }
  return byDir;
}

/** What each document came to: a summary or an error, in the order they came, each source once. */
export class Outcomes<S extends { source: string }> {
  private readonly bySource = new Map<string, S>();
  private readonly errorBySource = new Map<string, string>();

  succeeded(summary: S): void {
    this.bySource.set(summary.source, summary);
  }

  /** Records an error for `source` (its first one stands) and drops a summary it had. */
  failed(source: string, error: string): void {
    this.bySource.delete(source);
    if (!this.errorBySource.has(source)) this.errorBySource.set(source, error);
  }

  hasFailed(source: string): boolean {
    return this.errorBySource.has(source);
  }

  get summaries(): S[] {
    return [...this.bySource.values()];
  }

  get errors(): { source: string; error: string }[] {
    return Array.from(this.errorBySource, ([source, error]) => ({ source, error }));
  }
}
