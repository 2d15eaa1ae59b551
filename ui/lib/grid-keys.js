// The Domains table's keyboard map (the WAI-ARIA grid pattern, one row per line): which key
// does what on a focused row, and on the column headers above the rows (the sort buttons are
// part of the grid, not Tab stops of their own). Kept apart from the element so the map is
// tested in Node.

/**
 * What a key pressed on row `index` of `count` does: `{move: i}` to focus row i, `{open: true}`
 * to show the row's details, `{menu: true}` to open its menu, `{header: true}` to go up to
 * the column headers (Up on the first row), or null (the key is not the grid's: Tab leaves
 * the grid, letters go to the page).
 * @param {{key: string, shiftKey?: boolean, ctrlKey?: boolean, altKey?: boolean, metaKey?: boolean}} e
 * @param {number} index the focused row
 * @param {number} count the rows shown
 * @param {number} page rows in one page of the viewport
 */
export function gridKey(e, index, count, page) {
  if (e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey)) return { menu: true };
  if (e.ctrlKey || e.altKey || e.metaKey || e.shiftKey) return null;
  if (count === 0) return null;
  const last = count - 1;
  const clamp = (i) => Math.max(0, Math.min(last, i));
  const moves = { ArrowDown: index + 1, ArrowUp: index - 1, PageDown: index + page, PageUp: index - page, Home: 0, End: last };
  if (e.key === 'ArrowUp' && index === 0) return { header: true };
  if (e.key in moves) return { move: clamp(moves[e.key]) };
  if (e.key === 'Enter' || e.key === ' ') return { open: true };
  return null;
}

/**
 * What a key pressed on column header `index` of `count` (the sortable ones) does:
 * `{column: i}` to focus header i (Left and Right, stopping at the ends; Home and End),
 * `{rows: true}` to go down to the rows, or null (Enter and Space are the button's own: they
 * sort; Tab leaves the grid).
 */
export function headerKey(e, index, count) {
  if (e.ctrlKey || e.altKey || e.metaKey || e.shiftKey) return null;
  const clamp = (i) => Math.max(0, Math.min(count - 1, i));
  const moves = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: count - 1 };
  if (e.key in moves) return { column: clamp(moves[e.key]) };
  if (e.key === 'ArrowDown') return { rows: true };
  return null;
}

/** The hint at the foot of a row's menu: the keys that open the same menu from a row. */
export const MENU_KEYS_HINT = 'Shift+F10 or the menu key opens this menu from a row';
