import { describe, expect, it } from 'vitest';
import { groupByOutDir, Outcomes } from './outcomes.js';

describe('groupByOutDir', () => {
  it('groups jobs by folder in first-seen order, each group in job order', () => {
    const jobs = [{ outDir: 'a', n: 1 }, { outDir: 'b', n: 2 }, { outDir: 'a', n: 3 }];
    expect([...groupByOutDir(jobs)]).toEqual([['a', [jobs[0], jobs[2]]], ['b', [jobs[1]]]]);
  });

  // Copying the group's array for each job was quadratic: 50,000 sources in one topic took 2 s
  // of grouping, and this input took the old code past vitest's 60 s.
  it('groups 600,000 jobs of one folder in linear time', () => {
    const jobs = Array.from({ length: 600_000 }, (_, n) => ({ outDir: 'topic/_chunks', n }));
    const group = groupByOutDir(jobs).get('topic/_chunks')!;
    expect(group.length).toBe(600_000);
    expect(group[599_999]!.n).toBe(599_999);
  });
});

describe('Outcomes', () => {
  it('keeps a source\'s first error and drops its summary', () => {
    const o = new Outcomes<{ source: string; chunks: number }>();
    o.succeeded({ source: 'a', chunks: 1 });
    o.succeeded({ source: 'b', chunks: 2 });
    o.failed('c', 'bad c');
    o.failed('a', 'folder not writable');
    o.failed('c', 'folder not writable');
    expect(o.summaries).toEqual([{ source: 'b', chunks: 2 }]);
    expect(o.errors).toEqual([{ source: 'c', error: 'bad c' }, { source: 'a', error: 'folder not writable' }]);
    expect(o.hasFailed('a')).toBe(true);
    expect(o.hasFailed('b')).toBe(false);
  });

  // A folder that cannot be written fails all its documents: each was looked up in the lists
  // of summaries and errors (quadratic; this input took the old code past vitest's 60 s).
  it('fails 200,000 documents of a folder after they succeeded, in linear time', () => {
    const o = new Outcomes<{ source: string }>();
    const n = 200_000;
    for (let i = 0; i < n; i++) o.succeeded({ source: `doc-${i}.md` });
    for (let i = 0; i < n; i++) o.failed(`doc-${i}.md`, 'EACCES');
    for (let i = 0; i < n; i++) if (!o.hasFailed(`doc-${i}.md`)) throw new Error(`doc-${i}.md`);
    expect(o.summaries).toEqual([]);
    expect(o.errors.length).toBe(n);
    expect(o.errors[n - 1]).toEqual({ source: `doc-${n - 1}.md`, error: 'EACCES' });
  });
});
