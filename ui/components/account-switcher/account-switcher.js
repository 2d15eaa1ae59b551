// The accounts kept on this computer (their keys live in the OS keyring), to switch between
// them or add another. The renewal watch covers every one of them: an account other than the
// signed-in one whose renewal will fail is marked in the list, and named in a one-line strip
// under the header (`dd-account-risks`) with a button that switches to it — a strip of its
// own, so the header keeps to one line.
import { html } from '../../lib/html.js';
import { render } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { store, startSession } from '../../lib/app-state.js';
import { errorText } from '../../lib/errors.js';
import { toast } from '../../lib/toast.js';
import { subscribeRenewal, otherAccountsAtRisk } from '../../lib/renewal.js';

export async function switchTo(id, select) {
  const { session } = store.get();
  try {
    const next = await api.switchAccount(id);
    await startSession(next, null);
  } catch (err) {
    if (select) select.value = session.account_id;
    toast(errorText(err), 'error', { scope: 'account' });
  }
}

/** The accounts at risk other than the signed-in one. */
export function risksBeside(risks, session) {
  return (risks ?? []).filter((risk) => risk.accountId !== session?.account_id);
}

/** Follows the renewal watch and the session, calling `draw` when either changes. */
export function followRisks(element) {
  element.risks = [];
  const unsubscribe = store.subscribe((_s, changed) => {
    if (changed.includes('accounts') || changed.includes('session')) element.draw();
  });
  const stopRenewal = subscribeRenewal((view) => {
    const risks = otherAccountsAtRisk(view, store.get().session?.account_id);
    if (JSON.stringify(risks) === JSON.stringify(element.risks)) return;
    element.risks = risks;
    element.draw();
  });
  return () => {
    unsubscribe();
    stopRenewal();
  };
}

export class AccountSwitcher extends HTMLElement {
  connectedCallback() {
    this.stop = followRisks(this);
    this.draw();
  }

  disconnectedCallback() {
    this.stop?.();
  }

  draw() {
    const { accounts, session } = store.get();
    this.hidden = !session;
    if (!session) {
      render(this, html``);
      return;
    }
    const risky = new Set(risksBeside(this.risks, session).map((risk) => risk.accountId));
    render(this, html`<label for="account-select" class="visually-hidden">Account</label>
      <select id="account-select">
        ${accounts.map((a) => html`<option value="${a.id}" ${a.id === session.account_id ? html`selected` : ''}>${a.label}${risky.has(a.id) ? ' · ⚠ renewal fails' : ''}</option>`)}
        <option value="__add">Add account…</option>
      </select>`);
    this.querySelector('#account-select').addEventListener('change', async (e) => {
      const id = e.target.value;
      if (id === '__add') {
        e.target.value = session.account_id;
        store.set({ route: 'first-run' });
        return;
      }
      await switchTo(id, e.target);
    });
  }
}
