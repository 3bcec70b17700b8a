/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/**
 * Markdown → weighted term occurrences. This is the one place that decides what text counts
 * and how much: `extractKeywords` ranks what it yields and `matchKeywords` uses the same scan,
 * so a keyword found in a topic is found again in that topic's chunks.
 */
import MarkdownIt, { type Env, type Token } from 'markdown-it';
import { stemmer } from 'stemmer';
import { parse as parseYaml } from 'yaml';
import { STOP_WORDS } from './words.js';

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** Where a term occurred. The weights are in extract.ts. */
export type Context = 'heading' | 'codeSpan' | 'codeBlock' | 'body';

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** One occurrence of a candidate term. */
export interface Occurrence {
  /** Grouping key: `w:` + Porter stems of a phrase's words, or `i:` + a lower-cased identifier. */
  key: string;
  /** The text as it should be shown: a lower-cased phrase, or an identifier in its own casing. */
  surface: string;
  kind: 'phrase' | 'identifier';
  /** Number of words (1 for identifiers). */
  words: number;
  context: Context;
  /** The code block it came from (identifiers in code blocks count once per block). */
  block?: number;
}

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** A phrase holds at most this many words that are not stop words… */
export const MAX_PHRASE_WORDS = 3;
/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** …and at most this many stop words inside, each a connector ("properties of derived classes"). */
const MAX_INNER_STOP_WORDS = 1;
/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** The stop words a phrase may hold inside: "ahead of time", "serialization and deserialization", not "publishing your app". */
const CONNECTORS: ReadonlySet<string> = new Set(['and', 'or', 'of', 'for', 'to', 'in', 'on', 'with', 'as', 'by', 'at', 'from']);
/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** The longest phrase, in words: MAX_PHRASE_WORDS and the stop words between them. */
const MAX_PHRASE_SPAN = MAX_PHRASE_WORDS + MAX_INNER_STOP_WORDS;

// `html: true` so raw HTML becomes html_inline/html_block tokens, which are skipped, instead
// of text; tables on (the default preset); no linkify, no typographer: text stays as written.
const md = new MarkdownIt('default', { html: true, linkify: false, typographer: false });
/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/**
 * The same parser with the core rules that parse or rewrite inline children switched off: it
 * yields `md`'s block tokens, with each inline token's content but no children. ScanMemo
 * parses a content's children itself (`md.parseInline`, which runs those same rules) only when
 * it has not seen that content yet.
 */
const mdBlocks = new MarkdownIt('default', { html: true, linkify: false, typographer: false });
mdBlocks.core.ruler.disable(['inline', 'linkify', 'replacements', 'smartquotes', 'text_join']);

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** DocFX directives (`:::code …:::`, `:::zone …:::`, `:::image …:::`) reference other files. */
const DOCFX_DIRECTIVE = /^[ \t]*:::.*$/gm;
/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** DocFX alert markers (`> [!NOTE]`) are boilerplate, not content. */
const DOCFX_ALERT = /\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]/gi;

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** A generic type parameter by .NET convention (`TValue`, `TKey`): a placeholder, not a name. */
const GENERIC_PARAMETER = /^T[A-Z][a-z]+$/;

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/**
 * Identifier shapes. A name part is `[A-Za-z_]\w*`; an identifier is one that
 *   - has a lower-case letter followed by a capital (camelCase, PascalCase: `JsonSerializer`),
 *   - starts with two capitals and then a lower-case letter (`IAsyncEnumerable`, `JSONPath`),
 *   - is dotted with a capital somewhere (`System.Text.Json`, `ASP.NET`, `.NET`), or
 *   - carries `#`/`+` (`C#`, `C++`).
 * Plain words in any casing (`object`, `Default`, `JSON`) and generic parameters (`TValue`)
 * are not identifiers.
 */
export function isIdentifier(token: string): boolean {
  if (GENERIC_PARAMETER.test(token)) return false;
  if (/[#+]/.test(token)) return /\p{L}/u.test(token);
  if (/\p{Ll}\p{M}*\p{Lu}/u.test(token) || /^\p{Lu}{2,}\p{Ll}/u.test(token)) return true;
  return token.includes('.') && /\p{Lu}/u.test(token);
}

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** Prose tokens: URLs (dropped), word-like runs (with inner `.`, `'`, `#`, `+`), hyphens, spaces, other characters. */
const TOKEN =
  /(?:https?|ftp|file):\/\/[^\s<>)\]]+|www\.[^\s<>)\]]+|\.?[\p{L}\p{N}_][\p{L}\p{M}\p{N}_]*(?:['’.#+]+[\p{L}\p{N}_][\p{L}\p{M}\p{N}_]*)*[#+]*|[-‐‑]|\s+|[^\s]/gu;

interface Word {
  kind: 'word';
  /** Lower-cased word. */
  text: string;
  stem: string;
  stop: boolean;
}

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** A unit of running text: a word, an identifier, or a phrase break (punctuation, a number, a URL). */
export type Lexeme = Word | { kind: 'identifier'; name: string } | { kind: 'break' };

const BREAK: Lexeme = Object.freeze({ kind: 'break' });

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** Splits running text into lexemes. Hyphens join ("source-generation" = "source generation"). */
export function lex(text: string): Lexeme[] {
  const out: Lexeme[] = [];
  // (s58: soft hyphens, word joiners and U+FEFF are taken out first; they cut words in two.)
  for (const m of text.replace(DOCFX_ALERT, ' ').replace(/[\u00ad\u2060\ufeff]/g, '').matchAll(TOKEN)) {
    const raw = m[0];
    if (/^\s+$/.test(raw) || /^[-‐‑]$/.test(raw)) continue;
    if (raw.includes('://') || raw.startsWith('www.') || !/[\p{L}\p{N}_]/u.test(raw)) {
      out.push(BREAK);
      continue;
    }
    const t = raw.normalize('NFC').replace(/’/g, "'").replace(/'s$/i, '').replace(/'+$/, '');
    if (isIdentifier(t)) {
      out.push({ kind: 'identifier', name: t });
    } else if (!/\p{L}/u.test(t) || t.includes('.') || t.length < 2) {
      // Numbers and versions ("9.0"), lower-case dotted tokens ("e.g", "appsettings.json")
      // and single letters end a phrase: they are never part of a keyword.
      out.push(BREAK);
    } else {
      const lower = t.toLowerCase().replace(/i\u0307/g, 'i');
      out.push({ kind: 'word', text: lower, stem: stemmer(lower), stop: STOP_WORDS.has(lower) });
    }
  }
  return out;
}

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/**
 * The grouping key a keyword name would get from the scan: `i:` for an identifier, `w:` and
 * stems for a phrase the scan can produce. Null for any other name (more than
 * MAX_PHRASE_WORDS words, a stop word at an edge, punctuation, several identifiers).
 */
export function termKey(name: string): string | null {
  const lexemes = lex(name.trim());
  const first = lexemes[0];
  if (lexemes.length === 1 && first?.kind === 'identifier') return `i:${first.name.toLowerCase()}`;
  if (lexemes.length === 0 || !lexemes.every((l): l is Word => l.kind === 'word')) return null;
  const out: Occurrence[] = [];
  const span = new Span(out, 'body');
  span.text(name);
  const whole = out.find((o) => o.surface === lexemes.map((w) => w.text).join(' '));
  return whole?.key ?? null;
}

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** Collects occurrences from one span of text (a heading, a paragraph, a table cell). */
class Span {
  private run: Word[] = [];
  /** Words fed so far, and where each phrase's last counted use ended (by key): uses that overlap it are not counted (2026-11-28). */
  private seen = 0;
  private readonly lastEnd = new Map<string, number>();

  constructor(
    private readonly out: Occurrence[],
    private readonly context: Context,
  ) {}

  /** Feeds running text; phrases continue across calls until `breakRun`. */
  text(text: string): void {
    for (const l of lex(text)) {
      if (l.kind === 'word') {
        this.seen++;
        this.run.push(l);
        // Phrases ending at this word only look back, so they are complete now.
        this.emitEndingAt(this.run.length - 1);
        if (this.run.length >= MAX_PHRASE_SPAN) this.run.shift();
      } else {
        this.breakRun();
        if (l.kind === 'identifier') this.identifier(l.name);
      }
    }
  }

  /** An identifier; inside a heading it counts as heading text, otherwise as `context`. */
  identifier(name: string, context: Context = this.context, block?: number): void {
    const occurrence: Occurrence = {
      key: `i:${name.toLowerCase()}`,
      surface: name,
      kind: 'identifier',
      words: 1,
      context: this.context === 'heading' ? 'heading' : context,
    };
    if (block !== undefined) occurrence.block = block;
    this.out.push(occurrence);
  }

  /** Ends the current phrase run (punctuation, code, an identifier, the end of the span). */
  breakRun(): void {
    this.run = [];
  }

  /**
   * Emits every phrase ending at run[end] that has no stop word at either edge, 1..MAX_PHRASE_WORDS
   * other words, and at most MAX_INNER_STOP_WORDS connectors inside ("properties of derived classes").
   */
  private emitEndingAt(end: number): void {
    const last = this.run[end]!;
    if (last.stop) return;
    let content = 0;
    let inner = 0;
    for (let start = end; start >= 0 && end - start < MAX_PHRASE_SPAN; start--) {
      const first = this.run[start]!;
      if (first.stop) {
        if (!CONNECTORS.has(first.text) || ++inner > MAX_INNER_STOP_WORDS) break;
        continue;
      }
      if (++content > MAX_PHRASE_WORDS) break;
      const words = this.run.slice(start, end + 1);
      const key = words.map((w) => w.stem).join(' ');
      if ((this.lastEnd.get(key) ?? -1) >= this.seen - (end - start)) continue;
      this.lastEnd.set(key, this.seen);
      this.out.push({
        key: `w:${words.map((w) => w.stem).join(' ')}`,
        surface: words.map((w) => w.text).join(' '),
        kind: 'phrase',
        words: content,
        context: this.context,
      });
    }
  }
}

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/**
 * The identifier named by a DocFX cross-reference `<xref:UID?displayProperty=…>`, as DocFX
 * shows it: the last name part by default, `Type.Member` for `nameWithType`, the whole UID
 * for `fullName`. Generic arity (`%601`), overload markers (`%2A`) and parameter lists go.
 */
export function xrefName(target: string): string | null {
  const [uidPart = '', query = ''] = target.replace(/^xref:/i, '').split('?');
  const uid = decodeURIComponentSafe(uidPart)
    .replace(/\(.*$/, '')
    .replace(/`+\d*|\*+/g, '')
    .replace(/#.*$/, '');
  const parts = uid.split('.').filter(Boolean);
  if (parts.length === 0) return null;
  const display = /displayProperty=(\w+)/.exec(query)?.[1];
  const name = display === 'fullName' ? parts.join('.') : display === 'nameWithType' ? parts.slice(-2).join('.') : parts[parts.length - 1]!;
  return /^[\p{L}_][\p{L}\p{M}\p{N}_.]*$/u.test(name) ? name.normalize('NFC') : null;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** Identifier-shaped name parts of a code span or a code line. */
const CODE_NAME = /\.?[\p{L}_][\p{L}\p{M}\p{N}_]*(?:\.[\p{L}_][\p{L}\p{M}\p{N}_]*)*[#+]*/gu;
/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** `using X.Y;`, `import x.y`, `namespace X.Y`, `Imports X.Y` (VB), `open X.Y` (F#): dotted names kept whole. */
const NAMESPACE_LINE = /^\s*(?:global\s+)?(?:using|import|imports|namespace|open|package)\s+(?:static\s+)?([\p{L}_][\p{L}\p{M}\p{N}_.]*)/iu;

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** Identifiers in a code span: dotted names stay whole (`JsonSourceGenerationOptionsAttribute.WriteIndented`). */
function codeSpanIdentifiers(code: string): string[] {
  return [...code.matchAll(CODE_NAME)].map((m) => m[0].normalize('NFC')).filter(isIdentifier);
}

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/**
 * Identifiers in a code block. Dotted chains in code are mostly member access
 * (`options.TypeInfoResolverChain.Add`), so they are split into their parts; only namespace
 * imports and declarations keep the dotted name (`using System.Text.Json.Serialization;`).
 */
function codeBlockIdentifiers(code: string): string[] {
  const names: string[] = [];
  for (const line of code.split('\n')) {
    const ns = NAMESPACE_LINE.exec(line)?.[1]?.normalize('NFC');
    if (ns && isIdentifier(ns)) names.push(ns);
    for (const m of line.matchAll(CODE_NAME)) {
      for (const part of m[0].normalize('NFC').split('.')) if (part && part !== ns && isIdentifier(part)) names.push(part);
    }
  }
  return names;
}

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** Walks the inline children of a heading, paragraph or table cell. */
function scanInline(children: readonly Token[], span: Span): void {
  let autolink: 'xref' | 'other' | null = null;
  for (const child of children) {
    switch (child.type) {
      case 'text':
        if (autolink === 'xref') {
          const name = xrefName(child.content);
          if (name) span.identifier(name, 'codeSpan');
        } else if (autolink === null) {
          span.text(child.content);
        }
        break;
      case 'softbreak':
      case 'hardbreak':
        span.text(' ');
        break;
      case 'code_inline':
        span.breakRun();
        for (const name of codeSpanIdentifiers(child.content)) span.identifier(name, 'codeSpan');
        break;
      case 'link_open':
        if (child.markup === 'autolink') {
          span.breakRun();
          autolink = /^xref:/i.test(String(child.attrGet('href') ?? '')) ? 'xref' : 'other';
        }
        break;
      case 'link_close':
        if (autolink) span.breakRun();
        autolink = null;
        break;
      case 'image':
      case 'html_inline':
        span.breakRun();
        break;
      default:
        // em/strong/s open and close: formatting inside running text.
        break;
    }
  }
  span.breakRun();
}

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** Front matter values that count as headings; every other key is ignored. */
const FRONT_MATTER_HEADING_KEYS = ['title', 'description'];

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/**
 * Every candidate occurrence in one markdown document, in document order.
 * Front matter `title`/`description` count as headings; DocFX `:::` directive lines, HTML,
 * images and URLs are skipped; link text counts, link targets do not.
 *
 * With a `memo`, the same occurrences come from cached scans of the document's inline contents
 * and code blocks (see ScanMemo), and what this scan finds is cached there for later calls.
 */
export function scanMarkdown(source: string, memo?: ScanMemo): Occurrence[] {
  const out: Occurrence[] = [];
  let text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const fm = FRONT_MATTER.exec(text);
  if (fm) {
    text = text.slice(fm[0].length);
    for (const value of frontMatterHeadings(fm[1] ?? '')) {
      const span = new Span(out, 'heading');
      span.text(value);
      span.breakRun();
    }
  }
  text = text.replace(DOCFX_DIRECTIVE, '');
  if (memo) {
    memo.scan(text, out);
    return out;
  }

  const tokens = md.parse(text, {});
  let context: Context = 'body';
  let block = 0;
  for (const token of tokens) {
    if (token.type === 'heading_open') context = 'heading';
    else if (token.type === 'heading_close') context = 'body';
    else if (token.type === 'inline') scanInline(token.children ?? [], new Span(out, context));
    else if (token.type === 'fence' || token.type === 'code_block') {
      const span = new Span(out, 'codeBlock');
      block++;
      for (const name of codeBlockIdentifiers(token.content)) span.identifier(name, 'codeBlock', block);
    }
  }
  return out;
}

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** What one inline content yields when scanned as body text: its occurrences and their distinct keys. */
interface InlineScan {
  occurrences: readonly Occurrence[];
  keys: readonly string[];
}

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/**
 * Scans of inline contents (a heading's, a paragraph's, a table cell's text) and code block
 * contents, by their text, for scanning many overlapping pieces of one document (a document
 * and then each of its chunks): a paragraph that several chunks share is lexed and stemmed once.
 *
 * Exact because what a content yields depends only on that content and, for a content holding
 * `[`, on the link references the markdown defines (`[text][label]` is a link only if `label`
 * is defined; markdown-it's link and image rules are the only inline rules that read them).
 * So a content with `[` is cached per set of references, any other content once. Holds
 * everything it has seen: make one per document.
 */
export class ScanMemo {
  /** By references signature ('' for none or not consulted), then content. */
  private readonly inline = new Map<string, Map<string, InlineScan>>();
  private readonly code = new Map<string, readonly string[]>();

  /** Appends the occurrences of `text` (front matter and directive lines already removed) to `out`; returns their keys. */
  scan(text: string, out?: Occurrence[]): Set<string> {
    const keys = new Set<string>();
    const env: Env = {};
    // Block tokens only; each inline content is parsed below, on a miss, by md.parseInline
    // with the same env, which runs the inline rules md.parse would run on it.
    const tokens = mdBlocks.parse(text, env);
    // markdown-it's block parse sets env.references when the markdown defines a link reference.
    const refs = env.references !== undefined && Object.keys(env.references).length > 0 ? JSON.stringify(env.references) : '';
    let context: Context = 'body';
    let block = 0;
    for (const token of tokens) {
      if (token.type === 'heading_open') context = 'heading';
      else if (token.type === 'heading_close') context = 'body';
      else if (token.type === 'inline') {
        const found = this.inlineScan(token.content, refs !== '' && token.content.includes('[') ? refs : '', env);
        for (const key of found.keys) keys.add(key);
        if (!out) continue;
        // A heading's Span marks every occurrence 'heading' and changes nothing else.
        if (context === 'body') out.push(...found.occurrences);
        else for (const o of found.occurrences) out.push({ ...o, context });
      } else if (token.type === 'fence' || token.type === 'code_block') {
        block++;
        let names = this.code.get(token.content);
        if (!names) {
          names = codeBlockIdentifiers(token.content);
          this.code.set(token.content, names);
        }
        const span = out ? new Span(out, 'codeBlock') : undefined;
        for (const name of names) {
          keys.add(`i:${name.toLowerCase()}`);
          span?.identifier(name, 'codeBlock', block);
        }
      }
    }
    return keys;
  }

  private inlineScan(content: string, refs: string, env: Env): InlineScan {
    let byContent = this.inline.get(refs);
    if (!byContent) {
      byContent = new Map();
      this.inline.set(refs, byContent);
    }
    let found = byContent.get(content);
    if (!found) {
      const occurrences: Occurrence[] = [];
      scanInline(md.parseInline(content, env)[0]?.children ?? [], new Span(occurrences, 'body'));
      found = { occurrences, keys: [...new Set(occurrences.map((o) => o.key))] };
      byContent.set(content, found);
    }
    return found;
  }
}

/** FROZEN COPY of scan.ts before the lex cache (2026-11-23), the reference the property tests compare against. */
/** The set of keys of `scanMarkdown(source)`, through a memo (see ScanMemo). */
export function scanKeys(source: string, memo: ScanMemo): Set<string> {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  // Front matter is rare in a chunk; scanMarkdown reads it (and uses the memo for the rest).
  if (FRONT_MATTER.test(text)) return new Set(scanMarkdown(source, memo).map((o) => o.key));
  return memo.scan(text.replace(DOCFX_DIRECTIVE, ''));
}

function frontMatterHeadings(yamlText: string): string[] {
  let data: unknown;
  try {
    data = parseYaml(yamlText);
  } catch {
    return []; // Broken front matter holds nothing we can trust; the body still counts.
  }
  if (!data || typeof data !== 'object') return [];
  const record = data as Record<string, unknown>;
  return FRONT_MATTER_HEADING_KEYS.map((k) => record[k]).filter((v): v is string => typeof v === 'string');
}
