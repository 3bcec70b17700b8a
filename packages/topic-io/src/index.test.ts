// Real files in a temp folder: what every tool sees when it reads documents and settings.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@chunkyard/config';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DocumentReadError, docNameOf, entryExists, errorLines, loadConfigFile, loadWorkspace, readDocument, readTopicSource, topicMarkerFrom, topicSettings, UsageError } from './index.js';
import { thrown } from './test-helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkyard-topic-io-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, data: string | Buffer) => {
  const p = join(dir, name);
  writeFileSync(p, data);
  return p;
};

describe('topicMarkerFrom (CHUNKYARD_TOPIC_MARKER)', () => {
  it('a plain file name is the marker; unset or empty is golden-reference.md', () => {
    expect(topicMarkerFrom({ CHUNKYARD_TOPIC_MARKER: 'faq.md' })).toBe('faq.md');
    expect(topicMarkerFrom({})).toBe('golden-reference.md');
    expect(topicMarkerFrom({ CHUNKYARD_TOPIC_MARKER: '' })).toBe('golden-reference.md');
  });

  it('"." and "..", a path and control characters make no folder a topic, and the name says why (s34 probe)', () => {
    // ".." made every folder a topic whose document was its parent folder: "docs/lib: is a
    // directory, not a markdown file", which named neither the variable nor the mistake.
    for (const bad of ['.', '..', 'a/b.md', '../qa-pairs.md', '/etc/passwd', 'a\\b.md', 'x\n.md', 'x\u001b[31m.md']) {
      const marker = topicMarkerFrom({ CHUNKYARD_TOPIC_MARKER: bad });
      expect(marker, bad).toBe(`CHUNKYARD_TOPIC_MARKER=${JSON.stringify(bad).replace(/[/\\]/g, '∕')} (not a plain file name)`);
      expect(marker, bad).not.toMatch(/[/\\\u0000-\u001f]/);
      mkdirSync(join(dir, 't'), { recursive: true });
      expect(() => topicSettings(join(dir, 't'), {} as never, marker), bad).toThrow(/CHUNKYARD_TOPIC_MARKER=.*not a plain file name/);
    }
  });
});

describe('files larger than can be read (s58 probe)', () => {
  it('a document over 2 GiB is too large to read, in words that say what to do', () => {
    // Was "File size (3221225472) is greater than 2 GiB", Node's words.
    const big = join(dir, 'big.md');
    writeFileSync(big, '# x\n');
    truncateSync(big, 3 * 2 ** 30); // sparse: no disk used
    expect(() => readDocument(big)).toThrow(new DocumentReadError('unreadable', 'too large to read (3072.0 MiB; a document is read whole, and at most 2 GiB)', 'split it into smaller documents'));
  });

  it('valid UTF-8 of more characters than a string holds is too large, not "not valid UTF-8" at a byte past its end', () => {
    const big = join(dir, 'long.md');
    const fd = openSync(big, 'w');
    const block = Buffer.alloc(2 ** 24, 0x61);
    for (let i = 0; i < 33; i++) writeSync(fd, block); // 528 MiB of "a": 2^29 + 2^24 characters
    closeSync(fd);
    let err: unknown;
    try {
      readDocument(big);
    } catch (e) {
      err = e;
    }
    rmSync(big);
    expect(err).toEqual(new DocumentReadError('unreadable', 'too large to read as text (528.0 MiB; a document is read whole, into at most 512 Mi characters)', 'split it into smaller documents'));
  }, 60_000);

  it('a config file larger than any config can be is refused unread, naming its size', () => {
    // A 1.5 GB topic.yaml was read whole (9 s) and then "not valid UTF-8 (first bad byte at offset 1572864000)".
    const yaml = join(dir, 'topic.yaml');
    writeFileSync(yaml, 'chunking: {}\n');
    for (const [size, shown] of [[1536 * 2 ** 20, '1536.0 MiB'], [3 * 2 ** 30, '3072.0 MiB'], [3 * 2 ** 20 + 1, '3.0 MiB']] as const) {
      truncateSync(yaml, size);
      const started = Date.now();
      expect(() => loadConfigFile(yaml, true)).toThrow(new ConfigError(yaml, null, `${shown} is larger than a config file can be (1 MiB); a config holds a few settings, so check that this is the right file`));
      expect(Date.now() - started).toBeLessThan(1_000);
    }
    // 3 MiB of bytes may still be 1 MiB of text or less: read, and judged by parseConfig.
    writeFileSync(yaml, `# ${'\u20ac'.repeat(2 ** 20 - 100)}\nchunking: {}\n`);
    expect(loadConfigFile(yaml, true)).toEqual({ chunking: {} });
  });
});

describe('topicMarkerFrom agrees with the Nx plugin', () => {
  // The plugin's own check of its topicMarker option, loaded as Nx loads it.
  const plugin = createRequire(import.meta.url)('../../nx/src/plugin.cjs') as { normalizeOptions(o: unknown): { topicMarker: string } };
  const pluginTakes = (name: string): boolean => {
    try {
      return plugin.normalizeOptions({ topicMarker: name }).topicMarker === name;
    } catch {
      return false;
    }
  };

  it('refuses the names the plugin refuses: its outputs, keywords.md, qa-pairs.md, topic.yaml, glob characters (s58 probe)', () => {
    // CHUNKYARD_TOPIC_MARKER=keywords.md: keyword-extractor took the hand-written table for the
    // document, dropped it from the sources and wrote "1 keyword from  + keywords.md", exit 0.
    for (const bad of ['keywords.md', 'qa-pairs.md', 'topic.yaml', 'index.json', 'x.json', 'topic-spec.md', 'llms.txt', 'llms-full.txt', 'words.md', '*.md', 'a?.md', 'a[1].md', '{a,b}.md']) {
      const marker = topicMarkerFrom({ CHUNKYARD_TOPIC_MARKER: bad });
      expect(marker, bad).toMatch(/^CHUNKYARD_TOPIC_MARKER=".*" \(.*\)$/);
      expect(marker, bad).not.toMatch(/[/\\\u0000-\u001f]/);
      mkdirSync(join(dir, 't'), { recursive: true });
      writeFileSync(join(dir, 't', bad), '# x\n');
      expect(() => topicSettings(join(dir, 't'), {} as never, marker), bad).toThrow(`not a topic (no ${marker} in it)`);
    }
  });

  it('takes a name exactly when the plugin takes it (property; unset and empty are the default)', () => {
    const piece = fc.constantFrom('a', 'README', 'golden-reference', '.md', '.json', '.txt', '.yaml', 'keywords', 'qa-pairs', 'topic', 'words', 'index', 'llms', '-full', '.', '..', '/', '\\', '*', '?', '[', ']', '{', '}', ' ', '\u00e9', '\u0007', '\n', '\u007f');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 4 }).map((ps) => ps.join('')), (name) => {
        expect(topicMarkerFrom({ CHUNKYARD_TOPIC_MARKER: name }) === name, JSON.stringify(name)).toBe(pluginTakes(name));
      }),
      { numRuns: 3_000 },
    );
    expect(pluginTakes('golden-reference.md')).toBe(true);
    expect(topicMarkerFrom({ CHUNKYARD_TOPIC_MARKER: '' })).toBe('golden-reference.md');
  });
});

describe('readDocument', () => {
  it('reads UTF-8 and drops a BOM', () => {
    expect(readDocument(file('a.md', '\uFEFF# Title\n'))).toBe('# Title\n');
  });

  it.each([
    ['missing', () => join(dir, 'nope.md'), 'no such file', 'missing'],
    ['a dangling symlink', () => (symlinkSync('gone.md', join(dir, 'l.md')), join(dir, 'l.md')), 'a dangling symlink (its target does not exist); fix or remove the link', 'broken-link'],
    ['a folder', () => (mkdirSync(join(dir, 'f.md')), join(dir, 'f.md')), 'is a directory, not a markdown file', 'directory'],
    ['a FIFO', () => (execFileSync('mkfifo', [join(dir, 'p.md')]), join(dir, 'p.md')), 'a FIFO (named pipe), not a regular file; point it at a markdown file', 'not-regular'],
    ['binary', () => file('b.md', Buffer.from([0x23, 0x00, 0x41])), 'binary file (contains NUL bytes), not markdown text', 'binary'],
    ['not UTF-8', () => file('c.md', Buffer.from([0x23, 0x20, 0xff, 0xfe])), 'not valid UTF-8 (first bad byte at offset 2); save it as UTF-8', 'not-utf8'],
    // Issue 15 probe: Notepad's "Unicode" was "binary file (contains NUL bytes), not markdown text".
    ['UTF-16', () => file('u.md', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('# Title\n', 'utf16le')])), 'UTF-16 (little-endian) text (it starts with that byte order mark), not UTF-8; save it as UTF-8', 'not-utf8'],
    ['empty', () => file('d.md', ''), 'empty file; write its text, or remove it', 'empty'],
    ['only whitespace', () => file('e.md', ' \n\t\n'), 'empty file (only whitespace); write its text, or remove it', 'empty'],
  ])('says what is wrong with a file that is %s, with a code callers can test instead of the words', (_what, make, message, code) => {
    const path = make();
    let err: unknown;
    try {
      readDocument(path);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DocumentReadError);
    expect((err as DocumentReadError).message).toBe(message);
    expect((err as DocumentReadError).code).toBe(code);
    // The words without the advice, for a caller that gives its own.
    expect((err as DocumentReadError).reason).toBe(message.replace(/; (point it at a markdown file|save it as UTF-8|write its text, or remove it)$/, ''));
  });

  /** readDocument's message for a file that is not there. */
  const messageOf = (path: string) => {
    try {
      readDocument(path);
    } catch (e) {
      expect((e as DocumentReadError).code).toBe('missing');
      expect((e as DocumentReadError).reason).toBe('no such file');
      return (e as Error).message;
    }
    throw new Error(`read ${path}`);
  };

  it('a missing name whose folder holds the same letters in another Unicode form or case says so (issue 15 probe: "café.md: no such file" beside a listing showing café.md)', () => {
    const nfd = 'cafe\u0301.md';
    file(nfd, '# Café\n');
    expect(messageOf(join(dir, 'caf\u00e9.md'))).toBe(`no such file; "${nfd}" is there instead, the same name in another Unicode form (on disk NFD, asked for NFC); rename it, or write its name as it is on disk`);
    file('Guide.md', '# Guide\n');
    expect(messageOf(join(dir, 'guide.md'))).toBe('no such file; "Guide.md" is there instead, which differs in case; names are case-sensitive here: write it as it is on disk');
    // A name with control characters is shown escaped, on one line.
    file('A\u001b[2J\n.md', 'x');
    expect(messageOf(join(dir, 'a\u001b[2J\n.md'))).toBe('no such file; "A\\u001b[2J\\n.md" is there instead, which differs in case; names are case-sensitive here: write it as it is on disk');
    expect(messageOf(join(dir, 'other.md'))).toBe('no such file');
    expect(messageOf(join(dir, 'no-folder', 'x.md'))).toBe('no such file');
  });

  it('names the file on disk for any name asked for in another Unicode form or case (property)', () => {
    const letters = fc.constantFrom('a', 'E', 'é', 'e\u0301', 'Å', 'A\u030a', 'ß', 'ǅ', 'ﬁ', '\u1e9e', 'ö', 'o\u0308', 'Σ', 'ς', '-', ' ', '#', '%');
    const variant = fc.constantFrom((n: string) => n.normalize('NFC'), (n: string) => n.normalize('NFD'), (n: string) => n.toUpperCase(), (n: string) => n.toLowerCase());
    let i = 0;
    fc.assert(
      fc.property(fc.array(letters, { minLength: 1, maxLength: 8 }), variant, (parts, vary) => {
        const onDisk = `${parts.join('')}.md`;
        const asked = vary(parts.join('')) + '.md';
        fc.pre(asked !== onDisk && !asked.includes('/'));
        const folder = join(dir, `p${i++}`);
        mkdirSync(folder);
        writeFileSync(join(folder, onDisk), '# x\n');
        if (asked.normalize('NFC').toLowerCase() === onDisk.normalize('NFC').toLowerCase()) expect(messageOf(join(folder, asked))).toContain(`${JSON.stringify(onDisk)} is there instead`);
        else expect(messageOf(join(folder, asked))).toBe('no such file');
      }),
      { numRuns: 200 },
    );
  });

  it('accepts an empty file when allowed', () => {
    expect(readDocument(file('q.md', ''), { allowEmpty: true })).toBe('');
  });
});

describe('loadWorkspace and topicSettings', () => {
  it('uses ./chunkyard.config.yaml when present, and its folder as the root', () => {
    expect(loadWorkspace(undefined, dir)).toEqual({ root: dir, configFile: null, config: { chunking: {} } });
    file('chunkyard.config.yaml', 'chunking:\n  maxTokens: 300\n');
    const ws = loadWorkspace(undefined, dir);
    expect(ws.root).toBe(dir);
    expect(ws.config.chunking.maxTokens).toBe(300);
    expect(() => loadWorkspace(join(dir, 'missing.yaml'), dir)).toThrow(UsageError);
    file('bad.yaml', 'chunking:\n  maxTokens: lots\n');
    expect(() => loadWorkspace(join(dir, 'bad.yaml'), dir)).toThrow(ConfigError);
  });

  it('a config or topic.yaml that is not UTF-8 is a config error saying so, not read with replacement characters (issue 15 probe)', () => {
    // UTF-16 (Notepad's "Unicode") was "expected a mapping of settings at the top level"; a
    // Latin-1 byte in a value became U+FFFD ("got \"sem\uFFFDantic\""); a UTF-16 topic.yaml the same.
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('chunking:\n  maxTokens: 300\n', 'utf16le')]);
    const cfg = file('utf16.yaml', utf16);
    expect(() => loadWorkspace(cfg, dir)).toThrow(new ConfigError(cfg, null, 'UTF-16 (little-endian) text (it starts with that byte order mark), not UTF-8; save it as UTF-8'));
    const latin1 = file('latin1.yaml', Buffer.from('chunking:\n  strategy: sem\xe9antic\n', 'latin1'));
    expect(() => loadWorkspace(latin1, dir)).toThrow(new ConfigError(latin1, null, 'not valid UTF-8 (first bad byte at offset 25); save it as UTF-8'));
    const topic = join(dir, 't16');
    mkdirSync(topic);
    writeFileSync(join(topic, 'golden-reference.md'), '# T\n');
    writeFileSync(join(topic, 'topic.yaml'), utf16);
    expect(() => topicSettings(topic, { chunking: {} })).toThrow(/topic\.yaml: UTF-16 \(little-endian\) text/);
    // UTF-8 with its byte order mark is UTF-8.
    expect(loadWorkspace(file('bom.yaml', '\uFEFFchunking:\n  maxTokens: 300\n'), dir).config.chunking.maxTokens).toBe(300);
  });

  it('checks a topic folder and merges its topic.yaml', () => {
    const topic = join(dir, 't');
    mkdirSync(topic);
    expect(() => topicSettings(topic, { chunking: {} })).toThrow(/not a topic \(no golden-reference\.md in it\)/);
    expect(() => topicSettings(join(dir, 'none'), { chunking: {} })).toThrow(/none: no such folder$/);
    expect(() => topicSettings(join(topic, 'golden-reference.md'), { chunking: {} })).toThrow(/not a folder|no such folder/);
    writeFileSync(join(topic, 'golden-reference.md'), '# T\n');
    expect(topicSettings(topic, { chunking: { maxTokens: 300 } })).toEqual({ dir: topic, config: { chunking: { maxTokens: 300 } }, sources: ['golden-reference.md'], sourcesListedIn: null });
    // A topic.yaml without `sources` leaves the default, which nothing listed.
    writeFileSync(join(topic, 'topic.yaml'), 'chunking:\n  maxTokens: 200\n');
    expect(topicSettings(topic, { chunking: {} }).sourcesListedIn).toBeNull();
    writeFileSync(join(topic, 'topic.yaml'), 'sources: [a.md, b.md]\nchunking:\n  maxTokens: 200\n');
    const s = topicSettings(topic, { chunking: { maxTokens: 300, minTokens: 10 } });
    expect(s.sources).toEqual(['a.md', 'b.md']);
    expect(s.sourcesListedIn).toBe(join(topic, 'topic.yaml'));
    expect(s.config.chunking).toEqual({ maxTokens: 200, minTokens: 10 });
    expect(docNameOf('a/b/golden-reference.md')).toBe('golden-reference');
  });

  it('readTopicSource names the topic.yaml that listed a source it cannot read, and only then', () => {
    const listedIn = join(dir, 't', 'topic.yaml');
    const gone = join(dir, 'gone.md');
    expect(() => readTopicSource(gone, listedIn)).toThrow(`no such file (listed in the sources of ${listedIn})`);
    expect(() => readTopicSource(gone, null)).toThrow(/^no such file$/);
    mkdirSync(join(dir, 'folder.md'));
    expect(() => readTopicSource(join(dir, 'folder.md'), listedIn)).toThrow(`is a directory, not a markdown file (listed in the sources of ${listedIn})`);
    // Content problems are the file's own: the name in topic.yaml is right.
    writeFileSync(join(dir, 'bad.md'), Buffer.from([0xff, 0x41]));
    expect(() => readTopicSource(join(dir, 'bad.md'), listedIn)).toThrow(/^not valid UTF-8 \(first bad byte at offset 0\); save it as UTF-8$/);
    writeFileSync(join(dir, 'ok.md'), '# ok\n');
    expect(readTopicSource(join(dir, 'ok.md'), listedIn)).toBe('# ok\n');
  });
});

describe('entryExists', () => {
  it('is no only for nothing there: a path the kernel will not look up is thrown, not "absent" (issue 15 probe)', () => {
    expect(entryExists(file('here.md', 'x'))).toBe(true);
    expect(entryExists(join(dir, 'missing.md'))).toBe(false);
    expect(entryExists(join(dir, 'here.md', 'below.md'))).toBe(false);
    // A dangling link is there (it is reported as broken where it is read).
    symlinkSync('nowhere', join(dir, 'dangling'));
    expect(entryExists(join(dir, 'dangling'))).toBe(true);
    // A folder link that leads to itself: looking below it is ELOOP, which read as "no such file".
    symlinkSync('loop', join(dir, 'loop'));
    expect(() => entryExists(join(dir, 'loop', 'golden-reference.md'))).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    // Real folders whose whole path passes PATH_MAX (4,096 bytes): the file is there, but the
    // topic was "not a topic (no golden-reference.md)".
    let deep = dir;
    while (deep.length < 3880) deep = join(deep, 'd'.repeat(200));
    deep = join(deep, 'e'.repeat(4080 - deep.length - 1));
    mkdirSync(deep, { recursive: true });
    expect(() => entryExists(join(deep, 'golden-reference.md'))).toThrow(expect.objectContaining({ code: 'ENAMETOOLONG' }));
  });
});

describe('errorLines (the stderr lines of a usage or config error, one copy for chunking-tool, keyword-extractor and topic-spec)', () => {
  it("a config's problems are one escaped file:line line each, split from its problems and not on a newline in the file name", () => {
    const config = file('two\nproblems\u001b[31m.yaml', 'chunking:\n  minTokens: 1000\n  targetTokens: 2000\n  maxTokens: 17\n  windowTokens: 16\n  windowOverlapTokens: 1000000\n');
    const err = thrown(() => loadConfigFile(config, false));
    expect(err).toBeInstanceOf(ConfigError);
    const lines = errorLines(err as ConfigError);
    const shown = config.replace('\n', '\\u000a').replace('\u001b', '\\u001b');
    expect(lines.length).toBe((err as ConfigError).problems.length);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) {
      expect(line.startsWith(`${shown}:`)).toBe(true);
      expect(line).toMatch(/^[^\u0000-\u001f]*$/);
    }
    expect(lines[1]).toMatch(/^.*:\d+: chunking\.windowTokens/);
  });

  it('a one-problem ConfigError, a UsageError or any other error is its message, escaped, on one line', () => {
    expect(errorLines(new ConfigError('a\nb.yaml', 3, 'bad'))).toEqual(['a\\u000ab.yaml:3: bad']);
    expect(errorLines(new UsageError('--out x\ny: a file, not a folder'))).toEqual(['--out x\\u000ay: a file, not a folder']);
    expect(errorLines(new Error('one\u0007two'))).toEqual(['one\\u0007two']);
  });

  it('past twenty problems the last line counts the rest', () => {
    const more = Array.from({ length: 24 }, (_, i) => ({ line: i + 2, message: `problem ${i + 2}` }));
    const lines = errorLines(new ConfigError('c.yaml', 1, 'problem 1', more));
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe('c.yaml:1: problem 1');
    expect(lines[20]).toBe('c.yaml: … and 5 more problems');
  });
});
