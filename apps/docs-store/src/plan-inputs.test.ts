// docs-store keeps its own copy of topic-io's CHUNKYARD_TOPIC_MARKER rule (it does not load
// topic-io): both must read every value alike, or `ingest` and chunking-tool disagree on
// which folders are topics.
import { topicMarkerFrom as topicIo } from '@chunkyard/topic-io';
import { describe, expect, it } from 'vitest';
import { topicMarkerFrom } from './plan-inputs.js';

describe('topicMarkerFrom', () => {
  it('reads every CHUNKYARD_TOPIC_MARKER as @chunkyard/topic-io does (s34 probe: ".." made every folder a topic)', () => {
    for (const v of [undefined, '', 'faq.md', '.', '..', 'a/b.md', '/etc/passwd', 'a\\b', 'x\n.md', 'x\u001b[31m.md', 'x\u007f', 'café.md']) {
      expect(topicMarkerFrom({ CHUNKYARD_TOPIC_MARKER: v }), JSON.stringify(v)).toBe(topicIo({ CHUNKYARD_TOPIC_MARKER: v }));
    }
    expect(topicMarkerFrom({ CHUNKYARD_TOPIC_MARKER: '..' })).toBe('CHUNKYARD_TOPIC_MARKER=".." (not a plain file name)');
  });
});
