// The remote providers' SDKs (openai about 0.1 s of module loading, ollama, cli-progress) are
// loaded on first use, not when a tool starts: every tool bundling this package paid them at
// start-up, and so did each Nx batch thread once per tool, whatever provider the config named.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SDKS = ['openai', 'ollama', 'cli-progress'];
const src = import.meta.dirname;

describe('embeddings: the provider SDKs load lazily', () => {
  it('no module of the package imports an SDK statically (type-only imports are erased)', () => {
    for (const file of readdirSync(src).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
      const text = readFileSync(join(src, file), 'utf8');
      for (const sdk of SDKS) {
        const statics = [...text.matchAll(new RegExp(`^import (?!type )[^;]*from '${sdk}';`, 'gm'))];
        expect(statics.map((m) => m[0]), `${file} imports ${sdk}`).toEqual([]);
      }
    }
  });
});
