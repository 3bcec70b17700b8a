/**
 * node:util parseArgs reads `-n -1` as option `-n` followed by something that looks like an
 * option, and in strict mode refuses it with "Option '-n' argument is ambiguous ... use
 * '--n=-XYZ'": a user who typed a negative number gets a lesson in parseArgs syntax instead of
 * the tool's own range message. joinNegativeValues rewrites such pairs into the inline form
 * parseArgs accepts, so the value reaches the tool's own check.
 */

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { escapeControl, oneLine } from './index.js';

/** The part of a parseArgs options table this needs (a parseArgs `options` object is one). */
export type ArgOptions = Readonly<Record<string, { readonly type: 'string' | 'boolean'; readonly short?: string }>>;

/**
 * A token that is a negative number: `-1`, `-0.5`, `-.5`, `-1e3`, and anything else a minus
 * then a digit starts (`-1x` is a bad number for the tool to refuse, never an option), plus
 * `-Infinity` and `-NaN`, which Number() reads.
 */
const NEGATIVE = /^-(?:\.?\d|Infinity$|NaN$)/;

/** True when `token` is a negative number and not one of `options`' short flags (none is a digit today). */
function isNegativeValue(token: string, shorts: ReadonlySet<string>): boolean {
  return NEGATIVE.test(token) && !shorts.has(token.charAt(1));
}

/**
 * `argv` with every value-taking option that is followed by a negative number joined to it:
 * `--n -1` → `--n=-1`, `-n -1` → `-n-1` (parseArgs's short form with its value attached, which
 * also holds for a short group such as `-jn -1`). What parseArgs takes as an option's value
 * (the token after a value-taking option) is skipped like parseArgs skips it, so a value that
 * merely looks like an option is not read as one; `--` ends the options, and everything after
 * it is left alone. Boolean options never take the next token, and an argv with no such pair
 * comes back unchanged (a copy).
 */
export function joinNegativeValues(argv: readonly string[], options: ArgOptions): string[] {
  const byShort = new Map<string, string>();
  for (const [name, opt] of Object.entries(options)) if (opt.short !== undefined) byShort.set(opt.short, name);
  const shorts = new Set(byShort.keys());
  const takesValue = (name: string | undefined): boolean => name !== undefined && Object.hasOwn(options, name) && options[name]!.type === 'string';
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    out.push(token);
    if (token === '--') {
      out.push(...argv.slice(i + 1));
      break;
    }
    if (!valueFollows(token, takesValue, byShort) || i + 1 >= argv.length) continue;
    // parseArgs takes the next token as this option's value whatever it looks like.
    const next = argv[++i]!;
    if (isNegativeValue(next, shorts)) out[out.length - 1] = token.startsWith('--') ? `${token}=${next}` : `${token}${next}`;
    else out.push(next);
  }
  return out;
}

/** True when parseArgs would take the token after `token` as an option's value. */
function valueFollows(token: string, takesValue: (name: string | undefined) => boolean, byShort: ReadonlyMap<string, string>): boolean {
  if (token.startsWith('--')) return !token.includes('=') && takesValue(token.slice(2));
  if (!token.startsWith('-') || token.length < 2) return false;
  // `-x` or a short group `-abx`: booleans up to the last letter, which takes the next token
  // when it is a value-taking option. A value-taking letter before the end takes the rest of
  // the group as its value (`-nfoo`), so nothing follows.
  for (let j = 1; j < token.length; j++) {
    const name = byShort.get(token.charAt(j));
    if (name === undefined) return false;
    if (takesValue(name)) return j === token.length - 1;
  }
  return false;
}

/**
 * The first option or argument given as an empty string, as a usage message, or null. An
 * empty path resolves to the current folder, so `--out ''` wrote a topic's chunk files into
 * it, `--cache-dir ''` the embedding cache, and `docs-score ''` scored it; an empty name or
 * filter matched nothing without a word. Every CLI refuses one (exit 2). `numeric` names the
 * options left to numberOption, whose message for "" names the range as for any bad number.
 */
export function emptyArgument(values: Readonly<Record<string, unknown>>, positionals: readonly string[], numeric: readonly string[] = []): string | null {
  for (const [name, v] of Object.entries(values)) {
    if (numeric.includes(name)) continue;
    if (v === '' || (Array.isArray(v) && v.includes(''))) return `--${name}: empty; give a value, or leave --${name} out`;
  }
  return positionals.includes('') ? 'an empty argument (""); give a path' : null;
}

/**
 * A value as a message quotes it: JSON-quoted, terminal-safe, and cut after `max` characters
 * (its length said) so a huge value cannot flood the terminal: a pasted 80 KB query came back
 * whole in "no results for …".
 */
export function quoteArgument(v: string, max = 40): string {
  const q = escapeControl(JSON.stringify(v.length > max ? `${v.slice(0, max)}…` : v));
  return v.length > max ? `${q} (${v.length} characters)` : q;
}

/** The documented range of a numeric option: whole numbers unless `whole` is false. */
export interface NumberRange {
  readonly min: number;
  readonly max: number;
  /** False for a decimal (a threshold, a fraction); whole numbers otherwise. */
  readonly whole?: boolean;
}

/** Digits only, or a plain decimal: Number() would also take "1e9", "0x10", " 5", "Infinity" and "" (as 0). */
const WHOLE = /^-?\d+$/;
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * The problem with `raw` as a value of option `label` (`--limit`, or `-n/--n` for one the user
 * may have typed short), or null when it is a number in `range`. Every CLI words a bad number
 * the same way: the option, its range and what was given,
 * `--limit: expected a whole number from 1 to 100, got "1e9"`. Each CLI used to have its own
 * ("expected an integer 0..N", "must be a whole number from A to B", "must be a number from").
 */
export function numberProblem(label: string, raw: string, range: NumberRange): string | null {
  const whole = range.whole !== false;
  // A minus sign only where the range has negatives: "-0" is no way to write 0 for a count.
  const n = (whole ? WHOLE : DECIMAL).test(raw) && (range.min < 0 || !raw.startsWith('-')) ? Number(raw) : NaN;
  if (n >= range.min && n <= range.max) return null;
  return `${label}: expected ${whole ? 'a whole number' : 'a number'} from ${range.min} to ${range.max}, got ${quoteArgument(raw)}`;
}

/**
 * `raw` as a number in `range`; otherwise throws `usageError` (each CLI's own usage error
 * class, so its exit 2 path reports it) with numberProblem's message.
 */
export function numberOption(label: string, raw: string, range: NumberRange, usageError: new (message: string) => Error = RangeError): number {
  const problem = numberProblem(label, raw, range);
  if (problem !== null) throw new usageError(problem);
  // `-0` is 0: a range that allows it prints and stores no minus sign.
  return Number(raw) + 0;
}

/**
 * The one option `name` (as typed, without its dashes) was probably meant to be, or null:
 * closest first, a tie among the closest names none.
 *
 *   1. a typo: within 2 edits, fewer for short names (`quey` → query), in any case (`JSON`)
 *   2. the start of a name (`max-dist` → max-distance), 3 letters or more
 *   3. a name and more after it (`cache-directory` → cache-dir, `jsonl` → json), the name 3
 *      letters or more; the longest such name wins (`cache-directory` is cache-dir, not cache)
 *
 * The third was missing: `--cache-directory` (the longer spelling of --cache-dir) got only
 * the advice for a path that starts with "-".
 */
function nearestOption(name: string, names: readonly string[]): string | null {
  const given = name.toLowerCase();
  let best: string[] = [];
  let bestRank = Infinity;
  for (const n of names) {
    if (n.length <= 1) continue;
    const d = editDistance(given, n);
    let rank = Infinity;
    if (d <= Math.min(2, Math.floor(n.length / 3))) rank = d;
    else if (given.length >= 3 && n.startsWith(given)) rank = 3;
    // Past 3 and 4, the fewer letters after the name, the nearer.
    else if (n.length >= 3 && given.startsWith(n)) rank = 4 + (given.length - n.length) / (given.length + 1);
    if (rank < bestRank) [best, bestRank] = [[n], rank];
    else if (rank === bestRank && rank !== Infinity) best.push(n);
  }
  return best.length === 1 ? best[0]! : null;
}

/**
 * parseArgs's unknown-option error, with the option the user probably meant when one is near
 * (`--quey` → --query, `--JSON` → --json, `--verbos` → --verbose): parseArgs said only to put a
 * path that starts with "-" after "--", which for a typo made it a path. Nothing near: that
 * advice, in shortInGroup's words: parseArgs's own left a quote open ("as in '-- "--bogus"").
 */
function nearOption(err: unknown, names: readonly string[]): unknown {
  if ((err as NodeJS.ErrnoException)?.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return err;
  const m = /^Unknown option '(--([^']*))'/.exec((err as Error).message);
  if (m === null) return err;
  const near = nearestOption(m[2]!, names);
  if (near !== null) {
    (err as Error).message = `Unknown option '${m[1]}'; did you mean --${near}?`;
    return err;
  }
  const shown = escapeControl(JSON.stringify(m[1]!));
  (err as Error).message = `Unknown option '${oneLine(m[1]!)}'; a path that starts with "-" goes after "--" (as in -- ${shown}) or as ${escapeControl(JSON.stringify(`./${m[1]!}`))}`;
  return err;
}

/** The arguments parseArgs reads as options: those before `--`. */
function optionPart(args: readonly string[]): readonly string[] {
  const end = args.indexOf('--');
  return end === -1 ? args : args.slice(0, end);
}

/**
 * parseArgs's error for an unknown letter in a short group, with the argument it came from:
 * `chunking-tool -lead` (a folder named -lead) said "Unknown option '-l'. … as in '-- "-l"",
 * a letter the user never typed alone, in advice with a quote left open. The argument is named
 * and both ways of giving it as a path are shown.
 */
function shortInGroup(err: unknown, args: readonly string[], options: ArgOptions): unknown {
  if ((err as NodeJS.ErrnoException)?.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return err;
  const m = /^Unknown option '-(.)'\. /su.exec((err as Error).message);
  if (m === null) return err;
  const known = new Set(Object.values(options).flatMap((o) => (o.short === undefined ? [] : [o.short])));
  // The first group holding the letter as parseArgs met it: known letters before it.
  const token = optionPart(args).find((a) => /^-[^-]/.test(a) && [...a.slice(1)].findIndex((c) => !known.has(c)) === a.slice(1).indexOf(m[1]!));
  if (token === undefined) return err;
  const shown = escapeControl(JSON.stringify(token));
  (err as Error).message = `Unknown option '-${oneLine(m[1]!)}'${token.length > 2 ? ` (in ${shown})` : ''}; a path that starts with "-" goes after "--" (as in -- ${shown}) or as ${escapeControl(JSON.stringify(`./${token}`))}`;
  return err;
}

/**
 * parseArgs's "argument is ambiguous" (a value-taking option followed by an argument that starts
 * with "-"), as one line that names the option and that argument: its three lines came out of
 * every CLI as one with literal \u000a escapes in them ("Option '--out' argument is
 * ambiguous.\u000aDid you forget …"), and never said which argument it meant.
 */
function ambiguousValue(err: unknown, args: readonly string[], options: ArgOptions): unknown {
  if ((err as NodeJS.ErrnoException)?.code !== 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return err;
  const m = /^Option '-(-?)([^' ]+)'(?: <value>)? argument is ambiguous/.exec((err as Error).message);
  if (m === null) return err;
  const name = m[1] === '-' ? m[2]! : Object.entries(options).find(([, o]) => o.short === m[2])?.[0];
  if (name === undefined) return err;
  const short = options[name]?.short;
  const part = optionPart(args);
  const at = part.findIndex((a) => a === `--${name}` || (short !== undefined && /^-[^-]/.test(a) && a.endsWith(short)));
  const next = at === -1 ? undefined : part[at + 1];
  if (next === undefined) return err;
  const shown = escapeControl(JSON.stringify(next));
  (err as Error).message = `--${name}: the argument after it, ${shown}, starts with "-", so it was not taken as its value; give --${name} a value, or write ${escapeControl(JSON.stringify(`--${name}=${next}`))} if that is it`;
  return err;
}

/**
 * The edit distance of two short strings (option and command names; quadratic, in UTF-16
 * units): Levenshtein's (insert, delete, replace), or with `swaps` the optimal string
 * alignment distance, where a swap of two neighbouring letters is one edit (`sepc` is one from
 * spec, not two). parseCliArgs's "did you mean" counts Levenshtein's; `chunkyard`'s command
 * suggestions count swaps.
 */
export function editDistance(a: string, b: string, { swaps = false }: { swaps?: boolean } = {}): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (swaps && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, before[j - 2]! + 1);
    }
    [before, prev] = [prev, row];
  }
  return prev[b.length]!;
}

/**
 * Every CLI's parseArgs: negative numbers joined (joinNegativeValues), and a single-valued
 * option given twice refused. parseArgs itself keeps the last of `--limit 3 --limit 5`
 * without a word, so a user who meant 3 got 5 (and a script that appends an override to a
 * default argument line hides the conflict). A repeat is refused whether the two values
 * differ or not; boolean flags may repeat (`-h -h` means the same), and options declared
 * `multiple` are lists. The error is a TypeError with parseArgs's own
 * `ERR_PARSE_ARGS_INVALID_OPTION_VALUE` code, so each CLI's existing handling of parseArgs
 * errors reports it as a usage error (exit 2).
 */
export function parseCliArgs<T extends ParseArgsConfig & { args: string[] }>(config: T): ReturnType<typeof parseArgs<T>> {
  const options = (config.options ?? {}) as Readonly<Record<string, { readonly type: 'string' | 'boolean'; readonly short?: string; readonly multiple?: boolean }>>;
  const args = joinNegativeValues(config.args, options);
  let parsed: ReturnType<typeof parseArgs<T & { tokens: true }>>;
  try {
    parsed = parseArgs({ ...config, args, tokens: true });
  } catch (err) {
    throw ambiguousValue(shortInGroup(nearOption(err, Object.keys(options)), args, options), args, options);
  }
  const seen = new Map<string, string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || token.value === undefined) continue;
    const opt = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (opt === undefined || opt.type !== 'string' || opt.multiple === true) continue;
    const first = seen.get(token.name);
    if (first !== undefined) {
      const err = new TypeError(`--${token.name}: given twice (${quoteArgument(first)}, then ${quoteArgument(token.value)}); give it once`);
      (err as NodeJS.ErrnoException).code = 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE';
      throw err;
    }
    seen.set(token.name, token.value);
  }
  if (config.tokens === true) return parsed as ReturnType<typeof parseArgs<T>>;
  const { tokens: _tokens, ...rest } = parsed;
  return rest as ReturnType<typeof parseArgs<T>>;
}
