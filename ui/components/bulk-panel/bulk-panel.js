// Import… and Export… for the project's domains: the file comes from the system's dialog (on
// the Rust side), progress arrives on a channel, Cancel withdraws the rows not yet sent, and
// the summary stays until dismissed. A file with invalid rows is refused with a table of them
// (Line, Value, Problem) that stays until the next import, another file or Close — not a
// notice — and offers to import the valid rows, the others going to the retry file.
import { html } from '../../lib/html.js';
import { render } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { store } from '../../lib/app-state.js';
import { refreshList } from '../../lib/actions.js';
import { errorText } from '../../lib/errors.js';
import { toast } from '../../lib/toast.js';
import { progressText, progressShare, summaryView, refusalOf, refusalMarkup } from '../../lib/bulk.js';
import { addBlockedReason } from '../../lib/project.js';

export class BulkPanel extends HTMLElement {
  connectedCallback() {
    this.running = false;
    this.draw();
    this.unsubscribe = store.subscribe((_s, changed) => {
      if (changed.includes('session') || changed.includes('project') || changed.includes('domains')) this.drawBlocked();
    });
    this.drawBlocked();
  }

  disconnectedCallback() {
    this.unsubscribe?.();
    this.stopCountdown();
  }

  /**
   * While rows go out, the time left counts down each second from the last progress message,
   * so it does not stand still while the import waits for the plan's window. The text is
   * written only when it reads differently.
   */
  startCountdown() {
    this.stopCountdown();
    this.countdown = setInterval(() => {
      const text = this.querySelector('#bulk-progress-text');
      if (!text || !this.progress) return;
      const next = progressText(this.progress, (performance.now() - this.progressAt) / 1000);
      if (text.textContent !== next) text.textContent = next;
    }, 1000);
  }

  stopCountdown() {
    clearInterval(this.countdown);
    this.countdown = null;
  }

  /**
   * Import is unavailable when Add is (a Free account, a project never deployed, the plan's
   * limit reached), for the same reason, which the Domains section already shows.
   */
  drawBlocked() {
    const { session, project, domains } = store.get();
    const reason = addBlockedReason(session, project, domains.length);
    const button = this.querySelector('#import-button');
    button.disabled = this.running || Boolean(reason);
    // What it takes is said beside it, not in a tooltip: the tooltip lay over the refusal's
    // title that opens below the button.
    button.setAttribute('aria-describedby', reason ? 'add-domain-reason' : 'import-hint');
  }

  draw() {
    render(this, html`
      <div class="bulk-actions">
        <button type="button" id="import-button" aria-describedby="import-hint">Import…</button>
        <span class="muted small" id="import-hint">a CSV (hostname, redirect_to) or JSON lines file</span>
        <label class="bulk-format">Export as
          <select id="export-format">
            <option value="csv">CSV</option>
            <option value="json">JSON</option>
            <option value="zone">Zone file (BIND)</option>
          </select>
        </label>
        <button type="button" id="export-button">Export…</button>
      </div>
      <div id="bulk-status" class="bulk-status" role="status" aria-live="polite" hidden></div>
      <div id="bulk-refusal" class="bulk-status" hidden></div>`);
    this.querySelector('#import-button').addEventListener('click', () => this.import());
    this.querySelector('#export-button').addEventListener('click', () => this.export());
  }

  status() {
    return this.querySelector('#bulk-status');
  }

  showProgress(progress) {
    this.progress = progress;
    this.progressAt = performance.now();
    const hadFocus = this.clearRefusal();
    const status = this.status();
    status.hidden = false;
    const bar = this.querySelector('#bulk-progress');
    if (bar) {
      // Updated in place, so Cancel keeps its focus while rows are answered.
      bar.value = progressShare(progress);
      this.querySelector('#bulk-progress-text').textContent = progressText(progress);
      return;
    }
    render(status, html`
      <p class="bulk-line"><strong>Importing</strong> · <span id="bulk-progress-text">${progressText(progress)}</span></p>
      <progress id="bulk-progress" max="1" value="${progressShare(progress)}"></progress>
      <button type="button" id="import-cancel">Cancel</button>`);
    this.querySelector('#import-cancel').addEventListener('click', () => {
      api.cancelImport().catch((err) => toast(errorText(err), 'error'));
    });
    // "Import the N valid rows" pressed: the keyboard goes on to Cancel, not to the page.
    if (hadFocus) this.querySelector('#import-cancel').focus();
  }

  showSummary(result) {
    const view = summaryView(result);
    const status = this.status();
    status.hidden = false;
    render(status, html`
      <div class="bulk-summary bulk-${view.tone}" id="import-summary">
        <p><strong>${view.headline}</strong></p>
        ${view.lines.length ? html`<ul>${view.lines.map((line) => html`<li>${line}</li>`)}</ul>` : ''}
        ${view.retry ? html`<p class="mono">${view.retry}</p>` : ''}
        <button type="button" id="import-dismiss">Dismiss</button>
      </div>`);
    this.querySelector('#import-dismiss').addEventListener('click', () => { status.hidden = true; });
  }

  /** The refused file's rows, until the next import, another file or Close. */
  showRefusal(refusal) {
    const box = this.querySelector('#bulk-refusal');
    render(box, refusalMarkup(refusal));
    box.hidden = false;
    this.querySelector('#import-valid')?.addEventListener('click', () => this.import({ again: true, skipInvalid: true }));
    this.querySelector('#import-refusal-close').addEventListener('click', () => {
      this.clearRefusal();
      this.querySelector('#import-button').focus();
    });
    // The keyboard lands on the headline; Tab goes on to the button.
    this.querySelector('#import-refusal-title').focus();
  }

  /** Removes the refusal; true when the keyboard's focus was in it. */
  clearRefusal() {
    const box = this.querySelector('#bulk-refusal');
    const hadFocus = box.contains(document.activeElement);
    box.hidden = true;
    box.replaceChildren();
    return hadFocus;
  }

  /**
   * Imports a file: from the system's dialog, or with `again` the refused file once more
   * (which the Rust side remembers) and `skipInvalid` (its valid rows only). A dialog closed
   * without a file leaves a refusal shown.
   */
  async import({ again = false, skipInvalid = false } = {}) {
    const project = store.get().project;
    if (!project || this.running) return;
    this.running = true;
    this.startCountdown();
    this.querySelector('#import-button').disabled = true;
    const valid = this.querySelector('#import-valid');
    if (valid) valid.disabled = true;
    try {
      const result = await api.importDomains(project.id, (progress) => this.showProgress(progress), { again, skipInvalid });
      if (result) {
        const hadFocus = this.clearRefusal() || this.status().contains(document.activeElement);
        this.showSummary(result);
        if (hadFocus) this.querySelector('#import-dismiss').focus();
        refreshList().catch(() => {});
      } else {
        this.status().hidden = true;
      }
    } catch (err) {
      this.status().hidden = true;
      const refusal = refusalOf(err);
      if (refusal) {
        this.showRefusal(refusal);
      } else {
        this.clearRefusal();
        toast(errorText(err), 'error');
      }
    } finally {
      if (valid?.isConnected) valid.disabled = false;
      this.running = false;
      this.stopCountdown();
      this.progress = null;
      this.drawBlocked();
    }
  }

  async export() {
    const project = store.get().project;
    if (!project) return;
    const format = this.querySelector('#export-format').value;
    try {
      const path = await api.exportDomains(project.id, format);
      if (path) toast(`Exported the domains of ${project.name} to ${path}.`, 'ok');
    } catch (err) {
      toast(errorText(err), 'error');
    }
  }
}
