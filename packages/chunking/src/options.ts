import { docNameControl, visibleDocName } from './doc-name-controls.js';
import { nearestName } from './nearest-name.js';
import type { ChunkOptions, RecordedOptions, ResolvedChunkOptions, StrategyName } from './types.js';

export const STRATEGIES: readonly StrategyName[] = ['semantic', 'token-window', 'hierarchical', 'paginate'];

export const DEFAULT_OPTIONS: ResolvedChunkOptions = {
  docName: 'document',
  contentType: 'doc',
  strategy: 'semantic',
  // Small chunks without overlap, capped at 512 so whole code blocks and tables
  // still fit: with the retrieval routes (small-to-big at query time) this is
  // the configuration the evaluation measured best (issue 17; eval/README.md).
  minTokens: 16,
  targetTokens: 80,
  maxTokens: 512,
  overlapSentences: 0,
  breadcrumbMode: 'conditional',
  parser: 'fast',
  windowTokens: 900,
  windowOverlapTokens: 100,
  singlePieceMaxTokens: 1200,
  sectionTargetTokens: 1700,
  sectionMaxTokens: 2048,
  sectionOverlapTokens: 120,
  snippetTargetTokens: 420,
  snippetMaxTokens: 512,
  snippetOverlapTokens: 80,
  maxConcepts: 8,
  ctxSize: 16384,
  bufSize: 512,
  pageOverlapTokens: 256,
  leadLines: 'extractive',
};

export class ChunkOptionsError extends Error {
  override name = 'ChunkOptionsError';
}

/** The longest option value a message quotes (a caller's megabyte string is cut, not echoed). */
const SHOWN_CHARS = 80;

/** What JSON's quoting leaves raw and a terminal would not show as it is: DEL, C1, and the BMP's format characters (Cf). */
const INVISIBLE = /[\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;

/**
 * An option's value as a message shows it. JSON.stringify said "got null" for NaN and
 * Infinity, threw a TypeError of its own for a BigInt or a cyclic object (so the caller saw that
 * instead of which option was wrong), and quoted a string of any length whole.
 */
export function shownValue(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'bigint') return `${value}n (a BigInt; give a number)`;
  if (typeof value === 'string') {
    const cut = value.length > SHOWN_CHARS ? `${value.slice(0, SHOWN_CHARS)}…` : value;
    // JSON's quoting escapes C0 controls; DEL, C1 and the bidirectional overrides it leaves raw,
    // and a caller may print the message to a terminal as it is.
    const quoted = JSON.stringify(cut).replace(INVISIBLE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
    return `${quoted}${value.length > SHOWN_CHARS ? ` (${value.length} characters)` : ''}`;
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}

/**
 * A source as the functions that take one read it: a string, or a String object's string. A number,
 * null or undefined threw "source.charCodeAt is not a function" (or "Cannot read properties of
 * undefined") from inside the byte-order-mark check, and a Buffer (readFileSync without 'utf8')
 * the same; now the function, the argument and what was given are named.
 */
export function sourceText(source: unknown, fn: string, name = 'source'): string {
  if (typeof source === 'string') return source;
  if (source instanceof String) return source.valueOf();
  if (source instanceof Uint8Array) {
    const kind = typeof Buffer !== 'undefined' && Buffer.isBuffer(source) ? 'a Buffer' : 'a Uint8Array';
    throw new TypeError(`${fn}: ${name} must be a string, got ${kind} of ${source.length} bytes (decode it first, e.g. readFileSync(path, 'utf8'))`);
  }
  throw new TypeError(`${fn}: ${name} must be a string, got ${shownValue(source)}`);
}

/** `options[key]` when an object of its prototype chain below Object.prototype has that key, else undefined. */
function optionValue(options: object, key: string): unknown {
  for (let o: object | null = options; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    if (Object.hasOwn(o, key)) return (options as Record<string, unknown>)[key];
  }
  return undefined;
}

/** Fills defaults and rejects impossible settings with a message naming the option. */
export function resolveOptions(options: Partial<ChunkOptions> = {}): ResolvedChunkOptions {
  // A JavaScript caller may pass null or a number where the options object goes: Object.entries
  // threw "Cannot convert undefined or null to object" for null and took the others as no options.
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ChunkOptionsError(`options must be an object (or left out), got ${shownValue(options)}`);
  }
  // A key chunkDocument does not know was ignored without a word: a misspelt `maxToken: 50`
  // chunked at the default 512, as LangChain's `chunkSize` did. The splitters refused such keys
  // already (interop.ts); own keys only, as a class instance's other members are not options.
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new ChunkOptionsError(unknownOption(key));
  }
  // Each option read by name, as the per-document ones are (`options.sourceFile`): Object.entries
  // saw only own enumerable keys, so a class instance's getters (or an object made with
  // Object.create(defaults)) were ignored without a word, the defaults used, while its
  // sourceFile was taken. Object.prototype's own keys are not read (a polluted prototype).
  const defined: Record<string, unknown> = {};
  for (const k of Object.keys(DEFAULT_OPTIONS)) {
    const v = optionValue(options, k);
    if (v !== undefined) defined[k] = v;
  }
  const o: ResolvedChunkOptions = { ...DEFAULT_OPTIONS, ...defined };
  // The default page overlap is 256 tokens, held to seed 000's 5% of a smaller Nmax.
  if (options.pageOverlapTokens === undefined && Number.isInteger(o.ctxSize) && Number.isInteger(o.bufSize)) {
    o.pageOverlapTokens = Math.max(0, Math.min(DEFAULT_OPTIONS.pageOverlapTokens, Math.floor((o.ctxSize - o.bufSize) / 20)));
  }
  const int = (name: keyof ResolvedChunkOptions, min: number): void => {
    const v = o[name];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
      throw new ChunkOptionsError(`${name} must be an integer >= ${min}, got ${shownValue(v)}`);
    }
  };
  int('minTokens', 0);
  int('targetTokens', 1);
  int('maxTokens', 16);
  int('overlapSentences', 0);
  if (!(o.minTokens <= o.targetTokens && o.targetTokens <= o.maxTokens)) {
    throw new ChunkOptionsError(`need minTokens <= targetTokens <= maxTokens, got ${o.minTokens}/${o.targetTokens}/${o.maxTokens}`);
  }
  if (!['conditional', 'always', 'none'].includes(o.breadcrumbMode)) {
    throw new ChunkOptionsError(`breadcrumbMode must be conditional, always or none, got ${shownValue(o.breadcrumbMode)}`);
  }
  if (!STRATEGIES.includes(o.strategy)) throw new ChunkOptionsError(`strategy must be one of ${STRATEGIES.join(', ')}, got ${shownValue(o.strategy)}`);
  int('windowTokens', 16);
  int('windowOverlapTokens', 0);
  int('singlePieceMaxTokens', 0);
  if (o.windowOverlapTokens >= o.windowTokens) throw new ChunkOptionsError(`windowOverlapTokens must be below windowTokens, got ${o.windowOverlapTokens}/${o.windowTokens}`);
  int('sectionTargetTokens', 1);
  int('sectionMaxTokens', 128);
  int('sectionOverlapTokens', 0);
  int('snippetTargetTokens', 1);
  int('snippetMaxTokens', 128);
  int('snippetOverlapTokens', 0);
  int('maxConcepts', 0);
  if (!(o.sectionTargetTokens <= o.sectionMaxTokens && o.snippetTargetTokens <= o.snippetMaxTokens && o.snippetMaxTokens <= o.sectionMaxTokens)) {
    throw new ChunkOptionsError(
      `need snippetTargetTokens <= snippetMaxTokens <= sectionMaxTokens and sectionTargetTokens <= sectionMaxTokens, got ${o.snippetTargetTokens}/${o.snippetMaxTokens}/${o.sectionTargetTokens}/${o.sectionMaxTokens}`,
    );
  }
  if (o.sectionOverlapTokens * 2 > o.sectionMaxTokens || o.snippetOverlapTokens * 2 > o.snippetMaxTokens) {
    throw new ChunkOptionsError('sectionOverlapTokens and snippetOverlapTokens must be at most half their tier\'s max');
  }
  int('ctxSize', 256);
  int('bufSize', 0);
  int('pageOverlapTokens', 0);
  if (o.ctxSize - o.bufSize < MIN_NMAX) throw new ChunkOptionsError(`ctxSize - bufSize (Nmax) must be at least ${MIN_NMAX}, got ${o.ctxSize - o.bufSize}`);
  if (o.pageOverlapTokens * 20 > o.ctxSize - o.bufSize) {
    throw new ChunkOptionsError(`pageOverlapTokens must be at most 5% of Nmax (${Math.floor((o.ctxSize - o.bufSize) / 20)}), got ${o.pageOverlapTokens}`);
  }
  if (o.leadLines !== 'extractive' && o.leadLines !== 'none') throw new ChunkOptionsError(`leadLines must be extractive or none, got ${shownValue(o.leadLines)}`);
  if (o.parser !== 'fast' && o.parser !== 'remark') throw new ChunkOptionsError(`parser must be fast or remark, got ${shownValue(o.parser)}`);
  if (typeof o.docName !== 'string' || !o.docName) throw new ChunkOptionsError(`docName must be a non-empty string, got ${shownValue(o.docName)}`);
  if (typeof o.contentType !== 'string' || !o.contentType) throw new ChunkOptionsError(`contentType must be a non-empty string, got ${shownValue(o.contentType)}`);
  // The per-document options skip the merge above, so nothing else looks at them before they are
  // used: a fileTitle of 5 threw "options.fileTitle?.trim is not a function", and a sourceFile
  // of 5 went into every record as a number where the types promise a string.
  for (const name of PER_DOCUMENT) {
    const v = (options as Record<string, unknown>)[name];
    if (v !== undefined && typeof v !== 'string') throw new ChunkOptionsError(`${name} must be a string, got ${shownValue(v)}`);
  }
  // It opens every id (`{contentType}:{docName}::ch{n}`): a ":" made ids that split two ways,
  // and a newline or an escape went into every id, manifest and terminal line (s37 probe).
  if (!CONTENT_TYPE.test(o.contentType)) throw new ChunkOptionsError(`contentType must be one word without ":" (it opens every chunk id), got ${shownValue(o.contentType)}`);
  // docName follows it in every id: an escape there cleared a terminal that printed ids, and a
  // newline split an id across lines of a log (the same characters topic-io's docNameProblem
  // refuses in a source's file name). A `::` is kept (`std::vector`): read from the end, an id
  // still splits one way.
  const control = docNameControl(o.docName);
  if (control !== null) throw new ChunkOptionsError(`docName must hold no control character (it goes into every chunk id), got ${shownValue(o.docName)} with ${control}`);
  return o;
}

/**
 * The `sourceFile` a document's records carry (`metadata.sourceFile`, `source.filePath`, a page's
 * `@id` and `isBasedOn`), from options resolveOptions has taken: the caller's, with each control
 * character shown as U+FFFD (visibleDocName), else `<docName>.md`. The caller's was stored raw, so
 * `sourceFile: 'a\u0000b.md'` put the NUL (an ESC, a newline, a bidi control) into every record,
 * manifest and terminal line, where docName is refused and the adapters show them (interop.ts).
 *
 * Shown, not refused as docName is: a sourceFile is a real path or a caller's source id, which on
 * Linux may hold a tab or a newline (a directory's name too), and @chunkyard/store passes its
 * input's sourceFile as given (MCP's ingest_artifact, a source id the agent cannot rename,
 * source-id-control.test.ts): refusing it failed that ingest, and a docs-store topic with such a
 * directory, where the docName it derives is already shown. The extension, and so plain-text
 * detection (`.txt`), is unchanged unless it holds a control itself.
 */
export function sourceFileOf(options: Partial<ChunkOptions>, resolved: ResolvedChunkOptions): string {
  return options.sourceFile === undefined ? `${resolved.docName}.md` : visibleDocName(options.sourceFile);
}

const COMMON = ['docName', 'contentType', 'strategy'] as const;
const OWN_OPTIONS: Record<StrategyName, readonly (keyof ResolvedChunkOptions)[]> = {
  semantic: ['minTokens', 'targetTokens', 'maxTokens', 'overlapSentences', 'breadcrumbMode', 'parser'],
  'token-window': ['windowTokens', 'windowOverlapTokens', 'singlePieceMaxTokens', 'parser'],
  hierarchical: ['sectionTargetTokens', 'sectionMaxTokens', 'sectionOverlapTokens', 'snippetTargetTokens', 'snippetMaxTokens', 'snippetOverlapTokens', 'maxConcepts', 'parser'],
  paginate: ['ctxSize', 'bufSize', 'pageOverlapTokens', 'leadLines', 'parser'],
};

/**
 * The options a strategy actually reads, in a fixed order: what the manifest
 * and every record's `metadata.chunkingOptions` show (the others would only
 * be noise, and would differ between strategies that ignore them).
 */
export function recordedOptions(given: Partial<ChunkOptions>): RecordedOptions {
  // Resolved again (resolved options come back equal): a caller's partial options threw
  // "OWN_OPTIONS[o.strategy] is not iterable" for {}, and listed undefined for unset keys.
  return recordedOf(resolveOptions(given));
}

/** recordedOptions of options resolveOptions gave (chunkDocument's own, resolved once a document). */
export function recordedOf(o: ResolvedChunkOptions): RecordedOptions {
  const out: Record<string, unknown> = {};
  for (const k of [...COMMON, ...OWN_OPTIONS[o.strategy]]) out[k] = o[k];
  return out as RecordedOptions;
}

/** Options that describe one document, not a chunking configuration. */
const PER_DOCUMENT = new Set(['fileTitle', 'fallbackTitle', 'sourceFile', 'sourceId', 'sourceSystem']);

/** Every option resolveOptions takes: the configuration's and the per-document ones. */
const KNOWN_OPTIONS: ReadonlySet<string> = new Set([...Object.keys(DEFAULT_OPTIONS), ...PER_DOCUMENT]);

/** The message for an option key resolveOptions does not know, with the nearest known name when one is close. */
function unknownOption(key: string): string {
  const near = nearestName(key, KNOWN_OPTIONS);
  return `unknown option ${shownValue(key)}${near !== undefined ? ` (did you mean ${near}?)` : ''}; chunkDocument's options are ${[...KNOWN_OPTIONS].join(', ')}`;
}

/** Smallest page size paginate accepts: room for the CT comment, two lead lines and text. */
export const MIN_NMAX = 512;

/**
 * The cache key of a chunking configuration, e.g. `semantic-64-400-512`,
 * `token-window-900-100`, `hierarchical-1700-420`, `paginate-15872`.
 * Settings that change embedText but not the sizes are appended only when
 * they differ from the defaults, so the common key stays short.
 */
export function strategyKey(given: Partial<ChunkOptions>): string {
  // Resolved again: a caller's partial options gave "undefined-undefined-undefined-undefined-
  // oundefined-bundefined" for {}, a key no cache entry has, where chunkDocument says semantic-16-80-512.
  return strategyKeyOf(resolveOptions(given));
}

/** strategyKey of options resolveOptions gave (chunkDocument's own, resolved once a document). */
export function strategyKeyOf(o: ResolvedChunkOptions): string {
  const d = DEFAULT_OPTIONS;
  const extra = (keys: (keyof ResolvedChunkOptions)[], tag: string): string =>
    keys.some((k) => o[k] !== d[k]) ? `-${tag}${keys.map((k) => String(o[k])).join('.')}` : '';
  if (o.strategy === 'token-window') {
    return `token-window-${o.windowTokens}-${o.windowOverlapTokens}${extra(['singlePieceMaxTokens'], 's')}`;
  }
  if (o.strategy === 'hierarchical') {
    return (
      `hierarchical-${o.sectionTargetTokens}-${o.snippetTargetTokens}` +
      extra(['sectionMaxTokens', 'snippetMaxTokens'], 'm') +
      extra(['sectionOverlapTokens', 'snippetOverlapTokens'], 'o') +
      extra(['maxConcepts'], 'c')
    );
  }
  if (o.strategy === 'paginate') {
    return `paginate-${o.ctxSize - o.bufSize}${extra(['pageOverlapTokens'], 'o')}${extra(['leadLines'], 'l')}`;
  }
  let key = `${o.strategy}-${o.minTokens}-${o.targetTokens}-${o.maxTokens}`;
  if (o.overlapSentences !== DEFAULT_OPTIONS.overlapSentences) key += `-o${o.overlapSentences}`;
  if (o.breadcrumbMode !== DEFAULT_OPTIONS.breadcrumbMode) key += `-b${o.breadcrumbMode}`;
  return key;
}

/**
 * A content type as ids hold it: one or more characters, none whitespace, a control character
 * (Cc: U+0000–U+001F, U+007F–U+009F), ":", an invisible format character of the BMP (Cf: soft
 * hyphen, zero-width characters, bidirectional marks and overrides, word joiners, the BOM,
 * interlinear annotation marks; `do\u200bcs` made ids that read as `docs` and matched none of
 * them) or half of a surrogate pair without its other half. Written without `\p{…}` or the `u`
 * flag because docs-store's MCP tool sends it as a JSON Schema pattern, which not every
 * client's regex engine reads so.
 */
export const CONTENT_TYPE =
  /^(?:[^\s:\u0000-\u001f\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])+$/;
