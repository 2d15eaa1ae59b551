// First run: the offline demo (the default, one click), a connection to a platform with an
// API key, or a domain diagnosed with no account at all (the DNS doctor, as `domain-desk
// doctor HOST` runs it). The key goes to the Rust side, which keeps it in the OS keyring only.
import { html } from '../../lib/html.js';
import { render } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { describeError } from '../../lib/errors.js';
import { store, startSession } from '../../lib/app-state.js';
import { diagnose } from '../../lib/actions.js';
import { hostnameToDiagnose } from '../../lib/hostname.js';

/**
 * The API base URL the user means by `text`: as typed when it starts with http:// or https://;
 * a bare host (`api.example.com`, `localhost:8080/v1`) gets https://, or http:// for this
 * computer (localhost, 127.x, [::1]), where a local service listens without TLS; null when it
 * is neither.
 */
export function apiBaseUrl(text) {
  const value = String(text ?? '').trim();
  if (/^https?:\/\/[^\s/]+\S*$/i.test(value)) return value;
  const bare = /^(\[[0-9a-f:]+\]|[a-z0-9-]+(\.[a-z0-9-]+)*)(:\d{1,5})?(\/\S*)?$/i.exec(value);
  if (!bare) return null;
  const host = bare[1].toLowerCase();
  const local = host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
  if (!local && !host.includes('.')) return null;
  return `${local ? 'http' : 'https'}://${value}`;
}

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
          <article class="choice choice-diagnose">
            <h3>Diagnose a domain</h3>
            <p>No account needed: ask the DNS servers the world uses why a name does not reach its site, with the exact fix.</p>
            <form id="diagnose-form" novalidate>
              <label for="diagnose-hostname">Domain</label>
              <input id="diagnose-hostname" name="hostname" type="text" required placeholder="www.example.com" autocomplete="off" spellcheck="false" autocapitalize="off">
              <button id="diagnose-submit" type="submit">Diagnose</button>
            </form>
          </article>
        </div>
        <p id="first-run-error" class="error" role="alert" hidden></p>
        ${hasSession ? html`<button id="first-run-cancel" type="button">Back to projects</button>` : ''}
      </section>`);
    this.querySelector('#start-demo').addEventListener('click', () => this.run(() => api.startDemo()));
    this.querySelector('#connect-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const field = this.querySelector('#connect-base-url');
      const base = apiBaseUrl(field.value);
      const key = this.querySelector('#connect-api-key').value.trim();
      if (!base) return this.showError({ kind: 'invalid_input', message: 'Enter the API base URL, such as https://api.example.com (http:// for a service on this computer).' });
      // The address as it will be used, scheme included, where the user can see it.
      if (field.value !== base) field.value = base;
      if (!key) return this.showError({ kind: 'invalid_input', message: 'Enter the API key.' });
      this.run(() => api.connect(base, key));
    });
    this.querySelector('#diagnose-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const { ascii, message } = hostnameToDiagnose(this.querySelector('#diagnose-hostname').value);
      if (!ascii) return this.showError({ kind: 'invalid_input', message });
      this.querySelector('#first-run-error').hidden = true;
      diagnose(ascii);
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
