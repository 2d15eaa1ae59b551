// The accounts kept on this computer (their keys live in the OS keyring), to switch between
// them or add another.
import { html } from '../../lib/html.js';
import { render } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { store, startSession } from '../../lib/app-state.js';
import { errorText } from '../../lib/errors.js';
import { toast } from '../../lib/toast.js';

export class AccountSwitcher extends HTMLElement {
  connectedCallback() {
    this.unsubscribe = store.subscribe((_s, changed) => {
      if (changed.includes('accounts') || changed.includes('session')) this.draw();
    });
    this.draw();
  }

  disconnectedCallback() {
    this.unsubscribe?.();
  }

  draw() {
    const { accounts, session } = store.get();
    this.hidden = !session;
    if (!session) {
      render(this, html``);
      return;
    }
    render(this, html`<label for="account-select" class="visually-hidden">Account</label>
      <select id="account-select">
        ${accounts.map((a) => html`<option value="${a.id}" ${a.id === session.account_id ? html`selected` : ''}>${a.label}</option>`)}
        <option value="__add">Add account…</option>
      </select>`);
    this.querySelector('#account-select').addEventListener('change', async (e) => {
      const id = e.target.value;
      if (id === '__add') {
        e.target.value = session.account_id;
        store.set({ route: 'first-run' });
        return;
      }
      try {
        const next = await api.switchAccount(id);
        await startSession(next, null);
      } catch (err) {
        e.target.value = session.account_id;
        toast(errorText(err), 'error');
      }
    });
  }
}
