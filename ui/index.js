import { html } from './lib/html.js';
import { invoke } from './lib/tauri.js';

async function showAbout() {
  const target = document.getElementById('about');
  try {
    const info = await invoke('app_info');
    target.innerHTML = html`<dl class="about" id="about-info">
      <dt>Version</dt><dd id="about-version">${info.version}</dd>
      <dt>Data</dt><dd>${info.data_dir}</dd>
      <dt>Logs</dt><dd>${info.log_dir}</dd></dl>`;
  } catch (err) {
    target.textContent = err.message ?? String(err);
  }
}

document.getElementById('about-button').addEventListener('click', showAbout);
