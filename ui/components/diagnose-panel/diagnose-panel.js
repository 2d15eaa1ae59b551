// The Diagnose panel: the DNS doctor's report for one domain — findings with fixes, the
// picture of the path a lookup takes, what each server answers (as its chain, with TTLs), and
// the certificate the edge serves — with Copy report (Markdown) and Export (JSON).
import { html } from '../../lib/html.js';
import { registerDialog } from '../../lib/dialogs.js';
import { render, openDialog, copyText } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { hostOf, sortedFindings, summary, answerText, chainFails, evidenceText, agreementText, resolversDisagree, changeText, certificateText, severityWord, providerText, fixSteps, serverName, clockWords, localTimes } from '../../lib/report.js';
import { findDomain, keepPreflight, saveDiagnostics } from '../../lib/actions.js';
import { dateTime, clockTime, NBSP } from '../../lib/format.js';
import { screenNow, store } from '../../lib/app-state.js';
import { errorText } from '../../lib/errors.js';
import { toUnicode, hostnameToDiagnose } from '../../lib/hostname.js';
import { toast } from '../../lib/toast.js';

/** Which servers the run asked, in words: the demo's, the ones the settings name (no account), or the world's. */
export function askedWords(report, signedIn = Boolean(store.get().session)) {
  if (!report.offline) return 'asked the zone’s nameservers and public resolvers';
  return signedIn ? 'asked the demo’s DNS servers only' : 'asked only the DNS servers set in the settings';
}

/** Elements and attributes an SVG picture never needs: what could run code or load anything. */
const UNSAFE_ELEMENTS = 'script, foreignObject, style, iframe, image, use, a, animate, set';

/**
 * The picture of the path (the `diagnose` command's `picture`) as an <svg> element for this
 * page, or null when there is none or it does not parse. The SVG is made by the doctor in
 * Rust (domain_desk_doctor::picture), which escapes every name and value for XML; it is read
 * here as XML with DOMParser (never as HTML through innerHTML) and imported as nodes, with
 * anything that could run code or fetch a resource dropped first, should a future doctor ever
 * write one. It carries no style element (the CSP allows none): diagnose-panel.css colours it by
 * its classes, in the app's theme.
 */
export function pictureElement(svgText, doc = globalThis.document) {
  if (typeof svgText !== 'string' || !svgText.startsWith('<svg') || !doc || typeof DOMParser === 'undefined') return null;
  const parsed = new DOMParser().parseFromString(svgText, 'image/svg+xml');
  const svg = parsed.documentElement;
  if (svg?.localName !== 'svg' || parsed.getElementsByTagName('parsererror').length) return null;
  for (const element of svg.querySelectorAll(UNSAFE_ELEMENTS)) element.remove();
  for (const element of [svg, ...svg.querySelectorAll('*')]) {
    for (const { name } of [...element.attributes]) {
      if (/^on/i.test(name) || /href$/i.test(name) || name === 'style') element.removeAttribute(name);
    }
  }
  return doc.importNode(svg, true);
}

export class DiagnosePanel extends HTMLElement {
  disconnectedCallback() {
    this.leave?.();
  }

  connectedCallback() {
    this.leave = registerDialog('diagnose', this);
    render(this, html`<dialog id="diagnose-panel" class="wide" aria-labelledby="diagnose-title">
      <div class="panel-head">
        <h3 id="diagnose-title">Diagnose</h3>
        <div class="panel-buttons">
          <button type="button" id="diagnose-rerun">Run again</button>
          <button type="button" id="diagnose-copy" disabled>Copy report</button>
          <button type="button" id="diagnose-export" disabled>Export JSON</button>
          <button type="button" id="diagnose-save" disabled title="Runs the doctor again and saves every DNS answer and certificate it sees, for support">Save diagnostics…</button>
          <button type="button" id="diagnose-close">Close</button>
        </div>
      </div>
      <div id="diagnose-body" aria-live="polite"></div>
    </dialog>`);
    this.dialog = this.querySelector('dialog');
    this.querySelector('#diagnose-close').addEventListener('click', () => this.dialog.close());
    this.querySelector('#diagnose-rerun').addEventListener('click', () => this.run());
    this.querySelector('#diagnose-copy').addEventListener('click', async () => {
      const ok = await copyText(this.diagnosis.markdown);
      toast(ok ? 'Report copied as Markdown.' : 'Copying is not available here.', ok ? 'ok' : 'error');
    });
    const save = this.querySelector('#diagnose-save');
    save.addEventListener('click', async () => {
      save.disabled = true;
      save.textContent = 'Saving diagnostics…';
      await saveDiagnostics(this.hostname);
      save.disabled = !this.hostname;
      save.textContent = 'Save diagnostics…';
    });
    this.querySelector('#diagnose-export').addEventListener('click', async () => {
      try {
        const path = await api.saveReport(this.hostname, JSON.stringify(this.diagnosis.report, null, 2));
        toast(`Report saved to ${path}`, 'ok');
      } catch (err) {
        toast(errorText(err), 'error');
      }
    });
  }

  /**
   * Diagnoses `hostname`; without one (the header's "Diagnose a domain…"), asks for the name
   * first, signed in or not.
   */
  open(hostname = null) {
    this.hostname = hostname;
    if (!hostname) {
      this.ask();
      openDialog(this.dialog, '#diagnose-ask-hostname');
      return;
    }
    openDialog(this.dialog, '#diagnose-close');
    this.run();
  }

  /** The name field in the panel's body, the same checks as the welcome screen's. */
  ask() {
    this.runs = (this.runs ?? 0) + 1;
    this.diagnosis = null;
    this.querySelector('#diagnose-title').textContent = 'Diagnose a domain';
    for (const id of ['#diagnose-rerun', '#diagnose-copy', '#diagnose-export', '#diagnose-save']) this.querySelector(id).disabled = true;
    const body = this.querySelector('#diagnose-body');
    render(body, html`<form id="diagnose-ask" class="diagnose-ask" novalidate>
      <label for="diagnose-ask-hostname">Domain</label>
      <input id="diagnose-ask-hostname" name="hostname" type="text" required placeholder="www.example.com" autocomplete="off" spellcheck="false" autocapitalize="off" aria-describedby="diagnose-ask-note">
      <button id="diagnose-ask-submit" class="primary" type="submit">Diagnose</button>
      <p id="diagnose-ask-note" class="muted small">Any name, on this account or not: the doctor asks the DNS servers the world uses (${store.get().session ? 'and this account’s platform target' : 'no account needed'}).</p>
      <p id="diagnose-ask-error" class="error" role="alert" hidden></p>
    </form>`);
    body.querySelector('#diagnose-ask').addEventListener('submit', (e) => {
      e.preventDefault();
      const { ascii, message } = hostnameToDiagnose(body.querySelector('#diagnose-ask-hostname').value);
      const error = body.querySelector('#diagnose-ask-error');
      if (!ascii) {
        error.textContent = message;
        error.hidden = false;
        body.querySelector('#diagnose-ask-hostname').focus();
        return;
      }
      this.hostname = ascii;
      this.querySelector('#diagnose-rerun').disabled = false;
      // Focus stays in the panel: on Close, where the name field was.
      this.querySelector('#diagnose-close').focus();
      this.run();
    });
  }

  async run() {
    const body = this.querySelector('#diagnose-body');
    const hostname = this.hostname;
    // Only the latest run speaks: an earlier one (another domain's, or this one's before Run
    // again) that ends later, answer or failure, is dropped.
    const run = (this.runs = (this.runs ?? 0) + 1);
    this.diagnosis = null;
    this.querySelector('#diagnose-rerun').disabled = false;
    // Saving runs the doctor itself, with capture on: it needs no finished run here.
    this.querySelector('#diagnose-save').disabled = false;
    this.querySelector('#diagnose-copy').disabled = true;
    this.querySelector('#diagnose-export').disabled = true;
    const name = findDomain(hostname)?.unicode_hostname ?? toUnicode(hostname);
    this.querySelector('#diagnose-title').textContent = `Diagnose ${name}`;
    render(body, html`<p class="muted" id="diagnose-running">Asking the DNS servers and the edge about ${name}…</p>`);
    try {
      const diagnosis = await api.diagnose(hostname, findDomain(hostname)?.dns_record?.value ?? null);
      if (run !== this.runs) return;
      this.diagnosis = diagnosis;
      // An attached name's pre-flight warnings follow what this run found.
      if (diagnosis.preflight && findDomain(hostname)) keepPreflight(hostname, diagnosis.preflight.warnings ?? [], diagnosis.preflight.live_elsewhere);
      this.draw(hostOf(diagnosis), diagnosis.report, diagnosis.picture);
      this.querySelector('#diagnose-copy').disabled = false;
      this.querySelector('#diagnose-export').disabled = false;
    } catch (err) {
      if (run !== this.runs) return;
      render(body, html`<p class="error" id="diagnose-error" role="alert">${errorText(err)}</p>`);
    }
  }

  /** A server named in evidence (by its label or address), by its role. */
  serverLabel(report, server) {
    const views = [...(report.sources ?? []), ...(report.hosts ?? []).flatMap((h) => (h.views ?? []).map((v) => v.source))];
    const source = views.find((s) => s.label === server || s.address === server);
    return source ? serverName(source) : server;
  }

  draw(host, report, picture = null) {
    if (!host) {
      render(this.querySelector('#diagnose-body'), html`<p class="error">The doctor returned no result for this name.</p>`);
      return;
    }
    const cert = host.tls?.certificate;
    const certWords = certificateText(host);
    const caa = host.caa;
    const now = screenNow();
    render(this.querySelector('#diagnose-body'), html`
      <p id="diagnose-summary"><strong>${summary(host)}</strong> <span class="muted">· ${askedWords(report)} · <span id="diagnose-time">${clockTime(report.generated_at, screenNow())}</span>${clockWords(report) ? html` <span id="diagnose-clock">(${clockWords(report)})</span>` : ''}</span></p>
      ${host.expected_record ? html`<p class="muted small">Expected: ${host.expected_record.type} ${host.expected_record.name} → <span class="mono">${host.expected_record.value}</span></p>` : ''}
      ${providerText(host) ? html`<p class="muted small" id="diagnose-provider">${providerText(host)}</p>` : ''}
      <h4>Findings</h4>
      <ul class="findings" id="diagnose-findings">${sortedFindings(host).map((f) => html`<li class="finding sev-${f.severity}" data-code="${f.code}" data-severity="${f.severity}">
        <span class="sev">${severityWord(f.severity)}</span>
        <div><strong>${localTimes(f.title, f, now)}</strong>${f.detail ? html`<div class="muted">${localTimes(f.detail, f, now)}</div>` : ''}
          ${(f.evidence ?? []).length ? html`<ul class="evidence">${f.evidence.map((e) => html`<li><span class="mono">${e.question}</span> — ${this.serverLabel(report, e.server)}: ${evidenceText(e)}${e.note ? ` (${e.note})` : ''}</li>`)}</ul>` : ''}
          ${f.fix ? html`<div class="fix"><span class="fix-label">Fix:</span> ${localTimes(f.fix.summary, f, now)}${f.fix.changes?.length ? html`<ul class="changes">${f.fix.changes.map((c) => html`<li class="change-${c.action} mono">${changeText(c)}</li>`)}</ul>` : ''}${fixSteps(f.fix).length ? html`<ol class="steps">${fixSteps(f.fix).map((step) => html`<li>${step}</li>`)}</ol>` : ''}</div>` : ''}
        </div>
      </li>`)}</ul>
      <div id="diagnose-picture" class="picture"></div>
      <h4>What each DNS server answers</h4>
      ${resolversDisagree(host) ? html`<p class="warn">The servers disagree: a change is still propagating or a cache holds an old answer. It clears when the cached answer’s TTL runs out.</p>` : ''}
      <table class="matrix" id="diagnose-matrix">
        <thead><tr><th scope="col">Server</th><th scope="col">Answer</th><th scope="col">Cache expires</th><th scope="col">Compared</th></tr></thead>
        <tbody>${(host.views ?? []).map((v) => html`<tr><td title="${v.source.address}">${serverName(v.source)}</td>
          <td class="mono ${v.error || (v.chain ? chainFails(v.chain) : v.status !== 'no_error') ? 'error' : ''}">${answerText(v)}</td>
          <td>${v.cache_expires_in_seconds != null ? `${v.cache_expires_in_seconds}${NBSP}s after ${clockTime(report.generated_at, screenNow())}` : '—'}</td>
          <td>${agreementText(v)}</td></tr>`)}</tbody>
      </table>
      ${caa ? html`<h4>CAA (who may issue certificates)</h4>
        <p id="diagnose-caa">${caa.deciding_name ? html`Decided by the CAA records at <span class="mono">${caa.deciding_name}</span>.` : 'No CAA records on the way to the root: any CA may issue.'}
        ${caa.steps?.length ? html`<span class="muted small">Climbed ${caa.steps.map((s) => s.name).join(' → ')}.</span>` : ''}</p>` : ''}
      <h4>Certificate served</h4>
      <div id="diagnose-certificate">
        <p class="${certWords.ok ? 'ok' : 'muted'}">${certWords.text}</p>
        ${cert ? html`<dl class="facts"><dt>Subject</dt><dd>${cert.subject}</dd><dt>Issuer</dt><dd>${cert.issuer}</dd>
            ${cert.names?.length ? html`<dt>Names</dt><dd>${cert.names.join(', ')}</dd>` : ''}
            ${cert.not_after ? html`<dt>Valid until</dt><dd>${dateTime(cert.not_after)}</dd>` : ''}
            ${host.tls?.http_status ? html`<dt>HTTP</dt><dd>${host.tls.http_status}${host.tls.location ? ` → ${host.tls.location}` : ''}</dd>` : ''}</dl>` : ''}
      </div>`);
    const drawing = pictureElement(picture);
    if (drawing) this.querySelector('#diagnose-picture').replaceChildren(drawing);
  }
}
