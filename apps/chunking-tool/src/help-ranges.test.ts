// Issue 15, "bounded": chunking-tool's --help states the range of every numeric setting of the
// chunkyard.config.yaml sections it reads (tools/help-ranges.ts), on the built bin.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { describeHelpRanges } from '../../../tools/help-ranges.js';

const dir = mkdtempSync(join(tmpdir(), 'chunking-tool-help-ranges-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'a.md'), '# A\n\nSome text.\n');

describeHelpRanges({
  binName: 'chunking-tool',
  bin: fileURLToPath(new URL('../bin/chunking-tool.js', import.meta.url)),
  sections: ['chunking', 'llm'],
  dir: () => dir,
  args: (config) => [join(dir, 'a.md'), '--out', join(dir, 'out'), '--config', config],
});
