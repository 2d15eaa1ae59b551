// Records left pointing at the platform after their domain was removed. A dangling CNAME lets
// whoever attaches the name next take it over, so the warning is not a notice that times out
// or gets pushed away by the next one: it stays in the removed domain's place, above the
// Domains table of its project, until the user dismisses it, adds the name again, or deletes
// the record (in the demo, through Demo DNS). Kept apart from the app state: only the Domains
// section and the actions that remove or delete read it.

import { createStore } from './create-store.js';

/** {items: Array<{project, hostname, name, record: {type, name, fqdn, value}}>} */
export const dangling = createStore({ items: [] });

/** After removing `hostname` from `project`: `record` is what the platform said still points at it. */
export function noteDangling(project, hostname, name, record) {
  if (!record) return;
  dangling.set((s) => ({
    items: [...s.items.filter((d) => !(d.project === project && d.hostname === hostname)), { project, hostname, name, record }],
  }));
}

/** The user dismissed the warning. */
export function forgetDangling(project, hostname) {
  dangling.set((s) => ({ items: s.items.filter((d) => !(d.project === project && d.hostname === hostname)) }));
}

/** A record was deleted in Demo DNS: the warnings about it go with it. */
export function recordDeleted(record) {
  const fqdn = String(record.fqdn ?? '').replace(/\.$/, '').toLowerCase();
  const type = String(record.type ?? '').toUpperCase();
  dangling.set((s) => ({
    items: s.items.filter((d) => !(d.record.fqdn.replace(/\.$/, '').toLowerCase() === fqdn && d.record.type.toUpperCase() === type)),
  }));
}

/**
 * The warnings to show in `project`'s Domains section: none for another project, none for a
 * name that is back in the project (adding it again claimed it).
 */
export function danglingIn(items, project, domains) {
  const present = new Set(domains.map((d) => d.hostname));
  return items.filter((d) => d.project === project && !present.has(d.hostname));
}

/** The warning's words: what still points where, and what to do. */
export function danglingText(entry, demo = false) {
  const { record, name } = entry;
  const where = demo ? 'delete it in Demo DNS' : 'delete it at your DNS provider';
  return `${name} was removed, but its ${record.type} record ${record.name} → ${record.value} still points at the platform: ${where}, or whoever adds ${name} to their project next takes it over.`;
}

/**
 * Whether the last check saw `domain`'s record pointing at the platform: a verified or live
 * domain, or one whose check found the record it asks for. Removing such a domain leaves the
 * record dangling unless it is deleted too.
 */
export function pointsAtPlatform(domain) {
  if (!domain?.dns_record) return false;
  if (domain.status && domain.status !== 'pending_verification') return true;
  const norm = (v) => String(v ?? '').toLowerCase().replace(/\.$/, '');
  const found = domain.verification?.error?.found ?? [];
  return found.some((r) => String(r.type).toUpperCase() === domain.dns_record.type && norm(r.value) === norm(domain.dns_record.value));
}

/** The Remove confirmation's words: what stops, and the record to delete when it still points here. */
export function removeConfirmBody(domain, name, demo = false) {
  const base = 'Traffic to this name stops at once, and redirects to it will point to the project’s current address. You can add it again later, but it must be verified again.';
  if (!pointsAtPlatform(domain)) return base;
  const r = domain.dns_record;
  const where = demo ? 'delete it in Demo DNS too' : 'delete it at your DNS provider too';
  return `${base} Its ${r.type} record ${r.name} → ${r.value} still points at the platform: ${where}, or whoever adds ${name} to their project next takes it over.`;
}
