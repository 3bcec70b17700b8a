// docs-store keeps its own copy of topic-io's CHUNKYARD_TOPIC_MARKER rule (it does not load
// topic-io): both must read every value alike, or `ingest` and chunking-tool disagree on
// which folders are topics.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
});
