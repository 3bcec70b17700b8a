// docs-store keeps its own copy of topic-io's CHUNKYARD_TOPIC_MARKER rule (it does not load
// topic-io): both must read every value alike, or `ingest` and chunking-tool disagree on
// which folders are topics.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@chunkyard/config';
import { topicMarkerFrom as topicIo } from '@chunkyard/topic-io';
import { describe, expect, it } from 'vitest';
import { planInputs, topicMarkerFrom } from './plan-inputs.js';

describe('topicMarkerFrom', () => {
  it('reads every CHUNKYARD_TOPIC_MARKER as @chunkyard/topic-io does (s34 probe: ".." made every folder a topic)', () => {
    for (const v of [undefined, '', 'faq.md', '.', '..', 'a/b.md', '/etc/passwd', 'a\\b', 'x\n.md', 'x\u001b[31m.md', 'x\u007f', 'café.md']) {
      expect(topicMarkerFrom({ CHUNKYARD_TOPIC_MARKER: v }), JSON.stringify(v)).toBe(topicIo({ CHUNKYARD_TOPIC_MARKER: v }));
    }
    expect(topicMarkerFrom({ CHUNKYARD_TOPIC_MARKER: '..' })).toBe('CHUNKYARD_TOPIC_MARKER=".." (not a plain file name)');
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
