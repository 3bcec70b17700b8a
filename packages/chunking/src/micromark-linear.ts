/**
 * A linear `EditMap.prototype.consume` for the remark route (`parser: 'remark'`).
 *
 * micromark 4.0.3 moves the exits of a closing container (a quote, a list, a lazy line's
 * containers) with micromark-util-edit-map 1.0.0's EditMap, whose `consume` copies every event
 * before the first edit and pushes it back: each close costs the whole document's events so far,
 * so n top-level quotes or lists cost n² (8,000 quotes, 70 KB: 12.9 s; session 52). Those edits
 * sit at the end, so only the events from the first edit on need to move. The version here is
 * the same code less that copy. It replaces the method on the module micromark itself loads
 * (resolved from micromark's own folder, so a second copy of the package elsewhere in the tree
 * is not the one changed), and only when that method is the code it was written against: a
 * micromark that fixes it, or changes it, is left alone.
 */
import { createRequire } from 'node:module';

/** An event list as EditMap sees it: the events are opaque here. */
type Events = unknown[];
/** One edit: where, how many events it removes, what it adds there (micromark-util-edit-map's Change). */
type Change = [at: number, remove: number, add: Events];
interface EditMapInstance {
  map: Change[];
  index: Map<number, Change>;
}
type Consume = (this: EditMapInstance, events: Events) => void;
/** What this module needs of micromark-util-edit-map's export. */
export interface EditMapClass {
  prototype: { consume: Consume };
}

/**
 * Marks a consume this module installed, holding the one it replaced. A registry symbol, not a
 * module-level variable: a test runner may evaluate this module more than once in a process
 * that loads micromark once.
 */
const REPLACED = Symbol.for('chunkyard.micromark-linear.replaced');
type Installed = Consume & { [REPLACED]?: Consume };

/** The quadratic consume's own lines: the copy of the untouched prefix and its reset. */
function isQuadraticConsume(consume: Consume): boolean {
  const source = Function.prototype.toString.call(consume);
  return source.includes('vecs.push(events.slice())') && source.includes('events.length = 0');
}

/**
 * micromark-util-edit-map 1.0.0's consume, less the copy of the events before the first edit,
 * which it took out and put back unchanged. When the first edit lies past the end, the original
 * leaves explicit `undefined`s where this would leave holes, so that case goes to the original.
 */
function linearConsume(this: EditMapInstance, events: Events, quadratic: Consume): void {
  this.map.sort((a, b) => a[0] - b[0]);
  if (this.map.length === 0) return;
  if (this.map[0]![0] > events.length) {
    quadratic.call(this, events);
    return;
  }
  const parts: Events[] = [];
  for (let index = this.map.length - 1; index >= 0; index--) {
    const [at, remove, add] = this.map[index]!;
    parts.push(events.slice(at + remove), add);
    events.length = at;
  }
  for (let k = parts.length - 1; k >= 0; k--) for (const event of parts[k]!) events.push(event);
  this.map.length = 0;
  this.index.clear();
}

/**
 * Installs the linear consume on `editMap` if its consume is the quadratic one. Returns whether
 * the class now has it (false: an unknown consume, left as it is).
 */
export function makeConsumeLinear(editMap: EditMapClass): boolean {
  const current = editMap.prototype.consume as Installed;
  if (current[REPLACED]) return true;
  if (!isQuadraticConsume(current)) return false;
  const installed: Installed = function consume(this: EditMapInstance, events: Events): void {
    linearConsume.call(this, events, current);
  };
  installed[REPLACED] = current;
  editMap.prototype.consume = installed;
  return true;
}

/** The consume makeConsumeLinear replaced on `editMap`, if it replaced one (for the tests' comparisons). */
export function replacedConsume(editMap: EditMapClass): Consume | undefined {
  return (editMap.prototype.consume as Installed)[REPLACED];
}

/**
 * micromark-util-edit-map as the micromark under `remark-parse` loads it: remark-parse →
 * mdast-util-from-markdown → micromark → micromark-util-edit-map, each resolved from the folder
 * of the one before, as Node resolves their imports. Null when the chain does not resolve (a
 * micromark without it).
 */
export function micromarkEditMap(): EditMapClass | null {
  const require = createRequire(import.meta.url);
  try {
    const fromMarkdown = createRequire(require.resolve('remark-parse')).resolve('mdast-util-from-markdown');
    const micromark = createRequire(fromMarkdown).resolve('micromark');
    const editMapPath = createRequire(micromark).resolve('micromark-util-edit-map');
    const { EditMap } = require(editMapPath) as { EditMap?: EditMapClass };
    return EditMap ?? null;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'MODULE_NOT_FOUND' || code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return null;
    throw error;
  }
}
