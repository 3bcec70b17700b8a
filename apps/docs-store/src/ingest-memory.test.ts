// `ingest --built`'s memory is bounded by the largest document, not by the tree: the built CLI,
// in a process of its own with a heap too small for the tree's chunks, ingests many copies of
// one built topic. It read every manifest into plans and held each document's vectors until
// the one write transaction ended: 16 copies of a 9 MB document peaked at 2.3 GB (the default
// heap of 4 GB fails at some 30), and this tree needed more than 96 MB of heap (issue 15).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main as chunkingTool } from '../../chunking-tool/src/main.js';
import { BIN, ensureBuilt } from './test-build.js';

const COPIES = 40;
// One document needs under 48 MB here; the whole tree, held at once, more than 96.
const HEAP_MB = 72;
const ws = mkdtempSync(join(tmpdir(), 'docs-store-ingest-memory-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));

let chunks = 0;
beforeAll(async () => {
  await ensureBuilt();
  // Made-up words under headings: a 0.5 MB document of some 1,100 chunks, every text distinct.
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const word = () => Array.from({ length: 3 + Math.floor(rnd() * 8) }, () => String.fromCharCode(97 + Math.floor(rnd() * 26))).join('');
  let text = '# Doc\n\n';
  for (let part = 0; text.length < 500_000; part++) {
    text += `## Part ${part}\n\n`;
    for (let p = 0; p < 3; p++) text += `${Array.from({ length: 60 }, word).join(' ')}.\n\n`;
  }
  const first = join(ws, 'docs/t0');
  mkdirSync(first, { recursive: true });
  writeFileSync(join(first, 'golden-reference.md'), text);
  const out: string[] = [];
  expect(await chunkingTool([first], { stdout: (s: string) => out.push(s), stderr: (s: string) => out.push(s) })).toBe(0);
  chunks = Number(/(\d+) chunks/.exec(out.join(''))?.[1]);
  expect(chunks).toBeGreaterThan(1000);
  for (let i = 1; i < COPIES; i++) cpSync(first, join(ws, `docs/t${i}`), { recursive: true });
  writeFileSync(join(ws, 'nx.json'), '{}\n');
}, 120_000);

const ingest = () =>
  spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, BIN, 'ingest', '--built', ...Array.from({ length: COPIES }, (_, i) => `docs/t${i}`)], {
    cwd: ws,
    encoding: 'utf8',
    timeout: 240_000,
    env: { PATH: process.env.PATH ?? '', CI: '1' },
  });

it(`ingests ${COPIES} built copies of a 0.5 MB document in a ${HEAP_MB} MB heap, and again when nothing changed`, () => {
  const first = ingest();
  expect(first.stderr).not.toMatch(/heap out of memory|\n\s+at /);
  expect(first.status).toBe(0);
  expect(first.stdout).toContain(`${COPIES} written, 0 unchanged, 0 failed`);
  // Every chunk of every copy, with its vector: the tree was written, not just survived.
  const db = new Database(join(ws, '.chunkyard/store.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT count(*) AS n, count(DISTINCT artifact_id) AS docs, sum(length(embedding) > 0) AS vectors FROM artifact_chunks').get() as { n: number; docs: number; vectors: number };
    expect(row).toEqual({ n: COPIES * chunks, docs: COPIES, vectors: COPIES * chunks });
  } finally {
    db.close();
  }

  const again = ingest();
  expect(again.status).toBe(0);
  expect(again.stdout).toContain(`0 written, ${COPIES} unchanged, 0 failed`);
}, 480_000);
