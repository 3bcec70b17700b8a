// The setup index-tool's prune tests share: one topic built by the real tools (chunking-tool,
// keyword-extractor, topic-spec) as the template every case copies, fresh docs folders for the
// cases, and a tree of every file below a folder to compare before and after.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { main as spec } from '../../topic-spec/src/main.js';

export const quiet = { stdout: () => {}, stderr: () => {} };

export interface BuiltTopic {
  /** The built topic folder to copy. */
  readonly built: string;
  /** A new, empty `docs` folder for one case. */
  freshDocs(): string;
  /** A new path beside the cases (not made), named after `name`. */
  scratch(name: string): string;
}

/** Builds the template topic before the file's tests (in a temp folder `prefix`…) and removes it after. */
export function useBuiltTopic(prefix: string): BuiltTopic {
  let tmp = '';
  let n = 0;
  const topic = {
    built: '',
    freshDocs: () => {
      const docs = join(tmp, `case-${n++}`, 'docs');
      mkdirSync(docs, { recursive: true });
      return docs;
    },
    scratch: (name: string) => join(tmp, `${name}-${n++}`),
  };
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), prefix));
    topic.built = join(tmp, 'template', 'topic');
    mkdirSync(topic.built, { recursive: true });
    writeFileSync(join(topic.built, 'golden-reference.md'), '# Widgets\n\nThe widgets library renders widgets. It keeps each sentence short.\n\n## Install\n\nRun the installer and follow the steps it prints.\n');
    writeFileSync(join(topic.built, 'qa-pairs.md'), '# Q&A\n\n## How do I install widgets?\n\nRun the installer.\n');
    expect(await chunk([topic.built], quiet)).toBe(0);
    expect(await keywords([topic.built], quiet)).toBe(0);
    expect(await spec([topic.built], quiet)).toBe(0);
  }, 120_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  return topic;
}

/** Every file below `dir`, path -> text. */
export function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.isFile()) out[r] = readFileSync(join(dir, r), 'utf8');
    }
  };
  walk('');
  return out;
}
