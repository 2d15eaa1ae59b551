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
    // A redirect whose target was removed goes to the project's own address (the platform
    // re-points it there), which is none of the domains: the dialog shows it as it is, rather
    // than preselecting a domain that one Enter would then redirect to.
    const current = domain.role === 'redirect' ? domain.redirect?.to ?? null : null;
    const elsewhere = current && !targets.some((d) => d.hostname === current) ? current : null;
    const body = this.querySelector('#redirect-body');
    render(body, html`<form id="redirect-form" novalidate>
      <h3 id="redirect-title">Redirect ${domain.unicode_hostname}</h3>
      <p>Visitors to this name are sent to the target with a permanent redirect (301).</p>
      ${elsewhere ? html`<p id="redirect-now">It now redirects to <span class="mono">${elsewhere}</span>, the project’s own address: the domain it redirected to was removed.</p>` : ''}
      ${targets.length === 0
        ? html`<p class="error">This project has no other domain to redirect to. Add one first.</p>`
        : html`<label for="redirect-target">Redirect to</label>
          <select id="redirect-target">${elsewhere ? html`<option value="" selected>The project’s own address (now)</option>` : ''}${targets.map((d) => html`<option value="${d.hostname}" ${current === d.hostname ? html`selected` : ''}>${d.unicode_hostname}</option>`)}</select>`}
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
      // The redirect as it is (to the project's own address): nothing to change.
      if (to === '') this.dialog.close();
      else if (to && (await actions.setRedirect(hostname, to))) this.dialog.close();
    });
    openDialog(this.dialog);
  }
}
