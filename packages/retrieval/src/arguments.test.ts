/**
 * What the retrieval client says to a JavaScript caller's targets and requests of the wrong
 * shape (issue 15's library probe, from the packed package): a TypeError or SourceError naming
 * them, before anything is read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DocsClient, discloseTopics, FolderSource, openSource, search, SourceError, UrlSource } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkyard-retrieval-args-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openSource targets (issue 15 library probe)', () => {
  it('refuses a URL it cannot read, where ftp://host/docs became the folder ./ftp:/host/docs', () => {
    for (const [target, scheme] of [['ftp://example.com/docs/', 'ftp'], ['s3://bucket/docs', 's3'], ['git+ssh://host/docs', 'git+ssh']] as const) {
      expect(() => openSource(target), target).toThrow(new SourceError(target, `${scheme === 'git+ssh' ? 'a' : 'an'} ${scheme}: URL cannot be read; give the docs folder or an http(s) URL it is served at`));
    }
  });

  it('names the scheme with the article it is read with: "an ftp: URL", "a git: URL" (every one was "a")', () => {
    // Spelled out letter by letter (no vowel, or ldap): "an" before eff, aitch, ell, em, en, ar, ess, ex.
    const an = ['ftp', 'FTP', 'sftp', 'ftps', 'ssh', 's3', 'smb', 'nfs', 'hdfs', 'hf', 'rsync', 'svn', 'svn+ssh', 'ssh+git', 'nntp', 'rtsp', 'xmpp', 'ldap', 'ldaps', 'mms', 'irc', 'ipfs', 'ipns', 'about', 'azure', 'oci', 'ed2k'];
    const a = ['git', 'git+ssh', 'git+https', 'mailto', 'data', 'gopher', 'ws', 'wss', 'tcp', 'gs', 'unix', 'urn', 'jar', 'javascript', 'chrome-extension', 'tel', 'dav', 'webdav', 'blob', 'bzr', 'pkcs11', 'vscode', 'cvs', 'zip'];
    for (const [article, schemes] of [['an', an], ['a', a]] as const) {
      for (const scheme of schemes) {
        const target = `${scheme}://host/docs`;
        expect(() => openSource(target), target).toThrow(new SourceError(target, `${article} ${scheme}: URL cannot be read; give the docs folder or an http(s) URL it is served at`));
      }
    }
  });

  it('refuses an empty target (it was the working directory) and one that is not a string (node:path\'s "paths[0]" message)', () => {
    expect(() => openSource('')).toThrow(SourceError);
    expect(() => openSource('  ')).toThrow('no docs folder or URL given');
    expect(() => openSource(null as never)).toThrow(new TypeError('openSource: the target must be a docs folder or an http(s) URL, got null'));
    expect(() => openSource(5 as never)).toThrow(new TypeError('openSource: the target must be a docs folder or an http(s) URL, got number'));
  });

  it('reads a file: URL as its folder, and keeps paths, Windows drives and http(s) as before', () => {
    const fromUrl = openSource(pathToFileURL(dir).href);
    expect(fromUrl).toBeInstanceOf(FolderSource);
    expect(fromUrl.folder).toBe(dir);
    expect(openSource(dir).folder).toBe(dir);
    expect(openSource('C:/docs')).toBeInstanceOf(FolderSource);
    expect(openSource('http://127.0.0.1:9/')).toBeInstanceOf(UrlSource);
    expect(() => openSource('file://remote-host/docs')).toThrow(SourceError);
  });
});

describe('client and requests (issue 15 library probe)', () => {
  it('a DocsClient without a source, and a search or disclosure request that is not an object, are TypeErrors naming them', async () => {
    expect(() => new DocsClient(null as never)).toThrow(new TypeError("DocsClient: the source must be a DocsSource (openSource('docs') or openSource('http://…/')), got null"));
    const client = new DocsClient(openSource(dir));
    await expect(search(client, null as never)).rejects.toThrow(new TypeError('search: the request must be an object ({ query, n, k, … }), got null'));
    await expect(search(client, 'how?' as never)).rejects.toThrow(new TypeError('search: the request must be an object ({ query, n, k, … }), got string'));
    await expect(discloseTopics(client, null as never)).rejects.toThrow(new TypeError('discloseTopics: the request must be an object ({ n, k, … }), got null'));
    // A request that is an object reaches the folder, which has no docs.
    await expect(discloseTopics(client, { n: 1 })).rejects.toThrow(SourceError);
  });
});
