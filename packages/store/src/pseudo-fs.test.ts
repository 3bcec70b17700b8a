// A store path on one of Linux's kernel file systems (/proc, /sys): their files are regular
// to stat, sized 0 or 4096 whatever they hold, with no free blocks, and were misread (s55
// probe): /proc/self/status opened for search as "an empty database … store some first
// (docs-store ingest … --db /proc/self/status)", and an ingest into /proc/self/mem said "the
// disk is full". Real kernel files; skipped where there are none.
import { existsSync, statfsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StoreError } from './errors.js';
import { DocStore } from './store.js';

const onKernelFs = (path: string): boolean => existsSync(path) && [0x9fa0, 0x62656572].includes(Number(statfsSync(path).type));
const FILES = ['/proc/self/status', '/proc/self/mem', '/proc/version', '/sys/kernel/notes'].filter(onKernelFs);

describe('a store path on a kernel file system', () => {
  it.runIf(FILES.length > 0).each(FILES)('%s is refused by name for reading and for writing, and nothing is written', (file) => {
    const system = file.startsWith('/proc') ? 'procfs (/proc)' : 'sysfs (/sys)';
    for (const readonly of [true, false]) {
      let err: unknown = null;
      try {
        DocStore.open(file, { readonly }).close();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(StoreError);
      expect((err as Error).message).toBe(
        `${file}: a file of ${system}, which the kernel makes up as it is read, not a database file; pass --db with the path of a store file (one that does not exist yet is created)`,
      );
      expect(existsSync(`${file}-wal`)).toBe(false);
    }
  });
});
