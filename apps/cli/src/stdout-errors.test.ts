// Every bin, with stdout on a full disk: /dev/full fails each write with ENOSPC, as
// `docs-query … > out.txt` does when the disk fills. The write fails after main() handed the
// text over, as an 'error' event on process.stdout; unheard, that was an uncaught exception
// with a stack trace (s33 probe).
import { spawnSync } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const APPS = fileURLToPath(new URL('../../', import.meta.url));
const BINS = [
  'chunking-tool/bin/chunking-tool.js',
  'cli/bin/chunkyard.js',
  'docs-export/bin/docs-export.js',
  'docs-query/bin/docs-query.js',
  'docs-score/bin/docs-score.js',
  'docs-serve/bin/docs-serve.js',
  'docs-store/bin/docs-store.js',
  'index-tool/bin/index-tool.js',
  'inspector/bin/inspector.js',
  'keyword-extractor/bin/keyword-extractor.js',
  'topic-spec/bin/topic-spec.js',
];

describe.runIf(process.platform === 'linux' && existsSync('/dev/full'))('stdout on a full disk', () => {
  it.each(BINS)('%s --help > /dev/full: one line naming stdout and ENOSPC, exit 1, no stack trace', (bin) => {
    const full = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [`${APPS}${bin}`, '--help'], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8', timeout: 30_000 });
      const tool = bin.split('/').pop()!.replace(/\.js$/, '');
      expect(r.stderr).toBe(`${tool === 'inspector' ? 'chunk-inspector' : tool}: cannot write to stdout: no space left on the device (ENOSPC); free some space and run again\n`);
      expect(r.status).toBe(1);
    } finally {
      closeSync(full);
    }
  }, 60_000);
});
