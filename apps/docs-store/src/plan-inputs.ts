/**
 * Turns `ingest` arguments (files and topic folders) into plans, one document at a time, so
 * that a bad document is reported by name and the others still go in.
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import { ChunkOptionsError, type ChunkOptions } from '@chunkyard/chunking';
import { mergeTopic, parseConfig, type ChunkyardConfig } from '@chunkyard/config';
import { builtRefs, decodeDocument, planArtifact, type PlanRef } from '@chunkyard/store';
import { configText, UsageError } from './workspace.js';
import { assertSearchable, brokenLink, describeFsError, errnoReason, fileProblem, folderProblem, isFsError, oneLine, readRegularFile } from '@chunkyard/fs-atomic';
// The file that makes a folder a topic, read from CHUNKYARD_TOPIC_MARKER by topic-io's one rule
// (a copy here fell behind it and took keywords.md or index.json as a topic's document).
import { docNameProblem, TOPIC_MARKER } from '@chunkyard/topic-io';

export const SOURCE_SYSTEM = 'file';

export interface PlanRequest {
  root: string;
  config: ChunkyardConfig;
  paths: string[];
  /** Load topics from `_chunks/` manifests instead of chunking again. */
  built: boolean;
  topic?: string;
  contentType?: string;
}

export interface PlannedInputs {
  /** A built topic's documents are read again when ingest needs their chunks (builtRefs); files are held as planned. */
  plans: PlanRef[];
  errors: { source: string; error: string }[];
  /** Arguments left out because chunkyard generated them (workspace-relative). */
  skipped: string[];
}

/**
 * What chunkyard's own tools write next to the sources: the index step's index.json, the
 * chunking tool's _chunks/, the keyword extractor's _keywords/ and the topic-spec tool's
 * topic-spec.md. A shell glob such as docs/libraries/* picks them up, and ingesting them
 * would put build output (JSON manifests, keyword lists) into search results.
 */
export const GENERATED_FILES: ReadonlySet<string> = new Set(['index.json', 'topic-spec.md']);
export const GENERATED_FOLDERS: ReadonlySet<string> = new Set(['_chunks', '_keywords']);

/** Whether `relPath` (workspace-relative, posix) is, or lies inside, something chunkyard generated. */
export function isGenerated(relPath: string): boolean {
  // Relative, so a workspace that itself sits under a folder named _chunks is not all skipped.
  const parts = relPath.split('/');
  return GENERATED_FILES.has(parts[parts.length - 1]!) || parts.some((p) => GENERATED_FOLDERS.has(p));
}

const toPosix = (p: string) => p.split(sep).join('/');

export function planInputs(req: PlanRequest): PlannedInputs {
  const plans: PlanRef[] = [];
  const errors: PlannedInputs['errors'] = [];
  const skipped: string[] = [];
  const rel = (p: string) => toPosix(relative(req.root, resolve(p))) || '.';
  for (const p of req.paths) {
    if (isGenerated(rel(p))) {
      skipped.push(rel(p));
      continue;
    }
    // A file or a topic folder: "not a folder" is a document to plan; anything else is reported.
    const problem = folderProblem(p, { missing: 'no such file or folder' });
    if (problem !== null && problem.problem !== 'not-a-folder') {
      // Named as every other source is (workspace-relative), not by its absolute path.
      errors.push({ source: rel(p), error: problem.reason });
      continue;
    }
    if (problem === null) {
      try {
        assertSearchable(p);
      } catch (err) {
        errors.push({ source: rel(p), error: errnoReason(err) });
        continue;
      }
      // A broken marker symlink still makes a topic (as for chunking-tool): its source is then named as a broken link.
      if (!entryExists(join(p, TOPIC_MARKER))) throw new UsageError(`${p}: a folder, but not a topic (no ${TOPIC_MARKER} in it)`);
      const topicYaml = join(p, 'topic.yaml');
      const topicConfig = readTopicYaml(topicYaml);
      const config = mergeTopic(req.config, topicConfig);
      const topic = req.topic ?? rel(p);
      if (req.built) {
        // builtRefs lists _chunks/ with a bare readdir: a file or FIFO there came out in Node's
        // words ("ENOTDIR: not a directory, scandir '…'"), and a dangling or looping link as "no
        // _chunks/ folder: build the topic first" (issue 15 probe). Plain absence keeps the
        // store's words, which also name a killed build's leftovers.
        const chunksDir = join(p, '_chunks');
        const chunksProblem = folderProblem(chunksDir);
        if (chunksProblem !== null && (chunksProblem.problem !== 'missing' || brokenLink(chunksDir) !== null)) {
          errors.push({ source: p, error: `${oneLine(chunksDir)}: ${chunksProblem.reason}` });
          continue;
        }
        try {
          const contentType = req.contentType;
          plans.push(
            ...builtRefs(
              { topicDir: p, topic, sourceSystem: SOURCE_SYSTEM, displayOf: (s) => rel(join(p, s)), sourceIdOf: (s) => rel(join(p, s)) },
              contentType ? (plan) => ({ ...plan, artifactType: contentType }) : undefined,
            ),
          );
        } catch (err) {
          // An unreadable _chunks/ (EACCES from its readdir) was Node's words too.
          errors.push({ source: p, error: isFsError(err) ? describeFsError(err) : messageOf(err, p) });
        }
        continue;
      }
      const listedIn = topicConfig?.sources ? rel(topicYaml) : null;
      for (const name of config.sources ?? [TOPIC_MARKER]) planFile(join(p, name), topic, config.chunking, listedIn);
    } else {
      if (req.built) throw new UsageError(`${p}: --built takes topic folders (it reads their _chunks/), not files`);
      planFile(p, req.topic ?? topicOf(p, rel), req.config.chunking, null);
    }
  }
  return { plans, errors, skipped };

  /** `listedIn`: the topic.yaml whose `sources` named the file, said in a read error (the fix may be there). */
  function planFile(file: string, topic: string | null, chunking: Partial<ChunkOptions>, listedIn: string | null): void {
    const source = rel(file);
    const listed = listedIn === null ? '' : ` (listed in the sources of ${listedIn})`;
    try {
      // Reading a FIFO or a device blocks forever (or never ends): refuse anything but a regular file first.
      // fileProblem's words, as the other CLIs say them ("a FIFO (named pipe), not a regular file").
      const problem = fileProblem(file);
      if (problem !== null) {
        errors.push({ source, error: `${problem.reason}${problem.problem === 'not-a-file' ? '; left out' : ''}${listed}` });
        return;
      }
      // Its name opens every chunk's record id, and chunkDocument refuses a control character
      // there (3b8ba08): in topic-io's words, as chunking-tool says them, and left out like any
      // other bad document. It stopped the whole run as "chunking settings" (exit 2).
      const nameProblem = docNameProblem(basename(file, extname(file)));
      if (nameProblem !== null) {
        errors.push({ source, error: `${nameProblem}${listed}` });
        return;
      }
      const content = decodeDocument(readFileSync(file), source);
      const plan = planArtifact(
        { content, sourceSystem: SOURCE_SYSTEM, sourceId: source, sourceFile: source, topic, ...(req.contentType ? { artifactType: req.contentType } : {}) },
        { chunking },
      );
      plans.push({ head: plan, unitIds: plan.units.map((u) => u.id), load: () => plan });
    } catch (err) {
      // Impossible chunking settings are a config error for every document, not this one's problem.
      if (err instanceof ChunkOptionsError) throw new UsageError(`${source}: chunking settings: ${err.message}`);
      // A file that is there but cannot be read (EACCES, EIO): Node's words named no fix.
      errors.push({ source, error: isFsError(err) ? errnoReason(err) : messageOf(err, source) });
    }
  }
}

/**
 * A topic's topic.yaml, or null when there is none. A FIFO or device there blocked the read
 * forever (readFileSync), and a dangling link was taken for no file at all: it is read as
 * chunking-tool reads it, refused at once when not a regular file, and any failure is a config
 * error naming the file (exit 2), the wording of the workspace config's.
 */
function readTopicYaml(file: string): ChunkyardConfig | null {
  if (!entryExists(file)) return null;
  let bytes: Buffer;
  try {
    bytes = readRegularFile(file);
  } catch (err) {
    throw new UsageError(`cannot read config: ${brokenLink(file) !== null ? `${file}: ${brokenLink(file)}` : describeFsError(err, file)}`);
  }
  return parseConfig(configText(bytes, file), file, { topic: true });
}

/** Whether anything (a dangling symlink included) is at `p`. */
function entryExists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** The topic folder a file belongs to: the nearest ancestor holding golden-reference.md. */
function topicOf(file: string, rel: (p: string) => string): string | null {
  for (let dir = dirname(resolve(file)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, TOPIC_MARKER))) return rel(dir);
    if (dirname(dir) === dir || basename(dir) === '') return null;
  }
}

/** The error's message without a leading "<source>: " (the CLI prefixes it once). */
function messageOf(err: unknown, source: string): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.startsWith(`${source}: `) ? message.slice(source.length + 2) : message;
}
