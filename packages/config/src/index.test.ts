// Tests of @chunkyard/config: parseConfig validates chunkyard.config.yaml and topic.yaml
// text and names the file, the line and the key in every error; mergeTopic layers a
// topic's overrides on the workspace config. Real YAML files on disk, no mocks.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { ConfigError, didYouMean, duplicateKeyText, firstDuplicateKey, mergeTopic, parseConfig, type ChunkyardConfig } from './index.js';

const FILE = 'chunkyard.config.yaml';

/** Parses `text` and returns the ConfigError it throws (fails the test if it does not throw). */
function errorOf(text: string, file = FILE, topic = false): ConfigError {
  try {
    parseConfig(text, file, { topic });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`expected parseConfig to reject:\n${text}`);
}

describe('parseConfig: valid configs', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chunkyard-config-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('parses every chunking setting from a file on disk', () => {
    const file = join(dir, FILE);
    writeFileSync(
      file,
      [
        '# workspace chunking settings',
        'chunking:',
        '  strategy: semantic',
        '  minTokens: 32',
        '  targetTokens: 300',
        '  maxTokens: 480',
        '  overlapSentences: 1',
        '  breadcrumbMode: always',
        '  contentType: guide',
        '  parser: remark',
        '',
      ].join('\n'),
    );
    const config = parseConfig(readFileSync(file, 'utf8'), file);
    expect(config).toEqual({
      chunking: {
        strategy: 'semantic',
        minTokens: 32,
        targetTokens: 300,
        maxTokens: 480,
        overlapSentences: 1,
        breadcrumbMode: 'always',
        contentType: 'guide',
        parser: 'remark',
      },
    });
    expect(config.sources).toBeUndefined();
  });

  it('parses the repository root chunkyard.config.yaml', () => {
    const text = readFileSync(new URL('../../../chunkyard.config.yaml', import.meta.url), 'utf8');
    const config = parseConfig(text, FILE);
    expect(config.chunking.strategy).toBe('semantic');
    expect(config.chunking.maxTokens).toBeGreaterThanOrEqual(16);
  });

  it('accepts flow-style mappings and the boundary values', () => {
    expect(parseConfig('chunking: {minTokens: 0, targetTokens: 16, maxTokens: 16, overlapSentences: 0}\n', FILE)).toEqual({
      chunking: { minTokens: 0, targetTokens: 16, maxTokens: 16, overlapSentences: 0 },
    });
    // min == target == max is allowed.
    expect(parseConfig('chunking:\n  minTokens: 100\n  targetTokens: 100\n  maxTokens: 100\n', FILE).chunking).toEqual({
      minTokens: 100,
      targetTokens: 100,
      maxTokens: 100,
    });
  });

  it('keeps only the keys that were set (no defaults filled in)', () => {
    expect(parseConfig('chunking:\n  maxTokens: 256\n', FILE)).toEqual({ chunking: { maxTokens: 256 } });
  });

  it.each([
    ['an empty file', ''],
    ['only whitespace', '  \n\n\t\n'],
    ['only comments', '# nothing configured yet\n# chunking:\n#   maxTokens: 10\n'],
    ['an explicit empty document', '---\n'],
    ['an explicit null document', '--- # settings come later\n~\n'],
  ])('gives the defaults (empty settings) for %s', (_name, text) => {
    expect(parseConfig(text, FILE)).toEqual({ chunking: {} });
    expect(parseConfig(text, 'docs/x/topic.yaml', { topic: true })).toEqual({ chunking: {} });
  });
});

describe('parseConfig: every chunking key is validated with file:line, key and what was expected', () => {
  // Each case puts the bad value on line 4, between a comment and a valid setting.
  const cases: [key: string, bad: string, expected: string][] = [
    ['maxTokens', '-3', 'a whole number from 16 to 1000000'],
    ['maxTokens', '8', 'a whole number from 16 to 1000000'],
    ['maxTokens', '512.5', 'a whole number from 16 to 1000000'],
    ['maxTokens', '"512"', 'a whole number from 16 to 1000000'],
    ['maxTokens', 'lots', 'a whole number from 16 to 1000000'],
    ['minTokens', '-1', 'a whole number from 0 to 1000000'],
    ['minTokens', '1.5', 'a whole number from 0 to 1000000'],
    ['minTokens', 'true', 'a whole number from 0 to 1000000'],
    ['targetTokens', '0', 'a whole number from 1 to 1000000'],
    ['targetTokens', '[400]', 'a whole number from 1 to 1000000'],
    ['overlapSentences', '-1', 'a whole number from 0 to 1000'],
    ['overlapSentences', '0.5', 'a whole number from 0 to 1000'],
    ['overlapSentences', '', 'a whole number from 0 to 1000'],
    ['strategy', 'recursive', 'one of semantic, token-window, hierarchical, paginate'],
    ['strategy', '1', 'one of semantic, token-window, hierarchical, paginate'],
    ['windowTokens', '8', 'a whole number from 16 to 1000000'],
    ['windowOverlapTokens', '-1', 'a whole number from 0 to 1000000'],
    ['singlePieceMaxTokens', 'many', 'a whole number from 0 to 1000000'],
    ['sectionTargetTokens', '0', 'a whole number from 1 to 1000000'],
    ['sectionMaxTokens', '32', 'a whole number from 128 to 1000000'],
    ['sectionOverlapTokens', '1.5', 'a whole number from 0 to 1000000'],
    ['snippetTargetTokens', '0', 'a whole number from 1 to 1000000'],
    ['snippetMaxTokens', '"512"', 'a whole number from 128 to 1000000'],
    ['snippetOverlapTokens', '-80', 'a whole number from 0 to 1000000'],
    ['maxConcepts', '-1', 'a whole number from 0 to 10000'],
    ['ctxSize', '100', 'a whole number from 512 to 1000000'],
    ['ctxSize', '300', 'a whole number from 512 to 1000000'],
    ['bufSize', '-512', 'a whole number from 0 to 1000000'],
    ['pageOverlapTokens', 'some', 'a whole number from 0 to 1000000'],
    ['leadLines', 'llm', 'one of extractive, none'],
    ['breadcrumbMode', 'sometimes', 'one of conditional, always, none'],
    ['breadcrumbMode', 'true', 'one of conditional, always, none'],
    ['contentType', '""', 'a non-empty string'],
    ['contentType', '"   "', 'a non-empty string'],
    ['contentType', '42', 'a non-empty string'],
    ['contentType', '"api:v2"', 'one word without ":" (it opens every chunk id)'],
    ['contentType', '"two words"', 'one word without ":" (it opens every chunk id)'],
    ['contentType', '"a\\nb"', 'one word without ":" (it opens every chunk id)'],
    ['contentType', '', 'a non-empty string'],
    ['parser', 'slow', 'one of fast, remark'],
    ['parser', '{name: fast}', 'one of fast, remark'],
  ];

  it.each(cases)('chunking.%s: %s is rejected', (key, bad, expected) => {
    const good = key === 'parser' ? 'contentType: doc' : 'parser: fast';
    const text = `# settings\nchunking:\n  # the value under test is next\n  ${key}: ${bad}\n  ${good}\n`;
    const err = errorOf(text);
    expect(err.file).toBe(FILE);
    expect(err.line).toBe(4);
    expect(err.message).toContain(`${FILE}:4`);
    expect(err.message).toContain(`chunking.${key}`);
    expect(err.message).toContain(`expected ${expected}`);
    expect(err.message.startsWith(`${FILE}:4: chunking.${key}: expected ${expected}`)).toBe(true);
  });

  // Issue 15: JSON.stringify showed 1e309 (Infinity) and .nan as "got null"; and a number with
  // no ceiling (1e12) was accepted, to become a huge allocation or an endless run later.
  it.each([
    ['maxTokens', '1e309', 'a whole number from 16 to 1000000', 'got 1e309'],
    ['maxTokens', '.nan', 'a whole number from 16 to 1000000', 'got .nan'],
    ['maxTokens', '.inf', 'a whole number from 16 to 1000000', 'got .inf'],
    ['maxTokens', '-.Inf', 'a whole number from 16 to 1000000', 'got -.Inf'],
    ['maxTokens', '1e12', 'a whole number from 16 to 1000000', 'got 1e12'],
    ['targetTokens', '1000001', 'a whole number from 1 to 1000000', 'got 1000001'],
    ['ctxSize', '0x7fffffffffff', 'a whole number from 512 to 1000000', 'got 0x7fffffffffff'],
    ['overlapSentences', '1001', 'a whole number from 0 to 1000', 'got 1001'],
    ['maxConcepts', '1e5', 'a whole number from 0 to 10000', 'got 1e5'],
  ])('chunking.%s: %s says what was given and the range', (key, bad, expected, got) => {
    const err = errorOf(`chunking:\n  ${key}: ${bad}\n`);
    expect(err.message).toBe(`${FILE}:2: chunking.${key}: expected ${expected}, ${got}`);
  });

  // s46 probe: YAML reads 1e-400 as 0 and 16.0000000000000001 as 16, so a value outside a
  // range, or not whole, passed as the bound it rounds to (minTokens: 1e-400 was minTokens 0).
  // What counts is the number as written.
  it.each([
    ['chunking', 'minTokens', '1e-400', 'a whole number from 0 to 1000000'],
    ['chunking', 'minTokens', '-1e-400', 'a whole number from 0 to 1000000'],
    ['chunking', 'maxTokens', '16.0000000000000001', 'a whole number from 16 to 1000000'],
    ['chunking', 'overlapSentences', '1000.0000000000000001', 'a whole number from 0 to 1000'],
    ['chunking', 'maxTokens', '1000000.00000000001e0', 'a whole number from 16 to 1000000'],
    ['chunking', 'bufSize', '-.0000000000000000000000000000000000000000000001e-300', 'a whole number from 0 to 1000000'],
    ['embeddings', 'maxRetries', '1e-400', 'a whole number from 0 to 10'],
    ['spec', 'promptThreshold', '1.00000000000000001', 'a number from 0 to 1'],
    ['spec', 'promptThreshold', '-1e-400', 'a number from 0 to 1'],
    ['spec', 'promptThreshold', '100000000000000000000001e-23', 'a number from 0 to 1'],
  ])('%s.%s: %s, which YAML rounds into the range, is refused as written', (section, key, bad, expected) => {
    const err = errorOf(`${section}:\n  ${key}: ${bad}\n`);
    expect(err.message).toBe(`${FILE}:2: ${section}.${key}: expected ${expected}, got ${bad}`);
  });

  it('a number written exactly is taken as YAML reads it: 1e3, 1000.0, 0x10, 0o20; -0 is 0; a decimal in range may round', () => {
    expect(parseConfig('chunking:\n  maxTokens: 1e3\n  targetTokens: 1000.0\n  minTokens: 0x10\n  overlapSentences: 0o20\n', FILE).chunking).toEqual({ maxTokens: 1000, targetTokens: 1000, minTokens: 16, overlapSentences: 16 });
    expect(parseConfig('chunking:\n  maxTokens: 10000000e-1\n', FILE).chunking.maxTokens).toBe(1_000_000);
    const zero = parseConfig('chunking:\n  minTokens: -0\n  bufSize: -0.0e5\nspec:\n  promptThreshold: -0.0\n', FILE);
    expect(Object.is(zero.chunking.minTokens, 0)).toBe(true);
    expect(Object.is(zero.chunking.bufSize, 0)).toBe(true);
    expect(Object.is(zero.spec?.promptThreshold, 0)).toBe(true);
    // Inside 0..1, the nearest double is the value: 0.99999999999999999 is 1, 1e-400 is 0.
    expect(parseConfig('spec:\n  promptThreshold: 0.99999999999999999\n', FILE).spec?.promptThreshold).toBe(1);
    expect(parseConfig('spec:\n  promptThreshold: 1e-400\n', FILE).spec?.promptThreshold).toBe(0);
  });

  it('embeddings and spec: what was given, not null', () => {
    expect(errorOf('embeddings:\n  timeoutMs: 1e400\n').message).toBe(`${FILE}:2: embeddings.timeoutMs: expected a whole number from 100 to 3600000, got 1e400`);
    expect(errorOf('embeddings:\n  dimensions: 1e6\n').message).toBe(`${FILE}:2: embeddings.dimensions: expected a whole number from 8 to 65536, got 1e6`);
    expect(errorOf('spec:\n  promptThreshold: .NaN\n').message).toBe(`${FILE}:2: spec.promptThreshold: expected a number from 0 to 1, got .NaN`);
  });

  it('a key with no value says it was given nothing, not "got " and the end of the line (issue 15 probe)', () => {
    const err = errorOf('chunking:\n  maxTokens:\n  strategy:   # to do\nspec:\n  promptThreshold:\n');
    expect(err.problems.map((p) => p.message)).toEqual([
      'chunking.maxTokens: expected a whole number from 16 to 1000000, got no value',
      'chunking.strategy: expected one of semantic, token-window, hierarchical, paginate, got no value',
      'spec.promptThreshold: expected a number from 0 to 1, got no value',
    ]);
    // What was written stays as written: `~`, `null` and `""`.
    expect(errorOf('chunking:\n  maxTokens: ~\n').message).toMatch(/got ~$/);
    expect(errorOf('chunking:\n  maxTokens: null\n').message).toMatch(/got null$/);
    expect(errorOf('chunking:\n  maxTokens: ""\n').message).toMatch(/got ""$/);
  });

  it('a long value is cut in the message, saying how long it was (issue 15 probe: 100 KB were echoed)', () => {
    const long = 'x'.repeat(100_000);
    expect(errorOf(`chunking:\n  minTokens: "${long}"\n`).message).toBe(`${FILE}:2: chunking.minTokens: expected a whole number from 0 to 1000000, got "${'x'.repeat(79)}… (100002 characters)`);
    const list = `[${Array(2000).fill('1').join(', ')}]`;
    expect(errorOf(`chunking:\n  maxTokens: ${list}\n`).message).toMatch(/got \[1,1,1,.{73}… \(4001 characters\)$/);
  });

  it('the brief example: maxTokens: -3 on line 4 names the file, line 4, the key and "whole number"', () => {
    const err = errorOf('chunking:\n  minTokens: 10\n  targetTokens: 100\n  maxTokens: -3\n');
    expect(err.message).toContain('chunkyard.config.yaml:4');
    expect(err.message).toContain('chunking.maxTokens');
    expect(err.message).toContain('a whole number from 16');
    expect(err.message).toContain('got -3');
    expect(err.name).toBe('ConfigError');
    expect(err).toBeInstanceOf(Error);
  });

  it('uses the file name it was given (a topic.yaml path) in the message', () => {
    const err = errorOf('chunking:\n  maxTokens: 2\n', 'docs/guides/topic.yaml', true);
    expect(err.message).toContain('docs/guides/topic.yaml:2');
    expect(err.file).toBe('docs/guides/topic.yaml');
  });

  it('reports the line of a flow-style mapping entry', () => {
    const err = errorOf('\n\nchunking: {targetTokens: 100, maxTokens: 3}\n');
    expect(err.line).toBe(3);
    expect(err.message).toContain('chunking.maxTokens');
  });
});

describe('parseConfig: the strategies and their options', () => {
  it('accepts every strategy with its options', () => {
    const config = parseConfig(
      'chunking:\n  strategy: paginate\n  ctxSize: 8192\n  bufSize: 256\n  pageOverlapTokens: 100\n  leadLines: none\n  windowTokens: 600\n  snippetMaxTokens: 400\n',
      FILE,
    );
    expect(config.chunking).toEqual({ strategy: 'paginate', ctxSize: 8192, bufSize: 256, pageOverlapTokens: 100, leadLines: 'none', windowTokens: 600, snippetMaxTokens: 400 });
    for (const s of ['semantic', 'token-window', 'hierarchical']) expect(parseConfig(`chunking:\n  strategy: ${s}\n`, FILE).chunking.strategy).toBe(s);
  });

  it.each([
    ['windowTokens: 100\n  windowOverlapTokens: 100', 'chunking.windowTokens', 2, 'windowOverlapTokens < windowTokens'],
    ['sectionTargetTokens: 3000\n  sectionMaxTokens: 2048', 'chunking.sectionMaxTokens', 3, 'sectionTargetTokens <= sectionMaxTokens'],
    ['snippetMaxTokens: 600\n  sectionMaxTokens: 512', 'chunking.sectionMaxTokens', 3, 'snippetMaxTokens <= sectionMaxTokens'],
    ['ctxSize: 1024\n  bufSize: 1024', 'chunking.ctxSize', 2, 'ctxSize - bufSize >= 512'],
    ['ctxSize: 1000\n  bufSize: 600', 'chunking.ctxSize', 2, 'ctxSize - bufSize >= 512'],
  ])('rejects %s naming %s on line %i', (settings, key, line, rule) => {
    const err = errorOf(`chunking:\n  ${settings}\n`);
    expect(err.line).toBe(line);
    expect(err.message).toContain(`${FILE}:${line}: ${key}`);
    expect(err.message).toContain(rule);
  });
});

describe('parseConfig: unknown keys and structure', () => {
  it('rejects an unknown top-level key with its line and the known keys', () => {
    const err = errorOf('chunking:\n  maxTokens: 100\noutput: _chunks\n');
    expect(err.line).toBe(3);
    expect(err.message).toContain(`${FILE}:3`);
    expect(err.message).toContain('output');
    expect(err.message).toContain('unknown key');
    expect(err.message).toContain('known: chunking');
  });

  it('rejects an unknown chunking key with its line and lists the known settings', () => {
    const err = errorOf('chunking:\n  minTokens: 10\n\n  maxTokkens: 100\n');
    expect(err.line).toBe(4);
    expect(err.message).toContain(`${FILE}:4`);
    expect(err.message).toContain('chunking.maxTokkens');
    expect(err.message).toContain('unknown setting');
    for (const k of ['strategy', 'minTokens', 'targetTokens', 'maxTokens', 'overlapSentences', 'breadcrumbMode', 'contentType', 'parser']) {
      expect(err.message).toContain(k);
    }
  });

  it('rejects a top level that is not a mapping', () => {
    for (const text of ['- chunking\n- sources\n', 'just a string\n', '42\n']) {
      const err = errorOf(`\n${text}`);
      expect(err.line).toBe(2);
      expect(err.message).toContain(`${FILE}:2`);
      expect(err.message).toContain('mapping');
    }
  });

  it('rejects a chunking value that is not a mapping', () => {
    for (const text of ['chunking: 512\n', 'chunking: [maxTokens]\n', 'chunking: semantic\n']) {
      const err = errorOf(`# c\n${text}`);
      expect(err.line).toBe(2);
      expect(err.message).toContain(`${FILE}:2`);
      expect(err.message).toContain('chunking');
      expect(err.message).toContain('mapping');
    }
  });
});

describe('parseConfig: invalid YAML', () => {
  it.each([
    // [name, text, first line the error may be reported on, last one]; the parser reports an
    // unclosed construct where the input ends.
    ['an unclosed flow sequence', 'chunking:\n  minTokens: 1\n  maxTokens: [1\n', 3, 4],
    ['a duplicate key', 'chunking:\n  maxTokens: 100\n  maxTokens: 200\n', 3, 3],
    ['tab indentation', 'chunking:\n\tmaxTokens: 100\n', 2, 2],
    ['an unterminated quoted string', 'chunking:\n  contentType: "doc\n', 2, 3],
    ['a bad indentation', 'chunking:\n  minTokens: 1\n maxTokens: 100\n', 3, 3],
  ])('reports %s as file:line', (_name, text, first, last) => {
    const err = errorOf(text);
    expect(err.line).toBeGreaterThanOrEqual(first);
    expect(err.line).toBeLessThanOrEqual(last);
    expect(err.message).toContain(`${FILE}:${err.line}: `);
    expect(err.message).toContain('not valid YAML');
    // One line of explanation, not the multi-line pretty error.
    expect(err.message).not.toContain('\n');
  });

  it.each([
    ['a scalar token after a list', '- a\nb: hunter2-secret\n'],
    ['extra characters after a block scalar header', 'a: |x hunter2-secret\n  y\n'],
    ['an unknown tag', 'a: !hunter2-secret x\n'],
  ])('YAML errors never quote the file: %s (issue 15: a topic.yaml linked to a secret printed it)', (_what, text) => {
    // yaml appends the offending token (`Unexpected scalar token in YAML stream: "hunter2…"`),
    // and the config or a topic.yaml may be a link a docs tree planted to a credentials file.
    let err: unknown;
    try {
      parseConfig(text, FILE, { topic: true });
    } catch (e) {
      err = e;
    }
    expect((err as Error | undefined)?.message ?? 'parsed').not.toMatch(/hunter2/);
  });

  it('a second YAML document is named by its line, without the parser\'s advice about its API (issue 15)', () => {
    // It said "Source contains multiple documents; please use YAML.parseAllDocuments()".
    const err = errorOf('chunking:\n  maxTokens: 512\n---\nchunking:\n  maxTokens: 16\n');
    expect(err.message).toBe(`${FILE}:3: not valid YAML: a second document starts here (a --- line); the file must hold one document, so remove it`);
  });
});

describe('parseConfig: sources (topic.yaml only)', () => {
  const TOPIC = 'docs/alpha/topic.yaml';

  it('accepts a list of markdown file names in a topic.yaml', () => {
    const config = parseConfig('sources:\n  - golden-reference.md\n  - extra.markdown\n  - notes.txt\nchunking:\n  maxTokens: 300\n', TOPIC, {
      topic: true,
    });
    expect(config).toEqual({ chunking: { maxTokens: 300 }, sources: ['golden-reference.md', 'extra.markdown', 'notes.txt'] });
  });

  it('rejects sources in the workspace config (an unknown key there)', () => {
    const err = errorOf('chunking:\n  maxTokens: 300\nsources:\n  - a.md\n');
    expect(err.line).toBe(3);
    expect(err.message).toContain(`${FILE}:3`);
    expect(err.message).toContain('sources');
    expect(err.message).toContain('unknown key');
    expect(err.message).not.toContain('known: chunking, spec, sources');
  });

  it('a topic.yaml error lists sources among the known keys', () => {
    const err = errorOf('title: Alpha\n', TOPIC, true);
    expect(err.message).toContain(`${TOPIC}:1`);
    expect(err.message).toContain('known: chunking, spec, sources');
  });

  it.each([
    ['a string instead of a list', 'sources: golden-reference.md\n', 'expected a non-empty list'],
    ['an empty list', 'sources: []\n', 'expected a non-empty list'],
    ['no value', 'sources:\n', 'expected a non-empty list'],
    // The entry and what is wrong with it (helper-33's probe: each said only "expected a
    // non-empty list of .md file names inside the topic folder").
    ['a non-markdown file', 'sources:\n  - diagram.png\n', 'entry 1 ("diagram.png") is not a .md, .markdown or .txt file'],
    ['a path leaving the topic folder', 'sources:\n  - ../other/golden-reference.md\n', 'entry 1 ("../other/golden-reference.md") holds ".."'],
    ['a number in the list', 'sources:\n  - a.md\n  - 7\n', 'entry 2 (7) is not a file name'],
    ['a mapping in the list', 'sources:\n  - {file: a.md}\n', 'entry 1 (a mapping) is not a file name'],
    ['an empty name after good ones', 'sources: [a.md, b.md, ""]\n', 'entry 3 is an empty name'],
    ['a list in the list', 'sources: [a.md, [b.md]]\n', 'entry 2 (a list) is not a file name'],
    ['a null entry', 'sources: [a.md, ~]\n', 'entry 2 (empty) is not a file name'],
    ['a long name', `sources: [${'x'.repeat(300)}.png]\n`, '… (306 characters)) is not a .md'],
    // Issue 15 probe: each was joined to the topic folder and reported as "no such file".
    ['an absolute path', 'sources: [a.md, /home/me/docs/a.md]\n', 'entry 2 ("/home/me/docs/a.md") is an absolute path; give the name inside the topic folder'],
    ['a Windows absolute path', 'sources: ["C:\\\\docs\\\\a.md"]\n', 'entry 1 ("C:\\\\docs\\\\a.md") is an absolute path'],
    ['a NUL in a name', 'sources: ["a\\0.md"]\n', 'entry 1 ("a\\u0000.md") holds a NUL or a line break; rename the file without it'],
    ['a line break in a name', 'sources: ["a\\n.md"]\n', 'entry 1 ("a\\n.md") holds a NUL or a line break'],
  ])('rejects %s', (_name, body, problem) => {
    const err = errorOf(`# topic\n${body}`, TOPIC, true);
    expect(err.line).toBe(2);
    expect(err.message).toContain(`${TOPIC}:2`);
    expect(err.message).toContain('sources');
    expect(err.message).toContain('.md');
    expect(err.message).toContain(problem);
  });

  // s39 probe: a file listed twice was read twice by keyword-extractor (its words counted
  // double), stored once by docs-store, and refused by chunking-tool only ("would both write
  // b-N.md"); "./b.md" is the same file as "b.md".
  it.each([
    ['the same name', 'sources:\n  - b.md\n  - b.md\n', 'b.md'],
    ['./ before one of them', 'sources: [golden-reference.md, b.md, ./b.md]\n', './b.md'],
  ])('rejects a file listed twice: %s', (_name, body, second) => {
    const err = errorOf(`# topic\n${body}`, TOPIC, true);
    expect(err.line).toBe(2);
    expect(err.message).toBe(`${TOPIC}:2: sources: ${JSON.stringify(second)} names a file listed before it; list each file once`);
  });
});

describe('parseConfig: sources inside a generated folder (s40 probe)', () => {
  const TOPIC = 'docs/alpha/topic.yaml';
  // `sources: [_chunks/x.md]` passed here and chunking-tool then said "--out topic/_chunks:
  // holds the source topic/_chunks/x.md; choose a folder of its own": an option never given.
  it.each([
    ['_chunks/x.md', '_chunks', "chunking-tool's output folder"],
    ['./_chunks/deep/x.md', '_chunks', "chunking-tool's output folder"],
    ['_keywords/words.md', '_keywords', "keyword-extractor's output folder"],
  ])('rejects %s, naming the file and the folder it is the output of', (source, folder, what) => {
    const err = errorOf(`# topic\nsources: [golden-reference.md, ${source}]\n`, TOPIC, true);
    expect(err.message).toBe(`${TOPIC}:2: sources: ${JSON.stringify(source)} is inside ${folder}/, ${what}, which every build rewrites; a source cannot be an output: keep it outside ${folder}/`);
  });

  it('a folder that only starts like one, or one deeper down, is a source folder like any other', () => {
    const config = parseConfig('sources: [_chunks-notes/a.md, guide/_chunks/b.md, _drafts/c.md]\n', TOPIC, { topic: true });
    expect(config.sources).toEqual(['_chunks-notes/a.md', 'guide/_chunks/b.md', '_drafts/c.md']);
  });
});

describe('parseConfig: minTokens <= targetTokens <= maxTokens', () => {
  it('rejects minTokens > targetTokens', () => {
    const err = errorOf('chunking:\n  minTokens: 500\n  targetTokens: 400\n');
    expect(err.message).toContain(FILE);
    expect(err.message).toContain('minTokens <= targetTokens <= maxTokens');
    expect(err.message).toContain('500/400/undefined');
    expect(err.line).toBe(3);
    expect(err.message).toContain(`${FILE}:3`);
  });

  it('rejects targetTokens > maxTokens, pointing at the targetTokens line', () => {
    const err = errorOf('chunking:\n  maxTokens: 300\n  minTokens: 10\n  targetTokens: 400\n');
    expect(err.message).toContain('minTokens <= targetTokens <= maxTokens');
    expect(err.message).toContain('10/400/300');
    expect(err.line).toBe(4);
    expect(err.message).toContain(`${FILE}:4`);
  });

  it('rejects minTokens > maxTokens even without targetTokens', () => {
    const err = errorOf('chunking:\n  minTokens: 600\n  maxTokens: 100\n');
    expect(err.message).toContain('minTokens <= targetTokens <= maxTokens');
    expect(err.message).toContain(`${FILE}:2`);
  });

  it('accepts partial settings that are consistent so far', () => {
    expect(parseConfig('chunking:\n  minTokens: 10\n  maxTokens: 20\n', FILE).chunking).toEqual({ minTokens: 10, maxTokens: 20 });
    expect(parseConfig('chunking:\n  targetTokens: 900\n', FILE).chunking).toEqual({ targetTokens: 900 });
  });
});

describe('mergeTopic', () => {
  const base: ChunkyardConfig = {
    chunking: { strategy: 'semantic', minTokens: 64, targetTokens: 400, maxTokens: 512, contentType: 'doc' },
  };

  it('returns the workspace config when there is no topic.yaml', () => {
    expect(mergeTopic(base, null)).toBe(base);
  });

  it('topic settings win over workspace settings, unset ones are inherited', () => {
    const topic = parseConfig('chunking:\n  maxTokens: 256\n  targetTokens: 200\n  breadcrumbMode: always\n', 'topic.yaml', { topic: true });
    const merged = mergeTopic(base, topic);
    expect(merged.chunking).toEqual({
      strategy: 'semantic',
      minTokens: 64,
      targetTokens: 200,
      maxTokens: 256,
      contentType: 'doc',
      breadcrumbMode: 'always',
    });
    expect(merged.sources).toBeUndefined();
  });

  it('carries the topic sources and does not mutate its inputs', () => {
    const baseCopy = structuredClone(base);
    const topic = parseConfig('sources: [a.md, b.md]\nchunking: {contentType: post}\n', 'topic.yaml', { topic: true });
    const topicCopy = structuredClone(topic);
    const merged = mergeTopic(base, topic);
    expect(merged).toEqual({ chunking: { ...base.chunking, contentType: 'post' }, sources: ['a.md', 'b.md'] });
    expect(base).toEqual(baseCopy);
    expect(topic).toEqual(topicCopy);
    expect(merged.chunking).not.toBe(base.chunking);
  });

  it('an empty topic.yaml changes nothing', () => {
    const merged = mergeTopic(base, parseConfig('', 'topic.yaml', { topic: true }));
    expect(merged).toEqual({ chunking: base.chunking });
  });

  it('works from an empty workspace config', () => {
    const merged = mergeTopic({ chunking: {} }, { chunking: { maxTokens: 100 } });
    expect(merged).toEqual({ chunking: { maxTokens: 100 } });
  });
});

describe('ConfigError', () => {
  it('formats file:line: message and keeps the parts', () => {
    const err = new ConfigError('a.yaml', 7, 'chunking.maxTokens: expected an integer >= 16, got 3');
    expect(err.message).toBe('a.yaml:7: chunking.maxTokens: expected an integer >= 16, got 3');
    expect(err.file).toBe('a.yaml');
    expect(err.line).toBe(7);
    expect(err.name).toBe('ConfigError');
    expect(err).toBeInstanceOf(Error);
  });

  it('omits the line when there is none', () => {
    expect(new ConfigError('a.yaml', null, 'oops').message).toBe('a.yaml: oops');
  });
});

describe('parseConfig: embeddings section', () => {
  it('parses every embeddings setting, and leaves embeddings absent when not configured', () => {
    const text = [
      'chunking:',
      '  maxTokens: 512',
      'embeddings:',
      '  provider: ollama',
      '  model: nomic-embed-text',
      '  dimensions: 768',
      '  host: http://gpu-box:11434',
      '  baseURL: https://llm.internal/v1',
      '  batchSize: 32',
      '  concurrency: 4',
      '  timeoutMs: 120000',
      '  maxRetries: 6',
      '',
    ].join('\n');
    expect(parseConfig(text, FILE)).toEqual({
      chunking: { maxTokens: 512 },
      embeddings: {
        provider: 'ollama',
        model: 'nomic-embed-text',
        dimensions: 768,
        host: 'http://gpu-box:11434',
        baseURL: 'https://llm.internal/v1',
        batchSize: 32,
        concurrency: 4,
        timeoutMs: 120000,
        maxRetries: 6,
      },
    });
    expect(parseConfig('chunking:\n  maxTokens: 512\n', FILE)).not.toHaveProperty('embeddings');
  });

  it('keeps only the keys that were set, and accepts the boundary values', () => {
    expect(parseConfig('embeddings:\n  provider: openai\n', FILE)).toEqual({ chunking: {}, embeddings: { provider: 'openai' } });
    expect(parseConfig('embeddings: {}\n', FILE).embeddings).toEqual({});
    expect(
      parseConfig('embeddings: {provider: local, dimensions: 8, batchSize: 1, concurrency: 1, timeoutMs: 100, maxRetries: 0}\n', FILE).embeddings,
    ).toEqual({ provider: 'local', dimensions: 8, batchSize: 1, concurrency: 1, timeoutMs: 100, maxRetries: 0 });
    expect(parseConfig('embeddings: {batchSize: 2048, concurrency: 16, maxRetries: 10}\n', FILE).embeddings).toEqual({
      batchSize: 2048,
      concurrency: 16,
      maxRetries: 10,
    });
  });

  // Each case puts the bad value on line 4, between a comment and a valid setting.
  const cases: [key: string, bad: string, expected: string][] = [
    ['provider', 'huggingface', 'one of local, ollama, openai'],
    ['provider', 'Local', 'one of local, ollama, openai'],
    ['provider', '', 'one of local, ollama, openai'],
    ['model', '""', 'a non-empty string'],
    ['model', '42', 'a non-empty string'],
    ['model', '[a, b]', 'a non-empty string'],
    ['dimensions', '7', 'a whole number from 8 to 65536'],
    ['dimensions', '512.5', 'a whole number from 8 to 65536'],
    ['dimensions', '"512"', 'a whole number from 8 to 65536'],
    ['host', 'localhost:11434', 'an http(s) URL such as http://127.0.0.1:11434'],
    ['host', 'ftp://files.example.com', 'an http(s) URL such as http://127.0.0.1:11434'],
    ['host', 'http://[::1', 'an http(s) URL such as http://127.0.0.1:11434'],
    ['host', '11434', 'an http(s) URL such as http://127.0.0.1:11434'],
    ['baseURL', 'api.openai.com/v1', 'an http(s) URL such as https://api.openai.com/v1'],
    ['baseURL', 'true', 'an http(s) URL such as https://api.openai.com/v1'],
    ['batchSize', '0', 'a whole number from 1 to 2048'],
    ['batchSize', '2049', 'a whole number from 1 to 2048'],
    ['batchSize', '64.5', 'a whole number from 1 to 2048'],
    ['concurrency', '0', 'a whole number from 1 to 16'],
    ['concurrency', '17', 'a whole number from 1 to 16'],
    ['timeoutMs', '99', 'a whole number from 100 to 3600000'],
    ['timeoutMs', '1e400', 'a whole number from 100 to 3600000'],
    ['timeoutMs', 'soon', 'a whole number from 100 to 3600000'],
    ['maxRetries', '-1', 'a whole number from 0 to 10'],
    ['maxRetries', '11', 'a whole number from 0 to 10'],
    ['maxRetries', '', 'a whole number from 0 to 10'],
  ];

  it.each(cases)('embeddings.%s: %s is rejected with file:line, key and what was expected', (key, bad, expected) => {
    const good = key === 'provider' ? 'model: m' : 'provider: local';
    const text = `chunking:\n  maxTokens: 512\nembeddings:\n  ${key}: ${bad}\n  ${good}\n`;
    const err = errorOf(text);
    expect(err.file).toBe(FILE);
    expect(err.line).toBe(4);
    expect(err.message.startsWith(`${FILE}:4: embeddings.${key}: expected ${expected}, got `)).toBe(true);
  });

  it('rejects an unknown embeddings setting, listing the known ones', () => {
    const err = errorOf('embeddings:\n  provider: openai\n  apiKey: sk-123\n');
    expect(err.line).toBe(3);
    expect(err.message).toContain(`${FILE}:3: embeddings.apiKey: unknown setting`);
    for (const k of ['provider', 'model', 'dimensions', 'host', 'baseURL', 'batchSize', 'concurrency', 'timeoutMs', 'maxRetries']) {
      expect(err.message).toContain(k);
    }
  });

  it('rejects an embeddings value that is not a mapping', () => {
    for (const text of ['embeddings: openai\n', 'embeddings: [local]\n', 'embeddings:\n']) {
      const err = errorOf(`# e\n${text}`);
      expect(err.line).toBe(2);
      expect(err.message).toContain(`${FILE}:2: embeddings: expected a mapping of embeddings settings`);
    }
  });

  it('lists embeddings among the known top-level keys of the workspace config', () => {
    expect(errorOf('embedings:\n  provider: local\n').message).toContain('known: chunking, embeddings');
  });

  it('refuses embeddings in a topic.yaml: one model for every topic', () => {
    const err = errorOf('chunking:\n  maxTokens: 300\nembeddings:\n  provider: openai\n', 'docs/a/topic.yaml', true);
    expect(err.line).toBe(3);
    expect(err.message).toContain('docs/a/topic.yaml:3: embeddings');
    expect(err.message).toContain('chunkyard.config.yaml only');
  });

  it('mergeTopic keeps the workspace embeddings settings', () => {
    const base = parseConfig('chunking:\n  maxTokens: 512\nembeddings:\n  provider: ollama\n  batchSize: 16\n', FILE);
    const merged = mergeTopic(base, parseConfig('chunking:\n  maxTokens: 256\n', 'topic.yaml', { topic: true }));
    expect(merged).toEqual({ chunking: { maxTokens: 256 }, embeddings: { provider: 'ollama', batchSize: 16 } });
  });
});

describe('parseConfig: the spec section', () => {
  it('reads promptThreshold in the workspace config and in topic.yaml, the topic winning', () => {
    const base = parseConfig('spec:\n  promptThreshold: 0.4\n', FILE);
    expect(base.spec).toEqual({ promptThreshold: 0.4 });
    const topic = parseConfig('spec:\n  promptThreshold: 0.25\n', 'docs/x/topic.yaml', { topic: true });
    expect(mergeTopic(base, topic).spec).toEqual({ promptThreshold: 0.25 });
    expect(mergeTopic(base, parseConfig('chunking:\n  maxTokens: 300\n', 't.yaml', { topic: true })).spec).toEqual({ promptThreshold: 0.4 });
    expect(parseConfig('chunking: {}\n', FILE).spec).toBeUndefined();
  });

  it.each([['1.5'], ['-0.1'], ['"high"'], ['.nan']])('rejects promptThreshold %s with file, line and the expected range', (value) => {
    const err = errorOf(`chunking:\n  maxTokens: 100\nspec:\n  promptThreshold: ${value}\n`);
    expect(err.line).toBe(4);
    expect(err.message).toContain(`${FILE}:4: spec.promptThreshold: expected a number from 0 to 1`);
  });

  it('rejects unknown spec settings', () => {
    const err = errorOf('spec:\n  threshold: 0.3\n');
    expect(err.message).toContain('spec.threshold: unknown setting (known: promptThreshold)');
  });
});

describe('every problem at once, with "did you mean"', () => {
  it('reports each mistake of a file on its own file:line, the first as line/message', () => {
    const text = ['chunking:', '  maxToken: 300', '  strategy: semantc', '  overlapSentences: -1', 'embedings:', '  provider: local', ''].join('\n');
    let caught: unknown;
    try {
      parseConfig(text, 'chunkyard.config.yaml');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const err = caught as ConfigError;
    expect(err.line).toBe(2);
    expect(err.problems.map((p) => p.line)).toEqual([2, 3, 4, 5]);
    expect(err.message.split('\n')).toEqual([
      expect.stringMatching(/^chunkyard\.config\.yaml:2: chunking\.maxToken: unknown setting; did you mean maxTokens\? \(known: /),
      expect.stringMatching(/^chunkyard\.config\.yaml:3: chunking\.strategy: expected one of semantic, .*, got "semantc"; did you mean semantic\?$/),
      expect.stringMatching(/^chunkyard\.config\.yaml:4: chunking\.overlapSentences: expected /),
      'chunkyard.config.yaml:5: embedings: unknown key; did you mean embeddings? (known: chunking, embeddings, llm, spec)',
    ]);
  });

  it('suggests only names close enough to be a typo', () => {
    expect(didYouMean('targetToken', ['minTokens', 'targetTokens', 'maxTokens'])).toBe('targetTokens');
    expect(didYouMean('STRATEGY', ['strategy'])).toBe('strategy');
    expect(didYouMean('colour', ['chunking', 'spec', 'embeddings'])).toBeNull();
    expect(didYouMean('x', ['spec'])).toBeNull();
  });

  it('lists every YAML syntax error, not just the first', () => {
    expect(() => parseConfig('chunking:\n  a: [1\nb: {\n', 'c.yaml')).toThrow(/c\.yaml:\d+: not valid YAML[\s\S]*\nc\.yaml:\d+: not valid YAML/);
  });

  // yaml reports one mistake at each of its places; without the column they read the same.
  it('says a line\'s same YAML error once (two places of one mistake), and the same error on two lines twice', () => {
    const lines = (text: string): string[] => {
      try {
        parseConfig(text, 'c.yaml');
      } catch (err) {
        return (err as Error).message.split('\n');
      }
      throw new Error('expected a ConfigError');
    };
    expect(lines('a: b: c d: e\n')).toEqual(['c.yaml:1: not valid YAML: Nested mappings are not allowed in compact mappings']);
    expect(lines('a: b: c\nx: y: z\n')).toEqual([
      'c.yaml:1: not valid YAML: Nested mappings are not allowed in compact mappings',
      'c.yaml:2: not valid YAML: Nested mappings are not allowed in compact mappings',
    ]);
  });
});

describe('parseConfig: the llm section', () => {
  const errorOf = (text: string, opts = {}): ConfigError => {
    try {
      parseConfig(text, 'chunkyard.config.yaml', opts);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return err as ConfigError;
    }
    throw new Error('expected a ConfigError');
  };

  it('reads every key, and a topic inherits the section', () => {
    const text = [
      'llm:',
      '  provider: ollama',
      '  model: llama3.2',
      '  host: http://127.0.0.1:11434',
      '  temperature: 0.2',
      '  timeoutMs: 30000',
      '  maxRetries: 2',
      '  leadLines: true',
      '  cacheDir: .llm-cache',
      '',
    ].join('\n');
    const config = parseConfig(text, 'chunkyard.config.yaml');
    expect(config.llm).toEqual({ provider: 'ollama', model: 'llama3.2', host: 'http://127.0.0.1:11434', temperature: 0.2, timeoutMs: 30000, maxRetries: 2, leadLines: true, cacheDir: '.llm-cache' });
    expect(mergeTopic(config, { chunking: { maxTokens: 300 } }).llm).toEqual(config.llm);
  });

  it('names the line, the key and the nearest known name for every mistake', () => {
    const err = errorOf(['llm:', '  provider: olama', '  temprature: 0.2', '  temperature: 3', '  leadLines: yes please', ''].join('\n'));
    expect(err.message.split('\n')).toEqual([
      'chunkyard.config.yaml:2: llm.provider: expected one of ollama, openai, got "olama"; did you mean ollama?',
      expect.stringMatching(/^chunkyard\.config\.yaml:3: llm\.temprature: unknown setting; did you mean temperature\? \(known: provider, model, /),
      'chunkyard.config.yaml:4: llm.temperature: expected a number from 0 to 2, got 3',
      'chunkyard.config.yaml:5: llm.leadLines: expected true or false, got "yes please"',
    ]);
  });

  it('needs a provider, is workspace-only, and is suggested for a typo', () => {
    expect(errorOf('llm:\n  model: llama3.2\n').message).toBe(
      'chunkyard.config.yaml:1: llm.provider: missing; expected one of ollama, openai (remove the llm: section to run without an LLM)',
    );
    expect(errorOf('llm:\n  provider: openai\n', { topic: true }).message).toMatch(/^chunkyard\.config\.yaml:1: llm: set in chunkyard\.config\.yaml only/);
    expect(errorOf('lm:\n  provider: openai\n').message).toMatch(/lm: unknown key; did you mean llm\?/);
  });
});

describe('hostile config files (issue 15 probe)', () => {
  it('reads 140,000 keys in linear time: the parser’s own duplicate-key check was quadratic', () => {
    // yaml's uniqueKeys check compares each key with every earlier one: 40,000 unknown keys took
    // 16–22 s, 80,000 72 s, and this flow mapping of 140,000 (just under the 1 MiB cap) would take
    // minutes, past vitest's 60 s limit, which is the failure that counts; linear it is a few seconds.
    const text = `chunking: {${Array.from({ length: 140_000 }, (_, i) => `k${i.toString(36)}`).join(', ')}}\n`;
    expect(text.length).toBeLessThan(1024 * 1024);
    const err = errorOf(text);
    expect(err.problems.at(-1)).toEqual({ line: null, message: '… and 139980 more problems' });
  });

  it('still refuses a key given twice, naming both lines, in a section and at the top', () => {
    const err = errorOf('chunking:\n  maxTokens: 512\n  minTokens: 8\n  maxTokens: 1024\nspec: {}\nchunking:\n  minTokens: 1\n');
    expect(err.message.split('\n')).toEqual([
      `${FILE}:4: not valid YAML: chunking.maxTokens is set twice (first on line 2); keep one`,
      `${FILE}:6: not valid YAML: chunking is set twice (first on line 1); keep one`,
    ]);
  });

  it('refuses a file over 1 MiB before parsing it (7 MB of keys took 37 s and 900 MB)', () => {
    expect(errorOf(`chunking:\n${'  # padding\n'.repeat(100_000)}`).message).toBe(
      `${FILE}: 1.1 MiB is larger than a config file can be (1 MiB); a config holds a few settings, so check that this is the right file`,
    );
    // Before parsing, not after: 33 MiB of keys would take yaml minutes (1 MiB of them took 8 s
    // under load) and more heap than node has, past vitest's 60 s limit; refused, it is instant.
    const err = errorOf(`chunking:\n${'  k: 0\n'.repeat(5_000_000)}`);
    expect(err.line).toBeNull();
    expect(err.message).toMatch(/^chunkyard\.config\.yaml: 33\.4 MiB is larger than a config file can be \(1 MiB\)/);
    // Just under the limit still parses.
    expect(parseConfig(`chunking: {}\n#${' '.repeat(1024 * 1024 - 20)}\n`, FILE)).toEqual({ chunking: {} });
  });

  it('lists at most 20 problems, then how many more there are (what every CLI prints)', () => {
    const err = errorOf(`chunking:\n${Array.from({ length: 1000 }, (_, i) => `  k${i}: ${i}\n`).join('')}`);
    const lines = err.message.split('\n');
    expect(lines).toHaveLength(21);
    expect(lines[20]).toBe(`${FILE}: … and 980 more problems`);
    expect(err.problems).toHaveLength(21);
    expect(err.problems[20]).toEqual({ line: null, message: '… and 980 more problems' });
  });

  it('reads an alias to a scalar as its value, and names an alias to anything else', () => {
    expect(parseConfig('chunking:\n  minTokens: &m 512\n  maxTokens: *m\n', FILE).chunking).toEqual({ minTokens: 512, maxTokens: 512 });
    const err = errorOf('x: &m [1, 2]\nchunking:\n  breadcrumbMode: *m\n');
    expect(err.message).toContain(`${FILE}:3: chunking.breadcrumbMode: expected one of conditional, always, none, got *m, an alias of a list or mapping`);
  });

  it('says a section or sources given as an alias is an alias not expanded, not that a mapping or list is missing (s58 probe)', () => {
    // Was "spec: expected a mapping of spec settings", with the mapping right there behind *s.
    expect(errorOf('chunking: &c\n  maxTokens: 500\nspec: *c\n').message).toBe(
      `${FILE}:3: spec: *c is an alias of a list or mapping, which a config does not expand (so that an anchor "bomb" costs nothing); write the settings out here`,
    );
    expect(errorOf('chunking: &c {}\nsources: *c\n', 'docs/t/topic.yaml', true).message).toBe(
      'docs/t/topic.yaml:2: sources: *c is an alias of a list or mapping, which a config does not expand (so that an anchor "bomb" costs nothing); write the settings out here',
    );
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefgh'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`), 'sources: *h'].join('\n');
    const started = Date.now();
    expect(errorOf(bomb, 'docs/t/topic.yaml', true).message).toContain('docs/t/topic.yaml:9: sources: *h is an alias of a list or mapping, which a config does not expand');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('says a document nested too deeply is too deep, not that the stack overflowed', () => {
    const err = errorOf(`chunking: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`);
    expect(err.message).toMatch(/^chunkyard\.config\.yaml:1: not valid YAML: nested too deeply/);
    expect(err.message).not.toMatch(/call stack/);
  });
});

describe("a setting named after a member of Object.prototype (helper's probe, issue 15)", () => {
  // `checks[setting]` found Object.prototype's members: `chunking: {constructor: 5}` threw
  // "TypeError: expected.startsWith is not a function" and `__proto__: 5` "check is not a
  // function", a stack trace where an unknown-setting line belongs.
  const names = Object.getOwnPropertyNames(Object.prototype);
  const sections: [string, string][] = [
    ['chunking', ''],
    ['spec', ''],
    ['embeddings', ''],
    ['llm', '  provider: ollama\n'],
  ];
  it.each(sections)('%s: each one is an unknown setting, named with its line', (section, before) => {
    expect(names).toContain('__proto__');
    for (const name of names) {
      const err = errorOf(`${section}:\n${before}  ${name}: 5\n`);
      expect(err.message).toMatch(new RegExp(`^${FILE.replace(/\./g, '\\.')}:${before ? 3 : 2}: ${section}\\.${name}: unknown setting`));
      expect(err.problems).toHaveLength(1);
    }
  });

  it('and nothing is set on Object.prototype by one', () => {
    errorOf('chunking:\n  __proto__: {maxTokens: 5}\n');
    expect(({} as Record<string, unknown>).maxTokens).toBeUndefined();
  });
});

describe('a merge key (issue 15 probe)', () => {
  // `<<: *defaults` merges under YAML 1.1 only: it was "chunking.<<: unknown setting", and under
  // %YAML 1.1 "chunking.Symbol(<<): unknown setting".
  it.each([
    ['YAML 1.2', ''],
    ['%YAML 1.1', '%YAML 1.1\n---\n'],
  ])('is named as one, in a section and at the top: %s', (_name, head) => {
    const lines = head.split('\n').length - 1;
    const err = errorOf(`${head}chunking:\n  <<: {maxTokens: 100}\n  minTokens: 8\n<<: {spec: {}}\n`);
    expect(err.message).toBe(
      [
        `${FILE}:${lines + 2}: chunking.<<: merge keys (<<: *name) are not read in a config; write the settings out`,
        `${FILE}:${lines + 4}: <<: merge keys (<<: *name) are not read in a config; write the settings out`,
      ].join('\n'),
    );
  });
});

describe('a tag the parser does not know (issue 15 probe)', () => {
  // Only a warning to the parser, which read the value as the string it tags: `!foo docs` was
  // taken as "docs" without a word, `!foo 100` was "expected a whole number, got "100"".
  const UNKNOWN = 'not valid YAML: a tag (!name) that a config does not read; remove it (a setting is a plain number, string, or true or false)';
  it.each([
    ['an unknown local tag', 'chunking:\n  contentType: !foo docs\n', 2],
    ['one on a number', 'chunking:\n  minTokens: 8\n  maxTokens: !foo 100\n', 3],
    ['js-yaml\'s !!js/function', 'llm:\n  provider: ollama\n  model: !!js/function "function () { return 1 }"\n', 3],
    ['one on a section', 'spec: !settings\n  promptThreshold: 0.5\n', 1],
  ])('is refused, with its line: %s', (_name, text, line) => {
    const err = errorOf(text);
    expect(err.message).toBe(`${FILE}:${line}: ${UNKNOWN}`);
  });

  it('is listed in order with the other YAML errors', () => {
    const err = errorOf('chunking:\n  contentType: !foo docs\n  maxTokens: [1\n');
    expect(err.problems[0]).toEqual({ line: 2, message: UNKNOWN });
    expect(err.problems.length).toBeGreaterThan(1);
  });

  it('the tags YAML defines still read as before', () => {
    expect(parseConfig('chunking:\n  maxTokens: !!int 100\n  contentType: !!str docs\n', FILE).chunking).toEqual({ maxTokens: 100, contentType: 'docs' });
    expect(errorOf('chunking:\n  maxTokens: !!str 100\n').message).toBe(`${FILE}:2: chunking.maxTokens: expected a whole number from 16 to 1000000, got "100"`);
  });
});

describe('a key too long to repeat (issue 15 probe)', () => {
  it('is clipped in its message, in a section and at the top, as a value is', () => {
    // An explicit key (`? "…"`) has no 1,024-character limit, and a list can be a key: the
    // message repeated either whole, a 900,000-character line.
    const long = 'maxTokens'.repeat(100_000);
    const list = `[${Array.from({ length: 20_000 }, () => 'x').join(', ')}]`;
    for (const [text, line, start] of [
      [`chunking:\n  ? "${long}"\n  : 1\n`, 2, `chunking.${long.slice(0, 80)}… (900000 characters): unknown setting (known: `],
      [`? "${long}"\n: 1\n`, 1, `${long.slice(0, 80)}… (900000 characters): unknown key (known: `],
      [`chunking:\n  ? ${list}\n  : 1\n  ? ${list}\n  : 2\n`, 2, 'not valid YAML: chunking.["x","x",'],
      [`? ${list}\n: 1\n`, 1, '["x","x","x",'],
    ] as const) {
      const err = errorOf(text);
      expect(err.line).toBe(line);
      expect(err.problems.at(-1)!.message.startsWith(start)).toBe(true);
      for (const p of err.problems) expect(p.message.length).toBeLessThan(600);
    }
  });

  it('didYouMean skips names too far apart in length, with the answer it gave comparing every one', () => {
    const distance = (a: string, b: string): number => {
      let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
      for (let i = 1; i <= a.length; i++) {
        const row = [i];
        for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = row;
      }
      return prev[b.length]!;
    };
    const before = (given: string, known: readonly string[]): string | null => {
      let best: string | null = null;
      let bestDistance = Infinity;
      for (const k of known) {
        const d = distance(given.toLowerCase(), k.toLowerCase());
        if (d < bestDistance) [best, bestDistance] = [k, d];
      }
      return best !== null && bestDistance <= Math.max(1, Math.floor(given.length / 3)) ? best : null;
    };
    // Few letters, so that near misses of every length are common.
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'c'), maxLength: 14 });
    fc.assert(
      fc.property(word, fc.array(word, { maxLength: 6 }), (given, known) => {
        expect(didYouMean(given, known)).toBe(before(given, known));
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('firstDuplicateKey: the linear check other YAML files (docs-score queries.yaml) share', () => {
  const dup = (text: string) => {
    const found = firstDuplicateKey(parseDocument(text, { uniqueKeys: false }));
    return found && { path: found.path, at: text.slice(found.offset, found.offset + 3), first: found.firstOffset };
  };

  it('names the key by its path, list items by index, with both offsets', () => {
    expect(dup('a: 1\nb: 2\n')).toBeNull();
    expect(dup('a: 1\nb: 2\na: 3\n')).toEqual({ path: 'a', at: 'a: ', first: 0 });
    expect(dup('q:\n  - {x: 1}\n  - {x: 1, y: 2, x: 3}\n')?.path).toBe('q[1].x');
    expect(dup('s:\n  t:\n    u: 1\n    u: 2\n')?.path).toBe('s.t.u');
    // The same key in two mappings is no duplicate.
    expect(dup('q:\n  - {x: 1}\n  - {x: 1}\n')).toBeNull();
  });

  it('never follows an alias, so a mapping reached twice is not a duplicate of itself', () => {
    expect(dup('a: &m {x: 1}\nb: *m\nc: *m\n')).toBeNull();
  });

  it('walks a document as deep as the parser accepts without overflowing the stack', () => {
    // yaml itself gives up (its own stack) past about 800 levels of flow sequences.
    const depth = 500;
    const doc = parseDocument(`${'['.repeat(depth)}{k: 1, k: 2}${']'.repeat(depth)}\n`, { uniqueKeys: false });
    expect(doc.errors).toEqual([]);
    expect(firstDuplicateKey(doc)?.path).toBe(`${'[0]'.repeat(depth)}.k`);
  });

  it('words the problem as parseConfig does', () => {
    expect(duplicateKeyText('queries[0].topic', 2)).toBe('not valid YAML: queries[0].topic is set twice (first on line 2); keep one');
  });
});

describe('what a message quotes is shown as written', () => {
  it('shows a zero-width, bidi or control character in a key or value as an escape, not raw', () => {
    // `maxTokens\u200b:` was "chunking.maxTokens: unknown setting; did you mean maxTokens?",
    // naming a key that looked right; a U+202E in a value turned the rest of the line around.
    expect(errorOf('chunking:\n  maxTokens\u200b: 500\n').message).toMatch(/^chunkyard\.config\.yaml:2: chunking\.maxTokens\\u200b: unknown setting; did you mean maxTokens\?/);
    expect(errorOf('chunking:\n  strategy: "sem\u202eantic\u200f"\n').message).toBe(
      'chunkyard.config.yaml:2: chunking.strategy: expected one of semantic, token-window, hierarchical, paginate, got "sem\\u202eantic\\u200f"; did you mean semantic?',
    );
    expect(errorOf('\ufeffx\u2060: 1\n').message).toMatch(/^chunkyard\.config\.yaml:1: x\\u2060: unknown key/);
    expect(errorOf('sources: [a.md, "_chunks/b\u200b.md"]\n', FILE, true).message).toContain('sources: "_chunks/b\\u200b.md" is inside _chunks/');
    expect(errorOf('chunking:\n  strategy: "\\ud800x"\n').message).toContain('got "\\ud800x"');
  });

  it('never puts an invisible, bidirectional or control character or a lone surrogate into a message (property)', () => {
    const hostile = fc.constantFrom(...'\u0007\u001b\u007f\u0085\u009b\u00ad\u200b\u200c\u200d\u200e\u200f\u2028\u2029\u202a\u202e\u2060\u2064\u2066\u2069\ufeff'.split(''));
    const text = fc.array(fc.oneof(hostile, fc.constantFrom('a', 'x', '\u00e9', '\ud83d\ude00')), { minLength: 1, maxLength: 90 }).map((cs) => cs.join(''));
    const bad = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    fc.assert(
      fc.property(text, (t) => {
        const q = JSON.stringify(t);
        for (const yaml of [`chunking:\n  ${q}: 1\n`, `${q}: 1\n`, `chunking:\n  strategy: ${q}\n  maxTokens: ${q}\n`, `sources: [a.md, a.md, ${q}]\n`, `sources: ["_keywords/${t.replace(/[\\"]/g, '')}.md"]\n`]) {
          let message = '';
          try {
            parseConfig(yaml, 'c.yaml', { topic: true });
          } catch (e) {
            expect(e).toBeInstanceOf(ConfigError);
            message = (e as Error).message;
          }
          expect(message, JSON.stringify(message)).not.toMatch(bad);
        }
      }),
      { numRuns: 500 },
    );
  });
});
