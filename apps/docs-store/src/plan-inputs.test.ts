// docs-store reads CHUNKYARD_TOPIC_MARKER through @chunkyard/topic-io, as every other tool
// does: a copy of the rule here fell behind it, or `ingest` and chunking-tool disagree on
// which folders are topics.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@chunkyard/config';
import { topicMarkerFrom } from '@chunkyard/topic-io';
import { describe, expect, it } from 'vitest';
import { planInputs } from './plan-inputs.js';
import { BIN, ensureBuilt } from './test-build.js';

describe('CHUNKYARD_TOPIC_MARKER, read by the built bin', () => {
  const ingest = (ws: string, marker: string | undefined) =>
    spawnSync(process.execPath, [BIN, 'ingest', join(ws, 'docs', 't')], {
      cwd: ws,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', CI: '1', ...(marker === undefined ? {} : { CHUNKYARD_TOPIC_MARKER: marker }) },
    });

  // s58 probe: docs-store kept its own copy of the rule, which still took keywords.md (the
  // hand-written keyword table), topic.yaml, the tools' outputs, any .json and glob characters
  // as the topic's document, and ingested it, exit 0, where every other tool refuses them.
  it('refuses the names topic-io refuses, in its words, exit 2, nothing stored', async () => {
    await ensureBuilt();
    const ws = mkdtempSync(join(tmpdir(), 'docs-store-marker-'));
    try {
      writeFileSync(join(ws, 'chunkyard.config.yaml'), 'chunking: {}\n');
      for (const marker of ['keywords.md', 'qa-pairs.md', 'topic.yaml', 'index.json', 'x.json', 'topic-spec.md', 'llms.txt', 'llms-full.txt', 'words.md', '*.md', 'a[1].md', '{a,b}.md', '..', 'a/b.md']) {
        const topic = join(ws, 'docs', 't');
        rmSync(topic, { recursive: true, force: true });
        mkdirSync(topic, { recursive: true });
        writeFileSync(join(topic, 'golden-reference.md'), '# T\n\nText.\n');
        if (!marker.includes('/') && marker !== '..') writeFileSync(join(topic, marker), marker === 'topic.yaml' ? 'chunking: {}\n' : '# Marker\n\nText.\n');
        const r = ingest(ws, marker);
        const refused = topicMarkerFrom({ CHUNKYARD_TOPIC_MARKER: marker });
        expect(refused, marker).not.toBe(marker);
        expect(r.stderr, marker).toBe(`docs-store: ${topic}: a folder, but not a topic (no ${refused} in it)\n`);
        expect(r.status, marker).toBe(2);
        expect(existsSync(join(ws, '.chunkyard', 'store.db')), marker).toBe(false);
      }
      // Unset or empty is the default, golden-reference.md, as in topic-io.
      for (const marker of [undefined, '']) {
        const r = ingest(ws, marker);
        expect(r.status, `${JSON.stringify(marker)}: ${r.stderr}`).toBe(0);
      }
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});

describe('planInputs', () => {
  it('names the topic.yaml that listed a source it cannot read (s35 probe: "docs/t/red.md: no such file" alone)', () => {
    const root = mkdtempSync(join(tmpdir(), 'plan-inputs-'));
    try {
      const topic = join(root, 'docs', 't');
      mkdirSync(topic, { recursive: true });
      writeFileSync(join(topic, 'golden-reference.md'), '# T\n\nText.\n');
      writeFileSync(join(topic, 'topic.yaml'), 'sources: [golden-reference.md, gone.md]\n');
      const listed = planInputs({ root, config: { chunking: {} }, paths: [topic], built: false });
      expect(listed.plans).toHaveLength(1);
      expect(listed.errors).toEqual([{ source: 'docs/t/gone.md', error: 'no such file (listed in the sources of docs/t/topic.yaml)' }]);
      // A file given on the command line was listed by nobody: the plain message.
      const given = planInputs({ root, config: { chunking: {} }, paths: [join(topic, 'gone.md')], built: false });
      expect(given.errors).toEqual([{ source: 'docs/t/gone.md', error: 'no such file or folder' }]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  // s43 probe: a topic whose golden-reference.md is a dangling or looping symlink was "a folder,
  // but not a topic (no golden-reference.md in it)" (exit 2), as the topic tools said before
  // issue 15; chunking-tool and keyword-extractor name the broken link.
  it('a topic whose golden-reference.md is a broken symlink is a topic whose source is named as a broken link', () => {
    const root = mkdtempSync(join(tmpdir(), 'plan-inputs-'));
    try {
      for (const [name, target, said] of [
        ['dangling', 'nowhere.md', 'a dangling symlink (its target does not exist); fix or remove the link'],
        ['loop', 'golden-reference.md', 'a symlink loop (it never reaches a file); fix or remove the link'],
      ] as const) {
        const topic = join(root, 'docs', name);
        mkdirSync(topic, { recursive: true });
        symlinkSync(target, join(topic, 'golden-reference.md'));
        const planned = planInputs({ root, config: { chunking: {} }, paths: [topic], built: false });
        expect(planned.plans).toEqual([]);
        expect(planned.errors).toEqual([{ source: `docs/${name}/golden-reference.md`, error: said }]);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a topic.yaml that is not UTF-8 is a config error saying so and to save it as UTF-8, as chunking-tool says (issue 15 probe)', () => {
    // UTF-16 was "expected a mapping of settings at the top level"; a Latin-1 byte in a listed
    // source's name became U+FFFD and the file was "no such file".
    const root = mkdtempSync(join(tmpdir(), 'plan-inputs-'));
    try {
      const topic = join(root, 'docs', 't');
      mkdirSync(topic, { recursive: true });
      writeFileSync(join(topic, 'golden-reference.md'), '# T\n\nText.\n');
      const yaml = join(topic, 'topic.yaml');
      writeFileSync(yaml, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('sources: [golden-reference.md]\n', 'utf16le')]));
      const plan = () => planInputs({ root, config: { chunking: {} }, paths: [topic], built: false });
      expect(plan).toThrow(new ConfigError(yaml, null, 'UTF-16 (little-endian) text (it starts with that byte order mark), not UTF-8; save it as UTF-8'));
      writeFileSync(yaml, Buffer.from('sources: [golden-reference.md, caf\xe9.md]\n', 'latin1'));
      expect(plan).toThrow(new ConfigError(yaml, null, 'not valid UTF-8 (first bad byte at offset 34); save it as UTF-8'));
      writeFileSync(yaml, '\uFEFFsources: [golden-reference.md]\n');
      expect(plan().plans).toHaveLength(1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('planInputs --built, a _chunks/ that is not a readable folder', () => {
  // Issue 15 probe: a file or FIFO as _chunks/ was Node's words ("ENOTDIR: not a directory,
  // scandir '…/_chunks'"), a mode-000 _chunks/ "EACCES: permission denied, scandir '…'", and a
  // dangling or looping link "no _chunks/ folder: build the topic first".
  const shapes: [string, (chunks: string) => void, RegExp][] = [
    ['a regular file', (c) => writeFileSync(c, 'x'), /_chunks: not a folder \(a regular file\)$/],
    ['a FIFO', (c) => execFileSync('mkfifo', [c]), /_chunks: not a folder \(a FIFO \(named pipe\)\)$/],
    ['a dangling symlink', (c) => symlinkSync(join(c, '..', 'gone'), c), /_chunks: a dangling symlink \(its target does not exist\); fix or remove the link$/],
    ['a symlink loop', (c) => symlinkSync(c, c), /_chunks: a symlink loop \(it never reaches a file\); fix or remove the link$/],
    ...(process.getuid?.() === 0 ? [] : [['an unreadable folder', (c: string) => { mkdirSync(c); chmodSync(c, 0o000); }, /_chunks: permission denied \(EACCES\); check its permissions/] as [string, (c: string) => void, RegExp]]),
  ];
  for (const [what, make, said] of shapes) {
    it(`${what}: named, in the tools' words, and left out`, () => {
      const root = mkdtempSync(join(tmpdir(), 'plan-inputs-built-'));
      const topic = join(root, 'docs', 't');
      const chunks = join(topic, '_chunks');
      try {
        mkdirSync(topic, { recursive: true });
        writeFileSync(join(topic, 'golden-reference.md'), '# T\n\nText.\n');
        make(chunks);
        const planned = planInputs({ root, config: { chunking: {} }, paths: [topic], built: true });
        expect(planned.plans).toEqual([]);
        expect(planned.errors).toHaveLength(1);
        expect(planned.errors[0]!.source).toBe(topic);
        expect(planned.errors[0]!.error).toMatch(said);
        expect(planned.errors[0]!.error).not.toMatch(/scandir|build the topic first/);
      } finally {
        try {
          chmodSync(chunks, 0o755);
        } catch {
          // not a folder of ours to open again
        }
        rmSync(root, { recursive: true, force: true });
      }
    });
  }
});
