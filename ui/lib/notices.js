// The notices below the window's main area, as data: which are shown, in what order, and when
// each goes away. The toasts element draws them; this module decides, so the rules are tested
// in Node with a fake clock instead of waiting for real timers.
//
// The rules:
// 1. A confirmation (tone `ok` or `info`) goes by itself after NOTICE_MS.
// 2. An error or a warning stays until it is dismissed, or until its cause is gone: a notice
//    may carry a `key` (resolve(key) removes it: a later success of the same action) and a
//    `cause` (a test on the window's state; check(state) removes the notices whose cause no
//    longer holds, for example a failed verification once the domain is verified or removed).
// 3. The same notice again (same key, or same message and tone) does not add a second one: it
//    counts the repeat, takes the newest words, moves to the end and starts its time again (a
//    burst of Re-verify is one notice "×12", not twelve).
// 4. At most MAX_NOTICES are shown. A new notice beyond that drops the oldest confirmation;
//    errors are never dropped unread: the oldest wait behind the shown ones, counted in
//    `hidden`, and show when one of the shown goes.
// 5. A notice may belong to an account or a project (`scope`); within(place) removes those
//    that belong elsewhere, so switching account or project leaves the other's notices behind.
// 6. Where notices show is the toasts element's rule: in the page's flow below the main area,
//    never over the table's rows or the detail panel's buttons. A warning about one domain's
//    record (a dangling CNAME after Remove) is not a notice at all: it stays in that domain's
//    place in the Domains section (lib/dangling.js).

/** Notices shown at once. */
export const MAX_NOTICES = 3;

/** How long a confirmation stays. Errors and warnings stay until dismissed or resolved. */
export const NOTICE_MS = { info: 5_000, ok: 5_000 };

/** Whether a notice of this tone goes by itself. */
export function expires(tone) {
  return tone in NOTICE_MS;
}

const realTimers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (id) => globalThis.clearTimeout(id),
};

export class Notices {
  /**
   * @param {object} options
   * @param {(list: Array<{id: number, message: string, tone: string, count: number}>, hidden: number) => void} [options.onChange]
   *   called with the notices shown, oldest first, and how many wait behind them, after every change
   * @param {{setTimeout: Function, clearTimeout: Function}} [options.timers] the clock, for tests
   */
  constructor({ onChange = () => {}, timers = realTimers } = {}) {
    this.onChange = onChange;
    this.timers = timers;
    this.items = [];
    this.nextId = 1;
  }

  /** The notices shown, oldest first (the newest MAX_NOTICES). */
  list() {
    return this.items.slice(-MAX_NOTICES).map(({ id, message, tone, count }) => ({ id, message, tone, count }));
  }

  /** How many notices wait behind the shown ones. */
  hidden() {
    return Math.max(0, this.items.length - MAX_NOTICES);
  }

  /**
   * Shows `message`, or counts it again when the same notice is already there; returns the
   * notice's id.
   * @param {string} message
   * @param {string} [tone] ok, info, warning or error
   * @param {object} [options]
   * @param {string} [options.key] names the notice's cause: the same key is the same notice, and resolve(key) removes it
   * @param {{account?: string, project?: string}} [options.scope] where the notice belongs
   * @param {(state: object) => boolean} [options.cause] true while the notice still says something true
   */
  add(message, tone = 'info', { key = null, scope = null, cause = null } = {}) {
    const same = this.items.find((n) => (key != null ? n.key === key : n.key == null && n.message === message && n.tone === tone));
    if (same) {
      same.count += 1;
      Object.assign(same, { message, tone, scope, cause });
      this.items = [...this.items.filter((n) => n !== same), same];
      this.expireLater(same);
      this.changed();
      return same.id;
    }
    const notice = { id: this.nextId++, message, tone, count: 1, key, scope, cause, timer: null };
    this.items.push(notice);
    while (this.items.length > MAX_NOTICES) {
      const oldestConfirmation = this.items.find((n) => expires(n.tone));
      if (!oldestConfirmation) break;
      this.drop(oldestConfirmation);
    }
    this.expireLater(notice);
    this.changed();
    return notice.id;
  }

  /** Removes a notice (its close button, or its time ran out). */
  dismiss(id) {
    const notice = this.items.find((n) => n.id === id);
    if (!notice) return;
    this.drop(notice);
    this.changed();
  }

  /** Removes the notice named `key`: what it reported is over (the same action succeeded). */
  resolve(key) {
    this.dropWhere((n) => n.key === key);
  }

  /** Removes the notices whose cause no longer holds in `state`. */
  check(state) {
    this.dropWhere((n) => n.cause != null && !safely(n.cause, state));
  }

  /**
   * Keeps only the notices that belong to `place` ({account, project}): a notice of another
   * account, or of a project that is not open, goes.
   */
  within(place) {
    this.dropWhere((n) => {
      if (!n.scope) return false;
      if ('account' in n.scope && n.scope.account !== place.account) return true;
      if ('project' in n.scope && n.scope.project !== place.project) return true;
      return false;
    });
  }

  dropWhere(test) {
    const gone = this.items.filter(test);
    if (gone.length === 0) return;
    for (const notice of gone) this.drop(notice);
    this.changed();
  }

  expireLater(notice) {
    if (notice.timer != null) this.timers.clearTimeout(notice.timer);
    notice.timer = null;
    if (!expires(notice.tone)) return;
    notice.timer = this.timers.setTimeout(() => this.dismiss(notice.id), NOTICE_MS[notice.tone]);
  }

  drop(notice) {
    if (notice.timer != null) this.timers.clearTimeout(notice.timer);
    this.items = this.items.filter((n) => n !== notice);
  }

  changed() {
    this.onChange(this.list(), this.hidden());
  }
}

/** A cause that throws no longer holds (the state it read is gone). */
function safely(cause, state) {
  try {
    return Boolean(cause(state));
  } catch {
    return false;
  }
}
