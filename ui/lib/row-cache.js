// The Domains table's rows, kept between updates. A background check changes one domain of
// thousands: the store's list is then a new array in which every other domain is the same
// object as before (`upsertDomain`). Deriving all rows again, and sorting them again, for
// each such answer made the window's web process allocate (and later collect) megabytes per
// answer and took frames from typing and scrolling; here a domain's row is made again only
// when something it is made from changed, and the sort is kept when no row's sort key moved.
import { sameJson } from './domain-list.js';

/**
 * Rows for domains, each remembered with what it was made from: the domain object, the
 * clock's tick, the CA the session expects, and the domain's renewal readiness. A row whose
 * inputs are all the same is the row made before. A row is made with the screen's `now`,
 * which news can move on between two ticks (a poll's answers, a few times a second): only
 * the rows of the domains that changed are made again then, as the others' texts are as old
 * as the tick, as they are between any two ticks. A tick makes every row again. The row of
 * the selected domain is always made at `now`, as the details panel beside it is drawn. A row
 * made again that reads as before is the row made before.
 */
export class RowCache {
  /** `make(domain, now, caIdentity, readiness)` makes a row. */
  constructor(make) {
    this.make = make;
    this.made = new WeakMap();
  }

  /**
   * The rows of `domains`, in order; `tick` is the platform time of the clock's last tick
   * (`now` when not given), `renewals` maps a hostname to its readiness, `selected` is the
   * hostname whose details are shown.
   */
  rows(domains, { now, tick = now, caIdentity, renewals, selected = null }) {
    return domains.map((domain) => {
      const readiness = renewals.get(domain.hostname);
      const kept = this.made.get(domain);
      if (kept && kept.tick === tick && kept.caIdentity === caIdentity && kept.readiness === readiness
        && (kept.now === now || domain.hostname !== selected)) return kept.row;
      const made = this.make(domain, now, caIdentity, readiness);
      // At a tick most rows read as they did (a domain never checked, a live one): the row
      // made before is kept, so the one just made is dropped young, and the rows that last
      // from tick to tick are not replaced by thousands of copies at each one.
      const row = kept && sameRow(kept.row, made) ? kept.row : made;
      this.made.set(domain, { row, now, tick, caIdentity, readiness });
      return row;
    });
  }
}

/** True when rows `a` and `b` hold the same values, their objects (status, renewal) too. */
export function sameRow(a, b) {
  return sameJson(a, b);
}

/**
 * True when `after` sorts as `before` did by every column: as many rows, and at each place the
 * same status, role and name (the keys `sortIndices` compares). The sorted order of `before`
 * is then the sorted order of `after`.
 */
export function sameSortKeys(before, after) {
  if (!before || before.length !== after.length) return false;
  for (let i = 0; i < after.length; i++) {
    const a = before[i];
    const b = after[i];
    if (a === b) continue;
    if (a.status.key !== b.status.key || a.roleKey !== b.roleKey || a.unicode !== b.unicode) return false;
  }
  return true;
}
