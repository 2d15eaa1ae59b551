// Small DOM helpers shared by the components: rendering through the escaping template,
// clipboard with a fallback, and focus handling for dialogs.

import { SafeHtml } from './html.js';

/** Replaces an element's content with markup built by `html` (never a raw string). */
export function render(element, markup) {
  if (!(markup instanceof SafeHtml)) throw new TypeError('render() takes html`` output only');
  element.innerHTML = markup.text;
}

/**
 * Makes `target` equal to `source` (an element of the same kind, not in the page) while
 * keeping `target` and as much of its subtree as matches: attributes and text are rewritten
 * only where they differ, and a subtree whose shape differs is replaced by the source's. The
 * browser then restyles and redraws only what changed, which costs far less than new
 * elements in its place. `source` is left emptied where its children were moved.
 */
export function morph(target, source) {
  for (const { name, value } of source.attributes) {
    if (target.getAttribute(name) !== value) target.setAttribute(name, value);
  }
  for (const { name } of [...target.attributes]) {
    if (!source.hasAttribute(name)) target.removeAttribute(name);
  }
  const mine = target.childNodes;
  const theirs = source.childNodes;
  const sameShape = mine.length === theirs.length
    && [...mine].every((node, i) => node.nodeName === theirs[i].nodeName);
  if (!sameShape) {
    target.replaceChildren(...theirs);
    return;
  }
  for (let i = 0; i < mine.length; i++) {
    const node = mine[i];
    if (node.nodeType === Node.ELEMENT_NODE) morph(node, theirs[i]);
    else if (node.nodeValue !== theirs[i].nodeValue) node.nodeValue = theirs[i].nodeValue;
  }
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

/** Opens a <dialog> modally and focuses its first field (or the element matching `focus`). */
export function openDialog(dialog, focus) {
  if (!dialog.open) dialog.showModal();
  const target = (focus && dialog.querySelector(focus))
    ?? dialog.querySelector('input:not([type=hidden]):not([disabled]), select, textarea, button:not([disabled])');
  target?.focus();
}
