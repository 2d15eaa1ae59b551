// The window's main area: picks the screen from the store (first run, projects, a project),
// starts the session from the saved settings, and keeps the queue state fresh.
import { html } from '../../lib/html.js';
import { render } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { listen } from '../../lib/tauri.js';
import { store, startSession } from '../../lib/app-state.js';
import { mark } from '../../lib/perf.js';
import { applyTheme } from '../../lib/theme.js';
import { toast } from '../../lib/toast.js';

export class AppShell extends HTMLElement {
  connectedCallback() {
    this.route = null;
    this.unsubscribe = store.subscribe((state, changed) => {
      if (changed.includes('route')) this.show(state.route);
      if (changed.includes('settings')) applyTheme(document.documentElement, state.settings.theme);
    });
    this.show(store.get().route);
    this.boot();
  }

  disconnectedCallback() {
    this.unsubscribe?.();
    this.unlisten?.();
  }

  async boot() {
    mark('boot');
    // The three answers the first screen needs do not depend on each other: asked together.
    const listening = listen('queue://changed', (queue) => store.set({ queue })).then((unlisten) => {
      this.unlisten = unlisten;
    });
    const settingsAnswer = api.settings().then((answer) => {
      mark('settings-answered');
      return answer;
    });
    const sessionAnswer = api.session().then((answer) => {
      mark('session-answered');
      return answer;
    });
    // Settled before anything can fail below, so no answer is left unhandled.
    await Promise.allSettled([listening, settingsAnswer, sessionAnswer]);
    try {
      await listening;
      const { notice, ...settings } = await settingsAnswer;
      store.set({ settings });
      // The settings file could not be read: it was kept aside and the defaults are in use.
      if (notice) toast(notice.message, 'warning');
      const session = await sessionAnswer;
      if (!session) {
        store.set({ route: 'first-run' });
        return;
      }
      await startSession(session, settings.last_project);
    } catch (err) {
      store.set({ route: 'first-run' });
      this.querySelector('dd-first-run')?.showError(err);
    }
  }

  show(route) {
    if (route === this.route) return;
    this.route = route;
    // The project's screen fills the main area (its table and details scroll inside
    // themselves); the others flow and the main area scrolls them.
    this.dataset.route = route;
    if (route === 'first-run') render(this, html`<dd-first-run></dd-first-run>`);
    else if (route === 'projects') render(this, html`<dd-project-list></dd-project-list>`);
    else if (route === 'project') render(this, html`<dd-project-view></dd-project-view>`);
    else render(this, html`<p class="loading" id="loading">Starting…</p>`);
  }
}
