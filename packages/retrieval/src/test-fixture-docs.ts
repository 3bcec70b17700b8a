/**
 * TEST FIXTURE ONLY — not part of the package's API (index.ts does not export it).
 *
 * Builds a real docs tree in a temp folder, laid out as a workspace:
 *
 *   <root>/chunkyard.config.yaml        (the repository's)
 *   <root>/docs/<topic>/golden-reference.md, _chunks/ (by the real chunking-tool), index.json
 *   <root>/docs/<section>/index.json, <root>/docs/index.json
 *
 * index.json files are written per the issue-5 contract from the real manifests, with the
 * real local embedder for similarities and SPEC.md's stripe rule, so retrieval is tested
 * against data shaped like IndexTool's. It stands in for apps/index-tool, which is built in
 * parallel; it is deliberately small and is not IndexTool.
 *
 * It also holds what the tests that run as `nobody` over a cache root filled share: chmodTree,
 * unreadableAsUmask077 and nodeAs (retrieval's embed-unreadable, docs-query's cache-unreadable).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProvider } from '@chunkyard/embeddings';
import { simhash64, toHex } from '@chunkyard/simhash';
import { cosine } from './similarity.js';

export const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const CHUNKING_TOOL = join(REPO, 'apps/chunking-tool/dist/main.js');

export const SAMPLE_TOPICS = [
  'deployment/native-aot',
  'deployment/trimming-options',
  'libraries/system-text-json-collections',
  'libraries/system-text-json-customize-properties',
  'libraries/system-text-json-polymorphism',
  'libraries/system-text-json-reflection-vs-source-generation',
  'libraries/system-text-json-source-generation',
] as const;

/** SPEC.md "Stripe ordering": similarity desc (ties by index); N < 8 plain; else stripes of factor f. */
export function stripeOrder(similarities: ReadonlyMap<number, number>): number[] {
  const sorted = [...similarities.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([i]) => i);
  const n = sorted.length;
  if (n < 8) return sorted;
  const f = Math.max(2, Math.min(Math.floor(n / 2), Math.ceil(Math.sqrt(n))));
  const out: number[] = [];
  for (let s = 0; s < f; s++) for (let r = s; r < n; r += f) out.push(sorted[r]!);
  return out;
}

export interface FixtureOptions {
  topics?: readonly string[];
  /** Topics given a technical baseline (chunk 1), whatever chunk 1's title. */
  technical?: readonly string[];
  /** Questions stored as prompt_hashes on the chunk most similar to them (local embedder). */
  questions?: readonly { topic: string; question: string }[];
  /** More topics, each id's golden-reference.md written from its text (not the repository's docs). */
  pages?: Readonly<Record<string, string>>;
}

export interface FixtureDocs {
  /** The workspace folder (holds chunkyard.config.yaml). */
  workspace: string;
  /** The docs root (served as `/`). */
  docs: string;
  /** Which chunk each question was stored on. */
  questionChunks: Map<string, { topic: string; index: number }>;
  cleanup(): void;
}

interface ManifestLike {
  fileTitle: string | null;
  chunks: { chunkNumber: number; embedText: string; sectionTitle?: string | null; isCode: boolean; tokenStats: { tokens: number } }[];
}

export async function buildFixtureDocs(options: FixtureOptions = {}): Promise<FixtureDocs> {
  const pages = options.pages ?? {};
  const topics = [...(options.topics ?? SAMPLE_TOPICS), ...Object.keys(pages)];
  const workspace = mkdtempSync(join(tmpdir(), 'chunkyard-retrieval-'));
  const docs = join(workspace, 'docs');
  copyFileSync(join(REPO, 'chunkyard.config.yaml'), join(workspace, 'chunkyard.config.yaml'));
  for (const t of topics) {
    mkdirSync(join(docs, t), { recursive: true });
    const page = Object.hasOwn(pages, t) ? pages[t] : undefined;
    if (page !== undefined) writeFileSync(join(docs, t, 'golden-reference.md'), page);
    else copyFileSync(join(REPO, 'docs', t, 'golden-reference.md'), join(docs, t, 'golden-reference.md'));
  }
  execFileSync(process.execPath, [CHUNKING_TOOL, ...topics.map((t) => join(docs, t)), '--config', join(workspace, 'chunkyard.config.yaml')], { stdio: 'pipe' });

  const provider = createProvider({ provider: 'local' });
  const questionChunks = new Map<string, { topic: string; index: number }>();
  for (const t of topics) {
    const manifest = JSON.parse(readFileSync(join(docs, t, '_chunks/golden-reference.json'), 'utf8')) as ManifestLike;
    const vectors = await provider.embed(manifest.chunks.map((c) => c.embedText));
    const hashes = new Map<number, string[]>();
    for (const q of options.questions ?? []) {
      if (q.topic !== t) continue;
      const [qv] = await provider.embed([q.question]);
      let best = 0;
      vectors.forEach((v, i) => {
        if (cosine(qv!, v) > cosine(qv!, vectors[best]!)) best = i;
      });
      hashes.set(best, [...(hashes.get(best) ?? []), toHex(simhash64(q.question))]);
      questionChunks.set(q.question, { topic: t, index: best });
    }
    const technical = options.technical?.includes(t) === true && vectors.length >= 2;
    const sim = (base: number) => new Map(vectors.map((v, i) => [i, cosine(v, vectors[base]!)] as const));
    const conceptual = sim(0);
    const tech = technical ? sim(1) : null;
    const without = (m: Map<number, number>, drop: number[]) => new Map([...m].filter(([i]) => !drop.includes(i)));
    const group: Record<string, unknown> = {
      source: 'golden-reference.md',
      manifest: '_chunks/golden-reference.json',
      count: manifest.chunks.length,
      baseline_conceptual: 0,
      ...(tech ? { baseline_technical: 1 } : {}),
      stripe_order: stripeOrder(without(conceptual, [0])),
      ...(tech ? { stripe_order_technical: stripeOrder(without(tech, [0, 1])) } : {}),
      items: manifest.chunks.map((c, i) => ({
        index: i,
        href: `_chunks/golden-reference-${i}.md`,
        title: c.sectionTitle ?? manifest.fileTitle ?? `Chunk ${i}`,
        is_code: c.isCode,
        tokens: c.tokenStats.tokens,
        similarity_conceptual: conceptual.get(i)!,
        ...(tech ? { similarity_technical: tech.get(i)! } : {}),
        keywords: [],
        ...(hashes.has(i) ? { prompt_hashes: hashes.get(i) } : {}),
      })),
    };
    writeIndex(docs, t, {
      id: t,
      kind: 'topic',
      title: manifest.fileTitle ?? t,
      _links: { self: { href: `/${t}/index.json` }, parent: { href: parentHref(t) } },
      _embedded: { topics: [], chunks: { 'golden-reference': group } },
    });
  }
  // Sections: every folder above a topic, the docs root included.
  const titles = new Map<string, string>();
  for (const t of topics) {
    const m = JSON.parse(readFileSync(join(docs, t, 'index.json'), 'utf8')) as { title: string };
    titles.set(t, m.title);
  }
  const sections = new Set<string>(['']);
  for (const t of topics) for (let s = dirname(t); s !== '.'; s = dirname(s)) sections.add(s);
  for (const s of sections) {
    const children = [...new Set([...topics, ...sections].filter((id) => id !== s && parentOf(id) === s))].sort();
    writeIndex(docs, s, {
      id: s,
      kind: 'section',
      title: s === '' ? 'docs' : s.split('/').pop()!,
      _links: { self: { href: s === '' ? '/index.json' : `/${s}/index.json` }, ...(s === '' ? {} : { parent: { href: parentHref(s) } }) },
      _embedded: {
        topics: children.map((id) => ({
          id,
          kind: sections.has(id) ? 'section' : 'topic',
          title: titles.get(id) ?? id.split('/').pop()!,
          _links: { self: { href: `/${id}/index.json` } },
        })),
      },
    });
  }
  return { workspace, docs, questionChunks, cleanup: () => rmSync(workspace, { recursive: true, force: true }) };
}

function parentOf(id: string): string | null {
  if (id === '') return null;
  const d = dirname(id);
  return d === '.' ? '' : d;
}

function parentHref(id: string): string {
  const p = parentOf(id);
  return p === '' || p === null ? '/index.json' : `/${p}/index.json`;
}

function writeIndex(docs: string, id: string, json: unknown): void {
  mkdirSync(join(docs, id), { recursive: true });
  writeFileSync(join(docs, id, 'index.json'), `${JSON.stringify(json, null, 2)}\n`);
}

/**
 * Hand-written questions about the sample topics, each with paraphrases a reader might type
 * instead. Used by the tests (stored as prompt_hashes by buildFixtureDocs) and as a small
 * paraphrase set for measure-prompt-threshold.mjs until the topics have qa-pairs.md files.
 */
export const SAMPLE_QUESTIONS: readonly { topic: string; question: string; paraphrases: string[] }[] = [
  {
    topic: 'libraries/system-text-json-source-generation',
    question: 'How do I use source generation with all defaults?',
    paraphrases: ['How to use source generation with the defaults?', 'using source generation with all the default settings', 'How can I use default source generation?'],
  },
  {
    topic: 'libraries/system-text-json-source-generation',
    question: 'How do I serialize enum fields as strings with source generation?',
    paraphrases: ['How to serialize enum fields as strings when using source generation?', 'serialize enums as strings with source generation', 'Can source generation write enum fields as strings?'],
  },
  {
    topic: 'libraries/system-text-json-polymorphism',
    question: 'How do I serialize properties of derived classes?',
    paraphrases: ['How to serialize the properties of a derived class?', 'serializing derived class properties', 'Why are properties of derived classes not serialized?'],
  },
  {
    topic: 'libraries/system-text-json-collections',
    question: 'Which collection types does System.Text.Json support?',
    paraphrases: ['What collection types are supported by System.Text.Json?', 'supported collection types in System.Text.Json', 'Does System.Text.Json support my collection type?'],
  },
  {
    topic: 'libraries/system-text-json-customize-properties',
    question: 'How do I customize property names and values?',
    paraphrases: ['How to customize the names and values of properties?', 'customizing property names and values', 'Can I change property names when serializing?'],
  },
  {
    topic: 'libraries/system-text-json-reflection-vs-source-generation',
    question: 'When should I use reflection instead of source generation?',
    paraphrases: ['When to use reflection rather than source generation?', 'reflection versus source generation, which should I use', 'Should I pick reflection or source generation?'],
  },
  {
    topic: 'deployment/native-aot',
    question: 'How do I publish an app as native AOT?',
    paraphrases: ['How to publish a native AOT app?', 'publishing my application with native AOT', 'What do I need to publish native AOT?'],
  },
  {
    topic: 'deployment/trimming-options',
    question: 'Which MSBuild properties control trimming?',
    paraphrases: ['What MSBuild properties control the trimming?', 'msbuild properties for trimming control', 'How do I configure trimming with MSBuild?'],
  },
];

/** Every folder below `dir` (itself included) to `dirMode`, every file to `fileMode`. */
export function chmodTree(dir: string, dirMode: number, fileMode: number): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) chmodTree(p, dirMode, fileMode);
    else chmodSync(p, fileMode);
  }
  chmodSync(dir, dirMode);
}

/**
 * `dir` as another user's tree written under umask 077 is to `nobody`: every folder 0700 and
 * every file 0600, but `dir` itself 0755, so its entries can be listed and none of them read.
 */
export function unreadableAsUmask077(dir: string): void {
  chmodTree(dir, 0o700, 0o600);
  chmodSync(dir, 0o755);
}

/** The command that runs node: as `nobody` (uid and gid 65534, no groups, by setpriv), or as this user. */
export function nodeAs(asNobody: boolean): [string, ...string[]] {
  return asNobody ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath] : [process.execPath];
}

/**
 * Chinese, Japanese and Korean pages, as docs-store's tests hold them: words inside runs (配置
 * in 如何配置服务器的网络设置, 設定 in サーバーの設定を変更する, 서버 in 서버를).
 */
export const CJK_PAGES = {
  zh: '# 服务器指南\n\n本文介绍如何配置服务器的网络设置，以及防火墙的规则。\n',
  ja: '# サーバーガイド\n\nサーバーの設定を変更する方法について説明します。\n',
  ko: '# 관리자 안내\n\n이 문서는 서버를 설정하는 방법을 설명합니다.\n',
} as const;

/** A Chinese page of twelve sections, the eighth alone holding 启用缓存压缩 ("enable cache compression"). */
export const CJK_LONG_PAGE = `# 部署手册\n\n${Array.from({ length: 12 }, (_, i) => `## 第${i}节\n\n${i === 7 ? '在生产环境中启用缓存压缩可以减少带宽。' : '这一节讲述一般的注意事项和背景知识。'.repeat(6)}\n`).join('\n')}`;
