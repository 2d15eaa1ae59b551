// The Diagnose panel: the DNS doctor's report for one domain — findings with fixes, what each
// resolver answers (with TTLs), and the certificate the edge serves — with Copy report
// (Markdown) and Export (JSON).
import { html } from '../../lib/html.js';
import { render, openDialog, copyText } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { sortedFindings, summary, answerText, resolversDisagree, reportMarkdown, severityWord } from '../../lib/report.js';
import { dateTime } from '../../lib/format.js';
import { errorText } from '../../lib/errors.js';
import { toast } from '../../lib/toast.js';

export class DiagnosePanel extends HTMLElement {
  connectedCallback() {
    render(this, html`<dialog id="diagnose-panel" class="wide" aria-labelledby="diagnose-title">
      <div class="panel-head">
        <h3 id="diagnose-title">Diagnose</h3>
        <div class="panel-buttons">
          <button type="button" id="diagnose-rerun">Run again</button>
          <button type="button" id="diagnose-copy" disabled>Copy report</button>
          <button type="button" id="diagnose-export" disabled>Export JSON</button>
          <button type="button" id="diagnose-close">Close</button>
        </div>
      </div>
      <div id="diagnose-body" aria-live="polite"></div>
    </dialog>`);
    this.dialog = this.querySelector('dialog');
    this.querySelector('#diagnose-close').addEventListener('click', () => this.dialog.close());
    this.querySelector('#diagnose-rerun').addEventListener('click', () => this.run());
    this.querySelector('#diagnose-copy').addEventListener('click', async () => {
      const ok = await copyText(reportMarkdown(this.report));
      toast(ok ? 'Report copied as Markdown.' : 'Copying is not available here.', ok ? 'ok' : 'error');
    });
    this.querySelector('#diagnose-export').addEventListener('click', async () => {
      try {
        const path = await api.saveReport(this.report.hostname, JSON.stringify(this.report, null, 2));
        toast(`Report saved to ${path}`, 'ok');
      } catch (err) {
        toast(errorText(err), 'error');
      }
    });
  }

  open(hostname) {
    this.hostname = hostname;
    openDialog(this.dialog, '#diagnose-close');
    this.run();
  }

  async run() {
    const body = this.querySelector('#diagnose-body');
    this.report = null;
    this.querySelector('#diagnose-copy').disabled = true;
    this.querySelector('#diagnose-export').disabled = true;
    this.querySelector('#diagnose-title').textContent = `Diagnose ${this.hostname}`;
    render(body, html`<p class="muted" id="diagnose-running">Asking the resolvers and the edge about ${this.hostname}…</p>`);
    try {
      const report = await api.diagnose(this.hostname);
      if (report.hostname !== this.hostname) return;
      this.report = report;
      this.draw(report);
      this.querySelector('#diagnose-copy').disabled = false;
      this.querySelector('#diagnose-export').disabled = false;
    } catch (err) {
      render(body, html`<p class="error" id="diagnose-error" role="alert">${errorText(err)}</p>`);
    }
  }

  draw(report) {
    const cert = report.certificate;
    render(this.querySelector('#diagnose-body'), html`
      <p id="diagnose-summary"><strong>${summary(report)}</strong>${report.checked_at ? html` <span class="muted">· checked ${dateTime(report.checked_at)}</span>` : ''}</p>
      <h4>Findings</h4>
      <ul class="findings" id="diagnose-findings">${sortedFindings(report).map((f) => html`<li class="finding sev-${f.severity}" data-code="${f.code}">
        <span class="sev">${severityWord(f.severity)}</span>
        <div><strong>${f.title}</strong>${f.detail ? html`<div class="muted">${f.detail}</div>` : ''}${f.fix ? html`<div class="fix"><span class="fix-label">Fix:</span> ${f.fix}</div>` : ''}</div>
      </li>`)}</ul>
      <h4>Resolvers</h4>
      ${resolversDisagree(report) ? html`<p class="warn">The resolvers disagree: a change is still propagating or a cache holds an old answer. Wait for the TTL, then check again.</p>` : ''}
      <table class="matrix" id="diagnose-matrix">
        <thead><tr><th scope="col">Resolver</th><th scope="col">Answer</th></tr></thead>
        <tbody>${(report.resolvers ?? []).map((r) => html`<tr><td>${r.resolver}${r.address ? html`<div class="muted small mono">${r.address}</div>` : ''}</td><td class="mono ${r.error ? 'error' : ''}">${answerText(r)}</td></tr>`)}</tbody>
      </table>
      <h4>Certificate served</h4>
      <div id="diagnose-certificate">${!cert ? html`<p class="muted">No certificate was served for this name.</p>`
        : cert.error ? html`<p class="error">${cert.error}</p>`
        : html`<dl class="facts"><dt>Subject</dt><dd>${cert.subject}</dd><dt>Issuer</dt><dd>${cert.issuer}</dd>
            ${cert.names?.length ? html`<dt>Names</dt><dd>${cert.names.join(', ')}</dd>` : ''}
            ${cert.not_after ? html`<dt>Valid until</dt><dd>${dateTime(cert.not_after)}</dd>` : ''}</dl>`}</div>`);
  }
}
