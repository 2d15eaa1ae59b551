// Small DOM helpers shared by the components: rendering through the escaping template,
// writes that skip a value already there, clipboard with a fallback, and focus handling for
// dialogs.

import { SafeHtml } from './html.js';
import { rememberOpener, giveFocusBack } from './dialogs.js';

/** Replaces an element's content with markup built by `html` (never a raw string). */
export function render(element, markup) {
  if (!(markup instanceof SafeHtml)) throw new TypeError('render() takes html`` output only');
  element.innerHTML = markup.text;
}

// Writes that change the page only when the value differs: a text or attribute written again
// with the value it has still makes WebKit lay the element out and draw it (the domains
// table's keystrokes showed it), so views redrawn for each key or on a timer (the rate meter,
// every second) write only what changed.

/**
 * Sets an element's text only when it differs; an element holding one text node keeps that
 * node and changes its data, so a patched row makes no nodes for its changed text.
 */
export function setText(element, text) {
  if (element.textContent === text) return;
  const only = element.firstChild;
  if (text !== '' && only && only === element.lastChild && only.nodeType === 3 /* Node.TEXT_NODE */) only.data = text;
  else element.textContent = text;
}

/** Sets an attribute only when it differs. */
export function setAttribute(element, name, value) {
  if (element.getAttribute(name) !== value) element.setAttribute(name, value);
}

/** Sets one inline style property (`width`, `--level`) only when it differs. */
export function setStyle(element, property, value) {
  if (element.style.getPropertyValue(property) !== value) element.style.setProperty(property, value);
}

/** The markup each element last got from `renderChanged`. */
const rendered = new WeakMap();

/**
 * Replaces an element's content with `markup` only when it differs from what this function
 * last put there, and says whether it did: a part of a view redrawn on every tick keeps its
 * nodes, so a selection in it survives and a live region in it is not announced again for
 * the same words. An element drawn this way is drawn only this way.
 */
export function renderChanged(element, markup) {
  if (!(markup instanceof SafeHtml)) throw new TypeError('renderChanged() takes html`` output only');
  if (rendered.get(element) === markup.text) return false;
  rendered.set(element, markup.text);
  element.innerHTML = markup.text;
  return true;
}

/** Copies text; resolves true when it worked. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

/**
 * Opens a <dialog> modally and focuses its first field (or the element matching `focus`).
 * Enter submits the dialog's form from any field, a select too (a browser submits a form on
 * Enter only from a text field). When it closes, the focus goes back to the control that
 * opened it (lib/dialogs.js).
 */
export function openDialog(dialog, focus) {
  if (!dialog.open) rememberOpener(dialog, document.activeElement);
  if (!dialog.dataset.enterSubmits) {
    dialog.dataset.enterSubmits = 'true';
    dialog.addEventListener('close', () => giveFocusBack(dialog));
    dialog.addEventListener('keydown', (e) => {
      if (submitsOnEnter(e)) {
        e.preventDefault();
        e.target.form.requestSubmit();
      }
    });
  }
  if (!dialog.open) dialog.showModal();
  const target = (focus && dialog.querySelector(focus))
    ?? dialog.querySelector('input:not([type=hidden]):not([disabled]), select, textarea, button:not([disabled])');
  target?.focus();
}

/** True for an Enter on a select (or a radio or checkbox) inside a form: it submits the form. */
export function submitsOnEnter(e) {
  if (e.key !== 'Enter' || e.shiftKey || e.ctrlKey || e.altKey || e.metaKey || e.isComposing) return false;
  const t = e.target;
  if (!t?.form) return false;
  return t.tagName === 'SELECT' || (t.tagName === 'INPUT' && (t.type === 'radio' || t.type === 'checkbox'));
}
