// The live region for short messages (see lib/toast.js). Which notices show and for how long
// is decided by lib/notices.js; this element only draws them, gives each its place (the open
// project's or the account's), and tells the rules when the place or the window's state
// changes. It sits below the main area in the page's flow, never over it, so a notice cannot
// hide a button or a row.
import { html } from '../../lib/html.js';
import { Notices } from '../../lib/notices.js';
import { store } from '../../lib/app-state.js';

/** Where the window is: the signed-in account and the open project. */
export function placeOf(state) {
  return { account: state.session?.account_id ?? null, project: state.project?.id ?? null };
}

/** A notice's scope ('project', 'account' or none) as the place it belongs to now. */
export function scopeOf(scope, state) {
  const place = placeOf(state);
  if (scope === 'project') return place;
  if (scope === 'account') return { account: place.account };
  return null;
}

export class Toasts extends HTMLElement {
  connectedCallback() {
    this.setAttribute('role', 'status');
    this.setAttribute('aria-live', 'polite');
    this.notices = new Notices({ onChange: (list, hidden) => this.draw(list, hidden) });
    this.onToast = (e) => this.show(e.detail.message, e.detail.tone, e.detail.options ?? {});
    this.onResolve = (e) => this.notices.resolve(e.detail.key);
    document.addEventListener('dd-toast', this.onToast);
    document.addEventListener('dd-toast-resolve', this.onResolve);
    this.unsubscribe = store.subscribe((state, changed) => {
      if (changed.includes('session') || changed.includes('project')) this.notices.within(placeOf(state));
      this.notices.check(state);
    });
  }

  disconnectedCallback() {
    document.removeEventListener('dd-toast', this.onToast);
    document.removeEventListener('dd-toast-resolve', this.onResolve);
    this.unsubscribe?.();
  }

  show(message, tone, { key, scope, cause } = {}) {
    this.notices.add(message, tone, { key, cause, scope: scopeOf(scope, store.get()) });
  }

  /** Keeps one element per notice, so a screen reader reads a new notice once. */
  draw(list, hidden = 0) {
    const shown = new Set(list.map((n) => String(n.id)));
    for (const item of [...this.children]) if (!shown.has(item.dataset.id)) item.remove();
    for (const notice of list) {
      const item = this.querySelector(`[data-id="${notice.id}"]`) ?? this.create(notice);
      item.className = `toast toast-${notice.tone}`;
      item.querySelector('.toast-text').textContent = notice.message;
      const count = item.querySelector('.toast-count');
      count.hidden = notice.count < 2;
      count.textContent = `×${notice.count}`;
      count.title = `${notice.count} times`;
      this.append(item);
    }
    if (hidden > 0) {
      const more = document.createElement('p');
      more.className = 'toast-more muted';
      more.dataset.id = 'more';
      more.textContent = `${hidden} older ${hidden === 1 ? "notice waits" : "notices wait"} — dismiss one to see it`;
      this.prepend(more);
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
