// First run: the offline demo (the default, one click) or a connection to a platform with an
// API key. The key goes to the Rust side, which keeps it in the OS keyring only.
import { html } from '../../lib/html.js';
import { render } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { describeError } from '../../lib/errors.js';
import { store, startSession } from '../../lib/app-state.js';

export class FirstRun extends HTMLElement {
  connectedCallback() {
    const hasSession = Boolean(store.get().session);
    render(this, html`
      <section class="first-run" aria-labelledby="first-run-title">
        <h2 id="first-run-title">${hasSession ? 'Add an account' : 'Welcome to Domain Desk'}</h2>
        <p class="lead">Attach custom domains to your projects, watch them go live, and find out why when they do not.</p>
        <div class="choices">
          <article class="choice choice-demo">
            <h3>Offline demo</h3>
            <p>The whole platform runs inside the app: projects, DNS zones you control, a certificate authority and a clock you can speed up. Nothing leaves this computer.</p>
            <button id="start-demo" class="primary" type="button">Start the offline demo</button>
          </article>
          <article class="choice choice-connect">
            <h3>Connect</h3>
            <form id="connect-form" novalidate>
              <label for="connect-base-url">API base URL</label>
              <input id="connect-base-url" name="base_url" type="url" required placeholder="https://api.example.com" autocomplete="url">
              <label for="connect-api-key">API key</label>
              <input id="connect-api-key" name="api_key" type="password" required autocomplete="off" aria-describedby="connect-key-note">
              <p id="connect-key-note" class="note">Kept in the system keyring only, never in files or logs.</p>
              <button id="connect-submit" type="submit">Connect</button>
            </form>
          </article>
        </div>
        <p id="first-run-error" class="error" role="alert" hidden></p>
        ${hasSession ? html`<button id="first-run-cancel" type="button">Back to projects</button>` : ''}
      </section>`);
    this.querySelector('#start-demo').addEventListener('click', () => this.run(() => api.startDemo()));
    this.querySelector('#connect-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const base = this.querySelector('#connect-base-url').value.trim();
      const key = this.querySelector('#connect-api-key').value.trim();
      if (!/^https?:\/\/[^\s/]+/i.test(base)) return this.showError({ kind: 'invalid_input', message: 'Enter the API base URL, starting with https:// (or http:// for a local service).' });
      if (!key) return this.showError({ kind: 'invalid_input', message: 'Enter the API key.' });
      this.run(() => api.connect(base, key));
    });
    this.querySelector('#first-run-cancel')?.addEventListener('click', () => store.set({ route: 'projects' }));
    if (!hasSession) this.querySelector('#start-demo').focus();
  }

  async run(action) {
    const buttons = this.querySelectorAll('button');
    buttons.forEach((b) => { b.disabled = true; });
    this.querySelector('#first-run-error').hidden = true;
    try {
      const session = await action();
      this.querySelector('#connect-api-key').value = '';
      await startSession(session, store.get().settings.last_project);
    } catch (err) {
      this.showError(err);
    } finally {
      buttons.forEach((b) => { b.disabled = false; });
    }
  }

  showError(err) {
    const box = this.querySelector('#first-run-error');
    if (!box) return;
    const { message, action } = describeError(err);
    box.textContent = action ? `${message} ${action}` : message;
    box.hidden = false;
  }
}
