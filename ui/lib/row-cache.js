// The Domains table's rows, kept between updates. A background check changes one domain of
// thousands: the store's list is then a new array in which every other domain is the same
// object as before (`upsertDomain`). Deriving all rows again, and sorting them again, for
// each such answer made the window's web process allocate (and later collect) megabytes per
// answer and took frames from typing and scrolling; here a domain's row is made again only
// when something it is made from changed, and the sort is kept when no row's sort key moved.
//
// Sorting and filtering read a few keys of every domain (`rowKeys`); only the rows drawn need
// their texts. So the keys are made once per copy of a domain and never at a tick, and a row's
// texts are made when the row is drawn: at each tick of the clock (every 15 s) the table makes
// the twenty or so rows in view again, not all of its thousands.
//
// A row is kept while it is in view (`retain`), and let go once it scrolls out of it or its
// domain leaves the list. Scrolling through thousands of domains makes a row for each: kept
// any longer (for a tick or two, as the table once kept them), they outlived the web view's
// young-generation collections, and the thousands let go later were garbage only a full
// collection takes back, which does not come while the window waits.
import { sameJson } from './domain-list.js';
import { rowKeys } from './domain-view.js';

/**
 * Rows for domains, each remembered with what it was made from: the domain object, the
 * clock's tick, the CA the session expects, the domain's renewal readiness and its last
 * Diagnose (what the app knows the CA will refuse). A row whose
 * inputs are all the same is the row made before. A row is made with the screen's `now`,
 * which news can move on between two ticks (a poll's answers, a few times a second): only
 * the rows of the domains that changed are made again then, as the others' texts are as old
 * as the tick, as they are between any two ticks. A tick makes every row drawn again. The row
 * of the selected domain is always made at `now`, as the details panel beside it is drawn. A
 * row made again that reads as before is the row made before.
 */
export class RowCache {
  /**
   * `make(domain, now, caIdentity, readiness, diagnosis)` makes a row; `keysOf(domain)` what sorting and
   * filtering read of it.
   */
  constructor(make, keysOf = rowKeys) {
    this.make = make;
    this.keysOf = keysOf;
    /** The rows kept: those of the domains in view, and any made since the table last said which. */
    this.made = new Map();
    this.keyed = new WeakMap();
  }

  /**
   * The sort and filter keys of `domain`: made once for each copy of a domain. `earlierOf(hostname)`
   * gives the keys made for an earlier copy of the domain, if any: when the new copy's keys read
   * the same (a re-verify changes when a domain was checked, not what it sorts by), they are
   * the earlier object, so the keys of thousands of domains re-verified each minute are not
   * made anew and the old ones left to a full collection.
   */
  keys(domain, earlierOf = () => undefined) {
    let keys = this.keyed.get(domain);
    if (!keys) {
      const made = this.keysOf(domain);
      const earlier = earlierOf(domain.hostname);
      keys = earlier && sameJson(earlier, made) ? earlier : made;
      this.keyed.set(domain, keys);
    }
    return keys;
  }

  /**
   * The row of `domain` as drawn now: `tick` is the platform time of the clock's last tick
   * (`now` when not given), `readiness` the domain's renewal readiness, `diagnosis` its last
   * Diagnose's findings, `selected` the hostname whose details are shown.
   */
  row(domain, { now, tick = now, caIdentity, readiness, diagnosis = null, selected = null }) {
    const kept = this.made.get(domain);
    if (kept && kept.tick === tick && kept.caIdentity === caIdentity && kept.readiness === readiness
      && kept.diagnosis === diagnosis && (kept.now === now || domain.hostname !== selected)) return kept.row;
    const made = this.make(domain, now, caIdentity, readiness, diagnosis);
    // At a tick most rows read as they did (a domain never checked, a live one): the row made
    // before is kept, so the one just made is dropped young, and the rows that last from tick
    // to tick are not replaced by copies at each one.
    const row = kept && sameRow(kept.row, made) ? kept.row : made;
    this.made.set(domain, { row, now, tick, caIdentity, readiness, diagnosis });
    return row;
  }

  /** Lets go of the rows of every domain not in `inView` (a Set of domain objects). */
  retain(inView) {
    for (const domain of this.made.keys()) if (!inView.has(domain)) this.made.delete(domain);
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
