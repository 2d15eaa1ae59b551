// The Domains table: hostname (Unicode), role, status with its reason, certificate expiry and
// last check, and a menu per row. Only the rows in view exist in the page (lib/virtual.js),
// so thousands of domains scroll and filter smoothly. Keyboard (the WAI-ARIA grid pattern):
// the table is one Tab stop (the active row; the rows' ⋯ buttons are not Tab stops), arrows,
// Page Up/Down and Home/End move between rows, Enter shows the details, the context-menu key
// or Shift+F10 opens the row's menu. The active row follows its domain when the list sorts
// again (after a Verify changes a status), and keeps the focus it had.
import { html, breakable } from '../../lib/html.js';
import { render, setAttribute, setText } from '../../lib/dom.js';
import { store, screenNow } from '../../lib/app-state.js';
import { domainRow, caRefusal } from '../../lib/domain-view.js';
import { subscribeRenewal, renewalsByHostname, renewalIndicator } from '../../lib/renewal.js';
import { visibleRange, scrollToReveal, filterOrder, narrows, sortIndices, reuseRows, rowsToDraw } from '../../lib/virtual.js';
import { RowCache, sameSortKeys } from '../../lib/row-cache.js';
import { mark } from '../../lib/perf.js';
import { gridKey, headerKey } from '../../lib/grid-keys.js';
import { emptyText, screenTimeOfDay } from '../../lib/meter.js';

const ROW_HEIGHT = 56;

export class DomainsTable extends HTMLElement {
  connectedCallback() {
    this.domains = [];
    this.rows = [];
    this.order = [];
    this.query = '';
    this.sort = 'status';
    this.active = 0;
    this.range = null;
    render(this, html`
      <div class="table-tools">
        <label for="domain-filter" class="visually-hidden">Filter domains</label>
        <input id="domain-filter" type="search" placeholder="Filter by name, status or role" autocomplete="off">
        <span id="domain-count" class="muted" aria-live="polite"></span>
        <span id="domains-column-note" class="column-note muted small">Last checked: in the details</span>
      </div>
      <span id="sort-keys-hint" class="visually-hidden">Sorts the table. Up from the first row comes here; Left and Right move between the columns.</span>
      <div class="vt" role="grid" aria-label="Domains" aria-readonly="true" id="domains-grid">
        <div class="vt-head" role="rowgroup">
          <div class="vt-row vt-header" role="row">
            <span role="columnheader"><button type="button" class="sort" data-sort="hostname" tabindex="-1" aria-describedby="sort-keys-hint">Hostname</button></span>
            <span role="columnheader"><button type="button" class="sort" data-sort="role" tabindex="-1" aria-describedby="sort-keys-hint">Role</button></span>
            <span role="columnheader"><button type="button" class="sort" data-sort="status" tabindex="-1" aria-describedby="sort-keys-hint">Status</button></span>
            <span role="columnheader"><span aria-hidden="true">Cert. expires</span><span class="visually-hidden">Certificate expires</span></span>
            <span role="columnheader">Last checked</span>
            <span role="columnheader"><span class="visually-hidden">Actions</span></span>
          </div>
        </div>
        <div class="vt-viewport" id="domains-viewport">
          <div class="vt-spacer" role="rowgroup"><div class="vt-window"></div></div>
          <p class="vt-empty muted" id="domains-empty" hidden></p>
        </div>
      </div>
      <dd-row-menu></dd-row-menu>`);
    this.viewport = this.querySelector('.vt-viewport');
    this.spacer = this.querySelector('.vt-spacer');
    this.window = this.querySelector('.vt-window');
    this.menu = this.querySelector('dd-row-menu');
    this.menu.attach({
      anchorOf: (hostname) => this.window.querySelector(`.vt-row[data-hostname="${CSS.escape(hostname)}"] .row-menu-button`),
      focusRow: (hostname) => {
        const index = this.order.findIndex((ri) => this.rows[ri].hostname === hostname);
        if (index >= 0) this.focusRow(index);
        return index >= 0;
      },
    });
    this.querySelector('#domain-filter').addEventListener('input', (e) => {
      this.query = e.target.value;
      this.scheduleFilter();
    });
    this.querySelectorAll('.sort').forEach((b) => b.addEventListener('click', () => {
      this.sort = b.dataset.sort;
      this.reorder();
    }));
    this.querySelector('.vt-header').addEventListener('keydown', (e) => this.onHeaderKey(e));
    this.viewport.addEventListener('scroll', () => this.schedule());
    this.window.addEventListener('click', (e) => this.onClick(e));
    this.window.addEventListener('pointerover', (e) => {
      const cell = e.target.closest?.('[data-tip]');
      if (cell) showTipIfCut(cell);
    });
    this.window.addEventListener('keydown', (e) => this.onKey(e));
    // A row reached with Tab (or focused any other way) is the active one: the active row
    // follows its domain when the list re-sorts, so the focus stays on that domain, not on
    // whichever domain comes to that place.
    this.window.addEventListener('focusin', (e) => {
      const row = this.rowOf(e.target);
      if (row?.dataset.index != null) this.setActive(Number(row.dataset.index));
    });
    this.resize = new ResizeObserver(() => this.paint(true));
    this.resize.observe(this.viewport);
    this.unsubscribe = store.subscribe((state, changed) => {
      // A tick of the window's clock redraws the relative times from the same "now" as the
      // detail panel's.
      if (changed.includes('domains') || changed.includes('now') || changed.includes('diagnoses') || changed.includes('preflight')) this.load(state.domains);
      // News since the tick drew its rows at a later now than the others': a newly selected
      // row is made at that now too, as the details panel is.
      else if (changed.includes('selected') && state.now !== state.tickedAt) this.load(state.domains);
      else if (changed.includes('selected')) this.paint(true);
      if (changed.includes('domainsLoading') || (state.domainsLoading && changed.includes('queue'))) this.drawEmpty();
    });
    this.load(store.get().domains);
    // A renewal check's results mark the rows whose renewal will fail.
    this.unsubscribeRenewal = subscribeRenewal(() => this.load(store.get().domains));
  }

  disconnectedCallback() {
    this.unsubscribe?.();
    this.unsubscribeRenewal?.();
    this.resize?.disconnect();
    cancelAnimationFrame(this.filterFrame);
    this.filterFrame = null;
  }

  /**
   * Takes `domains` as the table's list: `this.rows` holds each domain's sort and filter keys
   * (made once per copy of a domain, `RowCache.keys`), and the rows are sorted again only when
   * a key moved; they are always filtered again, as a changed status can change what matches.
   * The texts of a row are made when it is drawn (`rowAt`), as of this call's now.
   */
  load(domains) {
    if (domains.length > 0) mark('rows-load');
    // `diagnosis` is the name's last Diagnose, or the pre-flight's warnings kept since Add.
    this.cache ??= new RowCache((d, now, caIdentity, readiness, diagnosis) => withRenewal(domainRow(d, now, { caIdentity, refusal: caRefusal({ diagnosis, readiness }), warnings: diagnosis?.preflight ? diagnosis.findings : null, liveElsewhere: diagnosis?.preflight ? diagnosis.liveElsewhere : null }), readiness));
    this.domains = domains;
    this.drawing = {
      now: screenNow(),
      tick: store.get().tickedAt,
      caIdentity: store.get().session?.ca_identity ?? undefined,
      renewals: renewalsByHostname(),
      diagnoses: store.get().diagnoses ?? {},
      preflight: store.get().preflight ?? {},
    };
    const previous = this.rows;
    let earlier;
    const earlierOf = (hostname) => (earlier ??= new Map((previous ?? []).map((keys) => [keys.hostname, keys]))).get(hostname);
    this.rows = domains.map((domain) => this.cache.keys(domain, earlierOf));
    const resort = !sameSortKeys(previous, this.rows);
    this.reorder({ resort, refilter: true });
    if (this.menu.isOpen) this.menu.redraw();
  }

  /**
   * The shown order: the rows sorted by the column (sorted again only when the rows or the
   * column change, `resort`), then filtered by the query — from the previous matches when the
   * query only grew.
   */
  reorder({ resort = true, refilter = resort } = {}) {
    if (resort || !this.sorted) this.sorted = sortIndices(this.rows, [...this.rows.keys()], this.sort);
    const from = !refilter && this.order && narrows(this.filteredBy, this.query) ? this.order : this.sorted;
    this.order = this.query ? filterOrder(this.rows, from, this.query) : this.sorted;
    this.filteredBy = this.query;
    this.followActive();
    const total = this.rows.length;
    const shown = this.order.length;
    // Only what changed is written: writing the same text or attribute again still makes
    // WebKit lay out and draw it, in the frame the keystroke must fit in.
    setText(this.querySelector('#domain-count'), total === 0 ? '' : shown === total ? `${total} domain${total === 1 ? '' : 's'}` : `${shown} of ${total} domains`);
    this.querySelectorAll('.sort').forEach((b) => setAttribute(b, 'aria-pressed', String(b.dataset.sort === this.sort)));
    setAttribute(this.querySelector('#domains-grid'), 'aria-rowcount', String(shown + 1));
    this.drawEmpty();
    const height = `${shown * ROW_HEIGHT}px`;
    if (this.spacer.style.height !== height) this.spacer.style.height = height;
    this.paint(true);
  }

  /**
   * The note in place of rows: loading (with the requests waiting before it, when the queue
   * is paused or busy), none yet, or none matching the filter.
   */
  drawEmpty() {
    const empty = this.querySelector('#domains-empty');
    const shown = this.order.length;
    if (empty.hidden !== shown > 0) empty.hidden = shown > 0;
    const { domainsLoading, queue, clock } = store.get();
    const demo = store.get().session?.mode === 'demo';
    setText(empty, emptyText({ total: this.rows.length, loading: Boolean(domainsLoading), queue, now: Date.now(), timeText: screenTimeOfDay(clock), demo }));
  }

  /**
   * Filters in the frame after the keystroke's own: WebKit draws the typed character in one
   * frame and the changed rows in the next, so neither frame carries both (together they
   * overran a 60 Hz frame), and keys typed in between are filtered once. The rows follow the
   * key by one frame.
   */
  scheduleFilter() {
    if (this.filterFrame) return;
    this.filterFrame = requestAnimationFrame(() => {
      this.filterFrame = requestAnimationFrame(() => {
        this.filterFrame = null;
        this.reorder({ resort: false });
      });
    });
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.paint(false);
    });
  }

  /**
   * Puts the rows in view into the page. A scroll (`force` false) only adds the rows that came
   * into range and drops those that left: the rows that stay are not touched, so the browser
   * moves them with the scroll instead of drawing them again. Everything else (a new order,
   * selection, focus moves) draws the range again through `reuseRows`: a row whose index and
   * markup are unchanged stays as it is (a keystroke that leaves the rows in view as they
   * were changes nothing in the page), and one whose markup changed is patched in place
   * (`patchRow`), so the browser redraws the changed text instead of building new rows.
   */
  paint(force) {
    const range = visibleRange({
      scrollTop: this.viewport.scrollTop,
      viewportHeight: this.viewport.clientHeight || 480,
      rowHeight: ROW_HEIGHT,
      count: this.order.length,
    });
    const previous = this.range;
    if (!force && previous && range.start === previous.start && range.end === previous.end) return;
    this.range = range;
    const overlaps = previous && range.start < previous.end && previous.start < range.end;
    // The active row coming back into the range from where it was kept is drawn in full:
    // the rows around it go on both of its sides.
    const inRange = (r) => this.active >= r.start && this.active < r.end;
    const returns = previous && !inRange(previous) && inRange(range);
    if (!force && overlaps && !returns) {
      this.scrollRange(previous, range);
      this.keepRowsInView();
      return;
    }
    const hadFocus = this.window.contains(document.activeElement);
    const focusedMenuButton = document.activeElement?.classList?.contains('row-menu-button');
    const present = new Map([...this.window.children].map((row) => [Number(row.dataset.index), row]));
    const wanted = this.indicesToDraw(range).map((i) => [i, this.rowHtml(i)]);
    const wantedAt = new Map(wanted);
    const plan = reuseRows(
      new Map([...present].map(([index, row]) => [index, row.markup])),
      wanted.map(([index, markup]) => [index, markup.text]),
    );
    for (const index of plan.drop) present.get(index).remove();
    for (const index of plan.patch) {
      const row = present.get(index);
      this.patchRow(row, index);
      row.markup = wantedAt.get(index).text;
    }
    const made = this.makeRows(plan.make.map((index) => wantedAt.get(index)));
    // The kept rows are in order; each new row goes in before the first kept row after it,
    // so the page keeps the rows in order, as assistive technology reads them.
    let next = this.window.firstElementChild;
    for (const row of made) {
      const index = Number(row.dataset.index);
      while (next && Number(next.dataset.index) < index) next = next.nextElementSibling;
      this.window.insertBefore(row, next);
    }
    this.keepRowsInView();
    if (wanted.length > 0) mark('rows-rendered');
    if (hadFocus) {
      const row = this.window.querySelector(`[data-index="${this.active}"]`);
      (focusedMenuButton ? row?.querySelector('.row-menu-button') : row)?.focus({ preventScroll: true });
    }
  }

  /**
   * The rows drawn for `range`: those in it and the active row wherever it is (`rowsToDraw`).
   * The active row is the grid's one Tab stop, so it stays in the page when the list scrolls
   * it out of view (Tab from the filter then still lands in the grid, on it, and a focused row
   * scrolled away keeps the focus); it is positioned at its place in the list like any other.
   */
  indicesToDraw(range) {
    return rowsToDraw(range, this.active, this.order.length);
  }

  /** The row cache keeps the rows drawn only (`RowCache.retain`). */
  keepRowsInView() {
    const inView = new Set();
    for (const i of this.indicesToDraw(this.range)) inView.add(this.domains[this.order[i]]);
    this.cache.retain(inView);
  }

  /**
   * From the rows of `from` to those of `to` (overlapping ranges), keeping the rows in both.
   * The rows that left the range become the rows that came into it, patched in place
   * (`patchRow`) and moved: a scroll makes no elements, so scrolling through thousands of
   * rows leaves nothing behind for the web process to collect. The active row stays where it
   * is, in view or not (`indicesToDraw`): it is never moved, so it keeps the focus. Another
   * row holding the focus is not reused (it would carry the focus to another domain): it
   * leaves the page.
   */
  scrollRange(from, to) {
    const spare = [];
    let pinned = null;
    for (const row of [...this.window.children]) {
      const index = Number(row.dataset.index);
      if (index >= to.start && index < to.end) continue;
      if (index === this.active) pinned = row;
      else if (row.contains(document.activeElement)) row.remove();
      else spare.push(row);
    }
    const rowsFor = (start, end) => {
      const rows = [];
      const markups = [];
      for (let i = start; i < end; i++) {
        const row = spare.pop();
        if (!row) {
          markups.push(this.rowHtml(i));
          continue;
        }
        this.patchRow(row, i);
        // Not built for a scroll: the next full drawing compares it, finds it unknown and
        // patches the row again (which writes nothing when it is already right).
        row.markup = undefined;
        rows.push(row);
      }
      this.placeRows(rows);
      return [...rows, ...this.makeRows(markups)];
    };
    // The page keeps the rows in order, as assistive technology reads them: the rows that came
    // in above go before the first row that stayed, those below after the last, and both on
    // their side of the active row when it is out of the range (it is not moved).
    const before = rowsFor(to.start, Math.min(from.start, to.end));
    const after = rowsFor(Math.max(from.end, to.start), to.end);
    for (const row of spare) row.remove();
    const stayed = [...this.window.children].find((row) => row !== pinned && !before.includes(row) && !after.includes(row));
    const above = stayed ?? (pinned && Number(pinned.dataset.index) >= to.end ? pinned : null);
    for (const row of before) this.window.insertBefore(row, above);
    const below = pinned && Number(pinned.dataset.index) >= to.end ? pinned : null;
    for (const row of after) this.window.insertBefore(row, below);
  }

  /**
   * Row elements from their markup (`rowHtml`), positioned, each remembering the markup it was
   * made from; not yet in the page.
   */
  makeRows(markups) {
    if (markups.length === 0) return [];
    const holder = document.createElement('div');
    render(holder, html`${markups}`);
    const rows = [...holder.children];
    rows.forEach((row, i) => { row.markup = markups[i].text; });
    this.placeRows(rows);
    return rows;
  }

  /** Each row at its own height in the list (rows are positioned, not flowed). */
  placeRows(rows) {
    for (const row of rows) row.style.top = `${Number(row.dataset.index) * ROW_HEIGHT}px`;
  }

  /**
   * The row at place `i` of the shown order, with its texts: made again only when its domain,
   * the tick, the CA or its renewal readiness changed since it was last drawn (`RowCache.row`).
   */
  rowAt(i) {
    const domain = this.domains[this.order[i]];
    const { now, tick, caIdentity, renewals, diagnoses, preflight } = this.drawing;
    const diagnosis = diagnoses[domain.hostname] ?? preflight[domain.hostname] ?? null;
    return this.cache.row(domain, { now, tick, caIdentity, readiness: renewals.get(domain.hostname), diagnosis, selected: store.get().selected });
  }

  rowHtml(i) {
    const selected = store.get().selected;
    const row = this.rowAt(i);
    return html`<div class="vt-row${row.hostname === selected ? ' selected' : ''}" role="row" aria-rowindex="${i + 2}" data-index="${i}" data-hostname="${row.hostname}" data-status="${row.status.key}" data-renewal="${row.renewal.key}" tabindex="${i === this.active ? 0 : -1}" aria-selected="${String(row.hostname === selected)}">
        <span role="gridcell" class="host" data-tip="${row.hostname}"><span class="host-name">${breakable(row.unicode)}</span>${row.unicode !== row.hostname ? html`<span class="muted mono small">${row.hostname}</span>` : ''}</span>
        <span role="gridcell" class="role role-${row.roleKey}" data-tip="${row.role}">${breakable(row.roleText)}</span>
        <span role="gridcell" class="status"><span class="badge tone-${row.status.tone}">${row.status.label}</span><span class="reason" data-tip="${row.status.reason}">${row.status.reason}</span></span>
        <span role="gridcell" class="expires" data-tip="${row.expiresTitle}"><span class="expires-date">${row.expires || '—'}</span><span class="renewal-flag">${row.renewal.label}</span></span>
        <span role="gridcell" class="checked" data-tip="${row.checkedTitle}">${row.checked}</span>
        <span role="gridcell" class="actions"><button type="button" class="row-menu-button" tabindex="-1" aria-haspopup="menu" aria-keyshortcuts="Shift+F10 ContextMenu" aria-label="Actions for ${row.unicode}" data-testid="row-menu-${row.hostname}">⋯</button></span>
      </div>`;
  }

  /**
   * Rewrites the row element `element` in place to be what `rowHtml(i)` makes, writing only
   * the attributes and text that differ. It must follow `rowHtml` exactly: the end-to-end
   * walk checks every patched row node for node against a row made afresh from `rowHtml`.
   */
  patchRow(element, i) {
    const selected = store.get().selected;
    const row = this.rowAt(i);
    const isSelected = row.hostname === selected;
    setAttribute(element, 'class', `vt-row${isSelected ? ' selected' : ''}`);
    setAttribute(element, 'aria-rowindex', String(i + 2));
    setAttribute(element, 'data-index', String(i));
    setAttribute(element, 'data-hostname', row.hostname);
    setAttribute(element, 'data-status', row.status.key);
    setAttribute(element, 'data-renewal', row.renewal.key);
    setAttribute(element, 'tabindex', String(i === this.active ? 0 : -1));
    setAttribute(element, 'aria-selected', String(isSelected));
    const [host, role, status, expires, checked, actions] = element.children;
    setTip(host, row.hostname);
    const [name, ascii] = host.children;
    if (name.textContent !== row.unicode) render(name, breakable(row.unicode));
    if (row.unicode === row.hostname) {
      ascii?.remove();
    } else if (ascii) {
      setText(ascii, row.hostname);
    } else {
      const line = document.createElement('span');
      line.className = 'muted mono small';
      line.textContent = row.hostname;
      host.append(line);
    }
    setAttribute(role, 'class', `role role-${row.roleKey}`);
    setTip(role, shown(row.role));
    if (role.textContent !== shown(row.roleText)) render(role, breakable(row.roleText));
    const [badge, reason] = status.children;
    setAttribute(badge, 'class', `badge tone-${row.status.tone}`);
    setText(badge, shown(row.status.label));
    setTip(reason, shown(row.status.reason));
    setText(reason, shown(row.status.reason));
    setTip(expires, shown(row.expiresTitle));
    const [date, flag] = expires.children;
    setText(date, row.expires || '—');
    setText(flag, shown(row.renewal.label));
    setTip(checked, shown(row.checkedTitle));
    setText(checked, shown(row.checked));
    const button = actions.firstElementChild;
    setAttribute(button, 'aria-label', `Actions for ${row.unicode}`);
    setAttribute(button, 'data-testid', `row-menu-${row.hostname}`);
  }

  /**
   * Keeps the active row on the same domain when the order changes (a status changed by Verify
   * sorts the row elsewhere): its new index, scrolled into view, and the focus when a row had it.
   */
  followActive() {
    const last = Math.max(0, this.order.length - 1);
    const index = this.activeHost == null ? -1 : this.order.findIndex((ri) => this.rows[ri].hostname === this.activeHost);
    const moved = index >= 0 && index !== this.active;
    this.active = index >= 0 ? index : Math.min(this.active, last);
    if (!moved) return;
    const hadFocus = this.window.contains(document.activeElement) && !this.menu.contains(document.activeElement);
    const menuOpen = this.menu.isOpen;
    // Followed into view only while the user is on it (its row focused, its menu open): a
    // re-sort must not pull the table away from where the wheel took it.
    if (!hadFocus && !menuOpen) return;
    this.viewport.scrollTop = scrollToReveal({ index: this.active, scrollTop: this.viewport.scrollTop, viewportHeight: this.viewport.clientHeight, rowHeight: ROW_HEIGHT });
    if (hadFocus && !menuOpen) {
      queueMicrotask(() => this.window.querySelector(`[data-index="${this.active}"]`)?.focus({ preventScroll: true }));
    }
  }

  /**
   * Makes shown row `index` the active one (the grid's one Tab stop), at once in the page: the
   * Tab stop moves to its row, and the row kept for the previous one out of view leaves.
   */
  setActive(index) {
    const previous = this.active;
    this.active = index;
    const ri = this.order[index];
    this.activeHost = ri == null ? null : this.rows[ri].hostname;
    if (previous === index) return;
    for (const row of [...this.window.children]) {
      const i = Number(row.dataset.index);
      const outOfRange = this.range && (i < this.range.start || i >= this.range.end);
      if (i === previous && outOfRange && !row.contains(document.activeElement)) row.remove();
      else setAttribute(row, 'tabindex', String(i === index ? 0 : -1));
    }
  }

  /**
   * Takes the focus back after a dialog opened from the table or the details (`opener`,
   * lib/dialogs.js) when its control is gone: the row of the opener's domain when it is still
   * listed, else the active row — where it is, without scrolling, when it is in the page.
   */
  restoreFocus(opener) {
    if (this.order.length === 0) {
      this.querySelector('#domain-filter')?.focus({ preventScroll: true });
      return;
    }
    const host = opener?.hostname;
    const index = host ? this.order.findIndex((ri) => this.rows[ri].hostname === host) : -1;
    const target = index >= 0 ? index : Math.min(this.active, this.order.length - 1);
    const row = this.window.querySelector(`[data-index="${target}"]`);
    if (row) {
      this.setActive(target);
      row.focus({ preventScroll: true });
    } else this.focusRow(target);
  }

  rowOf(target) {
    return target.closest?.('.vt-row[data-hostname]');
  }

  onClick(e) {
    const row = this.rowOf(e.target);
    if (!row) return;
    this.setActive(Number(row.dataset.index));
    if (e.target.closest('.row-menu-button')) {
      this.menu.open(row.dataset.hostname, e.target.closest('.row-menu-button'));
      return;
    }
    // The details show beside the table, in view at every supported size: nothing scrolls
    // (a click that scrolled the page moved the next click's target away).
    store.set({ selected: row.dataset.hostname });
  }

  focusRow(index) {
    if (this.order.length === 0) return;
    this.setActive(Math.max(0, Math.min(this.order.length - 1, index)));
    this.viewport.scrollTop = scrollToReveal({ index: this.active, scrollTop: this.viewport.scrollTop, viewportHeight: this.viewport.clientHeight, rowHeight: ROW_HEIGHT });
    this.paint(true);
    this.window.querySelector(`[data-index="${this.active}"]`)?.focus({ preventScroll: true });
  }

  onKey(e) {
    const row = this.rowOf(e.target);
    if (!row) return;
    const index = Number(row.dataset.index);
    const page = Math.max(1, Math.floor(this.viewport.clientHeight / ROW_HEIGHT) - 1);
    const action = gridKey(e, index, this.order.length, page);
    if (!action || (e.target !== row && !action.menu)) return;
    e.preventDefault();
    if (action.menu) this.menu.open(row.dataset.hostname, row.querySelector('.row-menu-button'));
    else if (action.header) {
      const sorts = [...this.querySelectorAll('.sort')];
      (sorts.find((b) => b.dataset.sort === this.sort) ?? sorts[0])?.focus();
    } else if (action.open) {
      this.setActive(index);
      store.set({ selected: row.dataset.hostname });
    } else this.focusRow(action.move);
  }

  /** Keys on a column header: Left/Right between the sort buttons, Down back to the rows. */
  onHeaderKey(e) {
    const sorts = [...this.querySelectorAll('.sort')];
    const index = sorts.indexOf(e.target);
    if (index < 0) return;
    const action = headerKey(e, index, sorts.length);
    if (!action) return;
    e.preventDefault();
    if (action.rows) {
      if (this.order.length) this.focusRow(Math.min(this.active ?? 0, this.order.length - 1));
    } else sorts[action.column].focus();
  }
}

/**
 * The row with its Renewal indicator: the expiry cell names a renewal that will fail, on a
 * line of its own below the date (the date is never what gives way).
 */
function withRenewal(row, readiness) {
  row.renewal = renewalIndicator(readiness);
  if (row.renewal.key === 'at_risk') row.expiresTitle = row.renewal.title;
  return row;
}

/**
 * A cell's whole value, shown as its tooltip only while the pointer is on it and only when the
 * cell cuts it (`showTipIfCut`): a tooltip that repeated what the row shows covered the row
 * below. A cell patched for another value loses the tooltip it had.
 */
function setTip(cell, text) {
  setAttribute(cell, 'data-tip', text);
  if (cell.hasAttribute('title')) cell.removeAttribute('title');
}

/** Gives the cell under the pointer its tooltip when its text is cut there, and none otherwise. */
function showTipIfCut(cell) {
  const cut = [cell, ...cell.querySelectorAll('*')].some((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1);
  const tip = cell.dataset.tip;
  if (cut && tip) setAttribute(cell, 'title', tip);
  else if (cell.hasAttribute('title')) cell.removeAttribute('title');
}

/** A value as the `html` template prints it: nothing for null, undefined and false. */
function shown(value) {
  return value === null || value === undefined || value === false ? '' : String(value);
}
