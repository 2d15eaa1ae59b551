// The detail panel's Renewal section for a live domain: when the platform renews its
// certificate, when the renewal watch last checked, and, when DNS would make that renewal
// fail, the problem and its fix in the DNS provider's words. Its own element, so the detail
// panel only places it (`<dd-renewal-section hostname="…">`).
import { html } from '../../lib/html.js';
import { render } from '../../lib/dom.js';
import { store } from '../../lib/app-state.js';
import { dateTime } from '../../lib/format.js';
import * as actions from '../../lib/actions.js';
import { subscribeRenewal, renewalOf, renewalSection } from '../../lib/renewal.js';

export class RenewalSection extends HTMLElement {
  connectedCallback() {
    this.unsubscribe = subscribeRenewal(() => this.draw());
    this.draw();
  }

  disconnectedCallback() {
    this.unsubscribe?.();
  }

  draw() {
    const hostname = this.getAttribute('hostname') ?? store.get().selected;
    const domain = hostname && actions.findDomain(hostname);
    const section = renewalSection(domain, hostname ? renewalOf(hostname) : null);
    if (!section) {
      render(this, html``);
      return;
    }
    render(this, html`<section class="renewal" id="detail-renewal" data-renewal="${section.tone}" aria-labelledby="renewal-title">
      <h5 id="renewal-title">Renewal</h5>
      <dl class="facts">
        <dt>Next renewal</dt><dd id="renewal-next">${section.renewsAt ? dateTime(section.renewsAt) : 'not known'}</dd>
        <dt>Readiness</dt><dd><span class="badge tone-${section.tone}" id="renewal-state">${section.state}</span></dd>
        <dt>Readiness checked</dt><dd id="renewal-checked">${section.checkedAt ? dateTime(section.checkedAt) : 'not yet'}</dd>
        ${section.platformError ? html`<dt>Platform says</dt><dd>${section.platformError}</dd>` : ''}
      </dl>
      ${section.problem ? html`<p class="renewal-problem" id="renewal-problem" role="alert">${section.problem}</p>` : ''}
      ${section.fixSummary ? html`<div class="renewal-fix" id="renewal-fix"><strong>Fix:</strong> ${section.fixSummary}${section.fixSteps.length ? html`<ol>${section.fixSteps.map((step) => html`<li>${step}</li>`)}</ol>` : ''}</div>` : ''}
    </section>`);
  }
}
