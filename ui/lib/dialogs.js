// The window's dialogs, by role. Each dialog element registers itself when it is connected and
// leaves when it is removed, so actions open it through this reference instead of looking a
// global id up in the document; with none connected (a test, a page without it), `dialog()`
// says so with `null`.

const connected = new Map();

/** Makes `element` the dialog for `role` (`confirm`, `redirect`, `diagnose`); returns its removal. */
export function registerDialog(role, element) {
  connected.set(role, element);
  return () => {
    if (connected.get(role) === element) connected.delete(role);
  };
}

/** The connected dialog for `role`, or `null`. */
export function dialog(role) {
  return connected.get(role) ?? null;
}

// Focus given back: a dialog remembers what had the focus when it opened (its opener) and
// gives the focus back to it when it closes — to the same element when it is still in the
// page, else to the element that now has its id, else to the nearest element around it that
// can take it back (`restoreFocus(opener)`: the domains table focuses the opener's domain's
// row, or its active row), else
// to the main area. A dialog opened as another closes (Add domain's Open Demo DNS) takes over
// the first one's opener, and the focus is given back only once no dialog is open.

/**
 * Each open dialog's opener: {element, id, hostname, homes}: the element, its id, the domain
 * it belonged to (`data-hostname` around it: a table's row is reused for another domain as
 * the list scrolls) and the ancestors that can take the focus back (`restoreFocus`).
 */
const openers = new WeakMap();

/**
 * Remembers the opener of `dialogElement` from `active` (the focused element before it opened):
 * the opener of the dialog `active` is in, when the focus was still in one, or `active`.
 */
export function rememberOpener(dialogElement, active) {
  const inDialog = active?.closest?.('dialog');
  const before = inDialog && inDialog !== dialogElement ? openers.get(inDialog) : null;
  if (before) {
    openers.set(dialogElement, before);
    return before;
  }
  if (!active || inDialog === dialogElement || active.tagName === 'BODY' || active.tagName === 'HTML') return openers.get(dialogElement) ?? null;
  const homes = [];
  for (let e = active.parentElement; e; e = e.parentElement) if (typeof e.restoreFocus === 'function') homes.push(e);
  const hostname = active.closest?.('[data-hostname]')?.dataset?.hostname ?? null;
  const opener = { element: active, id: active.id || null, hostname, homes };
  openers.set(dialogElement, opener);
  return opener;
}

/**
 * Where the focus goes back to when `dialogElement` closes, or null (another dialog is open,
 * or nothing was remembered). `doc` is the document: `{getElementById, querySelector}`.
 * Returns `{element}` to focus, or `{home}` whose `restoreFocus(opener.element)` to call.
 */
export function focusReturn(dialogElement, doc) {
  const opener = openers.get(dialogElement);
  if (!opener || doc.querySelector('dialog[open]')) return null;
  openers.delete(dialogElement);
  const { element } = opener;
  const sameDomain = (e) => (e.closest?.('[data-hostname]')?.dataset?.hostname ?? null) === opener.hostname;
  if (element.isConnected && !element.disabled && !element.closest?.('[hidden]') && sameDomain(element)) return { element };
  const same = opener.id ? doc.getElementById(opener.id) : null;
  if (same && !same.disabled && sameDomain(same)) return { element: same };
  const home = opener.homes.find((e) => e.isConnected);
  if (home) return { home, opener };
  const main = doc.getElementById('main');
  return main ? { element: main } : null;
}

/** Gives the focus back once `dialogElement` closed (see `focusReturn`), without scrolling. */
export function giveFocusBack(dialogElement, doc = globalThis.document) {
  const target = doc && focusReturn(dialogElement, doc);
  if (!target) return;
  if (target.home) target.home.restoreFocus(target.opener);
  else target.element.focus({ preventScroll: true });
}
