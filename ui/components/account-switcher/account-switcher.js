// The accounts kept on this computer (their keys live in the OS keyring), to switch between
// them or add another. The renewal watch covers every one of them: an account other than the
// signed-in one whose renewal will fail is marked in the list and named under it, with a
// button that switches to it.
import { html } from '../../lib/html.js';
import { render } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { store, startSession } from '../../lib/app-state.js';
import { errorText } from '../../lib/errors.js';
import { toast } from '../../lib/toast.js';
import { subscribeRenewal, otherAccountsAtRisk, accountRiskLine } from '../../lib/renewal.js';

export class AccountSwitcher extends HTMLElement {
  connectedCallback() {
    this.unsubscribe = store.subscribe((_s, changed) => {
      if (changed.includes('accounts') || changed.includes('session')) this.draw();
    });
    this.risks = [];
    this.stopRenewal = subscribeRenewal((view) => {
      const risks = otherAccountsAtRisk(view, store.get().session?.account_id);
      if (JSON.stringify(risks) === JSON.stringify(this.risks)) return;
      this.risks = risks;
      this.draw();
    });
    this.draw();
  }

  disconnectedCallback() {
    this.unsubscribe?.();
    this.stopRenewal?.();
  }

  async switchTo(id, select) {
    const { session } = store.get();
    try {
      const next = await api.switchAccount(id);
      await startSession(next, null);
    } catch (err) {
      if (select) select.value = session.account_id;
      toast(errorText(err), 'error', { scope: 'account' });
    }
  }

  draw() {
    const { accounts, session } = store.get();
    this.hidden = !session;
    if (!session) {
      render(this, html``);
      return;
    }
    const risks = (this.risks ?? []).filter((risk) => risk.accountId !== session.account_id);
    const risky = new Set(risks.map((risk) => risk.accountId));
    render(this, html`<label for="account-select" class="visually-hidden">Account</label>
      <select id="account-select">
        ${accounts.map((a) => html`<option value="${a.id}" ${a.id === session.account_id ? html`selected` : ''}>${a.label}${risky.has(a.id) ? ' · ⚠ renewal fails' : ''}</option>`)}
        <option value="__add">Add account…</option>
      </select>
      ${risks.length ? html`<div id="account-renewal-notice" class="account-renewal-notice" role="status">
        ${risks.map((risk) => html`<p data-account="${risk.accountId}"><span aria-hidden="true">⚠</span> ${accountRiskLine(risk)}
          <button type="button" data-switch="${risk.accountId}">Switch</button></p>`)}
      </div>` : ''}`);
    for (const button of this.querySelectorAll('[data-switch]')) {
      button.addEventListener('click', () => this.switchTo(button.dataset.switch, null));
    }
    this.querySelector('#account-select').addEventListener('change', async (e) => {
      const id = e.target.value;
      if (id === '__add') {
        e.target.value = session.account_id;
        store.set({ route: 'first-run' });
        return;
      }
      await this.switchTo(id, e.target);
    });
  }
}
