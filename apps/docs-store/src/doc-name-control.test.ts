// A source file whose name holds a control character (a file name may hold ESC or a newline on
// Linux). Its name opens every chunk's record id (doc:<name>::ch<n>), and chunkDocument refuses
// such a docName since 3b8ba08: `docs-store ingest` stopped the whole run, exit 2, with
// "<file>: chunking settings: docName must hold no control character …", as if the config were
// wrong, and stored none of the other documents. It is a bad document like a FIFO or a binary
// file: named in topic-io's words (docNameProblem, as chunking-tool says them), left out, the
// others stored, exit 1.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { oneLine } from '@chunkyard/fs-atomic';
import { docNameProblem } from '@chunkyard/topic-io';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planInputs } from './plan-inputs.js';
import { BIN, ensureBuilt } from './test-build.js';

const ESC_NAME = 'b\u001b[31mx.md';
const NEWLINE_NAME = 'c\nd.md';

function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'docs-store-docname-'));
  writeFileSync(join(ws, 'chunkyard.config.yaml'), 'chunking: {}\n');
  return ws;
}

describe('docs-store ingest, a source file whose name holds a control character', () => {
  it('is left out, named with what to do, and the other documents are stored (exit 1, not 2)', async () => {
    await ensureBuilt();
    const ws = workspace();
    try {
      const dir = join(ws, 'docs', 'loose');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'good.md'), '# Good\n\nAlpha text.\n');
      writeFileSync(join(dir, ESC_NAME), '# Bad\n\nBeta text.\n');
      writeFileSync(join(dir, NEWLINE_NAME), '# Bad\n\nGamma text.\n');
      const r = spawnSync(process.execPath, [BIN, 'ingest', '--json', join(dir, 'good.md'), join(dir, ESC_NAME), join(dir, NEWLINE_NAME)], {
        cwd: ws,
        encoding: 'utf8',
        timeout: 60_000,
        env: { PATH: process.env.PATH ?? '', CI: '1' },
      });
      expect(r.stderr).toBe(
        `docs-store: ${oneLine(`docs/loose/${ESC_NAME}`)}: its name goes into every chunk id (doc:<name>::ch<n>) and holds a control character (U+001B); rename the file without it\n` +
          `docs-store: ${oneLine(`docs/loose/${NEWLINE_NAME}`)}: its name goes into every chunk id (doc:<name>::ch<n>) and holds a control character (U+000A); rename the file without it\n`,
      );
      expect(r.stderr).not.toMatch(/chunking settings|\n\s+at /);
      expect(r.status).toBe(1);
      const out = JSON.parse(r.stdout) as { artifacts: { sourceFile: string; status: string }[]; errors: { source: string }[] };
      expect(out.artifacts.map((a) => [a.sourceFile, a.status])).toEqual([['docs/loose/good.md', 'created']]);
      expect(out.errors.map((e) => e.source)).toEqual([`docs/loose/${ESC_NAME}`, `docs/loose/${NEWLINE_NAME}`]);
      // The search finds the stored one.
      const s = spawnSync(process.execPath, [BIN, 'search', 'alpha'], { cwd: ws, encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '', CI: '1' } });
      expect(s.status, s.stderr).toBe(0);
      expect(s.stdout).toContain('docs/loose/good.md');
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });

  it("names the topic.yaml that listed it, and the topic's other sources go in", () => {
    const ws = workspace();
    try {
      const topic = join(ws, 'docs', 't');
      mkdirSync(topic, { recursive: true });
      writeFileSync(join(topic, 'golden-reference.md'), '# T\n\nText.\n');
      writeFileSync(join(topic, 'rtl\u202ex.md'), '# R\n\nText.\n');
      writeFileSync(join(topic, 'topic.yaml'), 'sources: [golden-reference.md, "rtl\\u202Ex.md"]\n');
      const planned = planInputs({ root: ws, config: { chunking: {} }, paths: [topic], built: false });
      expect(planned.plans.map((p) => p.head.sourceFile)).toEqual(['docs/t/golden-reference.md']);
      expect(planned.errors).toEqual([
        {
          source: 'docs/t/rtl\u202ex.md',
          error: 'its name goes into every chunk id (doc:<name>::ch<n>) and holds a control character (U+202E); rename the file without it (listed in the sources of docs/t/topic.yaml)',
        },
      ]);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });

  it('property: a name is left out exactly when topic-io refuses it, and planning never throws', () => {
    const ws = workspace();
    try {
      const dir = join(ws, 'docs');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'good.md'), '# Good\n\nText.\n');
      // Name characters: letters, '::', and the controls chunkDocument refuses (no '/' nor NUL, which no file name holds).
      const char = fc.constantFrom('a', 'é', ':', '-', ' ', '\t', '\n', '\r', '\u001b', '\u007f', '\u0085', '\u009b', '\u061c', '\u200e', '\u202e', '\u2066');
      fc.assert(
        fc.property(fc.array(char, { minLength: 1, maxLength: 8 }), (chars) => {
          const name = `n${chars.join('')}.md`;
          const file = join(dir, name);
          writeFileSync(file, '# Doc\n\nSome text.\n');
          try {
            const planned = planInputs({ root: ws, config: { chunking: {} }, paths: [join(dir, 'good.md'), file], built: false });
            const problem = docNameProblem(name.slice(0, -3));
            expect(planned.plans[0]!.head.sourceFile).toBe('docs/good.md');
            if (problem === null) {
              expect(planned.errors).toEqual([]);
              expect(planned.plans).toHaveLength(2);
            } else {
              expect(planned.plans).toHaveLength(1);
              expect(planned.errors).toEqual([{ source: `docs/${name}`, error: problem }]);
            }
          } finally {
            rmSync(file, { force: true });
          }
        }),
        { numRuns: 60 },
      );
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});
