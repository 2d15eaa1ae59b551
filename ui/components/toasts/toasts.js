// The live region for short messages (see lib/toast.js).
import { html } from '../../lib/html.js';

/** Notices shown at once; a burst of actions drops the oldest instead of covering the window. */
const MAX_TOASTS = 4;

export class Toasts extends HTMLElement {
  connectedCallback() {
    this.setAttribute('role', 'status');
    this.setAttribute('aria-live', 'polite');
    this.onToast = (e) => this.show(e.detail.message, e.detail.tone);
    document.addEventListener('dd-toast', this.onToast);
  }

  disconnectedCallback() {
    document.removeEventListener('dd-toast', this.onToast);
  }

  show(message, tone) {
    const item = document.createElement('div');
    item.className = `toast toast-${tone}`;
    item.innerHTML = html`<span>${message}</span>`.text;
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'toast-close';
    close.setAttribute('aria-label', 'Dismiss');
    close.textContent = '×';
    close.addEventListener('click', () => item.remove());
    item.append(close);
    while (this.children.length >= MAX_TOASTS) this.firstElementChild.remove();
    this.append(item);
    // A warning (settings that could not be read) stays until it is dismissed.
    if (tone !== 'warning') setTimeout(() => item.remove(), tone === 'error' ? 12_000 : 5_000);
  }
}
