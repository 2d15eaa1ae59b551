// The live region for short messages (see lib/toast.js). Which notices show and for how long
// is decided by lib/notices.js; this element only draws them. It sits below the main area in
// the page's flow, never over it, so a notice cannot hide a button.
import { html } from '../../lib/html.js';
import { Notices } from '../../lib/notices.js';

export class Toasts extends HTMLElement {
  connectedCallback() {
    this.setAttribute('role', 'status');
    this.setAttribute('aria-live', 'polite');
    this.notices = new Notices({ onChange: (list) => this.draw(list) });
    this.onToast = (e) => this.show(e.detail.message, e.detail.tone);
    document.addEventListener('dd-toast', this.onToast);
  }

  disconnectedCallback() {
    document.removeEventListener('dd-toast', this.onToast);
  }

  show(message, tone) {
    this.notices.add(message, tone);
  }

  /** Keeps one element per notice, so a screen reader reads a new notice once. */
  draw(list) {
    const shown = new Set(list.map((n) => String(n.id)));
    for (const item of [...this.children]) if (!shown.has(item.dataset.id)) item.remove();
    for (const notice of list) {
      const item = this.querySelector(`[data-id="${notice.id}"]`) ?? this.create(notice);
      const count = item.querySelector('.toast-count');
      count.hidden = notice.count < 2;
      count.textContent = `×${notice.count}`;
      count.title = `${notice.count} times`;
      this.append(item);
    }
  }

  create(notice) {
    const item = document.createElement('div');
    item.className = `toast toast-${notice.tone}`;
    item.dataset.id = String(notice.id);
    item.innerHTML = html`<span class="toast-text">${notice.message}</span><span class="toast-count" hidden></span>`.text;
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'toast-close';
    close.setAttribute('aria-label', 'Dismiss');
    close.textContent = '×';
    close.addEventListener('click', () => this.notices.dismiss(notice.id));
    item.append(close);
    return item;
  }
}
