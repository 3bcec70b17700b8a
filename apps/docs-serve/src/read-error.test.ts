// A file that opens but cannot be read: the operator's log line names it. Linux's
// /sys/class/net/lo/speed is a real one (a regular file of 4096 bytes whose read fails with
// EINVAL), served here as a docs root of its own; skipped where there is no such file.
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from './server.js';

const ROOT = '/sys/class/net/lo';
const readFails = (() => {
  try {
    readFileSync(join(ROOT, 'speed'));
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EINVAL';
  }
})();

describe('docs-serve: a read error', () => {
  it.runIf(readFails)('is 500, and the log line names the file (it was "EINVAL: invalid argument, read")', async () => {
    const lines: string[] = [];
    const srv = await startServer({ root: ROOT, port: 0, inspector: false, log: (line) => lines.push(line) });
    try {
      const res = await fetch(`${srv.url}speed`);
      expect(res.status).toBe(500);
      await res.arrayBuffer();
      expect(lines).toEqual([`${join(realpathSync(ROOT), 'speed')}: EINVAL: invalid argument, read`]);
    } finally {
      await srv.close();
    }
  });
});
