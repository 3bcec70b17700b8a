/**
 * markdown-it 15's block rule for link reference definitions (`[label]: /url "title"`), ported
 * line for line (MIT, markdown-it's rules_block/reference.mjs), with three shortcuts that change
 * no result. A page of definitions (an API index, a link list) spent half its time in the stock
 * rule, twice prose's whole pass per MB (issue 15):
 *
 * - After the destination, the stock rule looks on the next line for a title, and to step onto
 *   that line it runs every rule that may end a definition there (`getNextLinePos`: fences,
 *   quotes, rules, lists, HTML, headings, tables), for every definition. A title starts with
 *   `"`, `'` or `(` (parseLinkTitle returns not-ok at once on anything else, and the rule then
 *   goes back to the destination's end), so the next line is stepped onto only when its first
 *   visible character is one of those.
 * - A destination markdown-it's normalizeLink gives back unchanged (fast-blocks' PLAIN_URL: an
 *   optional `http(s)://` and host, then unencoded path characters) is neither normalized
 *   again nor validated: validateLink rejects only `javascript:`, `vbscript:`, `file:` and
 *   `data:` destinations, which PLAIN_URL never matches.
 * - A label of ASCII letters, digits and `-_./:` is normalized as normalizeReference would
 *   (trim, collapse whitespace, lower then upper case) by its upper case alone.
 *
 * reference-rule.test.ts holds it to the stock rule's tokens and `env.references` on generated
 * documents of hostile definitions.
 */
import type { MarkdownIt as Md, StateBlock } from 'markdown-it';

const MAX_LABEL_LENGTH = 999;

function countCodePoints(str: string): number {
  let length = str.length;
  for (let i = 0; i < str.length - 1; i++) {
    const high = str.charCodeAt(i);
    if (high < 0xd800 || high > 0xdbff) continue;
    const low = str.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdfff) {
      length--;
      i++;
    }
  }
  return length;
}

function lineEnd(state: StateBlock, line: number): number {
  return Math.min(state.eMarks[line]! + 1, state.src.length);
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09;

function getNextLinePos(state: StateBlock, nextLine: number): number {
  const endLine = state.lineMax;
  if (nextLine >= endLine || state.isEmpty(nextLine)) return -1;
  let isContinuation = false;
  // Indented as code, or a quote's lazy continuation (sCount -1): the definition goes on.
  if (state.sCount[nextLine]! - state.blkIndent > 3) isContinuation = true;
  if (state.sCount[nextLine]! < 0) isContinuation = true;
  if (!isContinuation) {
    const terminatorRules = state.md.block.ruler.getRules('reference');
    const oldParentType = state.parentType;
    state.parentType = 'reference' as StateBlock['parentType'];
    let terminate = false;
    for (let i = 0, l = terminatorRules.length; i < l; i++) {
      if (terminatorRules[i]!(state, nextLine, endLine, true)) {
        terminate = true;
        break;
      }
    }
    state.parentType = oldParentType;
    if (terminate) return -1;
  }
  return state.bMarks[nextLine]! + state.tShift[nextLine]!;
}

/**
 * Whether line `nextLine` may hold a title for the stock rule: a line there, whose first visible
 * character opens one. Where not, parseLinkTitle fails on it whatever getNextLinePos says.
 */
function mayHoldTitle(state: StateBlock, nextLine: number): boolean {
  if (nextLine >= state.lineMax) return false;
  const c = state.src.charCodeAt(state.bMarks[nextLine]! + state.tShift[nextLine]!);
  return c === 0x22 || c === 0x27 || c === 0x28;
}

/** ASCII letters, digits and `-_./:`: a label whose normalized form is its upper case. */
const PLAIN_LABEL = /^[A-Za-z0-9\-_./:]+$/;

/**
 * The rule, for markdown-it instance `md` (its helpers, utils, normalizeLink and validateLink)
 * and `plainUrl`, the destinations its normalizeLink returns unchanged. `topLevelTokens` false:
 * a definition outside every container pushes no token (a caller that reads none there:
 * fast-blocks makes top-level definitions from their lines); the definition is kept all the same.
 */
export function referenceRule(md: Md, plainUrl: RegExp, topLevelTokens = true): (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean {
  const { parseLinkDestination, parseLinkTitle } = md.helpers;
  const { normalizeReference } = md.utils;
  return function reference(state, startLine, _endLine, silent) {
    const src = state.src;
    let pos = state.bMarks[startLine]! + state.tShift[startLine]!;
    let nextLine = startLine + 1;
    if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
    if (src.charCodeAt(pos) !== 0x5b /* [ */) return false;
    let max = lineEnd(state, startLine);
    let rawLabel = '';
    let labelEnd = -1;
    let segmentStart = ++pos;
    while (pos < max) {
      if (rawLabel.length + pos - segmentStart > MAX_LABEL_LENGTH * 2) return false;
      let ch = src.charCodeAt(pos);
      if (ch === 0x5b /* [ */) return false;
      if (ch === 0x5d /* ] */) {
        labelEnd = pos;
        break;
      }
      if (ch === 0x5c /* \ */) ch = src.charCodeAt(++pos);
      if (ch === 0x0a && pos < max) {
        const nextPos = getNextLinePos(state, nextLine);
        if (nextPos < 0) return false;
        rawLabel += src.slice(segmentStart, max);
        pos = segmentStart = nextPos;
        max = lineEnd(state, nextLine++);
        continue;
      }
      pos++;
    }
    if (labelEnd < 0 || src.charCodeAt(labelEnd + 1) !== 0x3a /* : */) return false;
    rawLabel += src.slice(segmentStart, labelEnd);
    if (rawLabel.length > MAX_LABEL_LENGTH && countCodePoints(rawLabel) > MAX_LABEL_LENGTH) return false;
    pos = labelEnd + 2;
    while (pos < max) {
      const ch = src.charCodeAt(pos);
      if (ch === 0x0a) {
        const nextPos = getNextLinePos(state, nextLine);
        if (nextPos < 0) break;
        pos = nextPos;
        max = lineEnd(state, nextLine++);
      } else if (isSpace(ch)) pos++;
      else break;
    }
    const destRes = parseLinkDestination(src, pos, max);
    if (!destRes.ok) return false;
    let href: string;
    if (plainUrl.test(destRes.str)) href = destRes.str;
    else {
      href = md.normalizeLink(destRes.str);
      if (!md.validateLink(href)) return false;
    }
    pos = destRes.pos;
    const destEndPos = pos;
    const destEndMax = max;
    const destEndLineNo = nextLine;
    while (pos < max) {
      const ch = src.charCodeAt(pos);
      if (ch === 0x0a) {
        // (The first shortcut: see the module comment.)
        if (!mayHoldTitle(state, nextLine)) break;
        const nextPos = getNextLinePos(state, nextLine);
        if (nextPos < 0) break;
        pos = nextPos;
        max = lineEnd(state, nextLine++);
      } else if (isSpace(ch)) pos++;
      else break;
    }
    const titleStart = pos;
    let titleRes = parseLinkTitle(src, pos, max);
    while (titleRes.can_continue) {
      const nextPos = getNextLinePos(state, nextLine);
      if (nextPos < 0) break;
      pos = nextPos;
      max = lineEnd(state, nextLine++);
      titleRes = parseLinkTitle(src, pos, max, titleRes);
    }
    let title: string;
    if (titleStart !== destEndPos && titleRes.ok) {
      title = titleRes.str;
      pos = titleRes.pos;
    } else {
      title = '';
      pos = destEndPos;
      max = destEndMax;
      nextLine = destEndLineNo;
    }
    while (pos < max) {
      if (!isSpace(src.charCodeAt(pos))) break;
      pos++;
    }
    if (pos < max && src.charCodeAt(pos) !== 0x0a) {
      if (title) {
        // Garbage after the title: the definition is the destination alone, if that ends its line.
        title = '';
        pos = destEndPos;
        max = destEndMax;
        nextLine = destEndLineNo;
        while (pos < max) {
          if (!isSpace(src.charCodeAt(pos))) break;
          pos++;
        }
      }
    }
    if (pos < max && src.charCodeAt(pos) !== 0x0a) return false;
    const label = PLAIN_LABEL.test(rawLabel) ? rawLabel.toUpperCase() : normalizeReference(rawLabel);
    if (!label) return false;
    if (silent) return true;
    const env = state.env as DefinitionsEnv;
    if (typeof env.references === 'undefined') lazyReferences(env);
    const pending = env[PENDING];
    if (pending !== undefined && pending.proxy === env.references) pending.add(label, title, href);
    else if (typeof env.references![label] === 'undefined') env.references![label] = { title, href };
    if (!topLevelTokens && state.level === 0) {
      // A token, its map and its meta were a third of a page of definitions' parse (issue 15).
      state.line = nextLine;
      return true;
    }
    const token = state.push('reference_definition', '', 0);
    token.map = [startLine, nextLine];
    token.hidden = true;
    const meta = Object.create(null) as { label: string };
    meta.label = label;
    token.meta = meta;
    state.line = nextLine;
    return true;
  };
}

/** A definition as markdown-it keeps it in `env.references`. */
interface Definition {
  title: string;
  href: string;
}

/** Slots of a run of PendingDefinitions (three a definition). */
const PENDING_RUN = 3 * 1024;

/**
 * `env.references` whose entries are written when something first reads it. markdown-it's rule
 * writes each definition into a plain object as it is read; past some tens of thousands of keys
 * the object is a dictionary, and each insert (a key made internal, a `{title, href}`, a write
 * into a table in old space) was two thirds of the rule: a page of 270,000 definitions (10 MB)
 * spent 0.05 s per MB on them, more than prose's whole pass (issue 15). Only markdown-it's
 * inline link and image rules read the definitions, on text holding `[`, which fast-blocks
 * parses for headings and table headers alone: most documents of definitions never read them.
 *
 * Until then each definition is three array slots; any read or write through the proxy first
 * writes them out in order, with the stock rule's test (the first definition of a label wins),
 * so what a reader finds is what the stock rule would have left there.
 */
class PendingDefinitions {
  readonly target: Record<string, Definition> = {};
  /** The proxy over `target` that `env.references` holds. */
  proxy: Record<string, Definition> | null = null;
  /**
   * label, title, href of each definition not yet written to `target`, in document order, in
   * runs of at most PENDING_RUN slots: one array grown to 810,000 slots (10 MB of definitions)
   * was copied at each growth, 21 MB allocated a pass for 6.5 MB kept.
   */
  private runs: string[][] = [];
  /** The last run, made at its full length (pushes grew it by copies too), and its slots filled. */
  private run: string[] = [];
  private filled = 0;
  /** Whether any definition was added: `target` then has a key once flushed (a label is never empty). */
  added = false;

  add(label: string, title: string, href: string): void {
    let { run, filled } = this;
    if (filled === run.length) {
      run = this.run = new Array<string>(PENDING_RUN);
      this.runs.push(run);
      filled = 0;
    }
    run[filled] = label;
    run[filled + 1] = title;
    run[filled + 2] = href;
    this.filled = filled + 3;
    this.added = true;
  }

  flush(): void {
    const { runs, filled, target } = this;
    if (runs.length === 0) return;
    this.runs = [];
    this.run = [];
    this.filled = 0;
    for (let r = 0; r < runs.length; r++) {
      const pending = runs[r]!;
      const end = r === runs.length - 1 ? filled : pending.length;
      for (let k = 0; k < end; k += 3) {
        const label = pending[k]!;
        if (typeof target[label] === 'undefined') target[label] = { title: pending[k + 1]!, href: pending[k + 2]! };
      }
    }
  }
}

/**
 * Where an environment keeps the PendingDefinitions behind its `references` proxy: on the
 * environment itself, which lives as long as its document's parse (a module-level table would
 * keep the last document's definitions, slices of the whole document, alive after the call).
 * A symbol: neither Object.keys nor JSON of the environment shows it.
 */
const PENDING = Symbol('pending reference definitions');

/** markdown-it's environment as the rule reads and writes it. */
interface DefinitionsEnv {
  references?: Record<string, Definition>;
  [PENDING]?: PendingDefinitions;
}

/** Makes `env.references` a proxy whose traps write the pending definitions out, then act on the object as Reflect does. */
function lazyReferences(env: DefinitionsEnv): void {
  const pending = new PendingDefinitions();
  const { target } = pending;
  const handler: ProxyHandler<Record<string, Definition>> = {
    get: (_t, key) => (pending.flush(), Reflect.get(target, key)),
    set: (_t, key, value) => (pending.flush(), Reflect.set(target, key, value)),
    has: (_t, key) => (pending.flush(), Reflect.has(target, key)),
    deleteProperty: (_t, key) => (pending.flush(), Reflect.deleteProperty(target, key)),
    ownKeys: () => (pending.flush(), Reflect.ownKeys(target)),
    getOwnPropertyDescriptor: (_t, key) => (pending.flush(), Reflect.getOwnPropertyDescriptor(target, key)),
    defineProperty: (_t, key, descriptor) => (pending.flush(), Reflect.defineProperty(target, key, descriptor)),
  };
  pending.proxy = new Proxy(target, handler);
  env.references = pending.proxy;
  env[PENDING] = pending;
}

/**
 * Whether markdown-it's environment `env` holds a reference definition, without writing pending
 * ones out (stream.ts asks this of every section it parses).
 */
export function hasDefinitions(env: Record<string, unknown>): boolean {
  const references = env.references;
  if (references === undefined || references === null || typeof references !== 'object') return false;
  const pending = (env as DefinitionsEnv)[PENDING];
  if (pending !== undefined && pending.proxy === references) return pending.added || Object.keys(pending.target).length > 0;
  return Object.keys(references).length > 0;
}
