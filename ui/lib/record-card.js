// The DNS record of a domain as a DNS provider asks for it, with a copy button per value the
// user pastes (type, name, value) and the spec's warnings while it is still to be created.
// Shared by the Add domain dialog and the detail panel.
import { html, breakable } from './html.js';
import { recordToCreate } from './domain-view.js';
import { copyText } from './dom.js';
import { toast } from './toast.js';

/**
 * `{live}`: the record is in place (the domain is live), so it is shown as the current record
 * without the warnings about creating it. `{record}`: another record of the domain than its
 * routing record, in the same shape (the `_acme-challenge` delegation, lib/switch-plan.js).
 */
export function recordCard(domain, idPrefix = 'record', { live = domain.status === 'live', record = null, found = null } = {}) {
  const r = record ?? recordToCreate(domain);
  const warnings = record ? r.warnings ?? [] : recordWarnings(domain, r, found);
  const field = (key, label, value, { copy = true, note = '' } = {}) => html`<div class="rec-field">
      <span class="rec-label" id="${idPrefix}-${key}-label">${label}</span>
      <span class="rec-value"><code id="${idPrefix}-${key}" aria-labelledby="${idPrefix}-${key}-label">${breakable(value)}</code>${note ? html` <span class="muted small rec-note" id="${idPrefix}-${key}-full">${breakable(note)}</span>` : ''}</span>
      ${copy ? html`<button type="button" class="copy-button" data-copy="${value}" aria-label="Copy ${label.toLowerCase()}">Copy</button>` : html`<span></span>`}
    </div>`;
  return html`<div class="record-card${live ? ' in-place' : ''}">
      ${field('type', 'Type', r.type)}
      ${field('name', 'Name', r.name, { note: `— ${r.fqdn}` })}
      ${field('value', 'Value', r.value)}
      ${r.ttl != null ? field('ttl', 'TTL', withUnit(r.ttl, 's'), { copy: false }) : ''}
      ${live || !warnings.length ? '' : html`<ul class="warnings" id="${idPrefix}-warnings">${warnings.map((w) => html`<li>${w}</li>`)}</ul>`}
    </div>`;
}

/** "60 s": a number and its unit joined by a no-break space, so a line never breaks between them. */
export function withUnit(value, unit) {
  return `${value}\u00a0${unit}`;
}

/**
 * The records found at the domain's name, `[{type, value}]`, when the app has read them: the
 * doctor's last look (`look`, from the store's `dnsNow`; in the demo it reads Demo DNS), else
 * what the platform's own check found. `null` when nothing has been read.
 */
export function foundAtName(domain, look) {
  if (Array.isArray(look?.records)) return look.records.map(({ type, value }) => ({ type: String(type).toUpperCase(), value }));
  const found = domain.verification?.error?.found;
  return Array.isArray(found) ? found.map(({ type, value }) => ({ type: String(type).toUpperCase(), value })) : null;
}

/** The spec's warnings about records that compete with the one to create ("An A or AAAA record at …"). */
const BLOCKING = [/^An A or AAAA record at /, /^Remove other A or AAAA records at @/];

/**
 * The record card's warnings. `found` is what the app read of the name's records (the
 * doctor's last look, which in the demo reads Demo DNS), `[{type, value}]`, or null when it
 * has not looked: then the spec's general warning stays. Once the records are known, the
 * general "an A or AAAA record blocks the CNAME" gives way to the records actually found
 * that stand in the way, or to nothing when none does.
 */
export function recordWarnings(domain, r, found) {
  const warnings = r.warnings ?? [];
  if (!Array.isArray(found)) return warnings;
  const general = warnings.filter((w) => !BLOCKING.some((re) => re.test(w)));
  const same = (a, b) => String(a ?? '').toLowerCase().replace(/\.$/, '') === String(b ?? '').toLowerCase().replace(/\.$/, '');
  const name = r.name;
  const blocking = domain.apex
    // At the apex the platform's own address is the record wanted; any other address competes.
    ? found.filter((f) => (f.type === 'A' || f.type === 'AAAA') && !same(f.value, r.value))
    // A CNAME cannot stand beside any other record at its name.
    : found.filter((f) => f.type !== 'CNAME');
  const specific = blocking.map((f) => domain.apex
    ? `The ${f.type} record “${f.value}” at @ competes with the platform’s address: remove it.`
    : `The ${f.type} record “${f.value}” at “${name}” blocks the CNAME: remove it first.`);
  return [...specific, ...general];
}

/**
 * The notice after a copy: the value in quotes and no full stop after it, so that nothing
 * reads as part of the value (a name's final dot is DNS's root): “Copied
 * “cname.pages.example.net””. A long value (a link) is named by `label`, or as "the link".
 */
export function copiedNotice(value, label = null) {
  if (label) return `Copied ${label}`;
  const text = String(value ?? '');
  return text.length > 60 ? 'Copied the link' : `Copied “${text}”`;
}

/** Wires the copy buttons inside `root` (call after rendering a record card). */
export function wireCopyButtons(root) {
  root.querySelectorAll('.copy-button').forEach((b) => b.addEventListener('click', async () => {
    const ok = await copyText(b.dataset.copy);
    toast(ok ? copiedNotice(b.dataset.copy, b.dataset.copyLabel) : 'Copying is not available; select the text instead.', ok ? 'ok' : 'error');
  }));
}
