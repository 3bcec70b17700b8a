// Issue 15, "bounded": docs-score's --help states the range of every numeric setting of the
// chunkyard.config.yaml sections it reads (tools/help-ranges.ts), on the built bin.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { describeHelpRanges } from '../../../tools/help-ranges.js';

const dir = mkdtempSync(join(tmpdir(), 'docs-score-help-ranges-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeHelpRanges({
  binName: 'docs-score',
  bin: fileURLToPath(new URL('../bin/docs-score.js', import.meta.url)),
  sections: ['embeddings', 'llm'],
  dir: () => dir,
  args: (config) => [dir, '--config', config],
});
