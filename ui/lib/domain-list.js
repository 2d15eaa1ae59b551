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

export function removeDomain(domains, hostname) {
  return domains.filter((d) => d.hostname !== hostname);
}
