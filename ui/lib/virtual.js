// Windowing for long tables: only the rows in view (plus a margin) exist in the page, so 5,000
// domains scroll and filter as smoothly as 5. Pure arithmetic and indexing, tested in Node.

/**
 * Rows to render for a viewport: `{start, end}` (end exclusive), `offset` (px of the first
 * rendered row) and `total` (px of all rows).
 */
export function visibleRange({ scrollTop, viewportHeight, rowHeight, count, overscan = 6 }) {
  const total = count * rowHeight;
  if (count === 0 || rowHeight <= 0) return { start: 0, end: 0, offset: 0, total: 0 };
  const top = Math.min(Math.max(0, scrollTop), Math.max(0, total - viewportHeight));
  const first = Math.floor(top / rowHeight);
  const inView = Math.ceil(viewportHeight / rowHeight) + 1;
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, first + inView + overscan);
  return { start, end, offset: start * rowHeight, total };
}

/**
 * The rows to keep in the page for `range` (from `visibleRange`), in order: those in it, and
 * the active row (`active`, of `count` rows) wherever it is. The active row is a grid's one
 * Tab stop: kept in the page when it is scrolled out of view, the grid stays in the Tab order
 * and a focused row keeps its focus.
 */
export function rowsToDraw(range, active, count) {
  const indices = [];
  const kept = Number.isInteger(active) && active >= 0 && active < count ? active : -1;
  if (kept >= 0 && kept < range.start) indices.push(kept);
  for (let i = range.start; i < Math.min(range.end, count); i++) indices.push(i);
  if (kept >= range.end) indices.push(kept);
  return indices;
}

/** The scrollTop that brings row `index` into view, or the current one if it already is. */
export function scrollToReveal({ index, scrollTop, viewportHeight, rowHeight }) {
  const top = index * rowHeight;
  const bottom = top + rowHeight;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewportHeight) return bottom - viewportHeight;
  return scrollTop;
}

/**
 * Indices of the rows whose `search` text contains every word of the query (case-insensitive),
 * in their original order. An empty query keeps all rows.
 */
export function filterRows(rows, query) {
  return filterOrder(rows, rows.keys(), query);
}

/**
 * As `filterRows`, over the row indices of `order` (any iterable) and in that order: filtering
 * a sorted order keeps it sorted, so a keystroke never sorts. When every row matches, the
 * answer is `order` itself (an array; an order is never changed in place).
 */
export function filterOrder(rows, order, query) {
  const words = String(query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const indices = Array.isArray(order) ? order : [...order];
  // A keystroke filters thousands of rows, in one pass that makes nothing per row. The answer
  // is made only at the first row that does not match, and not at all when every row matches
  // ("s", "si", … "site-" in a list of site-N names): the arrays of thousands a keystroke
  // made, and the callback it made for each row, were most of what typing left to the web
  // view's collector.
  let out = null;
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k];
    if (matchesEvery(rows[i].search, words)) out?.push(i);
    else out ??= indices.slice(0, k);
  }
  return out ?? indices;
}

function matchesEvery(text, words) {
  for (let w = 0; w < words.length; w++) if (!text.includes(words[w])) return false;
  return true;
}

/**
 * True when every row matching `query` also matches `previous`, so the matches of `previous`
 * are enough to filter from: the query only grew at its end (a longer last word, or more
 * words), the case aside.
 */
export function narrows(previous, query) {
  const before = String(previous ?? '').toLowerCase();
  return String(query ?? '').toLowerCase().startsWith(before);
}

const ORDER = { live: 4, issuing: 3, cert_ready: 2, waiting: 1, cert_failed: 0 };
/** Natural order for names: site-2 before site-10. */
const NAMES = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Sorts row indices by a column: "hostname" (A-Z), "status" (problems first), "role". */
export function sortIndices(rows, indices, column) {
  const copy = [...indices];
  const byName = (a, b) => NAMES.compare(rows[a].unicode, rows[b].unicode);
  if (column === 'status') {
    copy.sort((a, b) => ORDER[rows[a].status.key] - ORDER[rows[b].status.key] || byName(a, b));
  } else if (column === 'role') {
    const rank = { primary: 0, alias: 1, redirect: 2 };
    copy.sort((a, b) => rank[rows[a].roleKey] - rank[rows[b].roleKey] || byName(a, b));
  } else {
    copy.sort(byName);
  }
  return copy;
}

/**
 * How to bring the rows in the page to a newly drawn range. `present` maps the index of each
 * row in the page to the markup it was made from; `wanted` lists the range as
 * `[index, markup]` in order. A row at the same index with the same markup stays as it is,
 * so a keystroke that leaves the rows in view as they were changes nothing in the page; one
 * at the same index with other markup is `patch`ed in place (its text and attributes
 * rewritten, the element kept); rows no longer in range are dropped and rows new to the
 * range are made (in order).
 */
export function reuseRows(present, wanted) {
  const patch = [];
  const make = [];
  const wantedIndices = new Set();
  for (const [index, markup] of wanted) {
    wantedIndices.add(index);
    if (!present.has(index)) make.push(index);
    else if (present.get(index) !== markup) patch.push(index);
  }
  const drop = [...present.keys()].filter((index) => !wantedIndices.has(index));
  return { drop, patch, make };
}
