// The Domains table's keyboard map (the WAI-ARIA grid pattern, one row per line): which key
// does what on a focused row. Kept apart from the element so the map is tested in Node.

/**
 * What a key pressed on row `index` of `count` does: `{move: i}` to focus row i, `{open: true}`
 * to show the row's details, `{menu: true}` to open its menu, or null (the key is not the
 * grid's: Tab leaves the grid, letters go to the page).
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
  if (e.key in moves) return { move: clamp(moves[e.key]) };
  if (e.key === 'Enter' || e.key === ' ') return { open: true };
  return null;
}

/** The hint shown on a row's ⋯ button: the keys that open the same menu. */
export const MENU_KEYS_HINT = 'Actions (Shift+F10 or the menu key)';
