// <dd-redirect-dialog>: picks the domain a redirect goes to (or stops it redirecting).
import { html } from '../../lib/html.js';
import { registerDialog } from '../../lib/dialogs.js';
import { render, openDialog } from '../../lib/dom.js';
import { store } from '../../lib/app-state.js';
import * as actions from '../../lib/actions.js';

export class RedirectDialog extends HTMLElement {
  disconnectedCallback() {
    this.leave?.();
  }

  connectedCallback() {
    this.leave = registerDialog('redirect', this);
    render(this, html`<dialog id="redirect-dialog" aria-labelledby="redirect-title"><div id="redirect-body"></div></dialog>`);
    this.dialog = this.querySelector('dialog');
  }

  open(hostname) {
    const domain = actions.findDomain(hostname);
    if (!domain) return;
    const targets = store.get().domains.filter((d) => d.hostname !== hostname && d.role !== 'redirect');
    const body = this.querySelector('#redirect-body');
    render(body, html`<form id="redirect-form" novalidate>
      <h3 id="redirect-title">Redirect ${domain.unicode_hostname}</h3>
      <p>Visitors to this name are sent to the target with a permanent redirect (301).</p>
      ${targets.length === 0
        ? html`<p class="error">This project has no other domain to redirect to. Add one first.</p>`
        : html`<label for="redirect-target">Redirect to</label>
          <select id="redirect-target">${targets.map((d) => html`<option value="${d.hostname}" ${domain.redirect?.to === d.hostname ? html`selected` : ''}>${d.unicode_hostname}</option>`)}</select>`}
      <div class="dialog-buttons">
        <button type="button" id="redirect-cancel">Cancel</button>
        ${domain.role === 'redirect' ? html`<button type="button" id="redirect-clear">Stop redirecting</button>` : ''}
        <button type="submit" id="redirect-submit" class="primary" ${targets.length === 0 ? html`disabled` : ''}>Set redirect</button>
      </div></form>`);
    body.querySelector('#redirect-cancel').addEventListener('click', () => this.dialog.close());
    body.querySelector('#redirect-clear')?.addEventListener('click', async () => {
      if (await actions.setRedirect(hostname, null)) this.dialog.close();
    });
    body.querySelector('#redirect-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      const to = body.querySelector('#redirect-target')?.value;
      if (to && (await actions.setRedirect(hostname, to))) this.dialog.close();
    });
    openDialog(this.dialog);
  }
}
