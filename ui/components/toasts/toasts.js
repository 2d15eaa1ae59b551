// The live region for short messages (see lib/toast.js). Which notices show and for how long
// is decided by lib/notices.js; this element only draws them, gives each its place (the open
// project's or the account's), and tells the rules when the place or the window's state
// changes. It sits below the main area in the page's flow, never over it, so a notice cannot
// hide a button or a row.
import { html } from '../../lib/html.js';
import { setAttribute, setText } from '../../lib/dom.js';
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

  /**
   * Keeps one element per notice, so a screen reader reads a new notice once: each is written
   * only where it changed and moved only when out of its place, so a notice that stays is not
   * announced again and its focused Dismiss keeps the focus while others come and go.
   */
  draw(list, hidden = 0) {
    const shown = new Set(list.map((n) => String(n.id)));
    if (hidden > 0) shown.add('more');
    for (const item of [...this.children]) if (!shown.has(item.dataset.id)) item.remove();
    let previous = null;
    if (hidden > 0) {
      let more = this.querySelector('[data-id="more"]');
      if (!more) {
        more = document.createElement('p');
        more.className = 'toast-more muted';
        more.dataset.id = 'more';
      }
      setText(more, `${hidden} older ${hidden === 1 ? 'notice waits' : 'notices wait'} — dismiss one to see it`);
      previous = this.place(more, previous);
    }
    for (const notice of list) {
      const item = this.querySelector(`[data-id="${notice.id}"]`) ?? this.create(notice);
      setAttribute(item, 'class', `toast toast-${notice.tone}`);
      setText(item.querySelector('.toast-text'), notice.message);
      const count = item.querySelector('.toast-count');
      if (count.hidden !== notice.count < 2) count.hidden = notice.count < 2;
      setText(count, `×${notice.count}`);
      setAttribute(count, 'title', `${notice.count} times`);
      previous = this.place(item, previous);
    }
  }

  /** Puts `item` right after `previous` (first when null), moving it only when it is elsewhere. */
  place(item, previous) {
    const spot = previous ? previous.nextElementSibling : this.firstElementChild;
    if (spot !== item) {
      if (previous) previous.after(item);
      else this.prepend(item);
    }
    return item;
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
