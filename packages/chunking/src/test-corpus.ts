/**
 * Test fixtures: real markdown from the repository's sample topics and, when
 * present beside the repository, the shared corpora.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function walk(dir: string, out: string[]): string[] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory() && !e.name.startsWith('_') && e.name !== 'node_modules') walk(p, out);
    else if (e.isFile() && e.name.endsWith('.md')) out.push(p);
  }
  return out;
}

/** [path, text] of every markdown file of the sample docs and the shared corpora. */
export function realDocuments(): [string, string][] {
  const files = [
    ...walk(join(repoRoot, 'docs'), []),
    ...walk(join(repoRoot, '../shared/corpora'), []),
  ]
    // topic-spec.md is a build output (git-ignored), present only after `nx run-many -t index`.
    .filter((f) => !f.endsWith('/topic-spec.md'))
    .filter((f) => !f.endsWith('README.md') || f.includes('/docs/'));
  return files.sort().map((f) => [f, readFileSync(f, 'utf8')]);
}

/** The .NET source-generation article: the first sample topic. */
export function sampleTopic(): string {
  return readFileSync(join(repoRoot, 'docs/libraries/system-text-json-source-generation/golden-reference.md'), 'utf8');
}
