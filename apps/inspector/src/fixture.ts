/**
 * A real built docs tree for the inspector's browser test and benchmark: sample topics (and a
 * generated big one) run through the real chunking-tool, keyword-extractor, topic-spec and
 * index-tool, as `npx nx run-many -t index` does, into a temp folder.
 */
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as indexTool } from '../../index-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { main as spec } from '../../topic-spec/src/main.js';
import { bigMarkdown } from '../scripts/big-doc.mjs';

export const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

/** A sample topic of the repository, copied as it is. */
export const SAMPLE_TOPIC = 'libraries/system-text-json-source-generation';
/** The generated topic: ~200 KB of markdown, ~500 chunks at maxTokens 128. */
export const BIG_TOPIC = 'generated/big-topic';

const quiet = { stdout: () => {}, stderr: () => {} };

async function ok(what: string, p: Promise<number>) {
  const code = await p;
  if (code !== 0) throw new Error(`fixture: ${what} exited with ${code}`);
}

export interface BuiltDocs {
  /** The temp folder holding docs/ (remove it when done). */
  dir: string;
  docs: string;
}

/**
 * Builds the sample topic (and, if asked, the big one and `extra` topics given as markdown by
 * topic path, each with its chunkyard.config.yaml text in `configs` if given) into a fresh temp docs tree.
 */
export async function buildDocs(opts: { big?: boolean; sample?: boolean; extra?: Record<string, string>; configs?: Record<string, string> } = {}): Promise<BuiltDocs> {
  const dir = mkdtempSync(join(tmpdir(), 'chunkyard-inspector-'));
  const docs = join(dir, 'docs');
  const topics: string[] = [];
  if (opts.sample !== false) {
    const t = join(docs, SAMPLE_TOPIC);
    mkdirSync(t, { recursive: true });
    for (const f of ['golden-reference.md', 'qa-pairs.md']) cpSync(join(REPO, 'docs', SAMPLE_TOPIC, f), join(t, f));
    const config = join(dir, 'sample.yaml');
    // Seed 002's sizes with its sentence overlap (not the default since issue 17): the page
    // draws overlaps, and the tests need chunks that have them.
    writeFileSync(config, 'chunking:\n  minTokens: 64\n  targetTokens: 400\n  maxTokens: 512\n  overlapSentences: 2\n');
    await ok('chunking-tool', chunk([t, '--config', config], quiet));
    await ok('keyword-extractor', keywords([t], quiet));
    await ok('topic-spec', spec([t, '--config', config], quiet));
    topics.push(t);
  }
  if (opts.big) {
    const t = join(docs, BIG_TOPIC);
    mkdirSync(t, { recursive: true });
    writeFileSync(join(t, 'golden-reference.md'), bigMarkdown());
    const config = join(dir, 'big.yaml');
    writeFileSync(config, 'chunking:\n  minTokens: 16\n  targetTokens: 86\n  maxTokens: 128\n');
    await ok('chunking-tool (big)', chunk([t, '--config', config], quiet));
    await ok('keyword-extractor (big)', keywords([t], quiet));
    await ok('topic-spec (big)', spec([t, '--config', config], quiet));
    topics.push(t);
  }
  for (const [id, markdown] of Object.entries(opts.extra ?? {})) {
    const t = join(docs, id);
    mkdirSync(t, { recursive: true });
    writeFileSync(join(t, 'golden-reference.md'), markdown);
    const yaml = opts.configs?.[id];
    const config = yaml === undefined ? [] : ['--config', join(dir, `${topics.length}.yaml`)];
    if (yaml !== undefined) writeFileSync(config[1]!, yaml);
    await ok(`chunking-tool (${id})`, chunk([t, ...config], quiet));
    await ok(`keyword-extractor (${id})`, keywords([t], quiet));
    await ok(`topic-spec (${id})`, spec([t, ...config], quiet));
    topics.push(t);
  }
  await ok('index-tool (topics)', indexTool([...topics, '--root', docs], quiet));
  const sections = [...new Set(topics.map((t) => resolve(t, '..')))];
  await ok('index-tool (sections)', indexTool([...sections, '--root', docs], quiet));
  await ok('index-tool (root)', indexTool([docs, '--root', docs], quiet));
  return { dir, docs };
}
