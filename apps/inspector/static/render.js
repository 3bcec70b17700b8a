// Builds the page's parts from a loaded topic. Each part is built once into a
// DocumentFragment (one layout for 500 chunks); selection later only toggles classes.
import { clipText, shownLineBreaks, tokenCap } from './data.js';
import { fmtSim, h } from './dom.js';

/** Hues for chunk backgrounds; neighbours differ because consecutive indexes differ mod 6. */
const PALETTE = 6;

/**
 * The source document with every chunk drawn over it (see layoutTree in data.js).
 * @param {string} source
 * @param {import('./data.js').Run[]} runs
 * @param {any[]} chunks manifest chunks
 * @param {any} options the manifest's options (the token caps)
 * @returns {{ root: DocumentFragment, byIndex: HTMLElement[] }}
 */
export function renderSource(source, runs, chunks, options) {
  /** @type {HTMLElement[]} */
  const byIndex = [];
  const frag = document.createDocumentFragment();
  /** @param {import('./data.js').Run[]} list @param {Node} parent @param {import('./data.js').ChunkRun | null} owner */
  const add = (list, parent, owner) => {
    for (const r of list) {
      if (r.kind === 'text') {
        const text = source.slice(r.start, r.end);
        // Top-level text is not in any chunk: drawn dimmed so a missing piece stands out.
        if (r.overlap) {
          const also = owner?.overlapWith.length ? `also in ${owner.overlapWith.map((i) => `#${i}`).join(', ')}` : 'repeated from before';
          parent.appendChild(h('mark', { class: 'overlap', title: `overlap of #${owner?.index}: ${also}` }, [text]));
        } else if (owner === null) parent.appendChild(h('span', { class: 'gap', title: 'in no chunk' }, [text]));
        else parent.appendChild(document.createTextNode(text));
        continue;
      }
      const c = chunks[r.index] ?? {};
      const tokens = c.tokenStats?.tokens;
      const cap = tokenCap(options, c);
      const el = h('span', {
        class: `chunk hue${r.index % PALETTE}${typeof tokens === 'number' && cap && tokens > cap ? ' over-cap' : ''}`,
        'data-chunk-index': r.index,
        'data-label': `#${r.index}${typeof tokens === 'number' ? ` · ${tokens}${cap ? `/${cap}` : ''} tok` : ''}`,
        'data-start': r.start,
        'data-end': r.drawnEnd,
        title: `chunk ${r.index}: ${c.sectionTitle ?? ''} (chars ${r.start}–${r.end})`,
      });
      add(r.children, el, r);
      byIndex[r.index] = el;
      parent.appendChild(el);
    }
  };
  // The top level goes into blocks of about SEGMENT_CHARS, each cut only where the text before
  // it ends a line (so a block's edge is a line break the page drew anyway). The browser then
  // lays out and paints only the blocks near the viewport (content-visibility: auto): one
  // inline block holding 25,000 chunks took 40 s, time growing faster than the chunk count.
  /** @type {HTMLElement | null} */
  let segment = null;
  let segmentStart = 0;
  for (let k = 0; k < runs.length; k++) {
    const r = /** @type {import('./data.js').Run} */ (runs[k]);
    if (segment === null) {
      segment = h('div', { class: 'segment' });
      segmentStart = r.start;
    }
    add([r], segment, null);
    const end = runs[k + 1]?.start ?? source.length;
    if (k === runs.length - 1 || (end - segmentStart >= SEGMENT_CHARS && source.charCodeAt(end - 1) === 10)) {
      segment.style.containIntrinsicSize = `auto ${estimateHeight(source, segmentStart, end)}px`;
      frag.appendChild(segment);
      segment = null;
    }
  }
  return { root: frag, byIndex };
}

/** Characters of source per block of the source view: a few screens' worth. */
const SEGMENT_CHARS = 6000;

/**
 * Rows in a block of the chunk list, which is skipped off screen as a whole (content-visibility).
 * Skipped row by row, a 20,000-chunk topic's click or stripe step took 230 ms, 110 of them in
 * Chromium's intersection checks, one per skippable element at every frame that scrolls.
 */
const ROWS_PER_BLOCK = 32;

/**
 * A guess at the drawn height of source[start, end) before the browser lays it out (its
 * placeholder size, which only sets the scrollbar): 20px lines (12.5px × 1.6), a line of about
 * 110 characters wrapping. The browser keeps the real size once it has drawn a block.
 * @param {string} source @param {number} start @param {number} end
 */
function estimateHeight(source, start, end) {
  let lines = 0;
  for (let at = start; at < end; ) {
    const nl = source.indexOf('\n', at);
    const stop = nl < 0 || nl >= end ? end : nl;
    lines += Math.max(1, Math.ceil((stop - at) / 110));
    at = stop + 1;
  }
  return lines * 20;
}

/**
 * One row per chunk: title, tokens against the cap, hints, similarities, keywords, questions.
 * @param {any} model from loadTopic
 * @param {Map<string, string>} questions
 * @returns {{ root: DocumentFragment, byIndex: HTMLElement[] }}
 */
export function renderList(model, questions) {
  const { manifest, group } = model;
  /** @type {HTMLElement[]} */
  const byIndex = [];
  const frag = document.createDocumentFragment();
  /** @type {HTMLElement | null} */
  let block = null;
  manifest.chunks.forEach((/** @type {any} */ c, /** @type {number} */ i) => {
    if (i % ROWS_PER_BLOCK === 0) {
      block = h('ol', { class: 'row-block' });
      // A typical row's height (86px and its 5px margin) per row, until the block is drawn.
      block.style.containIntrinsicSize = `auto ${Math.min(ROWS_PER_BLOCK, manifest.chunks.length - i) * 91}px`;
      frag.appendChild(block);
    }
    const cap = tokenCap(manifest.options, c);
    const item = group.items?.[i] ?? {};
    const matched = (item.prompt_hashes ?? []).length;
    const row = h('li', { class: `row hue${i % PALETTE}`, 'data-chunk-index': i, tabindex: -1 }, [
      h('div', { class: 'row-head' }, [
        h('span', { class: 'idx', text: `#${i}` }),
        h('span', { class: 'row-title', text: c.sectionTitle || item.title || c.id }),
        baselineTag(group, i),
      ]),
      tokenBar(c.tokenStats?.tokens, cap),
      h('div', { class: 'row-meta' }, [
        h('span', { class: 'hint', text: c.contentHints ?? (c.isCode ? 'code' : 'prose') }),
        c.splitUnit ? h('span', { class: 'tag warn', text: 'split unit', title: 'an oversized block split along its own structure: the text is not an exact slice' }) : null,
        c.overlapChars ? h('span', { class: 'tag', text: `overlap ${c.overlapChars} ch` }) : null,
        h('span', { class: 'sim', title: 'similarity to the conceptual baseline (chunk 0)', text: `c ${fmtSim(item.similarity_conceptual)}` }),
        item.similarity_technical !== undefined ? h('span', { class: 'sim', title: 'similarity to the technical baseline (chunk 1)', text: `t ${fmtSim(item.similarity_technical)}` }) : null,
        matched ? h('span', { class: 'tag q', title: (item.prompt_hashes ?? []).map((/** @type {string} */ x) => questions.get(x) ?? x).join('\n'), text: `${matched} question${matched > 1 ? 's' : ''}` }) : null,
      ]),
      keywordChips(item.keywords, 5),
    ]);
    byIndex[i] = row;
    /** @type {HTMLElement} */ (block).appendChild(row);
  });
  return { root: frag, byIndex };
}

/** @param {any} group @param {number} i */
function baselineTag(group, i) {
  if (i === group.baseline_conceptual) return h('span', { class: 'tag base', text: 'baseline', title: 'the conceptual baseline: similarities are measured against it' });
  if (i === group.baseline_technical) return h('span', { class: 'tag base', text: 'tech baseline', title: 'the technical baseline (a reference section)' });
  return null;
}

/**
 * A bar of `tokens` against the cap; red past it.
 * @param {number | undefined} tokens @param {number | undefined} cap
 */
export function tokenBar(tokens, cap) {
  if (typeof tokens !== 'number') return h('div', { class: 'bar empty' });
  const ratio = cap ? tokens / cap : 0;
  const fill = h('span', { class: `fill${ratio > 1 ? ' over' : ratio > 0.9 ? ' near' : ''}` });
  fill.style.width = `${Math.min(100, Math.round(ratio * 100))}%`;
  return h('div', { class: 'bar', title: cap ? `${tokens} of at most ${cap} tokens` : `${tokens} tokens` }, [
    h('span', { class: 'track' }, [fill]),
    h('span', { class: 'bar-label', text: cap ? `${tokens} / ${cap}` : String(tokens) }),
  ]);
}

/** @param {{ name: string, score: number }[] | undefined} keywords @param {number} [max] */
function keywordChips(keywords, max = Infinity) {
  const list = (keywords ?? []).slice(0, max);
  if (list.length === 0) return null;
  return h(
    'ul',
    { class: 'keywords' },
    list.map((k) => h('li', { title: `score ${k.score}`, text: k.name })),
  );
}

/**
 * The detail panel for one chunk: what the row shows, in full, plus embedText and the record.
 * @param {any} model @param {Map<string, string>} questions @param {number} i
 * @returns {DocumentFragment}
 */
export function renderDetail(model, questions, i) {
  const { manifest, group } = model;
  const c = manifest.chunks[i];
  const item = group.items?.[i] ?? {};
  const cap = tokenCap(manifest.options, c);
  const pos = c.sourcePosition ?? {};
  const frag = document.createDocumentFragment();
  const hashes = item.prompt_hashes ?? [];
  frag.append(
    h('h2', { class: 'detail-title' }, [h('span', { class: `idx hue${i % PALETTE}`, text: `#${i}` }), ' ', c.sectionTitle || item.title || '']),
    h('p', { class: 'crumb', text: c.headerBreadcrumb ?? '' }),
    h('dl', { class: 'facts' }, [
      ...fact('id', h('code', { class: 'chunk-id', text: c.id ?? '' })),
      ...fact('tokens', tokenBar(c.tokenStats?.tokens, cap)),
      ...fact('embed / est.', `${c.tokenStats?.embedTokens ?? '—'} embed · ${c.tokenStats?.estimatedTokens ?? '—'} estimated`),
      ...fact('range', `chars ${pos.charStart}–${pos.charEnd} of ${pos.totalChars} (${(pos.charEnd ?? 0) - (pos.charStart ?? 0)} chars)`),
      ...fact('overlap', c.overlapChars ? `${c.overlapChars} chars shared with #${i - 1}` : 'none'),
      ...(c.tier?.level ? fact('tier', `${c.tier.level}${c.parentId ? ` of ${c.parentId}` : ''}`) : []),
      ...fact('content', [c.contentHints, c.isCode ? 'code' : null, c.containsTable ? `table (${(c.tableColumns ?? []).join(', ')})` : null, c.splitUnit ? 'split unit' : null].filter(Boolean).join(' · ')),
      ...fact('similarity', `conceptual ${fmtSim(item.similarity_conceptual)}${item.similarity_technical !== undefined ? ` · technical ${fmtSim(item.similarity_technical)}` : ''}`),
      ...fact('stripe rank', stripeRanks(group, i)),
    ]),
    h('h3', { text: 'Keywords' }),
    keywordChips(item.keywords) ?? h('p', { class: 'none', text: 'none' }),
    h('h3', { text: `Questions matched (${hashes.length})` }),
    hashes.length
      ? h(
          'ul',
          { class: 'questions' },
          hashes.map((/** @type {string} */ x) => h('li', null, [h('code', { text: x }), ' ', questions.get(x) ?? '(question text not in index.json)'])),
        )
      : h('p', { class: 'none', text: 'no qa-pairs question matches this chunk' }),
    h('h3', { text: 'embedText' }),
    h('pre', { class: 'embed-text', text: clipText(shownLineBreaks(String(c.embedText ?? ''))) }),
    h('details', { class: 'record' }, [
      h('summary', { text: 'Chunk record (manifest JSON)' }),
      h('pre', { class: 'record-json', text: JSON.stringify(c, (_k, v) => (typeof v === 'string' ? clipText(v) : v), 2) }),
    ]),
  );
  return frag;
}

/** @param {string} term @param {Node | string} value */
function fact(term, value) {
  return [h('dt', { text: term }), h('dd', null, [value])];
}

/** @param {any} group @param {number} i */
function stripeRanks(group, i) {
  const parts = [];
  const c = group.stripe_order?.indexOf(i) ?? -1;
  if (c >= 0) parts.push(`conceptual ${c + 1} of ${group.stripe_order.length}`);
  const t = group.stripe_order_technical?.indexOf(i) ?? -1;
  if (t >= 0) parts.push(`technical ${t + 1} of ${group.stripe_order_technical.length}`);
  return parts.length ? parts.join(' · ') : 'baseline (not in the order)';
}

/**
 * The stripe order as a strip of cells, in order.
 * @param {number[]} order @param {any} model
 * @returns {{ root: DocumentFragment, cells: HTMLElement[] }}
 */
export function renderStrip(order, model) {
  const frag = document.createDocumentFragment();
  const cells = order.map((index, pos) => {
    const c = model.manifest.chunks[index];
    const cell = h('button', {
      type: 'button',
      class: `cell hue${index % PALETTE}`,
      'data-chunk-index': index,
      'data-pos': pos,
      title: `${pos + 1}. #${index} ${c?.sectionTitle ?? ''}`,
      text: String(index),
    });
    frag.appendChild(cell);
    return cell;
  });
  return { root: frag, cells };
}
