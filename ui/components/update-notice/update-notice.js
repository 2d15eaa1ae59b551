// A newer version, announced once after start (the Rust side remembers which it announced):
// what changed, and how to get it — "Install and restart" where the app installs itself, the
// package manager's command where a package manager installed it.
import { html } from '../../lib/html.js';
import { render } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { store } from '../../lib/app-state.js';
import { errorText } from '../../lib/errors.js';

export class UpdateNotice extends HTMLElement {
  connectedCallback() {
    this.hidden = true;
    // Asked once the settings are in (they may turn the check off), and only once.
    const check = () => {
      if (store.get().route === 'boot' || this.checked) return;
      this.checked = true;
      this.unsubscribe?.();
      if (store.get().settings.check_updates === false) return;
      // `data-checked` says the answer came (for the end-to-end tests): a notice, or nothing.
      api.checkUpdate()
        .then((notice) => {
          this.dataset.checked = notice ? 'announced' : 'nothing-new';
          if (notice) this.show(notice);
        })
        .catch(() => { this.dataset.checked = 'failed'; });
    };
    this.unsubscribe = store.subscribe(check);
    check();
  }

  disconnectedCallback() {
    this.unsubscribe?.();
  }

  show(notice) {
    const how = notice.how ?? {};
    render(this, html`<section class="update-notice" id="update-notice" role="status" aria-labelledby="update-title">
      <h2 id="update-title">Domain Desk ${notice.version} is available</h2>
      ${notice.notes ? html`<p class="update-notes" id="update-notes">${notice.notes}</p>` : ''}
      ${how.kind === 'install_and_restart'
        ? html`<button type="button" class="primary" id="update-install">Install and restart</button>`
        : how.kind === 'package_manager'
          ? html`<p id="update-how">Domain Desk was installed as a package: update it with your package manager, for example <code class="mono">${how.command}</code></p>`
          : html`<p id="update-how">Download it from the release page.</p>`}
      <p class="update-error" id="update-error" hidden></p>
      <button type="button" id="update-dismiss">Not now</button>
    </section>`);
    this.hidden = false;
    this.querySelector('#update-dismiss').addEventListener('click', () => { this.hidden = true; });
    this.querySelector('#update-install')?.addEventListener('click', async (e) => {
      e.target.disabled = true;
      try {
        await api.installUpdate();
      } catch (err) {
        const error = this.querySelector('#update-error');
        error.textContent = errorText(err);
        error.hidden = false;
        e.target.disabled = false;
      }
    });
  }
}
