// The actions menu of one domain's row in the Domains table: Verify (Re-verify once checked),
// Make primary, Redirect to…, Move to project…, Open in browser, Diagnose and Remove…, with the
// same words and the same refusals as the details panel's buttons. The table opens it beside
// the row's ⋯ button (a click, Shift+F10 or the context-menu key) and tells it where its rows
// are (`attach`); while it is open its items follow the domain's latest copy, it moves with its
// row when the list sorts again, and it closes on Escape, Tab, a click outside, an action, or
// when its domain or row is gone. Arrows, Home and End move between its items (the WAI-ARIA
// menu pattern).
import { html } from '../../lib/html.js';
import { render, setAttribute, setText } from '../../lib/dom.js';
import { store } from '../../lib/app-state.js';
import { verifyLabel, PRIMARY_CANNOT_REDIRECT } from '../../lib/domain-view.js';
import * as actions from '../../lib/actions.js';
import { MENU_KEYS_HINT } from '../../lib/grid-keys.js';
import { moveDialog } from '../../lib/move.js';

export class RowMenu extends HTMLElement {
  connectedCallback() {
    render(this, html`
      <div class="row-menu" role="menu" id="row-menu" hidden aria-label="Domain actions">
        <button type="button" role="menuitem" id="menu-verify" data-action="verify">Verify</button>
        <button type="button" role="menuitem" id="menu-make-primary" data-action="primary">Make primary</button>
        <button type="button" role="menuitem" id="menu-redirect" data-action="redirect">Redirect to…</button>
        <button type="button" role="menuitem" id="menu-move" data-action="move">Move to project…</button>
        <button type="button" role="menuitem" id="menu-open" data-action="open">Open in browser</button>
        <button type="button" role="menuitem" id="menu-diagnose" data-action="diagnose">Diagnose</button>
        <button type="button" role="menuitem" id="menu-remove" data-action="remove" class="danger">Remove…</button>
        <p class="row-menu-hint muted small" aria-hidden="true">${MENU_KEYS_HINT}</p>
      </div>`);
    this.menu = this.querySelector('.row-menu');
    this.menu.addEventListener('click', (e) => this.onItem(e));
    this.menu.addEventListener('keydown', (e) => this.onKey(e));
    this.onOutside = (e) => { if (this.isOpen && !this.contains(e.target)) this.close(false); };
    document.addEventListener('mousedown', this.onOutside);
  }

  disconnectedCallback() {
    document.removeEventListener('mousedown', this.onOutside);
  }

  /**
   * Where the menu finds its domain's row: `anchorOf(hostname)` is the row's ⋯ button while
   * the row is in the page (else null), `focusRow(hostname)` puts the focus on the domain's
   * row and says whether it is still listed.
   */
  attach({ anchorOf, focusRow }) {
    this.rows = { anchorOf, focusRow };
  }

  get isOpen() {
    return this.menu ? !this.menu.hidden : false;
  }

  /** Opens the menu of `hostname` beside `anchor`, its first item focused. */
  open(hostname, anchor) {
    if (!actions.findDomain(hostname)) return;
    this.hostname = hostname;
    this.anchor = anchor;
    this.redraw();
    this.menu.hidden = false;
    this.place(anchor);
    this.menu.querySelector('button:not([disabled])')?.focus();
  }

  /** Puts the menu beside `anchor` (its row's ⋯ button), below it or, near the bottom, above. */
  place(anchor) {
    const box = anchor.getBoundingClientRect();
    const host = (this.menu.offsetParent ?? document.body).getBoundingClientRect();
    const menuHeight = this.menu.offsetHeight;
    const below = box.bottom - host.top + 4;
    // The main area scrolls (and the notices sit below it), so its bottom is the limit.
    const limit = this.closest('main')?.getBoundingClientRect().bottom ?? window.innerHeight;
    const top = box.bottom + menuHeight > limit ? box.top - host.top - menuHeight - 4 : below;
    this.menu.style.top = `${Math.max(0, top)}px`;
    this.menu.style.left = `${Math.max(0, box.right - host.left - this.menu.offsetWidth)}px`;
  }

  /**
   * The menu's words and what it offers, from its domain's latest copy: also while it is
   * open, as a poll's answer can make the domain live (Open in browser) or checked (Re-verify),
   * with the same words as the details panel's buttons. A domain gone closes the menu.
   */
  redraw() {
    const domain = actions.findDomain(this.hostname);
    if (!domain) {
      if (this.isOpen) this.close(false);
      return;
    }
    // A re-sort while it is open moves its row: the menu goes with it, never beside another
    // domain's row while it acts on this one.
    if (this.isOpen) {
      const anchor = this.rows?.anchorOf(this.hostname);
      if (!anchor) {
        this.close(true);
        return;
      }
      this.place(anchor);
    }
    setText(this.menu.querySelector('#menu-verify'), verifyLabel(domain));
    this.menu.querySelector('#menu-make-primary').disabled = domain.role === 'primary';
    // As the details panel's Redirect…: the platform refuses a redirect from the primary.
    const redirect = this.menu.querySelector('#menu-redirect');
    redirect.disabled = domain.role === 'primary';
    setAttribute(redirect, 'title', redirect.disabled ? PRIMARY_CANNOT_REDIRECT : '');
    this.menu.querySelector('#menu-open').disabled = domain.status !== 'live';
  }

  /** Closes the menu; the focus goes back to its domain's row (the grid's Tab stop), not the ⋯ button. */
  close(restoreFocus = true) {
    this.menu.hidden = true;
    if (!restoreFocus) return;
    if (!this.rows?.focusRow(this.hostname)) this.anchor?.focus();
  }

  onKey(e) {
    const items = [...this.menu.querySelectorAll('button:not([disabled])')];
    const i = items.indexOf(document.activeElement);
    if (e.key === 'Escape' || e.key === 'Tab') {
      e.preventDefault();
      this.close();
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      items[(i + 1) % items.length]?.focus();
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      items[(i - 1 + items.length) % items.length]?.focus();
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      items[e.key === 'Home' ? 0 : items.length - 1]?.focus();
    }
  }

  onItem(e) {
    const item = e.target.closest('[data-action]');
    if (!item || item.disabled) return;
    const hostname = this.hostname;
    this.close();
    const run = {
      verify: () => actions.verify(hostname, { fromMenu: true }),
      primary: () => actions.makePrimary(hostname),
      redirect: () => actions.redirectDialog(hostname),
      move: () => moveDialog(hostname),
      open: () => actions.openInBrowser(hostname),
      diagnose: () => actions.diagnose(hostname),
      remove: () => actions.remove(hostname),
    }[item.dataset.action];
    store.set({ selected: hostname });
    run?.();
  }
}
