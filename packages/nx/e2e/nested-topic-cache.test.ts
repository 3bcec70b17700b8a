// A topic holding a topic, under real Nx: Nx gives the files below the nested topic to the
// nested project, so the outer topic's `{projectRoot}/**` inputs did not see a source that its
// topic.yaml lists inside the nested folder. Editing it left the outer chunk task a cache hit
// with the old chunks (found by a probe).
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTempWorkspace, nextMtimeSecond, runMany, type TempWorkspace } from './temp-workspace.mjs';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
let ws: TempWorkspace;

beforeAll(() => {
  ws = createTempWorkspace({
    prefix: 'chunkyard-nx-nested-',
    topics: {
      'docs/outer': '# Outer\n\nThe outer topic introduces the guide and links its parts together.\n',
      'docs/outer/inner': '# Inner\n\nThe inner topic is a topic of its own, nested in the outer one.\n',
    },
  });
  writeFileSync(join(ws.root, 'docs/outer/topic.yaml'), 'sources:\n  - golden-reference.md\n  - inner/extra.md\n');
  writeFileSync(join(ws.root, 'docs/outer/inner/extra.md'), '# Extra\n\nThe first wording of the extra page.\n');
});
afterAll(() => {
  if (ws && !KEEP) rmSync(ws.root, { recursive: true, force: true });
});

const chunkText = (folder: string) =>
  readdirSync(join(ws.root, folder, '_chunks'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => readFileSync(join(ws.root, folder, '_chunks', f), 'utf8'))
    .join('\n');

it('editing a source the outer topic lists inside its nested topic reruns the outer chunk task, which writes the new text', async () => {
  const first = runMany(ws, ['-t', 'chunk'], 240_000);
  expect(first.ran.has('topic-outer:chunk')).toBe(true);
  expect(chunkText('docs/outer')).toContain('first wording');
  expect(runMany(ws, ['-t', 'chunk']).ran.has('topic-outer:chunk')).toBe(false);

  await nextMtimeSecond(ws);
  writeFileSync(join(ws.root, 'docs/outer/inner/extra.md'), '# Extra\n\nThe second wording of the extra page.\n');
  const edited = runMany(ws, ['-t', 'chunk']);
  expect(edited.ran.has('topic-outer:chunk')).toBe(true);
  expect(chunkText('docs/outer')).toContain('second wording');
  // The nested topic's own outputs are no input of the outer one: a rerun is cached.
  expect(runMany(ws, ['-t', 'chunk']).ran.has('topic-outer:chunk')).toBe(false);
}, 300_000);
