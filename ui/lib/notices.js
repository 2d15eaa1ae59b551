// The notices in the window's corner, as data: which are shown, in what order, and when each
// goes away. The toasts element draws them; this module decides, so the rules are tested in
// Node with a fake clock instead of waiting for real timers.
//
// Rules: a notice expires by itself (errors stay longer, there is more to read); at most
// three are shown, a new one drops the oldest; the same message again does not add a second
// notice, it counts the repeat and starts the first one's time again (a burst of Re-verify
// is one notice "×12", not twelve).

/** Notices shown at once. */
export const MAX_NOTICES = 3;

/** How long a notice stays, by tone. */
export const NOTICE_MS = { info: 5_000, ok: 5_000, error: 12_000 };

const realTimers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (id) => globalThis.clearTimeout(id),
};

export class Notices {
  /**
   * @param {object} options
   * @param {(list: Array<{id: number, message: string, tone: string, count: number}>) => void} [options.onChange]
   *   called with the notices shown, oldest first, after every change
   * @param {{setTimeout: Function, clearTimeout: Function}} [options.timers] the clock, for tests
   */
  constructor({ onChange = () => {}, timers = realTimers } = {}) {
    this.onChange = onChange;
    this.timers = timers;
    this.items = [];
    this.nextId = 1;
  }

  /** The notices shown, oldest first. */
  list() {
    return this.items.map(({ id, message, tone, count }) => ({ id, message, tone, count }));
  }

  /** Shows `message`, or counts it again when it is already shown; returns the notice's id. */
  add(message, tone = 'info') {
    const same = this.items.find((n) => n.message === message && n.tone === tone);
    if (same) {
      same.count += 1;
      this.items = [...this.items.filter((n) => n !== same), same];
      this.expireLater(same);
      this.changed();
      return same.id;
    }
    const notice = { id: this.nextId++, message, tone, count: 1, timer: null };
    this.items.push(notice);
    while (this.items.length > MAX_NOTICES) this.drop(this.items[0]);
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

  expireLater(notice) {
    if (notice.timer != null) this.timers.clearTimeout(notice.timer);
    // A warning (for example settings that could not be read) stays until it is dismissed.
    if (notice.tone === 'warning') return;
    notice.timer = this.timers.setTimeout(() => this.dismiss(notice.id), NOTICE_MS[notice.tone] ?? NOTICE_MS.info);
  }

  drop(notice) {
    if (notice.timer != null) this.timers.clearTimeout(notice.timer);
    this.items = this.items.filter((n) => n !== notice);
  }

  changed() {
    this.onChange(this.list());
  }
}
