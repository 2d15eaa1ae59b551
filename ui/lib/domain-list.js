// A project's domain list as the store holds it: replaced, never changed in place, so
// subscribers see a new array when a domain comes or goes.

/** Replaces the domain with the same hostname in a list (or appends it), keeping order. */
export function upsertDomain(domains, domain) {
  const i = domains.findIndex((d) => d.hostname === domain.hostname);
  if (i === -1) return [...domains, domain];
  const copy = domains.slice();
  copy[i] = domain;
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
  const out = domains.map((d) => {
    const answer = byName.get(d.hostname);
    if (!answer) return d;
    byName.delete(d.hostname);
    return answer;
  });
  return byName.size > 0 ? [...out, ...byName.values()] : out;
}

export function removeDomain(domains, hostname) {
  return domains.filter((d) => d.hostname !== hostname);
}
