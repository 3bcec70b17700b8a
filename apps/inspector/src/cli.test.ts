// chunk-inspector's CLI on paths where the page cannot be copied: one line naming the
// path, exit 1, and never a hang (Node's recursive mkdir loops forever under /proc).
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempName } from '@chunkyard/fs-atomic';
import { HELP, main, STATIC_DIR } from './main.js';

/** A file of an earlier copy of the page: its index.html is the page's (title, inspect.js), the rest stand-ins. */
const oldCopy = (n: string): string => (n === 'index.html' ? '<title>Chunk inspector</title>\n<script type="module" src="inspect.js"></script>\n<!-- old -->\n' : `old ${n}`);

describe('chunk-inspector build --out where no folder can be made', () => {
  it.runIf(process.platform === 'linux')('under /proc: exit 1 at once, the path named', async () => {
    const err: string[] = [];
    const code = await main(['build', '--out', '/proc/chunkyard-no-such/_inspect'], { stdout: () => {}, stderr: (s) => void err.push(s) });
    expect(code).toBe(1);
    expect(err.join('')).toMatch(/^chunk-inspector: \/proc\/chunkyard-no-such[^\n]*\(ENOENT\)[^\n]*\n$/);
  });
});

describe('chunk-inspector usage', () => {
  it('an extra argument after build is named as such, not as an unknown command "build y" (found by probing)', async () => {
    const err: string[] = [];
    const code = await main(['build', '--out', '/tmp/x', 'y'], { stdout: () => {}, stderr: (s) => void err.push(s) });
    expect(code).toBe(2);
    expect(err.join('')).toBe('chunk-inspector: build takes no arguments, got "y" (the folder is --out DIR)\nRun chunk-inspector --help for usage.\n');
    const other: string[] = [];
    expect(await main(['bogus', 'y'], { stdout: () => {}, stderr: (s) => void other.push(s) })).toBe(2);
    expect(other.join('')).toContain('unknown command "bogus" (build)');
  });

  it('an empty --out is named as empty, not as missing (helper-38 probe)', async () => {
    const err: string[] = [];
    expect(await main(['build', '--out', ''], { stdout: () => {}, stderr: (s) => void err.push(s) })).toBe(2);
    expect(err.join('')).toBe("chunk-inspector: --out: empty; give the folder to copy the page into\nRun chunk-inspector --help for usage.\n");
  });
});

describe('chunk-inspector build --out lands the page whole or not at all (issue 15 probe)', () => {
  it('a folder where render.js goes: exit 1 naming it, and none of the earlier files replaced; a killed run\'s temp is swept', async () => {
    const out = mkdtempSync(join(tmpdir(), 'chunk-inspector-'));
    try {
      const names = readdirSync(STATIC_DIR).sort();
      // An earlier copy of the page (its index.html is the page's), so the copy may replace it.
      for (const n of names) if (n !== 'render.js') writeFileSync(join(out, n), oldCopy(n));
      mkdirSync(join(out, 'render.js'));
      // What a killed run leaves: fs-atomic's temp name with a pid that is gone.
      mkdirSync(join(out, '.staged.tmp-999999999-0123abcd'));
      const err: string[] = [];
      const code = await main(['build', '--out', out], { stdout: () => {}, stderr: (s) => void err.push(s) });
      expect(code).toBe(1);
      expect(err.join('')).toBe(`chunk-inspector: ${join(out, 'render.js')}: is a folder where a file is expected (EISDIR); remove or rename that folder\n`);
      // Before: data.js, dom.js, index.html, inspect.css and inspect.js were new, render.js missing.
      for (const n of names) if (n !== 'render.js') expect(readFileSync(join(out, n), 'utf8')).toBe(oldCopy(n));
      expect(readdirSync(out).filter((n) => n.startsWith('.'))).toEqual([]);
      rmSync(join(out, 'render.js'), { recursive: true });
      expect(await main(['build', '--out', out], { stdout: () => {}, stderr: () => {} })).toBe(0);
      for (const n of names) expect(readFileSync(join(out, n), 'utf8')).toBe(readFileSync(join(STATIC_DIR, n), 'utf8'));
      expect(readdirSync(out).sort()).toEqual(names);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('chunk-inspector --out that is no folder (issue 15 probe)', () => {
  const run = async (argv: string[]) => {
    let stderr = '';
    const code = await main(argv, { stdout: () => {}, stderr: (s) => void (stderr += s) });
    return { code, stderr };
  };

  it('a file, a device or a FIFO: the words of every other --out, exit 2; a dangling link is named as one, exit 1 as --help says', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunk-inspector-out-'));
    try {
      writeFileSync(join(dir, 'file'), 'x');
      spawnSync('mkfifo', [join(dir, 'fifo')]);
      symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
      const usage = (what: string) => `${what}\nRun chunk-inspector --help for usage.\n`;
      // Before: "--out <path>: exists and is not a folder" for all three.
      expect(await run(['build', '--out', join(dir, 'file')])).toEqual({ code: 2, stderr: usage(`chunk-inspector: --out ${join(dir, 'file')}: a file, not a folder; give a folder (or one not yet made)`) });
      expect(await run(['build', '--out', '/dev/null'])).toEqual({ code: 2, stderr: usage('chunk-inspector: --out /dev/null: a character device, not a folder; give a folder (or one not yet made)') });
      expect(await run(['build', '--out', join(dir, 'fifo')])).toEqual({ code: 2, stderr: usage(`chunk-inspector: --out ${join(dir, 'fifo')}: a FIFO (named pipe), not a folder; give a folder (or one not yet made)`) });
      // Before: "<dir>/dangling: no such file or folder (ENOENT); check the path".
      expect(await run(['build', '--out', join(dir, 'dangling')])).toEqual({ code: 1, stderr: `chunk-inspector: ${join(dir, 'dangling')}: a dangling symlink (its target does not exist); fix or remove the link\n` });
      // --help told of 0 and 2 only, though a write that fails exits 1.
      expect(HELP).toMatch(/Exit status: 0 copied; 1 the files could not be written/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('chunk-inspector build --out DIR where a file of the page is a symlink (probe: written through to what it pointed to)', () => {
  it('refused by the built bin: exit 1, one line naming the link and where it points, no stack trace; the decoy outside and every file of DIR as they were', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunk-inspector-link-'));
    try {
      const out = join(dir, 'out');
      mkdirSync(out);
      // A file outside DIR standing for any file the user can write (~/.npmrc, a git hook).
      const decoy = join(dir, 'decoy.txt');
      writeFileSync(decoy, 'decoy\n');
      const names = readdirSync(STATIC_DIR).sort();
      for (const n of names) if (n !== 'dom.js') writeFileSync(join(out, n), oldCopy(n));
      symlinkSync(decoy, join(out, 'dom.js'));
      const r = spawnSync(process.execPath, [join(import.meta.dirname, '../bin/inspector.js'), 'build', '--out', out], { encoding: 'utf8', timeout: 20_000 });
      expect(r.stderr).toBe(`chunk-inspector: ${join(out, 'dom.js')}: is a symlink (it points to ${decoy}); a generated output is never written through a link, so nothing was written; remove the link and run again\n`);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      // Before: the page's dom.js had replaced the decoy's content, and every other file was new.
      expect(readFileSync(decoy, 'utf8')).toBe('decoy\n');
      expect(lstatSync(join(out, 'dom.js')).isSymbolicLink()).toBe(true);
      for (const n of names) if (n !== 'dom.js') expect(readFileSync(join(out, n), 'utf8')).toBe(oldCopy(n));
      expect(readdirSync(out).sort()).toEqual(names);
      // The link removed, as the message says: the page is written, dom.js a regular file.
      rmSync(join(out, 'dom.js'));
      const again = spawnSync(process.execPath, [join(import.meta.dirname, '../bin/inspector.js'), 'build', '--out', out], { encoding: 'utf8', timeout: 20_000 });
      expect(again.status).toBe(0);
      expect(readFileSync(join(out, 'dom.js'), 'utf8')).toBe(readFileSync(join(STATIC_DIR, 'dom.js'), 'utf8'));
      expect(readFileSync(decoy, 'utf8')).toBe('decoy\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('chunk-inspector names an --out holding a line break on one line (issue 15 probe)', () => {
  it('the summary and the usage error each stay one line, the break escaped as \\u000a', async () => {
    // The summary printed the path raw and the usage error escaped ESC but not a line break:
    // "--out a\nb" split either in two, and the second half could pass for a line of ours.
    const dir = mkdtempSync(join(tmpdir(), 'chunk-inspector-'));
    try {
      const out = join(dir, 'page\nchunk-inspector: copied 0 files');
      let stdout = '';
      expect(await main(['build', '--out', out], { stdout: (s) => void (stdout += s), stderr: () => {} })).toBe(0);
      expect(stdout).toBe(`chunk-inspector: copied ${readdirSync(STATIC_DIR).length} files to ${join(dir, 'page\\u000achunk-inspector: copied 0 files')} (${readdirSync(STATIC_DIR).sort().join(', ')})\n`);
      expect(readdirSync(out).sort()).toEqual(readdirSync(STATIC_DIR).sort());
      const file = join(dir, 'a\nb');
      writeFileSync(file, '');
      let stderr = '';
      expect(await main(['build', '--out', file], { stdout: () => {}, stderr: (s) => void (stderr += s) })).toBe(2);
      expect(stderr).toBe(`chunk-inspector: --out ${join(dir, 'a\\u000ab')}: a file, not a folder; give a folder (or one not yet made)\nRun chunk-inspector --help for usage.\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("chunk-inspector build --out a folder holding another page's files (probe: --out public replaced a site's index.html without a word)", () => {
  const run = (out: string) => spawnSync(process.execPath, [join(import.meta.dirname, '../bin/inspector.js'), 'build', '--out', out], { encoding: 'utf8', timeout: 20_000 });
  const names = readdirSync(STATIC_DIR).sort();

  it("a site's own index.html, or a data.js of its own beside no page: exit 1 naming them, nothing written or replaced", () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunk-inspector-foreign-'));
    try {
      const site = join(dir, 'public');
      mkdirSync(site);
      writeFileSync(join(site, 'index.html'), '<!doctype html><title>My site</title>\n');
      writeFileSync(join(site, 'style.css'), 'body{}\n');
      const r = run(site);
      expect(r.stderr).toBe(`chunk-inspector: ${site} holds index.html, which the chunk inspector did not write; copying would replace it, so nothing was written; give a folder of the page's own below the docs root (e.g. docs/_inspect), or move that file away\n`);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(readFileSync(join(site, 'index.html'), 'utf8')).toBe('<!doctype html><title>My site</title>\n');
      expect(readdirSync(site).sort()).toEqual(['index.html', 'style.css']);

      // No index.html, but scripts of the same names: not the page's either.
      const scripts = join(dir, 'scripts');
      mkdirSync(scripts);
      writeFileSync(join(scripts, 'data.js'), 'export const mine = 1;\n');
      writeFileSync(join(scripts, 'dom.js'), 'export const mine = 2;\n');
      const s = run(scripts);
      expect(s.status).toBe(1);
      expect(s.stderr).toContain(`${scripts} holds data.js, dom.js, which the chunk inspector did not write; copying would replace them, so nothing was written;`);
      expect(readdirSync(scripts).sort()).toEqual(['data.js', 'dom.js']);
      expect(readFileSync(join(scripts, 'data.js'), 'utf8')).toBe('export const mine = 1;\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a new folder, one holding only other files, the same copy again, or an earlier copy of the page: copied, exit 0', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunk-inspector-own-'));
    try {
      const fresh = join(dir, 'fresh', '_inspect');
      expect(run(fresh).status).toBe(0);
      expect(readdirSync(fresh).sort()).toEqual(names);
      expect(run(fresh).status).toBe(0);

      const others = join(dir, 'others');
      mkdirSync(others);
      writeFileSync(join(others, 'notes.txt'), 'mine\n');
      expect(run(others).status).toBe(0);
      expect(readFileSync(join(others, 'notes.txt'), 'utf8')).toBe('mine\n');
      expect(readdirSync(others).sort()).toEqual([...names, 'notes.txt'].sort());

      const older = join(dir, 'older');
      mkdirSync(older);
      for (const n of names) writeFileSync(join(older, n), oldCopy(n));
      const r = run(older);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      for (const n of names) expect(readFileSync(join(older, n), 'utf8')).toBe(readFileSync(join(STATIC_DIR, n), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('chunk-inspector build --out inside a topic of the docs tree (s59 probe)', () => {
  // A real topic, chunked by the real chunking-tool: docs/lib/t with golden-reference.md and _chunks/.
  const setup = async () => {
    const ws = mkdtempSync(join(tmpdir(), 'chunk-inspector-topic-'));
    const topic = join(ws, 'docs/lib/t');
    mkdirSync(topic, { recursive: true });
    writeFileSync(join(topic, 'golden-reference.md'), '# Guide\n\nInstall the tool, then run it over the docs folder.\n\n## Use\n\nRun it again after every change.\n');
    const { main: chunk } = await import('../../chunking-tool/src/main.js');
    expect(await chunk([topic], { stdout: () => {}, stderr: () => {} })).toBe(0);
    return { ws, docs: join(ws, 'docs'), topic };
  };

  it("a topic's _chunks or _keywords (replaced whole by the next build, the page with it) or the topic folder itself (the page's ../ is then the section, not the docs root): exit 2 naming the path, nothing written", async () => {
    const { ws, docs, topic } = await setup();
    try {
      const before = readdirSync(join(topic, '_chunks')).sort();
      // Before: each was "copied 6 files", exit 0; the next chunking-tool run then removed the
      // page from _chunks/ without a word, and in the topic folder it read the section's
      // index.json as the docs root ("not built" for the very topic it sat in).
      for (const [out, why] of [
        [join(topic, '_chunks'), /: a topic's generated folder \(_chunks\/, replaced whole by chunking-tool\); the next build removes the page with it/],
        [join(topic, '_chunks') + '/', /: a topic's generated folder \(_chunks\//],
        [join(topic, '_keywords'), /: a topic's generated folder \(_keywords\/, replaced whole by keyword-extractor\)/],
        [topic, /: a topic folder \(it holds golden-reference\.md\); the page reads the docs root one folder above itself \(\.\.\/index\.json\), which here is not the docs root/],
        [topic + '/', /: a topic folder/],
      ] as const) {
        const err: string[] = [];
        const code = await main(['build', '--out', out], { stdout: () => {}, stderr: (s) => void err.push(s) });
        expect(code, out).toBe(2);
        const line = err.join('');
        expect(line, out).toMatch(why);
        expect(line.startsWith(`chunk-inspector: --out ${out}: `), line).toBe(true);
        expect(line, out).toContain('; give a folder one level below the docs root (e.g. docs/_inspect)\nRun chunk-inspector --help for usage.\n');
      }
      expect(readdirSync(join(topic, '_chunks')).sort()).toEqual(before);
      expect(readdirSync(topic).sort()).toEqual(['_chunks', 'golden-reference.md']);
      // One level below the docs root, under any name: copied.
      for (const out of [join(docs, '_inspect'), join(docs, '_site'), join(ws, 'elsewhere')]) {
        expect(await main(['build', '--out', out], { stdout: () => {}, stderr: () => {} }), out).toBe(0);
        expect(readdirSync(out).sort()).toEqual(readdirSync(STATIC_DIR).sort());
      }
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});

describe("chunk-inspector build --out a folder below a topic's _chunks/ or _keywords/ (helper-84 probe)", () => {
  it('exit 2 naming the generated folder, nothing written; the next build would have removed the page with it', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'chunk-inspector-deep-'));
    try {
      const topic = join(ws, 'docs/lib/t');
      mkdirSync(topic, { recursive: true });
      writeFileSync(join(topic, 'golden-reference.md'), '# Guide\n\nInstall the tool, then run it over the docs folder.\n');
      const { main: chunk } = await import('../../chunking-tool/src/main.js');
      const quiet = { stdout: () => {}, stderr: () => {} };
      expect(await chunk([topic], quiet)).toBe(0);
      const before = readdirSync(join(topic, '_chunks')).sort();
      // Before: "copied 6 files", exit 0, and chunking-tool's next run (shown below) took _chunks/
      // away whole, the page in it.
      for (const [out, generated, tool] of [
        [join(topic, '_chunks', 'page'), join(topic, '_chunks'), 'chunking-tool'],
        [join(topic, '_chunks', 'a', 'b') + '/', join(topic, '_chunks'), 'chunking-tool'],
        [join(topic, '_keywords', 'page'), join(topic, '_keywords'), 'keyword-extractor'],
      ] as const) {
        const err: string[] = [];
        expect(await main(['build', '--out', out], { stdout: () => {}, stderr: (s) => void err.push(s) }), out).toBe(2);
        expect(err.join(''), out).toBe(
          `chunk-inspector: --out ${out}: inside a topic's generated folder (${generated}, replaced whole by ${tool}); the next build removes the page with it; give a folder one level below the docs root (e.g. docs/_inspect)\nRun chunk-inspector --help for usage.\n`,
        );
      }
      expect(readdirSync(join(topic, '_chunks')).sort()).toEqual(before);
      expect(readdirSync(topic).sort()).toEqual(['_chunks', 'golden-reference.md']);
      // What the refusal spares: a folder made below _chunks/ does not outlive the next build.
      mkdirSync(join(topic, '_chunks', 'page'));
      writeFileSync(join(topic, '_chunks', 'page', 'index.html'), 'x');
      expect(await chunk([topic], quiet)).toBe(0);
      expect(readdirSync(join(topic, '_chunks'))).not.toContain('page');
      // A folder named _chunks that is not a topic's is any folder.
      expect(await main(['build', '--out', join(ws, 'docs', '_chunks', 'page')], quiet)).toBe(0);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});

describe("chunk-inspector build --out reaching a topic's _chunks/ or _keywords/ through a symlink (issue 15 leftover)", () => {
  it('a link to the folder, a path through a linked parent, a dangling link to where _keywords/ goes, a link to the topic: exit 2 naming the real path, nothing written', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'chunk-inspector-link-'));
    try {
      const topic = join(ws, 'docs/lib/t');
      mkdirSync(topic, { recursive: true });
      writeFileSync(join(topic, 'golden-reference.md'), '# Guide\n\nInstall the tool, then run it over the docs folder.\n');
      const { main: chunk } = await import('../../chunking-tool/src/main.js');
      const quiet = { stdout: () => {}, stderr: () => {} };
      expect(await chunk([topic], quiet)).toBe(0);
      const before = readdirSync(join(topic, '_chunks')).sort();
      const realTopic = realpathSync(topic);
      symlinkSync(join(topic, '_chunks'), join(ws, 'to-chunks'));
      symlinkSync(join(ws, 'docs'), join(ws, 'docs-link'));
      symlinkSync(join(topic, '_keywords'), join(ws, 'to-keywords')); // dangling: no _keywords/ yet
      symlinkSync('../docs/lib/t', join(ws, 'docs', 'to-topic')); // relative, as ln -s makes them
      // Before: each was "copied 6 files", exit 0, into _chunks/ (or the topic), which the next
      // build replaces whole (or where the page reads the section as the docs root).
      for (const [out, why] of [
        [join(ws, 'to-chunks'), `a topic's generated folder (_chunks/, replaced whole by chunking-tool) (through a symlink: ${join(realTopic, '_chunks')})`],
        [join(ws, 'to-chunks', 'page'), `inside a topic's generated folder (${join(realTopic, '_chunks')}, replaced whole by chunking-tool) (through a symlink: ${join(realTopic, '_chunks', 'page')})`],
        [join(ws, 'docs-link', 'lib', 't', '_chunks', 'a', 'b'), `inside a topic's generated folder (${join(realTopic, '_chunks')}, replaced whole by chunking-tool) (through a symlink: ${join(realTopic, '_chunks', 'a', 'b')})`],
        [join(ws, 'to-keywords', 'page'), `inside a topic's generated folder (${join(realTopic, '_keywords')}, replaced whole by keyword-extractor) (through a symlink: ${join(realTopic, '_keywords', 'page')})`],
        [join(ws, 'docs', 'to-topic'), `a topic folder (through a symlink: ${realTopic}) (it holds golden-reference.md)`],
      ] as const) {
        const err: string[] = [];
        expect(await main(['build', '--out', out], { stdout: () => {}, stderr: (s) => void err.push(s) }), out).toBe(2);
        expect(err.join(''), out).toContain(`chunk-inspector: --out ${out}: ${why}`);
      }
      expect(readdirSync(join(topic, '_chunks')).sort()).toEqual(before);
      expect(readdirSync(topic).sort()).toEqual(['_chunks', 'golden-reference.md']);
      // A link to an ordinary folder one level below the docs root is any folder.
      mkdirSync(join(ws, 'docs', '_site'));
      symlinkSync(join(ws, 'docs', '_site'), join(ws, 'to-site'));
      expect(await main(['build', '--out', join(ws, 'to-site', '_inspect')], quiet)).toBe(0);
      expect(readdirSync(join(ws, 'docs', '_site', '_inspect')).sort()).toEqual(readdirSync(STATIC_DIR).sort());
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});

describe('chunk-inspector build --out just under PATH_MAX (issue 15 leftover)', () => {
  /** `base` extended by folders of at most 200 bytes to exactly `bytes` bytes. */
  const pathOf = (base: string, bytes: number): string => {
    let p = base;
    while (Buffer.byteLength(p) < bytes) {
      const left = bytes - Buffer.byteLength(p) - 1;
      // Never leave a last folder of 0 bytes: split the remainder so both parts have some.
      const take = left > 200 ? (left - 200 < 2 ? 100 : 200) : left;
      p += `/${'d'.repeat(take)}`;
    }
    return p;
  };

  it.runIf(process.platform === 'linux')('the built bin: exit 2 at once naming --out and the limit, nothing made (was exit 1, ENAMETOOLONG, after making the folders)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunk-inspector-long-'));
    try {
      const out = pathOf(dir, 4080);
      const r = spawnSync(process.execPath, [join(import.meta.dirname, '../bin/inspector.js'), 'build', '--out', out], { encoding: 'utf8', timeout: 20_000 });
      expect(r.stderr).toMatch(/^chunk-inspector: --out \/[^\n]*: path too long \(the page's temp files in it would be 41\d\d bytes from the root, 4080 of them the folder's; a path may be at most 4095 bytes\); use a shorter path\nRun chunk-inspector --help for usage\.\n$/);
      expect(r.stderr.startsWith(`chunk-inspector: --out ${out}: `)).toBe(true);
      expect(r.status).toBe(2);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(process.platform === 'linux')('in-process: refused exactly when a temp name would pass 4095 bytes, copied otherwise (lengths on both sides of the limit, the folder there or not)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunk-inspector-long-'));
    try {
      const names = readdirSync(STATIC_DIR).filter((n) => !n.startsWith('.')).sort();
      // This process's temp names: '.<name>.tmp-<pid>~<4 hex>-<8 hex>' beside each file.
      const extra = Math.max(...names.map((n) => Buffer.byteLength(tempName(join('/x', n))) - 2));
      const fits = 4095 - extra;
      const lengths = [fits - 1, fits, fits + 1, fits + 2, 4095];
      let i = 0;
      for (const bytes of lengths) {
        for (const existing of [false, true]) {
          const base = join(dir, String(i++));
          mkdirSync(base);
          const out = pathOf(base, bytes);
          if (existing) mkdirSync(out, { recursive: true });
          const err: string[] = [];
          const code = await main(['build', '--out', out], { stdout: () => {}, stderr: (s) => void err.push(s) });
          if (bytes <= fits) {
            expect(code, `${bytes} ${err.join('')}`).toBe(0);
            expect(readdirSync(out).sort()).toEqual(names);
          } else {
            expect(code, `${bytes}`).toBe(2);
            expect(err.join('')).toContain(': path too long (the page\'s temp files in it would be ');
            // Nothing made: no folder below base, nothing in a folder that was there.
            if (existing) expect(readdirSync(out)).toEqual([]);
            else expect(readdirSync(base)).toEqual([]);
          }
          rmSync(base, { recursive: true, force: true });
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
