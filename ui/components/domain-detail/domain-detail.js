// The selected domain in full: status and reason, Verify / Re-verify, the record to create
// next to what the verifier found (add, remove, keep), the certificate, and the actions.
import { html } from '../../lib/html.js';
import { render } from '../../lib/dom.js';
import { store, platformNow } from '../../lib/app-state.js';
import { statusView, roleLabel, verifyLabel, recordPlan } from '../../lib/domain-view.js';
import { dateTime, relativeTime } from '../../lib/format.js';
import * as actions from '../../lib/actions.js';
import { api } from '../../lib/api.js';
import { recordCard, wireCopyButtons } from '../../lib/record-card.js';

export class DomainDetail extends HTMLElement {
  connectedCallback() {
    this.unsubscribe = store.subscribe((_s, changed) => {
      if (changed.includes('selected') || changed.includes('domains')) this.draw();
    });
    this.draw();
  }

  disconnectedCallback() {
    this.unsubscribe?.();
  }

  draw() {
    const hostname = store.get().selected;
    const domain = hostname && actions.findDomain(hostname);
    if (!domain) {
      render(this, html`<aside class="detail empty" aria-label="Domain details"><p class="muted">Select a domain to see its DNS record, why it is not live yet, and what to do.</p></aside>`);
      return;
    }
    const now = platformNow();
    const status = statusView(domain, now, { caIdentity: store.get().session?.ca_identity });
    const plan = recordPlan(domain);
    const cert = domain.certificate ?? {};
    render(this, html`<aside class="detail" aria-labelledby="detail-title" id="detail-panel" data-hostname="${domain.hostname}">
      <h4 id="detail-title">${domain.unicode_hostname}</h4>
      ${domain.unicode_hostname !== domain.hostname ? html`<p class="mono small muted">${domain.hostname}</p>` : ''}
      <p><span class="badge tone-${status.tone}" id="detail-status" data-status="${status.key}">${status.label}</span> <span class="muted">${roleLabel(domain)}</span></p>
      <p id="domain-reason" class="reason-full" role="status">${status.reason}</p>
      <p class="muted small">Last checked: <span id="detail-checked">${domain.verification?.checked_at ? `${relativeTime(domain.verification.checked_at, now, { past: true })} (${dateTime(domain.verification.checked_at)})` : 'never'}</span></p>
      <div class="detail-actions">
        <button type="button" id="verify-button" class="primary">${verifyLabel(domain)}</button>
        <button type="button" id="detail-diagnose">Diagnose</button>
        <button type="button" id="detail-save-diagnostics" title="Runs the doctor and saves every DNS answer and certificate it sees, for support">Save diagnostics…</button>
        <button type="button" id="detail-remove" class="danger">Remove…</button>
        <button type="button" id="detail-auto" hidden>Set up automatically</button>
      </div>
      <p id="detail-auto-note" class="muted small" hidden></p>
      <h5>DNS record to create</h5>
      ${recordCard(domain, 'record')}
      <h5>Records at “${domain.dns_record.name}”</h5>
      <table class="plan" id="record-plan">
        <thead><tr><th scope="col">Do</th><th scope="col">Type</th><th scope="col">Value</th></tr></thead>
        <tbody>${plan.map((p) => html`<tr class="plan-${p.action}" data-action="${p.action}"><td><span class="plan-action">${p.action}</span></td><td>${p.type}</td><td class="mono">${p.value}<br><span class="muted small">${p.why}</span></td></tr>`)}</tbody>
      </table>
      <h5>Certificate</h5>
      <dl class="facts" id="detail-certificate">
        <dt>Status</dt><dd>${cert.status ?? 'none'}</dd>
        ${cert.started_at ? html`<dt>Requested</dt><dd>${dateTime(cert.started_at)}</dd>` : ''}
        ${cert.issued_at ? html`<dt>Issued</dt><dd>${dateTime(cert.issued_at)}</dd>` : ''}
        ${cert.expires_at ? html`<dt>Expires</dt><dd>${dateTime(cert.expires_at)}</dd>` : ''}
        ${cert.error ? html`<dt>Problem</dt><dd>${cert.error.message}</dd>` : ''}
      </dl>
      <dd-renewal-section hostname="${domain.hostname}"></dd-renewal-section>
    </aside>`);
    const verifyButton = this.querySelector('#verify-button');
    verifyButton.addEventListener('click', async () => {
      verifyButton.disabled = true;
      verifyButton.textContent = 'Checking…';
      await actions.verify(domain.hostname);
      const again = this.querySelector('#verify-button');
      if (again) again.disabled = false;
      if (again && again.textContent === 'Checking…') again.textContent = verifyLabel(actions.findDomain(domain.hostname) ?? domain);
    });
    this.querySelector('#detail-diagnose').addEventListener('click', () => actions.diagnose(domain.hostname));
    const saveButton = this.querySelector('#detail-save-diagnostics');
    saveButton.addEventListener('click', async () => {
      saveButton.disabled = true;
      saveButton.textContent = 'Saving diagnostics…';
      await actions.saveDiagnostics(domain.hostname);
      const again = this.querySelector('#detail-save-diagnostics');
      if (again) { again.disabled = false; again.textContent = 'Save diagnostics…'; }
    });
    this.querySelector('#detail-remove').addEventListener('click', () => actions.remove(domain.hostname));
    wireCopyButtons(this);
    this.offerAutomaticSetUp(domain);
  }

  /** Shows "Set up automatically" when the domain's DNS provider supports Domain Connect. */
  async offerAutomaticSetUp(domain) {
    if (domain.status !== 'pending_verification') return;
    this.offers ??= new Map();
    let offer = this.offers.get(domain.hostname);
    if (!offer) {
      offer = api.domainConnectOffer(domain.hostname).catch(() => ({ offered: false }));
      this.offers.set(domain.hostname, offer);
    }
    const answer = await offer;
    const button = this.querySelector('#detail-auto');
    if (!answer.offered || !button || this.querySelector('#detail-panel')?.dataset.hostname !== domain.hostname) return;
    button.hidden = false;
    button.textContent = `Set up automatically at ${answer.provider}`;
    const note = this.querySelector('#detail-auto-note');
    note.hidden = false;
    note.textContent = `${answer.provider} supports Domain Connect: it shows you the record in your browser and writes it when you approve.`;
    button.addEventListener('click', async () => {
      button.disabled = true;
      button.textContent = 'Waiting for your browser…';
      await actions.setUpAutomatically(domain.hostname);
      const again = this.querySelector('#detail-auto');
      if (again) { again.disabled = false; again.textContent = `Set up automatically at ${answer.provider}`; }
    });
  }
}
