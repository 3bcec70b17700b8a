// A tiny element helper. Text always goes in through textContent (document text is never
// parsed as HTML: a chunk may hold <script> in a code sample).

/**
 * @param {string} tag
 * @param {Record<string, string | number | boolean | undefined> | null} [attrs] class, data-*, title, …
 * @param {(Node | string | null | undefined | false)[]} [children]
 * @returns {HTMLElement}
 */
export function h(tag, attrs, children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === false) continue;
    if (k === 'class') el.className = String(v);
    else if (k === 'text') el.textContent = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children ?? []) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return el;
}

/** Formats a similarity (cosine) for people: 3 decimals, or "—" when absent. */
export function fmtSim(/** @type {number | undefined} */ x) {
  return typeof x === 'number' && Number.isFinite(x) ? x.toFixed(3) : '—';
}
