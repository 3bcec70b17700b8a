// Issue 15 probe: a topic.yaml saved with lone CR line endings (old Mac editors) is valid YAML,
// since YAML 1.2 takes CR, LF and CRLF alike as a line break, but parseConfig refused it with
// "not valid YAML: Nested mappings are not allowed in compact mappings": the yaml library
// breaks lines at LF only, so the whole file was one line. Real files on disk.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkyard-config-breaks-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** parseConfig's answer for `text`: the config, or the ConfigError's line and whole message. */
function outcome(text: string, file: string, topic: boolean): unknown {
  try {
    return { config: parseConfig(text, file, { topic }) };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return { line: err.line, message: err.message };
  }
}

describe('line breaks: CR, LF and CRLF are one and the same (YAML 1.2 b-break)', () => {
  it('a topic.yaml and a chunkyard.config.yaml with lone CR line endings read as with LF', () => {
    const topicLines = ['# overrides for this topic', 'sources:', '  - intro.md', '  - "setup guide.md"', 'chunking:', '  maxTokens: 300', '  strategy: semantic'];
    const topic = join(dir, 'topic.yaml');
    writeFileSync(topic, `${topicLines.join('\r')}\r`);
    expect(parseConfig(readFileSync(topic, 'utf8'), topic, { topic: true })).toEqual({ chunking: { maxTokens: 300, strategy: 'semantic' }, sources: ['intro.md', 'setup guide.md'] });

    const workspace = join(dir, 'chunkyard.config.yaml');
    writeFileSync(workspace, 'chunking:\r  minTokens: 16\r  targetTokens: 80\r  maxTokens: 512\r  breadcrumbMode: conditional\r');
    expect(parseConfig(readFileSync(workspace, 'utf8'), workspace)).toEqual({ chunking: { minTokens: 16, targetTokens: 80, maxTokens: 512, breadcrumbMode: 'conditional' } });
  });

  it('an error in a CR-only file names its own line, as in the LF file', () => {
    const lines = ['chunking:', '  maxTokens: 300', '  bogus: 1'];
    const cr = outcome(lines.join('\r'), 'topic.yaml', true);
    expect(cr).toEqual(outcome(lines.join('\n'), 'topic.yaml', true));
    expect(cr).toMatchObject({ line: 3 });
  });

  it('property: any mix of CR, LF and CRLF gives what the same lines with LF give (the config, or the same error on the same line)', () => {
    const text = fc.string({ maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, ' '));
    const setting = fc.constantFrom('strategy', 'minTokens', 'targetTokens', 'maxTokens', 'overlapSentences', 'breadcrumbMode', 'bogus', 'sources');
    const value = fc.oneof(
      fc.integer({ min: -5, max: 3000 }).map(String),
      fc.constantFrom('semantic', 'fixed', 'conditional', 'always', 'never', '~', '[]', '{}', '"quoted value"', "'single'", '|', '>-', '&a x', '*a', '!foo 1'),
      text,
    );
    // Valid lines and hostile ones: comments, blanks, nesting, lists, block scalars, a second
    // document, a colon where a mapping cannot be, tabs, flow collections left open.
    const line = fc.oneof(
      fc.constant('chunking:'),
      fc.constant('spec:'),
      fc.constant('sources:'),
      fc.tuple(setting, value).map(([k, v]) => `  ${k}: ${v}`),
      fc.tuple(setting, value).map(([k, v]) => `${k}: ${v}`),
      fc.constantFrom('  - intro.md', '  - "a b.md"', '    folded text', '', '---', 'a: b: c', '\tmaxTokens: 3', '  [1, 2', '"open'),
      text.map((t) => `# ${t}`),
      text,
    );
    const brk = fc.constantFrom('\n', '\r\n', '\r');
    fc.assert(
      fc.property(fc.array(fc.tuple(line, brk), { maxLength: 14 }), fc.boolean(), (lines, topic) => {
        const file = topic ? 'docs/t/topic.yaml' : 'chunkyard.config.yaml';
        const mixed = lines.map(([l, b]) => l + b).join('');
        // The spec's reading (b-break: CRLF, else CR, else LF): a CR before an empty line's LF is one CRLF.
        const lf = mixed.replace(/\r\n|\r/g, '\n');
        expect(outcome(mixed, file, topic)).toEqual(outcome(lf, file, topic));
      }),
      { numRuns: 400 },
    );
  });
});
