// Other accounts kept on this computer whose certificate renewal will fail, named in a strip
// under the header, a line each, with a button that switches to the account. A strip of its
// own (not under the account switcher) so the header keeps to one line.
import { html } from '../../lib/html.js';
import { render } from '../../lib/dom.js';
import { store } from '../../lib/app-state.js';
import { accountRiskLine } from '../../lib/renewal.js';
import { followRisks, risksBeside, switchTo } from '../account-switcher/account-switcher.js';

export class AccountRisks extends HTMLElement {
  connectedCallback() {
    this.stop = followRisks(this);
    this.draw();
  }

  disconnectedCallback() {
    this.stop?.();
  }

  draw() {
    const risks = risksBeside(this.risks, store.get().session);
    this.hidden = !risks.length;
    render(this, risks.length ? html`<div id="account-renewal-notice" class="account-renewal-notice" role="status">
      ${risks.map((risk) => html`<p data-account="${risk.accountId}" title="${accountRiskLine(risk)}"><span aria-hidden="true">⚠</span> <span class="risk-line">${accountRiskLine(risk)}</span>
        <button type="button" data-switch="${risk.accountId}">Switch</button></p>`)}
    </div>` : html``);
    for (const button of this.querySelectorAll('[data-switch]')) {
      button.addEventListener('click', () => switchTo(button.dataset.switch, null));
    }
  }
}
