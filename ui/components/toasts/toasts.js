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

/**
 * The share of the window's height the notices may take. At 900×600, three notices of a few
 * lines each in a column took 383 px and left the main area 145 px.
 */
export const NOTICES_SHARE = 0.4;

/**
 * How many of the `count` newest notices to show: as many as keep the notices within `limit`
 * pixels, `heightOf(n)` being their height with the n newest shown; the newest always shows.
 */
export function noticesThatFit(count, heightOf, limit) {
  let shown = count;
  while (shown > 1 && heightOf(shown) > limit) shown -= 1;
  return shown;
}

export class Toasts extends HTMLElement {
  connectedCallback() {
    this.setAttribute('role', 'status');
    this.setAttribute('aria-live', 'polite');
    this.notices = new Notices({ onChange: (list, hidden) => this.draw(list, hidden) });
    this.onToast = (e) => this.show(e.detail.message, e.detail.tone, e.detail.options ?? {});
    this.onResolve = (e) => this.notices.resolve(e.detail.key);
    this.onResize = () => this.fit();
    document.addEventListener('dd-toast', this.onToast);
    document.addEventListener('dd-toast-resolve', this.onResolve);
    window.addEventListener('resize', this.onResize);
    this.unsubscribe = store.subscribe((state, changed) => {
      if (changed.includes('session') || changed.includes('project')) this.notices.within(placeOf(state));
      this.notices.check(state);
    });
  }

  disconnectedCallback() {
    document.removeEventListener('dd-toast', this.onToast);
    document.removeEventListener('dd-toast-resolve', this.onResolve);
    window.removeEventListener('resize', this.onResize);
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
    this.waiting = hidden;
    // Empty, the element is not drawn at all (`dd-toasts:empty`).
    if (list.length === 0) return void this.replaceChildren();
    const shown = new Set(list.map((n) => String(n.id)));
    shown.add('more');
    for (const item of [...this.children]) if (!shown.has(item.dataset.id)) item.remove();
    let previous = this.more();
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
    this.fit();
  }

  /**
   * Shows as many of the newest notices as fit in NOTICES_SHARE of the window's height (each
   * try is measured as drawn), the older ones hidden and counted with those the rules keep
   * waiting. Runs after each drawing and when the window's size changes.
   */
  fit() {
    const toasts = [...this.querySelectorAll('.toast')];
    const show = (n) => {
      toasts.forEach((toast, i) => {
        const hidden = i < toasts.length - n;
        if (toast.hidden !== hidden) toast.hidden = hidden;
      });
      this.count(this.waiting + toasts.length - n);
      return this.getBoundingClientRect().height;
    };
    if (toasts.length === 0) return;
    show(noticesThatFit(toasts.length, show, window.innerHeight * NOTICES_SHARE));
  }

  /** The line saying how many notices wait, first in the element (hidden when none). */
  more() {
    let more = this.querySelector('[data-id="more"]');
    if (!more) {
      more = document.createElement('p');
      more.className = 'toast-more muted';
      more.dataset.id = 'more';
      more.hidden = true;
    }
    this.place(more, null);
    return more;
  }

  count(waiting) {
    const more = this.querySelector('[data-id="more"]');
    if (!more) return;
    const none = waiting === 0;
    if (more.hidden !== none) more.hidden = none;
    if (waiting > 0) setText(more, `${waiting} older ${waiting === 1 ? 'notice waits' : 'notices wait'} — dismiss one to see it`);
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
