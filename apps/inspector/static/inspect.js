// The chunk inspector page: ?topic=<topic path under the docs root> shows that topic's
// chunks over its source; no ?topic= lists the topics. Reads only built files.
import { capLabel, docsRoot, layoutTree, listTopics, loadTopic, MAX_NESTING, nestingDepth, questionsByHash, sha256Hex, shownLineBreaks, tokenCap } from './data.js';
import { h } from './dom.js';
import { renderDetail, renderList, renderSource, renderStrip } from './render.js';

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** What is selected: a chunk index, and where the strip is in the chosen order. */
const state = {
  /** @type {any} */ model: null,
  /** @type {Map<string, string>} */ questions: new Map(),
  current: -1,
  /** @type {'conceptual' | 'technical'} */ orderKind: 'conceptual',
  /** @type {number[]} */ order: [],
  pos: -1,
  /** @type {{ source: HTMLElement[], list: HTMLElement[], strip: HTMLElement[] }} */
  els: { source: [], list: [], strip: [] },
};

async function start() {
  const page = new URL(location.href);
  const topic = page.searchParams.get('topic');
  try {
    const root = docsRoot(page.href);
    if (topic === null || topic.trim() === '') await showTopicList(root);
    else await showTopic(root, topic.replace(/^\/+|\/+$/g, ''), page.searchParams.get('doc'));
  } catch (err) {
    showError(err instanceof Error ? err.message : String(err));
  }
  // Tests and the benchmark wait for this; readyMs counts from the navigation's start.
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = 'true';
}

/** @param {string} message */
function showError(message) {
  document.body.classList.add('mode-error');
  $('error').replaceChildren(h('strong', { text: 'Cannot show this topic. ' }), message, h('p', null, [h('a', { href: '?', text: 'All topics' })]));
  $('error').hidden = false;
}

/** @param {URL} root */
async function showTopicList(root) {
  document.body.classList.add('mode-list');
  const topics = await listTopics(root);
  $('title').textContent = 'Chunk inspector';
  $('subtitle').textContent = `${topics.length} topic${topics.length === 1 ? '' : 's'} under ${root.href}`;
  const list = h(
    'ul',
    { class: 'topic-list' },
    topics.map((t) => h('li', null, [h('a', { href: `?topic=${encodeURIComponent(t.id)}` }, [h('span', { class: 'topic-title', text: t.title }), h('code', { text: t.id }), h('span', { class: 'topic-count', text: `${t.chunks} chunks` })])])),
  );
  $('topics').replaceChildren(list);
  $('topics').hidden = false;
}

/** @param {URL} root @param {string} topicId @param {string | null} doc */
async function showTopic(root, topicId, doc) {
  document.body.classList.add('mode-topic');
  const model = await loadTopic(root, topicId, doc);
  performance.mark('inspector:loaded'); // the benchmark splits fetching from drawing
  state.model = model;
  state.questions = questionsByHash(model.index);
  const { manifest, group, source } = model;
  // A title that is not text (null, an object from a hand-edited index.json) read "null" or
  // "[object Object]": the topic's path stands in, as in the topic list.
  const title = typeof model.index.title === 'string' && model.index.title.trim() !== '' ? model.index.title : topicId;
  document.title = `${title} · chunk inspector`;

  $('title').textContent = title;
  $('subtitle').replaceChildren(
    h('a', { href: '?', text: 'All topics' }),
    ' / ',
    h('code', { text: topicId }),
    ' / ',
    h('a', { href: model.urls.source.href, text: model.group.source }),
  );
  const over = manifest.chunks.filter((/** @type {any} */ c) => {
    const cap = tokenCap(manifest.options, c);
    return cap !== undefined && c.tokenStats?.tokens > cap;
  }).length;
  $('facts').replaceChildren(
    ...[
      ['strategy', manifest.strategyKey ?? manifest.strategy],
      ['chunks', String(manifest.chunks.length)],
      ['max tokens', capLabel(manifest.options)],
      ['over cap', String(over)],
      ['source', `${source.length.toLocaleString('en')} chars`],
      ['questions', String(state.questions.size)],
    ].map(([k, v]) => h('span', { class: `fact${k === 'over cap' && over ? ' bad' : ''}` }, [h('span', { class: 'k', text: k }), h('span', { class: 'v', text: String(v) })])),
  );
  if (model.docs.length > 1) $('facts').append(docPicker(model));

  // The source changed since chunking: positions may no longer fit the text; say so.
  const sha = await sha256Hex(source);
  if (sha && manifest.sourceSha256 && sha !== manifest.sourceSha256) {
    $('warning').textContent = `${model.group.source} changed since it was chunked (SHA-256 differs from the manifest): boundaries may be off. Rebuild: npx nx run-many -t index`;
    $('warning').hidden = false;
  }

  performance.mark('inspector:checked');
  const runs = layoutTree(manifest.chunks, source.length);
  const depth = nestingDepth(runs);
  if (depth > MAX_NESTING) {
    throw new Error(`${model.urls.manifest.href}: chunks nest ${depth} deep (one inside another), more than the ${MAX_NESTING} this page draws; chunkyard's strategies nest at most 2 deep, so rebuild: npx nx run-many -t index`);
  }
  // Lone CRs drawn as line breaks (the SHA-256 above was of the text as served); same length, so
  // the runs' positions hold, and a block of the source view may end at one.
  const src = renderSource(shownLineBreaks(source), runs, manifest.chunks, manifest.options);
  $('source').replaceChildren(src.root);
  const list = renderList(model, state.questions);
  $('chunk-list').replaceChildren(list.root);
  state.els.source = src.byIndex;
  state.els.list = list.byIndex;

  // One listener per container (not per chunk): the clicked element's data-chunk-index.
  for (const id of ['source', 'chunk-list']) {
    $(id).addEventListener('click', (ev) => {
      const el = /** @type {HTMLElement | null} */ (ev.target instanceof Element ? ev.target.closest('[data-chunk-index]') : null);
      if (el) select(Number(el.dataset.chunkIndex), { scroll: id === 'source' ? 'list' : 'source' });
    });
  }
  $('strip').addEventListener('click', (ev) => {
    const el = ev.target instanceof Element ? ev.target.closest('[data-pos]') : null;
    if (el instanceof HTMLElement) goTo(Number(el.dataset.pos));
  });
  $('prev').addEventListener('click', () => step(-1));
  $('next').addEventListener('click', () => step(1));
  document.addEventListener('keydown', onKey);

  const hasTechnical = Array.isArray(group.stripe_order_technical);
  const picker = /** @type {HTMLSelectElement} */ ($('order-kind'));
  /** @type {HTMLOptionElement} */ (picker.querySelector('option[value=technical]')).disabled = !hasTechnical;
  picker.title = hasTechnical ? 'which stripe order to step through' : 'no technical order: chunk 1 is not a reference section';
  picker.addEventListener('change', () => setOrder(/** @type {'conceptual' | 'technical'} */ (picker.value)));
  setOrder('conceptual');
  $('baseline').textContent = `baseline #${group.baseline_conceptual ?? 0}${hasTechnical ? `, technical #${group.baseline_technical}` : ''}`;
  $('workspace').hidden = false;
  $('stripe').hidden = false;
  performance.mark('inspector:drawn');
  select(group.stripe_order?.[0] ?? 0, { scroll: 'both' });
}

/** @param {any} model */
function docPicker(model) {
  const sel = /** @type {HTMLSelectElement} */ (h('select', { id: 'doc', 'aria-label': 'document' }, model.docs.map((/** @type {string} */ d) => h('option', { value: d, text: d }))));
  sel.value = model.doc;
  sel.addEventListener('change', () => {
    const u = new URL(location.href);
    u.searchParams.set('doc', sel.value);
    location.href = u.href;
  });
  return sel;
}

/** @param {'conceptual' | 'technical'} kind */
function setOrder(kind) {
  const group = state.model.group;
  state.orderKind = kind;
  state.order = (kind === 'technical' ? group.stripe_order_technical : group.stripe_order) ?? [];
  const strip = renderStrip(state.order, state.model);
  $('strip').replaceChildren(strip.root);
  state.els.strip = strip.cells;
  state.pos = state.order.indexOf(state.current);
  paintStrip();
}

/** @param {number} delta */
function step(delta) {
  if (state.order.length === 0) return;
  const pos = state.pos < 0 ? (delta > 0 ? 0 : state.order.length - 1) : Math.min(state.order.length - 1, Math.max(0, state.pos + delta));
  goTo(pos);
}

/** @param {number} pos */
function goTo(pos) {
  const index = state.order[pos];
  if (index === undefined) return;
  select(index, { scroll: 'both', pos });
}

/**
 * Makes chunk `i` the current one everywhere: source, list, strip, detail.
 * @param {number} i @param {{ scroll: 'source' | 'list' | 'both' | 'none', pos?: number }} how
 */
function select(i, how) {
  const { source, list } = state.els;
  if (!state.model.manifest.chunks[i]) return;
  source[state.current]?.classList.remove('current');
  list[state.current]?.classList.remove('current');
  state.current = i;
  source[i]?.classList.add('current');
  list[i]?.classList.add('current');
  state.pos = how.pos ?? state.order.indexOf(i);
  paintStrip();
  $('detail').replaceChildren(renderDetail(state.model, state.questions, i));
  $('detail').scrollTop = 0;
  document.body.dataset.current = String(i);
  if (how.scroll === 'source' || how.scroll === 'both') scrollToStay(source[i], { block: 'center' });
  if (how.scroll === 'list' || how.scroll === 'both') scrollToStay(list[i], { block: 'nearest' });
}

/**
 * Scrolls `el` into view where it stays. The source and the list are drawn in blocks skipped off
 * screen (content-visibility: auto) that stand at an estimated height until drawn; the frame
 * after a plain scroll drew the blocks now in view at their real heights, and those above `el`
 * moved it out of view (at 20,000 chunks, the test's property found such chunks). So for the
 * next three frames only `el`'s block may be the pane's scroll anchor (`overflow-anchor: none` on
 * every other block, inspect.css): as the blocks above it are drawn, the browser's own scroll
 * anchoring keeps `el` where the scroll put it. Nothing scrolls again afterwards, so a reader's
 * own scroll right after a selection is never undone (session 53's correcting loop was), and
 * nothing is laid out beyond what is drawn (forcing the blocks around `el` to be laid out for
 * real made a click 50–75% slower).
 * @param {HTMLElement | undefined} el @param {ScrollIntoViewOptions} how
 */
function scrollToStay(el, how) {
  if (!el) return;
  const block = el.closest('.row-block, .segment');
  const pane = el.closest('.pane');
  if (!(block instanceof HTMLElement) || !(pane instanceof HTMLElement)) return el.scrollIntoView(how);
  anchors.get(pane)?.classList.remove('anchor');
  anchors.set(pane, block);
  block.classList.add('anchor');
  pane.classList.add('anchoring');
  el.scrollIntoView(how);
  afterFrames(ANCHOR_FRAMES, () => {
    // Unless a later selection in this pane took over meanwhile.
    if (anchors.get(pane) !== block) return;
    anchors.delete(pane);
    block.classList.remove('anchor');
    pane.classList.remove('anchoring');
  });
}

/**
 * Frames drawn before a selection's anchor is released: the frame after a scroll finds which
 * blocks are now in view, the next draws them (and the browser anchors the scroll), one more
 * for slack.
 */
const ANCHOR_FRAMES = 3;

/** Runs `then` once the page has drawn `n` more frames. @param {number} n @param {() => void} then */
function afterFrames(n, then) {
  requestAnimationFrame(() => (n === 0 ? then() : afterFrames(n - 1, then)));
}

/** The block each pane's current selection scroll is anchored to, for its few frames. @type {Map<HTMLElement, HTMLElement>} */
const anchors = new Map();

function paintStrip() {
  const cells = state.els.strip;
  for (const c of document.querySelectorAll('#strip .cell.current')) c.classList.remove('current');
  const cell = cells[state.pos];
  cell?.classList.add('current');
  cell?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  $('position').textContent = state.pos >= 0 ? `${state.pos + 1} / ${state.order.length}` : `– / ${state.order.length}`;
  /** @type {HTMLButtonElement} */ ($('prev')).disabled = state.pos === 0;
  /** @type {HTMLButtonElement} */ ($('next')).disabled = state.pos === state.order.length - 1;
}

/** ←/→ step the stripe order; Home/End jump to its ends. Not while typing in a control. */
function onKey(/** @type {KeyboardEvent} */ ev) {
  if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
  if (ev.target instanceof HTMLElement && ev.target.closest('input, select, textarea')) return;
  const moves = { ArrowLeft: () => step(-1), ArrowRight: () => step(1), Home: () => goTo(0), End: () => goTo(state.order.length - 1) };
  const move = moves[/** @type {keyof typeof moves} */ (ev.key)];
  if (!move) return;
  ev.preventDefault();
  move();
}

start();
