// Issue 15, "bounded": docs-export's --help states the range of every numeric setting of the
// chunkyard.config.yaml sections it reads (tools/help-ranges.ts), on the built bin.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { describeHelpRanges } from '../../../tools/help-ranges.js';

const dir = mkdtempSync(join(tmpdir(), 'docs-export-help-ranges-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeHelpRanges({
  binName: 'docs-export',
  bin: fileURLToPath(new URL('../bin/docs-export.js', import.meta.url)),
  sections: ['embeddings'],
  dir: () => dir,
  args: (config) => [dir, '--format', 'jsonl', '--config', config],
});
