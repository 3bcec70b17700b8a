// Issue 15, "bounded": docs-query's --help states the range of every numeric setting of the
// chunkyard.config.yaml sections it reads (tools/help-ranges.ts), on the built bin.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { buildFixtureDocs, type FixtureDocs } from '../../../packages/retrieval/src/test-fixture-docs.js';
import { describeHelpRanges } from '../../../tools/help-ranges.js';

const dir = mkdtempSync(join(tmpdir(), 'docs-query-help-ranges-'));
// A built docs root with no stored question, so -q falls back to embeddings and reads the config.
let fx: FixtureDocs;
beforeAll(async () => {
  fx = await buildFixtureDocs({ topics: ['libraries/system-text-json-polymorphism'] });
});
afterAll(() => {
  fx?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describeHelpRanges({
  binName: 'docs-query',
  bin: fileURLToPath(new URL('../bin/docs-query.js', import.meta.url)),
  sections: ['embeddings'],
  dir: () => dir,
  args: (config) => [fx.docs, '-q', 'polymorphism', '--config', config],
});
