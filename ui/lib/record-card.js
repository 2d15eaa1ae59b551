// The DNS record to create, as a DNS provider asks for it, with a copy button per value and
// the spec's warnings. Shared by the Add domain dialog and the detail panel.
import { html } from './html.js';
import { recordToCreate } from './domain-view.js';
import { copyText } from './dom.js';
import { toast } from './toast.js';

export function recordCard(domain, idPrefix = 'record') {
  const r = recordToCreate(domain);
  const field = (key, label, value) => html`<div class="rec-field">
      <span class="rec-label" id="${idPrefix}-${key}-label">${label}</span>
      <code id="${idPrefix}-${key}" aria-labelledby="${idPrefix}-${key}-label">${value}</code>
      <button type="button" class="copy-button" data-copy="${value}" aria-label="Copy ${label.toLowerCase()}">Copy</button>
    </div>`;
  return html`<div class="record-card">
      ${field('type', 'Type', r.type)}
      ${field('name', 'Name', r.name)}
      ${field('value', 'Value', r.value)}
      ${field('ttl', 'TTL', String(r.ttl))}
      <ul class="warnings" id="${idPrefix}-warnings">${r.warnings.map((w) => html`<li>${w}</li>`)}</ul>
    </div>`;
}

/** Wires the copy buttons inside `root` (call after rendering a record card). */
export function wireCopyButtons(root) {
  root.querySelectorAll('.copy-button').forEach((b) => b.addEventListener('click', async () => {
    const ok = await copyText(b.dataset.copy);
    toast(ok ? `Copied ${b.dataset.copy}` : 'Copying is not available; select the text instead.', ok ? 'ok' : 'error');
  }));
}
