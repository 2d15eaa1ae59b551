// About and settings: the version and folders (from `app_info`), the theme, background
// polling, watching from the tray after the window closes, looking for updates, and the
// accounts kept in the keyring.
import { html } from '../../lib/html.js';
import { render, openDialog } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { store } from '../../lib/app-state.js';
import { THEMES } from '../../lib/theme.js';
import { errorText } from '../../lib/errors.js';
import { toast } from '../../lib/toast.js';

export class AboutDialog extends HTMLElement {
  connectedCallback() {
    render(this, html`<dialog id="about-dialog" aria-labelledby="about-title">
      <div class="panel-head"><h3 id="about-title">About Domain Desk</h3><button type="button" id="about-close">Close</button></div>
      <section id="about" aria-live="polite"></section>
      <h4>Settings</h4>
      <div class="settings">
        <label for="theme-select">Appearance</label>
        <select id="theme-select">${THEMES.map((t) => html`<option value="${t}">${t === 'system' ? 'Follow the system' : t === 'light' ? 'Light' : 'Dark'}</option>`)}</select>
        <label for="polling-toggle">Watch domains that are not live</label>
        <input type="checkbox" id="polling-toggle">
        <label for="watch-after-close-toggle">Closing the window keeps watching domains that are not live (from the tray)</label>
        <input type="checkbox" id="watch-after-close-toggle">
        <label for="check-updates-toggle">Look for a newer version at start</label>
        <input type="checkbox" id="check-updates-toggle">
      </div>
    </dialog>`);
    this.dialog = this.querySelector('dialog');
    this.querySelector('#about-close').addEventListener('click', () => this.dialog.close());
    this.querySelector('#theme-select').addEventListener('change', (e) => this.save({ theme: e.target.value }));
    this.querySelector('#polling-toggle').addEventListener('change', (e) => this.save({ polling: e.target.checked }));
    this.querySelector('#watch-after-close-toggle').addEventListener('change', (e) => this.save({ watch_after_close: e.target.checked }));
    this.querySelector('#check-updates-toggle').addEventListener('change', (e) => this.save({ check_updates: e.target.checked }));
  }

  async open() {
    const settings = store.get().settings;
    this.querySelector('#theme-select').value = settings.theme ?? 'system';
    this.querySelector('#polling-toggle').checked = settings.polling !== false;
    this.querySelector('#watch-after-close-toggle').checked = settings.watch_after_close !== false;
    this.querySelector('#check-updates-toggle').checked = settings.check_updates !== false;
    openDialog(this.dialog, '#about-close');
    const target = this.querySelector('#about');
    try {
      const info = await api.appInfo();
      render(target, html`<dl class="about facts" id="about-info">
        <dt>Version</dt><dd id="about-version">${info.version}</dd>
        <dt>Data</dt><dd class="mono">${info.data_dir}</dd>
        <dt>Logs</dt><dd class="mono">${info.log_dir}</dd>
        <dt>API keys</dt><dd id="about-key-store">${info.key_store}</dd></dl>`);
    } catch (err) {
      target.textContent = errorText(err);
    }
  }

  async save(patch) {
    const settings = { ...store.get().settings, ...patch };
    store.set({ settings });
    try {
      store.set({ settings: await api.saveSettings(settings) });
    } catch (err) {
      toast(errorText(err), 'error');
    }
  }
}
