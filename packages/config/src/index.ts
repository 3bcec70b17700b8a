/**
 * @chunkyard/config — `chunkyard.config.yaml` (workspace root) and
 * `<topic>/topic.yaml` (per-topic overrides), validated. Every error names the
 * file, the line and the key, and says what was expected.
 *
 *   const config = parseConfig(text, 'chunkyard.config.yaml');
 *   const topic = mergeTopic(config, parseConfig(topicText, 'docs/x/topic.yaml', { topic: true }));
 *
 * Dependency-free apart from `yaml`: the embeddings section is typed here, not imported
 * from @chunkyard/embeddings, so config can be loaded without the provider clients.
 */
import { isAlias, isCollection, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type YAMLMap } from 'yaml';

export interface ChunkingSettings {
  strategy?: 'semantic' | 'token-window' | 'hierarchical' | 'paginate';
  minTokens?: number;
  targetTokens?: number;
  maxTokens?: number;
  overlapSentences?: number;
  breadcrumbMode?: 'conditional' | 'always' | 'none';
  contentType?: string;
  parser?: 'fast' | 'remark';
  // token-window
  windowTokens?: number;
  windowOverlapTokens?: number;
  singlePieceMaxTokens?: number;
  // hierarchical
  sectionTargetTokens?: number;
  sectionMaxTokens?: number;
  sectionOverlapTokens?: number;
  snippetTargetTokens?: number;
  snippetMaxTokens?: number;
  snippetOverlapTokens?: number;
  maxConcepts?: number;
  // paginate
  ctxSize?: number;
  bufSize?: number;
  pageOverlapTokens?: number;
  leadLines?: 'extractive' | 'none';
}

/**
 * The `embeddings:` section. Same keys and types as @chunkyard/embeddings' EmbeddingSettings,
 * all optional: `createProvider({ provider: 'local', ...config.embeddings })` gives the
 * configured provider, or the default (local) one when nothing is configured.
 */
export interface EmbeddingsConfigSection {
  provider?: 'local' | 'ollama' | 'openai';
  model?: string;
  dimensions?: number;
  /** ollama only; else env OLLAMA_HOST. */
  host?: string;
  /** openai only; else env OPENAI_BASE_URL. */
  baseURL?: string;
  batchSize?: number;
  concurrency?: number;
  timeoutMs?: number;
  maxRetries?: number;
}

/**
 * The `llm:` section (workspace only): the chat model behind seed 000's LLM work, i.e.
 * docs-score's answer metrics and, with `leadLines: true`, paginate's lead-in/lead-out
 * sentences. Typed here, not imported from @chunkyard/llm, for the same reason as embeddings.
 */
export interface LlmConfigSection {
  provider?: 'ollama' | 'openai';
  /** Default per provider: ollama llama3.2, openai gpt-4o-mini. */
  model?: string;
  /** ollama only; else env OLLAMA_HOST. */
  host?: string;
  /** openai only; else env OPENAI_BASE_URL. */
  baseURL?: string;
  /** Sampling temperature; seed 000 asks for 0.2 ("low-temperature mode to maximize determinism"). */
  temperature?: number;
  timeoutMs?: number;
  maxRetries?: number;
  /** paginate: write lead-in/lead-out sentences with this model instead of the extractive ones. */
  leadLines?: boolean;
  /** Where generated text is cached, relative to the config file's folder (default .llm-cache). */
  cacheDir?: string;
}

/** The `spec:` section: TopicSpec settings (workspace, or per topic in topic.yaml). */
export interface SpecSettings {
  /** Cosine similarity a qa-pairs.md question needs to a chunk for its SimHash to be stored on it. */
  promptThreshold?: number;
}

export interface ChunkyardConfig {
  chunking: ChunkingSettings;
  /** Absent when not configured. */
  spec?: SpecSettings;
  /** Workspace config only (one model for every topic, so their vectors can be compared); absent when not configured. */
  embeddings?: EmbeddingsConfigSection;
  /** Workspace config only (the `llm:` section); absent when not configured. */
  llm?: LlmConfigSection;
  /** topic.yaml only: the topic's source documents, relative to the topic folder. */
  sources?: string[];
}

export interface ConfigProblem {
  line: number | null;
  message: string;
}

/**
 * Everything wrong with one config file. `line` and the first line of `message` are the first
 * problem; `problems` holds them, one `file:line: message` line each in `message`, so a user
 * fixes the file in one pass instead of one error per run. Past MAX_PROBLEMS_SHOWN, the last
 * entry (line null) counts the rest: a file of 80,000 bad keys printed 32 MB of stderr, and the
 * first screenful is what a user fixes first.
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly problems: readonly ConfigProblem[];
  constructor(
    readonly file: string,
    readonly line: number | null,
    message: string,
    more: readonly ConfigProblem[] = [],
  ) {
    const at = (l: number | null) => `${file}${l ? `:${l}` : ''}`;
    const all = [{ line, message }, ...more];
    const hidden = all.length - MAX_PROBLEMS_SHOWN;
    const problems = hidden > 0 ? [...all.slice(0, MAX_PROBLEMS_SHOWN), { line: null, message: `… and ${hidden} more problem${hidden === 1 ? '' : 's'}` }] : all;
    super(problems.map((p) => `${at(p.line)}: ${p.message}`).join('\n'));
    this.problems = problems;
  }
}

/** Problems a ConfigError lists; the rest are counted in one more entry. */
const MAX_PROBLEMS_SHOWN = 20;

/** Edit distance, for "did you mean": small strings only (config keys and values). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The known name closest to `given`, when it is close enough to be a typo. */
export function didYouMean(given: string, known: readonly string[]): string | null {
  const limit = Math.max(1, Math.floor(given.length / 3));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const k of known) {
    // The distance is at least the difference in length, so a name that much longer is no typo
    // of k: a 900,000-character key was compared in full with every setting (2 s).
    if (Math.abs(given.length - k.length) > limit) continue;
    const d = distance(given.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best !== null && bestDistance <= limit ? best : null;
}

const hint = (given: string, known: readonly string[]) => {
  const s = didYouMean(given, known);
  return s ? `; did you mean ${s}?` : '';
};

/** A numeric setting's documented range, which the number as written must meet (see writtenInRange). */
interface NumberRule {
  readonly min: number;
  readonly max: number;
  readonly whole: boolean;
}

type Check = ((value: unknown) => string | null) & { readonly range?: NumberRule };

const numberRange = (min: number, max: number, whole: boolean): Check =>
  Object.assign(
    (v: unknown) =>
      typeof v === 'number' && Number.isFinite(v) && (!whole || Number.isInteger(v)) && v >= min && v <= max ? null : `${whole ? 'a whole number' : 'a number'} from ${min} to ${max}`,
    { range: { min, max, whole } },
  );

const intRange = (min: number, max: number): Check => numberRange(min, max, true);

/**
 * The ceiling of every token count: far above any model's context, low enough that a typo such
 * as 1e12 is caught here instead of as a huge allocation or a run that never ends.
 */
export const MAX_TOKENS = 1_000_000;
const int = (min: number, max = MAX_TOKENS): Check => intRange(min, max);
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? null : `one of ${values.join(', ')}`;
const nonEmptyString: Check = (v) => (typeof v === 'string' && v.trim() ? null : 'a non-empty string');
/**
 * A model's name: the tools print it (docs-score's `LLM ollama/<model>`, docs-query's `embedding
 * search with <model>`), and one holding a line break or a control character went out raw,
 * `"m\r\nFAKE: x"` splitting a line in two. No provider names a model so.
 */
const modelName: Check = (v) =>
  nonEmptyString(v) ?? (typeof v === 'string' && /[\p{Cc}\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u.test(v) ? 'a model name without control characters or line breaks' : null);
const httpUrl =
  (example: string): Check =>
  (v) =>
    typeof v === 'string' && /^https?:\/\//i.test(v) && URL.canParse(v) ? null : `an http(s) URL such as ${example}`;

const CHUNKING_KEYS: Record<keyof ChunkingSettings, Check> = {
  strategy: oneOf('semantic', 'token-window', 'hierarchical', 'paginate'),
  minTokens: int(0),
  targetTokens: int(1),
  maxTokens: int(16),
  overlapSentences: int(0, 1_000),
  breadcrumbMode: oneOf('conditional', 'always', 'none'),
  contentType: (v) => nonEmptyString(v) ?? (typeof v === 'string' && /[\s:\p{Cc}]/u.test(v) ? 'one word without ":" (it opens every chunk id)' : null),
  parser: oneOf('fast', 'remark'),
  windowTokens: int(16),
  windowOverlapTokens: int(0),
  singlePieceMaxTokens: int(0),
  sectionTargetTokens: int(1),
  sectionMaxTokens: int(128),
  sectionOverlapTokens: int(0),
  snippetTargetTokens: int(1),
  snippetMaxTokens: int(128),
  snippetOverlapTokens: int(0),
  maxConcepts: int(0, 10_000),
  // paginate needs Nmax = ctxSize - bufSize >= 512 (chunking's MIN_NMAX): a smaller ctxSize never passes.
  ctxSize: int(512),
  bufSize: int(0),
  pageOverlapTokens: int(0),
  leadLines: oneOf('extractive', 'none'),
};

const SPEC_KEYS: Record<keyof SpecSettings, Check> = {
  promptThreshold: numberRange(0, 1, false),
};

const EMBEDDINGS_KEYS: Record<keyof EmbeddingsConfigSection, Check> = {
  provider: oneOf('local', 'ollama', 'openai'),
  model: modelName,
  dimensions: int(8, 65_536),
  host: httpUrl('http://127.0.0.1:11434'),
  baseURL: httpUrl('https://api.openai.com/v1'),
  batchSize: intRange(1, 2048),
  concurrency: intRange(1, 16),
  timeoutMs: int(100, 3_600_000),
  maxRetries: intRange(0, 10),
};

const LLM_KEYS: Record<keyof LlmConfigSection, Check> = {
  provider: oneOf('ollama', 'openai'),
  model: modelName,
  host: httpUrl('http://127.0.0.1:11434'),
  baseURL: httpUrl('https://api.openai.com/v1'),
  temperature: numberRange(0, 2, false),
  timeoutMs: int(100, 3_600_000),
  maxRetries: intRange(0, 10),
  leadLines: (v) => (typeof v === 'boolean' ? null : 'true or false'),
  cacheDir: nonEmptyString,
};

/**
 * A decimal literal's exact value, digits × 10^exponent (digits without leading or trailing
 * zeros, '' for zero), or null for another form (hex, octal, .inf, .nan), which YAML reads
 * exactly or not as a finite number at all. Loops, not /^0+/ and /0+$/: the second is
 * quadratic in a run of zeros not at the end, and a value may be a 1 MiB line.
 */
function exactDecimal(source: string): { negative: boolean; digits: string; exponent: number } | null {
  const m = /^([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(source);
  if (m === null || (m[2] === '' && !m[3])) return null;
  const all = `${m[2]}${m[3] ?? ''}`;
  let start = 0;
  while (start < all.length && all[start] === '0') start++;
  let end = all.length;
  while (end > start && all[end - 1] === '0') end--;
  // An exponent past 15 digits is held as ±1e15: still far beyond every bound, and exact
  // arithmetic below with no BigInt (parsing a 400,000-digit one took 0.2 s).
  const written = Number(m[4] ?? '0');
  const exponent = Math.max(-1e15, Math.min(1e15, written)) - (m[3] ?? '').length + (all.length - end);
  return { negative: m[1] === '-', digits: all.slice(start, end), exponent };
}

/** The sign of (the exact value) - bound, for a whole-number bound. */
function compareExact(x: { negative: boolean; digits: string; exponent: number }, bound: number): number {
  if (x.digits === '') return -Math.sign(bound);
  const sign = x.negative ? -1 : 1;
  if (bound >= 0 !== !x.negative || bound === 0) return sign;
  // Same sign, both nonzero: magnitudes by their count of whole digits, then digit by digit
  // (strings, not BigInt: a 1 MiB literal took half a second to become one).
  const bound10 = String(Math.abs(bound));
  const wholeDigits = x.digits.length + x.exponent;
  let cmp: number;
  if (wholeDigits !== bound10.length) cmp = wholeDigits > bound10.length ? 1 : -1;
  else {
    // Here exponent <= bound10.length: the padding is a few zeros at most.
    const padded = x.exponent > 0 ? `${x.digits}${'0'.repeat(x.exponent)}` : x.digits;
    const head = padded.slice(0, bound10.length);
    cmp = head > bound10 ? 1 : head < bound10 ? -1 : padded.length > bound10.length ? 1 : 0;
  }
  return sign * cmp;
}

/**
 * Whether a number as written (its YAML source) meets its rule. YAML reads 1e-400 as 0 and
 * 16.0000000000000001 as 16, and the check of the value took them: minTokens: 1e-400 was
 * minTokens 0, promptThreshold: -1e-400 was accepted. A whole-number setting needs a literal
 * that is whole; any setting, a literal inside its range, not only a value rounded into it.
 */
function writtenInRange(source: string, rule: NumberRule): boolean {
  const x = exactDecimal(source);
  if (x === null) return true;
  if (rule.whole && x.digits !== '' && x.exponent < 0) return false;
  return compareExact(x, rule.min) >= 0 && compareExact(x, rule.max) <= 0;
}

/** The YAML source of a scalar, or of the scalar an alias names. */
function scalarSource(node: unknown, doc: Document): string | null {
  const target = isAlias(node) ? node.resolve(doc) : node;
  const source = isScalar(target) ? (target as { source?: unknown }).source : undefined;
  return typeof source === 'string' ? source : null;
}

/**
 * The value as the user wrote it: JSON.stringify turns 1e309 (Infinity) and .nan into `null`,
 * which is not what was given. A scalar keeps its source text; anything else is shown as JSON.
 */
function shown(node: unknown, value: unknown): string {
  return clip(shownWhole(node, value));
}

/** Longest value a message repeats: a 100 KB string or a nested list was echoed whole, one line of it. */
const SHOWN_MAX = 80;

/**
 * `text` cut to SHOWN_MAX characters, saying how long it was, with what a terminal would not
 * show as written as \u200b-style escapes (JSON's form, as qa-pairs and keywords quote text):
 * control characters, bidi controls and marks, invisible characters (soft hyphen, zero-width
 * space and joiners, word joiner, BOM), line separators and lone surrogates. A key or value
 * holding a zero-width space was quoted raw, `chunking.maxTokens: unknown setting; did you
 * mean maxTokens?`, naming a key that looked right; a right-to-left mark reordered the line.
 */
function clip(text: string): string {
  if (text.length <= SHOWN_MAX) return escapeShown(text);
  // Not half a surrogate pair, which would then read as a lone one.
  const cut = /[\ud800-\udbff]/.test(text[SHOWN_MAX - 1]!) && /[\udc00-\udfff]/.test(text[SHOWN_MAX]!) ? SHOWN_MAX - 1 : SHOWN_MAX;
  return `${escapeShown(text.slice(0, cut))}… (${text.length} characters)`;
}

// eslint-disable-next-line no-control-regex
const SHOWN_ESCAPED = /[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeShown(text: string): string {
  return text.replace(SHOWN_ESCAPED, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function shownWhole(node: unknown, value: unknown): string {
  // An alias of a list or mapping: its name, never its expansion.
  if (isAlias(node) && value === undefined) return `*${node.source}, an alias of a list or mapping`;
  if (isScalar(node) && typeof (node as { source?: unknown }).source === 'string') {
    const source = (node as unknown as { source: string }).source;
    // `maxTokens:` with nothing after it: the message ended "got " (issue 15 probe).
    if (value === null && source === '') return 'no value';
    return typeof value === 'string' ? JSON.stringify(value) : source;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return JSON.stringify(value) ?? String(value);
}

/**
 * The numeric settings of a section and their ranges (`maxTokens 16..1000000`), taken from the
 * checks themselves (each answers NaN with what it expects), so --help and the validation
 * cannot drift apart.
 */
export function numericRanges(section: 'chunking' | 'spec' | 'embeddings' | 'llm'): string[] {
  const checks: Record<string, Check> = section === 'chunking' ? CHUNKING_KEYS : section === 'spec' ? SPEC_KEYS : section === 'llm' ? LLM_KEYS : EMBEDDINGS_KEYS;
  const out: string[] = [];
  for (const [key, check] of Object.entries(checks)) {
    const m = /^an? (?:whole number|number) from (\S+) to (\S+)$/.exec(check(Number.NaN) ?? '');
    if (m) out.push(`${key} ${m[1]}..${m[2]}`);
  }
  return out;
}

/** `numericRanges` wrapped for a --help text: comma-separated, lines of at most `width`. */
export function rangesHelp(section: 'chunking' | 'spec' | 'embeddings' | 'llm', indent: string, width = 88): string {
  const lines: string[] = [];
  let line = '';
  for (const item of numericRanges(section)) {
    const next = line ? `${line}, ${item}` : item;
    if (indent.length + next.length > width && line) {
      lines.push(`${indent}${line},`);
      line = item;
    } else line = next;
  }
  if (line) lines.push(`${indent}${line}`);
  return lines.join('\n');
}

/**
 * A YAML parse error as one line a user can act on. The parser's own text for a second
 * document ends "please use YAML.parseAllDocuments()", advice about its API, not the file.
 *
 * The parser also appends the text it refused after a colon (`Unexpected scalar token in YAML
 * stream: "…"`, `Not a YAML token: …`, `Block scalar header includes extra characters: …`).
 * A config or topic.yaml may be a link a docs tree planted to a credentials file, so that part
 * is dropped: the caller names the file and line, and the words before the colon say what is
 * wrong. (A colon with a space before it is yaml's own `:` indicator, as in "Missing , or :
 * between flow map items", and is kept.)
 */
export function yamlErrorText(err: { code: string; message: string }): string {
  if (err.code === 'MULTIPLE_DOCS') return 'not valid YAML: a second document starts here (a --- line); the file must hold one document, so remove it';
  // The parser recurses once per level and reports its own stack overflow as the error.
  if (/Maximum call stack size exceeded/.test(err.message)) return 'not valid YAML: nested too deeply to read (thousands of levels); a config needs two';
  return `not valid YAML: ${withoutQuotedSource(err.message.split('\n')[0]!)}`;
}

/**
 * `message.replace(/(?<=\S): .*$/, '')` in linear time: the message cut at the first ": "
 * after a non-space on its last line (`.` matches no line terminator, so a quote holding a CR
 * is kept, as it was). That pattern backtracked quadratically over a line of ": " pairs
 * followed by a CR, which yaml quotes from the file ("Not a YAML token: …"; issue 15).
 */
export function withoutQuotedSource(message: string): string {
  const lastBreak = Math.max(message.lastIndexOf('\n'), message.lastIndexOf('\r'), message.lastIndexOf('\u2028'), message.lastIndexOf('\u2029'));
  for (let at = message.indexOf(': ', Math.max(lastBreak + 1, 1)); at >= 0; at = message.indexOf(': ', at + 1)) {
    if (/\S/.test(message[at - 1]!)) return message.slice(0, at);
  }
  return message;
}

/** A key given twice in one mapping: its path (`queries[3].topic`) and where each copy starts. */
export interface DuplicateKey {
  path: string;
  /** Offset of the second copy in the text parsed. */
  offset: number;
  /** Offset of the first copy. */
  firstOffset: number;
}

/**
 * The first key given twice in one mapping of `doc`, in linear time; null when none is. For a
 * document parsed with `uniqueKeys: false`: yaml's own check compares each key with every
 * earlier key of its mapping, so 40,000 keys took 12–22 s (80,000: 72 s), where a Set per
 * mapping takes milliseconds. Aliases are not followed (one mapping is never checked twice,
 * and a "billion laughs" file costs nothing). The walk is iterative, so a document as deep as
 * the parser accepts never overflows the stack here. The path is built only for the key found.
 */
export function firstDuplicateKey(doc: Document): DuplicateKey | null {
  interface Step {
    node: unknown;
    parent: Step | null;
    /** How the parent reaches this node: `.key` or `[i]`. */
    label: string;
  }
  const keyName = (key: unknown): string => (isScalar(key) ? String(key.value) : String(key));
  const pathOf = (step: Step | null, last: string): string => {
    const parts = [last];
    for (let s = step; s; s = s.parent) parts.push(s.label);
    return parts.reverse().join('').replace(/^\./, '');
  };
  const stack: Step[] = [{ node: doc.contents, parent: null, label: '' }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    const { node } = step;
    if (isMap(node)) {
      const seen = new Map<string, number>();
      for (const pair of node.items) {
        const name = keyName(pair.key);
        const at = (pair.key as Node | null)?.range?.[0] ?? 0;
        const first = seen.get(name);
        if (first !== undefined) return { path: pathOf(step, `.${name}`), offset: at, firstOffset: first };
        seen.set(name, at);
        if (isCollection(pair.key)) stack.push({ node: pair.key, parent: step, label: `.${name}` });
        if (isCollection(pair.value)) stack.push({ node: pair.value, parent: step, label: `.${name}` });
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        // A single pair in a flow sequence (`[a: 1]`) is a mapping of one key: nothing to compare.
        if (isPair(item)) {
          if (isCollection(item.value)) stack.push({ node: item.value, parent: step, label: `[${i}].${keyName(item.key)}` });
        } else if (isCollection(item)) stack.push({ node: item, parent: step, label: `[${i}]` });
      });
    }
  }
  return null;
}

/** The message for a key given twice, worded as parseConfig words it. */
export function duplicateKeyText(path: string, firstLine: number | null): string {
  return `not valid YAML: ${path} is set twice${firstLine ? ` (first on line ${firstLine})` : ''}; keep one`;
}

export interface ParseOptions {
  /** Parsing a topic.yaml: also accepts `sources`, and refuses `embeddings` (workspace-wide only). */
  topic?: boolean;
}

/**
 * The folders a build writes inside a topic folder. A source listed inside one passed here, and
 * chunking-tool then said "--out topic/_chunks: holds the source …" about an option never given.
 */
const GENERATED_FOLDERS = { _chunks: "chunking-tool's output folder", _keywords: "keyword-extractor's output folder" } as const;

/** What is wrong with `v` as an entry of topic.yaml's `sources`, or null when it is a name the tools take. */
function sourceNameProblem(v: unknown): string | null {
  if (typeof v !== 'string') return `(${v === null ? 'empty' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'a mapping' : clip(JSON.stringify(v))}) is not a file name`;
  if (v === '') return 'is an empty name';
  if (v.includes('..')) return `(${clip(JSON.stringify(v))}) holds "..", which may lead out of the topic folder`;
  // The tools join every entry to the topic folder: "/home/me/a.md" was looked for as
  // topic/home/me/a.md ("no such file"), where the fix was the name inside the folder.
  if (/^(?:[\\/]|[A-Za-z]:[\\/])/.test(v)) return `(${clip(JSON.stringify(v))}) is an absolute path; give the name inside the topic folder`;
  // No file name holds a NUL, and one with a line break splits every line that names it; each
  // passed here and was "no such file" at best.
  if (/[\0\n\r]/.test(v)) return `(${clip(JSON.stringify(v))}) holds a NUL or a line break; rename the file without it`;
  if (!/\.(md|markdown|txt)$/.test(v)) return `(${clip(JSON.stringify(v))}) is not a .md, .markdown or .txt file`;
  return null;
}

/** The generated folder a source path (relative to its topic folder) lies in, if any: only at the top, as the tools write them. */
function generatedFolderOf(source: string): keyof typeof GENERATED_FOLDERS | undefined {
  const first = source.split(/[\\/]+/).find((part) => part !== '.' && part !== '');
  return first !== undefined && Object.hasOwn(GENERATED_FOLDERS, first) ? (first as keyof typeof GENERATED_FOLDERS) : undefined;
}

/**
 * A setting's value as JavaScript. An alias (`maxTokens: *size`) is valid YAML and reads as the
 * scalar it names; an alias of a collection is left undefined (never expanded: nested aliases
 * are how a "billion laughs" file grows exponentially) and reported as the wrong type.
 */
function valueOf(node: Node | null, doc: Document): unknown {
  if (isAlias(node)) {
    const target = node.resolve(doc);
    return isScalar(target) ? target.value : undefined;
  }
  return isScalar(node) ? node.value : node?.toJSON();
}

/**
 * A mapping key as text. Under `%YAML 1.1` the parser reads `<<` as a merge key, a Symbol, and
 * messages named it "chunking.Symbol(<<)".
 */
function keyText(key: unknown): string {
  const value = isScalar(key) ? key.value : key;
  return typeof value === 'symbol' ? (value.description ?? String(value)) : String(value);
}

/**
 * Merge keys (`<<: *defaults`) are YAML 1.1's, not 1.2's, and were an unknown setting named `<<`
 * (or `Symbol(<<)`): the user was left to guess that the settings were never merged.
 */
const MERGE_KEY = 'merge keys (<<: *name) are not read in a config; write the settings out';

/** An alias standing for a section or a list: never expanded, so that anchor "bombs" cost nothing. */
const ALIAS_NOT_EXPANDED = (name: string): string =>
  `*${clip(name)} is an alias of a list or mapping, which a config does not expand (so that an anchor "bomb" costs nothing); write the settings out here`;

const UNKNOWN_TAG = 'not valid YAML: a tag (!name) that a config does not read; remove it (a setting is a plain number, string, or true or false)';

/**
 * The largest config text parsed. A config holds a few dozen settings; parsing and checking
 * cost about 4 s per MB of keys, so a 7 MB file of them took 37 s and 900 MB.
 */
export const MAX_CONFIG_CHARS = 1024 * 1024;

export function parseConfig(text: string, file: string, opts: ParseOptions = {}): ChunkyardConfig {
  if (text.length > MAX_CONFIG_CHARS) {
    const mib = (text.length / (1024 * 1024)).toFixed(1);
    throw new ConfigError(file, null, `${mib} MiB is larger than a config file can be (1 MiB); a config holds a few settings, so check that this is the right file`);
  }
  // YAML 1.2 takes a lone CR as a line break (b-break), as old Mac editors save lines; the yaml
  // library breaks lines only at LF, so a CR-only topic.yaml was one line, refused with "Nested
  // mappings are not allowed in compact mappings" (issue 15 probe). One character for one, so
  // offsets and line numbers stay the file's own; a CRLF is left whole.
  if (text.includes('\r')) text = text.replace(/\r(?!\n)/g, '\n');
  const lineCounter = new LineCounter();
  // uniqueKeys off: the parser compares each key with every earlier key of its map, which took
  // 72 s for 80,000 keys. Duplicates are found below with a Set, where the keys are read.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
  const lineOfNode = (node: Node | null | undefined): number | null =>
    node?.range ? lineCounter.linePos(node.range[0]).line : null;
  // A tag the parser does not know (`!foo 100`, `!!js/function`) is only a warning to it, and
  // the value read as the string it tags: `maxTokens: !foo 100` was "expected a whole number,
  // got "100"", and `contentType: !foo docs` was taken as "docs" without a word.
  const unknownTags = doc.warnings.filter((w) => w.code === 'TAG_RESOLVE_FAILED');
  if (doc.errors.length > 0 || unknownTags.length > 0) {
    // yaml reports each place of one mistake ('a: b: c d: e' twice), and the text without its
    // column reads the same: a line and message are said once.
    const seen = new Set<string>();
    const [first, ...rest] = [...doc.errors, ...unknownTags]
      .sort((a, b) => a.pos[0] - b.pos[0])
      .map((err) => ({ line: lineCounter.linePos(err.pos[0]).line, message: err.code === 'TAG_RESOLVE_FAILED' ? UNKNOWN_TAG : yamlErrorText(err) }))
      .filter(({ line, message }) => !seen.has(`${line}:${message}`) && seen.add(`${line}:${message}`));
    throw new ConfigError(file, first!.line, first!.message, rest);
  }
  const config: ChunkyardConfig = { chunking: {} };
  // Every problem is collected and reported together at the end.
  const problems: ConfigProblem[] = [];
  const fail = (line: number | null, message: string) => void problems.push({ line, message });
  /** A `name:` mapping whose keys are all in `checks`; records each key's line in `lines`. */
  const parseSection = (value: Node | null, name: string, checks: Record<string, Check>, line: number | null, lines: Record<string, number | null>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (!isMap(value)) {
      // `spec: *defaults` was "expected a mapping of spec settings", about a mapping that was
      // there behind the alias (s58 probe): say that aliases of a mapping are not expanded.
      fail(line, isAlias(value) ? `${name}: ${ALIAS_NOT_EXPANDED(value.source)}` : `${name}: expected a mapping of ${name} settings`);
      return out;
    }
    const seen = new Map<string, number | null>();
    for (const item of (value as YAMLMap).items) {
      const setting = keyText(item.key);
      const itemLine = lineOfNode(item.key as Node);
      if (setTwice(seen, setting, itemLine, `${name}.${clip(setting)}`)) continue;
      // Own keys only: `constructor`, `toString` or `__proto__` found Object.prototype's
      // members, and parseConfig threw a TypeError ("check is not a function") for them.
      const check = Object.hasOwn(checks, setting) ? checks[setting] : undefined;
      if (!check) {
        if (setting === '<<') {
          fail(itemLine, `${name}.<<: ${MERGE_KEY}`);
          continue;
        }
        // Clipped: a key may be a 900,000-character string or a list (`? [...]`), and was echoed whole.
        fail(itemLine, `${name}.${clip(setting)}: unknown setting${hint(setting, Object.keys(checks))} (known: ${Object.keys(checks).join(', ')})`);
        continue;
      }
      let v = valueOf(item.value as Node | null, doc);
      let expected = check(v);
      if (expected === null && typeof v === 'number' && check.range) {
        const source = scalarSource(item.value, doc);
        if (source !== null && !writtenInRange(source, check.range)) expected = check(Number.NaN);
        // `-0` is 0: no setting means anything else by it, and it printed as "-0" in places.
        else v += 0;
      }
      if (expected) {
        const choices = expected.startsWith('one of ') ? expected.slice('one of '.length).split(', ') : [];
        fail(itemLine, `${name}.${setting}: expected ${expected}, got ${shown(item.value, v)}${typeof v === 'string' ? hint(v, choices) : ''}`);
        continue;
      }
      out[setting] = v;
      lines[setting] = itemLine;
    }
    return out;
  };
  /** Line of each chunking setting, for the cross-check below. */
  const keyLines: Record<string, number | null> = {};
  // An empty file, only comments, or an empty document (`---`, `~`): the defaults.
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) return config;
  if (!isMap(doc.contents)) throw new ConfigError(file, lineOfNode(doc.contents), 'expected a mapping of settings at the top level');
  const top = doc.contents as YAMLMap;
  const seenTop = new Map<string, number | null>();
  /** True (and reported) when `key` was already given in this map. */
  const setTwice = (seen: Map<string, number | null>, key: string, line: number | null, what: string): boolean => {
    if (!seen.has(key)) {
      seen.set(key, line);
      return false;
    }
    const first = seen.get(key);
    fail(line, duplicateKeyText(what, first ?? null));
    return true;
  };
  for (const pair of top.items) {
    const key = keyText(pair.key);
    const line = lineOfNode(pair.key as Node);
    if (setTwice(seenTop, key, line, clip(key))) continue;
    if (key === 'chunking') {
      Object.assign(config.chunking, parseSection(pair.value as Node | null, 'chunking', CHUNKING_KEYS, line, keyLines));
    } else if (key === 'spec') {
      config.spec = parseSection(pair.value as Node | null, 'spec', SPEC_KEYS, line, {}) as SpecSettings;
    } else if (key === 'embeddings' && !opts.topic) {
      config.embeddings = parseSection(pair.value as Node | null, 'embeddings', EMBEDDINGS_KEYS, line, {}) as EmbeddingsConfigSection;
    } else if (key === 'llm' && !opts.topic) {
      const llm = parseSection(pair.value as Node | null, 'llm', LLM_KEYS, line, {}) as LlmConfigSection;
      // Without a provider the section configures nothing: say so instead of silently running offline.
      if (isMap(pair.value) && llm.provider === undefined && !(pair.value as YAMLMap).items.some((i) => isScalar(i.key) && i.key.value === 'provider')) {
        fail(line, 'llm.provider: missing; expected one of ollama, openai (remove the llm: section to run without an LLM)');
      }
      config.llm = llm;
    } else if (key === 'sources' && opts.topic) {
      const value: unknown = (pair.value as Node | null)?.toJSON();
      const problems = Array.isArray(value) ? value.map(sourceNameProblem) : [];
      const bad = problems.findIndex((problem) => problem !== null);
      if (isAlias(pair.value)) {
        fail(line, `sources: ${ALIAS_NOT_EXPANDED(pair.value.source)}`);
      } else if (!Array.isArray(value) || value.length === 0) {
        fail(line, 'sources: expected a non-empty list of .md file names inside the topic folder');
      } else if (bad >= 0) {
        // Which entry, and what is wrong with it: "expected a non-empty list" alone left the
        // author to find the one bad name in a long list (helper-33's probe, issue 15).
        fail(line, `sources: entry ${bad + 1} ${problems[bad]}; list the topic's .md, .markdown or .txt files by their names inside the topic folder`);
      } else {
        // A file listed twice was read twice by keyword-extractor (its words counted double) and
        // refused by chunking-tool alone; "./b.md" names the same file as "b.md".
        const names = value as string[];
        const seen = new Set<string>();
        const twice = names.find((n) => {
          const key = n.split(/[\\/]+/).filter((part) => part !== '.' && part !== '').join('/');
          if (seen.has(key)) return true;
          seen.add(key);
          return false;
        });
        const inGenerated = names.find((n) => generatedFolderOf(n) !== undefined);
        if (twice !== undefined) fail(line, `sources: ${clip(JSON.stringify(twice))} names a file listed before it; list each file once`);
        else if (inGenerated !== undefined) {
          const folder = generatedFolderOf(inGenerated)!;
          fail(line, `sources: ${clip(JSON.stringify(inGenerated))} is inside ${folder}/, ${GENERATED_FOLDERS[folder]}, which every build rewrites; a source cannot be an output: keep it outside ${folder}/`);
        } else config.sources = names;
      }
    } else if (key === 'embeddings') {
      fail(line, 'embeddings: set in chunkyard.config.yaml only, so that every topic uses one model and their vectors can be compared');
    } else if (key === 'llm') {
      fail(line, 'llm: set in chunkyard.config.yaml only (one model for the whole workspace)');
    } else if (key === '<<') {
      fail(line, `<<: ${MERGE_KEY}`);
    } else {
      const known = opts.topic ? ['chunking', 'spec', 'sources'] : ['chunking', 'embeddings', 'llm', 'spec'];
      fail(line, `${clip(key)}: unknown key${hint(key, known)} (known: ${known.join(', ')})`);
    }
  }
  const c = config.chunking;
  const min = c.minTokens;
  const target = c.targetTokens;
  const max = c.maxTokens;
  if (
    (min !== undefined && target !== undefined && min > target) ||
    (target !== undefined && max !== undefined && target > max) ||
    (min !== undefined && max !== undefined && min > max)
  ) {
    // With targetTokens set every violation involves it, so that is the line to point at.
    fail(keyLines.targetTokens ?? keyLines.minTokens ?? null, `chunking: need minTokens <= targetTokens <= maxTokens, got ${min}/${target}/${max}`);
  }
  // Pairs that contradict each other within one file; the second key's line is named.
  const pairs: [keyof ChunkingSettings, keyof ChunkingSettings, string][] = [
    ['windowOverlapTokens', 'windowTokens', 'windowOverlapTokens < windowTokens'],
    ['sectionTargetTokens', 'sectionMaxTokens', 'sectionTargetTokens <= sectionMaxTokens'],
    ['snippetTargetTokens', 'snippetMaxTokens', 'snippetTargetTokens <= snippetMaxTokens'],
    ['snippetMaxTokens', 'sectionMaxTokens', 'snippetMaxTokens <= sectionMaxTokens'],
  ];
  for (const [a, b, rule] of pairs) {
    const x = c[a];
    const y = c[b];
    if (typeof x !== 'number' || typeof y !== 'number') continue;
    const ok = rule.includes('<=') ? x <= y : x < y;
    if (!ok) fail(keyLines[b] ?? keyLines[a] ?? null, `chunking.${b}: need ${rule}, got ${a} ${x} and ${b} ${y}`);
  }
  // A page holds Nmax = ctxSize - bufSize tokens, and paginate needs at least 512 of them.
  if (typeof c.ctxSize === 'number' && typeof c.bufSize === 'number' && c.ctxSize - c.bufSize < 512) {
    fail(keyLines.ctxSize ?? keyLines.bufSize ?? null, `chunking.ctxSize: need ctxSize - bufSize >= 512 (a page's Nmax), got ctxSize ${c.ctxSize} and bufSize ${c.bufSize}`);
  }
  if (problems.length > 0) throw new ConfigError(file, problems[0]!.line, problems[0]!.message, problems.slice(1));
  return config;
}

/** A topic's settings: the workspace config with the topic's overrides on top. */
export function mergeTopic(base: ChunkyardConfig, topic: ChunkyardConfig | null): ChunkyardConfig {
  if (!topic) return base;
  return {
    chunking: { ...base.chunking, ...topic.chunking },
    ...(base.embeddings ? { embeddings: base.embeddings } : {}),
    ...(base.llm ? { llm: base.llm } : {}),
    ...(base.spec || topic.spec ? { spec: { ...base.spec, ...topic.spec } } : {}),
    ...(topic.sources ? { sources: topic.sources } : {}),
  };
}
