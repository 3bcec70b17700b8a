/**
 * What a topic's index.json certifies about the chunk files it lists: each item's `sha256`
 * (the chunk file's text when the index was built), and that those files are the ones
 * topic-spec.md was built from. The chunk step rewrites `_chunks/` before the index step runs,
 * so a chunk step that ran after the spec step (a second build at once, or `chunk` run by
 * hand) would otherwise give the spec's titles the new files' hashes, and a reader could no
 * longer tell the two apart.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { brokenLink, NotRegularFileError, readRegularFile } from '@chunkyard/topic-io';
import type { TopicSpec } from '@chunkyard/spec';
import { chunkTextSha256 } from '@chunkyard/topic-index';
import { builtText, hrefFile } from './llms.js';

/** A folder whose index.json cannot be built; the message names the file and the fix. */
export class ChunkFilesError extends Error {}

const RECHUNK = 'run the chunk step again, then spec (nx run <topic>:index runs both)';

/** An item's `sha256`: chunkTextSha256 of the chunk file `href` names below `topicDir`. */
export function chunkFileSha256(topicDir: string, href: string, specFile: string): string {
  const file = hrefFile(topicDir, href);
  if (file === null) throw new ChunkFilesError(`${specFile}: the chunk href ${JSON.stringify(href.slice(0, 200))} names no file below the topic; run topic-spec again`);
  return chunkTextSha256(builtText(readBuilt(file, specFile), (why) => new ChunkFilesError(`${file}: ${why}; ${RECHUNK}`)));
}

/**
 * ENOENT for a listed file. A dangling link, the file's or its _chunks/ folder's, is named as
 * one: "missing, though topic-spec.md lists it" sent the user to look for a file that a link
 * stood for (issue 15 probe).
 */
function missingError(file: string, specFile: string): ChunkFilesError {
  for (const p of [file, dirname(file)]) {
    const broken = brokenLink(p);
    if (broken !== null) return new ChunkFilesError(`${p}: ${broken}`);
  }
  return new ChunkFilesError(`${file}: missing, though ${specFile} lists it; ${RECHUNK}`);
}

function readBuilt(file: string, specFile: string): Buffer {
  try {
    return readRegularFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw missingError(file, specFile);
    if (err instanceof NotRegularFileError) throw new ChunkFilesError(`${file}: ${err.kind}, not a regular file; remove it, then ${RECHUNK}`);
    throw err;
  }
}

/**
 * chunking-tool writes a manifest as `JSON.stringify(m, null, 2)` with `schemaVersion`,
 * `source` and `sourceSha256` first, so the hash is in its first few hundred bytes (a source
 * name is at most 255 bytes, 6 characters each when escaped): reading those, not the whole
 * manifest (megabytes for a big topic, each chunk's text twice), keeps the check per topic small.
 */
const HEAD_BYTES = 4096;
const HEAD = /^\{\s*"schemaVersion":\s*\d+,\s*"source":\s*"(?:[^"\\]|\\.)*",\s*"sourceSha256":\s*"([0-9a-f]{64})"/;

/** The manifest's sourceSha256, or null when it has none. */
export function manifestSourceSha256(file: string, specFile: string): string | null {
  let fd: number;
  try {
    // Non-blocking, and checked on the same descriptor (as readRegularFile): a FIFO there would block the open.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw missingError(file, specFile);
    throw err;
  }
  let head: string;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ChunkFilesError(`${file}: ${stat.isDirectory() ? 'a folder' : 'a special file'}, not a regular file; remove it, then ${RECHUNK}`);
    const buf = Buffer.alloc(HEAD_BYTES);
    head = buf.subarray(0, readSync(fd, buf, 0, HEAD_BYTES, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
  const m = HEAD.exec(head);
  if (m) return m[1]!;
  // Written by another hand or in another key order: read whole.
  const text = readBuilt(file, specFile).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Never the parser's words: they quote the file.
    throw new ChunkFilesError(`${file}: not a chunk manifest (not valid JSON); ${RECHUNK}`);
  }
  const sha = (json as { sourceSha256?: unknown } | null)?.sourceSha256;
  return typeof sha === 'string' ? sha : null;
}

/**
 * Throws unless every document's manifest is the one topic-spec.md was built from: the same
 * text when the spec recorded its hash (manifestSha256, since session 56), else the same
 * sourceSha256. Called after the chunk files were hashed: a topic's `_chunks/` is swapped in
 * whole, so a chunk step that replaced it before or during the hashing has replaced the
 * manifest too.
 */
export function checkSameChunks(topicDir: string, spec: TopicSpec, specFile: string): void {
  for (const d of spec.documents) {
    const file = hrefFile(topicDir, d.manifest);
    if (file === null) throw new ChunkFilesError(`${specFile}: the manifest href ${JSON.stringify(d.manifest.slice(0, 200))} names no file below the topic; run topic-spec again`);
    let why: string | null;
    if (d.manifestSha256 !== undefined) {
      // The whole manifest: a chunk step run again on the same source with other settings (a
      // topic.yaml edited, chunking-tool run by hand with --strategy) keeps sourceSha256, and
      // the index gave the spec's old titles and token counts the new chunk files' hashes.
      why = chunkTextSha256(readBuilt(file, specFile).toString('utf8')) === d.manifestSha256 ? null : 'it differs from the manifest the spec read';
    } else {
      const sha = manifestSourceSha256(file, specFile);
      why = sha === d.sourceSha256 ? null : sha === null ? 'it has no sourceSha256' : "its sourceSha256 differs from the spec's";
    }
    if (why !== null) {
      throw new ChunkFilesError(
        `${file}: holds other chunks than ${specFile} was built from (${why}): the chunk step ran after the spec step (a build under way, or one run by hand); run topic-spec again (nx run <topic>:spec), then index-tool; nothing written`,
      );
    }
  }
}
