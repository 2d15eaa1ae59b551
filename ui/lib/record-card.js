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
export function recordCard(domain, idPrefix = 'record', { live = domain.status === 'live', record = null } = {}) {
  const r = record ?? recordToCreate(domain);
  const field = (key, label, value, { copy = true, note = '' } = {}) => html`<div class="rec-field">
      <span class="rec-label" id="${idPrefix}-${key}-label">${label}</span>
      <span class="rec-value"><code id="${idPrefix}-${key}" aria-labelledby="${idPrefix}-${key}-label">${breakable(value)}</code>${note ? html` <span class="muted small rec-note" id="${idPrefix}-${key}-full">${breakable(note)}</span>` : ''}</span>
      ${copy ? html`<button type="button" class="copy-button" data-copy="${value}" aria-label="Copy ${label.toLowerCase()}">Copy</button>` : html`<span></span>`}
    </div>`;
  return html`<div class="record-card${live ? ' in-place' : ''}">
      ${field('type', 'Type', r.type)}
      ${field('name', 'Name', r.name, { note: `— ${r.fqdn}` })}
      ${field('value', 'Value', r.value)}
      ${r.ttl != null ? field('ttl', 'TTL', `${r.ttl} s`, { copy: false }) : ''}
      ${live || !r.warnings?.length ? '' : html`<ul class="warnings" id="${idPrefix}-warnings">${r.warnings.map((w) => html`<li>${w}</li>`)}</ul>`}
    </div>`;
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
