// A project's domain list as the store holds it: replaced, never changed in place, so
// subscribers see a new array when a domain comes or goes.
//
// An answer that reads as the domain the store already holds does not replace it: the
// store keeps its object (and its list, when no domain changed). A background poll may read
// the whole list again, and a list of thousands arrives as thousands of new objects: taking
// them all made every row of the table again and sorted it again, and told every view of the
// list that it changed, when most often nothing had.
//
// An answer that differs keeps the parts that do not (`sharedWith`). A re-verify of a domain
// still waiting for its record differs from the domain held only in when it was checked, and
// the window re-verifies thousands of such domains a minute: taking each answer whole made a
// new copy of every domain each minute, and the copies they replaced, long-lived by then, were
// garbage the web view only takes back in a full collection.

/** True when two plain values (as parsed from JSON) are equal: objects key by key, arrays in order. */
export function sameJson(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((value, i) => sameJson(value, b[i]));
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (!Object.hasOwn(b, key) || !sameJson(a[key], b[key])) return false;
  return true;
}

/**
 * `fresh`, with each part that reads as the same part of `old` (an object, an array, a
 * string) taken from `old`: what it returns reads as `fresh`, and holds new objects only
 * where something changed. `fresh` itself is not changed.
 */
export function sharedWith(old, fresh) {
  if (old === fresh) return old;
  if (typeof old !== 'object' || typeof fresh !== 'object' || old === null || fresh === null) return fresh;
  if (Array.isArray(old) !== Array.isArray(fresh)) return fresh;
  if (sameJson(old, fresh)) return old;
  if (Array.isArray(fresh)) return fresh.map((value, i) => (i < old.length ? sharedWith(old[i], value) : value));
  const out = {};
  for (const key of Object.keys(fresh)) out[key] = Object.hasOwn(old, key) ? sharedWith(old[key], fresh[key]) : fresh[key];
  return out;
}

/**
 * The list `fresh`, read again from the platform, in its order: each domain that reads as the
 * one in `previous` is that object, and when every domain does and the order is the same,
 * `previous` itself.
 */
export function keepUnchanged(previous, fresh) {
  if (previous.length === 0) return fresh;
  const byName = new Map(previous.map((d) => [d.hostname, d]));
  let changed = previous.length !== fresh.length;
  const out = fresh.map((domain, i) => {
    const old = byName.get(domain.hostname);
    const kept = old ? sharedWith(old, domain) : domain;
    if (kept === old) {
      if (previous[i] !== old) changed = true;
      return old;
    }
    changed = true;
    return kept;
  });
  return changed ? out : previous;
}

/**
 * Replaces the domain with the same hostname in a list (or appends it), keeping order; the
 * same list when it reads as the one there.
 */
export function upsertDomain(domains, domain) {
  const i = domains.findIndex((d) => d.hostname === domain.hostname);
  if (i === -1) return [...domains, domain];
  const kept = sharedWith(domains[i], domain);
  if (kept === domains[i]) return domains;
  const copy = domains.slice();
  copy[i] = kept;
  return copy;
}

/**
 * `upsertDomain` for several answers at once, in one new list: each replaces the domain with
 * its hostname in place, the others are appended in the order given (the last answer for a
 * name wins). The same list as upserting them one by one.
 */
export function upsertDomains(domains, answers) {
  if (answers.length === 0) return domains;
  const byName = new Map(answers.map((d) => [d.hostname, d]));
  let changed = false;
  const out = domains.map((d) => {
    const answer = byName.get(d.hostname);
    if (!answer) return d;
    byName.delete(d.hostname);
    const kept = sharedWith(d, answer);
    if (kept !== d) changed = true;
    return kept;
  });
  if (byName.size > 0) return [...out, ...byName.values()];
  return changed ? out : domains;
}

export function removeDomain(domains, hostname) {
  return domains.filter((d) => d.hostname !== hostname);
}
