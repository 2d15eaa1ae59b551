// The selected domain in full: status with what the platform's last check found and when,
// what to do next (knowing what Domain Desk sees in DNS now, and when the domain is checked
// again by itself), the DNS record (to create, or in place once live), the records found next
// to the one wanted (add, remove, keep), the certificate, and the actions.
//
// Every time here is drawn from the store's `now` (the platform's clock, one tick for the
// whole window), and redrawn on each tick without touching the buttons.
import { html, breakable } from '../../lib/html.js';
import { render, renderChanged, setText } from '../../lib/dom.js';
import { store, screenNow } from '../../lib/app-state.js';
import { statusView, roleLabel, verifyLabel, recordPlan, recordToCreate, verificationAdvice, dnsNowFromReport, statusKey, caRefusal, notTheSwitch, STATUS, PRIMARY_CANNOT_REDIRECT } from '../../lib/domain-view.js';
import { renewalOf, subscribeRenewal } from '../../lib/renewal.js';
import { dateTime, whenText, relativeTime } from '../../lib/format.js';
import * as actions from '../../lib/actions.js';
import { api } from '../../lib/api.js';
import { recordCard, recordWarnings, foundAtName, wireCopyButtons } from '../../lib/record-card.js';
import { switchApplies } from '../../lib/switch-plan.js';
import { switchCard, switchSummary, delegationInPlace } from '../../lib/switch-card.js';
import { moveDialog } from '../../lib/move.js';

/** "At Cloudflare, the DNS provider of shop.example.com:" when the doctor knows it. */
export function providerLine(domain, provider) {
  return provider
    ? `At ${provider}, the DNS provider of ${domain.unicode_hostname}:`
    : `At the DNS provider of ${domain.unicode_hostname}:`;
}

/** The rows of the records plan: add, remove or keep, each with why. */
function planRows(plan) {
  return html`${plan.map((p) => html`<tr class="plan-${p.action}" data-action="${p.action}"><td><span class="plan-action">${p.action}</span></td><td>${p.type}</td><td class="mono value">${breakable(p.value)}<br><span class="muted small">${p.why}</span></td></tr>`)}`;
}

export class DomainDetail extends HTMLElement {
  connectedCallback() {
    this.unsubscribe = store.subscribe((state, changed) => {
      // A poll's answers change the list a few times a second while thousands of domains
      // wait: the panel is drawn again only when its own domain's copy changed.
      const redraw = changed.includes('selected')
        || (changed.includes('domains') && (state.selected && actions.findDomain(state.selected)) !== this.drawn);
      if (redraw) this.draw();
      else if (changed.some((c) => ['now', 'nextChecks', 'dnsNow', 'diagnoses', 'preflight'].includes(c))) this.drawState();
    });
    // The renewal watch's look can know the certificate will be refused (the status says so).
    this.unsubscribeRenewal = subscribeRenewal(() => this.drawState());
    this.onDnsChanged = () => this.lookAtDns(true);
    document.addEventListener('dd-dns-changed', this.onDnsChanged);
    this.draw();
  }

  disconnectedCallback() {
    this.unsubscribe?.();
    this.unsubscribeRenewal?.();
    document.removeEventListener('dd-dns-changed', this.onDnsChanged);
  }

  draw() {
    const focused = this.contains(document.activeElement) ? document.activeElement : null;
    this.drawPanel();
    this.keepFocus(focused);
  }

  /**
   * The focus stays in the window when the panel is drawn anew under it: on the control of
   * the same id, or, when there is none (Remove… took the domain, and its panel, away), on
   * the domains table's row.
   */
  keepFocus(focused) {
    if (!focused || focused.isConnected) return;
    const same = focused.id ? this.querySelector(`#${CSS.escape(focused.id)}`) : null;
    if (same && !same.disabled) same.focus({ preventScroll: true });
    else this.restoreFocus({ hostname: this.drawn?.hostname ?? null });
  }

  drawPanel() {
    const hostname = store.get().selected;
    const domain = hostname && actions.findDomain(hostname);
    this.drawn = domain;
    if (!domain) {
      renderChanged(this, html`<aside class="detail empty" aria-label="Domain details"><p class="muted">Select a domain to see its DNS record, why it is not live yet, and what to do.</p></aside>`);
      return;
    }
    const { session } = store.get();
    const live = domain.status === 'live';
    const plan = recordPlan(domain, foundAtName(domain, store.get().dnsNow?.[domain.hostname]));
    const cert = domain.certificate ?? {};
    // The certificate first, then the switch: for a name the pre-flight found live elsewhere,
    // one whose certificate came that way, and a wildcard.
    const liveElsewhere = store.get().liveElsewhere?.[domain.hostname] ?? null;
    const switching = switchApplies(domain, liveElsewhere);
    // Verified: the platform found the record; what is left is the certificate.
    const inPlace = live || domain.status === 'verified';
    // The head (which domain, its status, what can be done) stays in view while the body
    // scrolls beneath it.
    const panel = html`<aside class="detail" aria-labelledby="detail-title" id="detail-panel" data-hostname="${domain.hostname}">
      <div class="detail-head">
      <h4 id="detail-title">${breakable(domain.unicode_hostname)}</h4>
      ${domain.unicode_hostname !== domain.hostname ? html`<p class="mono small muted">${breakable(domain.hostname)}</p>` : ''}
      <p id="detail-status-line"></p>
      <div class="detail-actions">
        <button type="button" id="verify-button" class="primary">${verifyLabel(domain)}</button>
        <button type="button" id="detail-diagnose">Diagnose</button>
        <button type="button" id="detail-make-primary" ${domain.role === 'primary' ? html`disabled title="This is the primary domain"` : ''}>Make primary</button>
        <button type="button" id="detail-redirect" ${domain.role === 'primary' ? html`disabled title="${PRIMARY_CANNOT_REDIRECT}"` : ''}>Redirect…</button>
        <button type="button" id="detail-move">Move…</button>
        <button type="button" id="detail-remove" class="danger">Remove…</button>
      </div>
      </div>
      <div class="detail-body" id="detail-body">
      ${switching ? switchSummary(domain, 'detail', { liveElsewhere }) : ''}
      <div id="detail-state"></div>
      <p class="detail-auto"><button type="button" id="detail-auto" hidden>Set up automatically</button></p>
      <p id="detail-auto-note" class="muted small" hidden></p>
      <h5 id="detail-record-title">${inPlace && !switching ? 'DNS record in place' : switching ? 'DNS records to create' : 'DNS record to create'}</h5>
      <p class="muted small" id="detail-provider"><span id="detail-provider-line">${live ? `The record that points ${domain.unicode_hostname} at the platform. Keep it while the domain is attached.` : inPlace && !switching ? `The platform found this record at its check; the certificate comes next. Keep the record while the domain is attached.` : providerLine(domain, null)}</span>${!inPlace && session?.mode === 'demo' ? html` <button type="button" class="link" id="detail-open-demo-dns">Open Demo DNS</button>` : ''}</p>
      ${switching ? switchCard(domain, 'detail', { liveElsewhere }) : recordCard(domain, 'record', { live: inPlace, found: foundAtName(domain, store.get().dnsNow?.[domain.hostname]) })}
      ${delegationInPlace(domain)}
      ${inPlace ? '' : html`<h5>${switching ? `At the switch (step 2), the records at “${domain.dns_record.name}”` : `Records at “${domain.dns_record.name}”`}</h5>
      <table class="plan" id="record-plan">
        <thead><tr><th scope="col">Do</th><th scope="col">Type</th><th scope="col">Value</th></tr></thead>
        <tbody>${planRows(plan)}</tbody>
      </table>`}
      <h5>Certificate</h5>
      <dl class="facts" id="detail-certificate">
        <dt>Status</dt><dd>${{ none: 'None yet', issuing: 'Being issued', issued: 'Issued', failed: 'Failed' }[cert.status] ?? 'None yet'}</dd>
        ${cert.started_at ? html`<dt>Requested</dt><dd>${dateTime(cert.started_at)}</dd>` : ''}
        ${cert.issued_at ? html`<dt>Issued</dt><dd>${dateTime(cert.issued_at)}</dd>` : ''}
        ${cert.expires_at ? html`<dt>Expires</dt><dd>${dateTime(cert.expires_at)}</dd>` : ''}
        ${cert.error ? html`<dt>Problem</dt><dd>${cert.error.message}</dd>` : ''}
      </dl>
      <dd-renewal-section hostname="${domain.hostname}"></dd-renewal-section>
      <p class="detail-support"><button type="button" id="detail-save-diagnostics" aria-describedby="detail-save-diagnostics-note">Save diagnostics…</button> <span class="muted small" id="detail-save-diagnostics-note">runs the doctor and saves every DNS answer and certificate it sees, for support</span></p>
      </div>
    </aside>`;
    // A new copy that changes nothing in the panel (a re-verify finding the same, its check's
    // time moved on) keeps the panel's nodes: its focus, a selection and its live region stay,
    // and only the state is drawn again.
    if (renderChanged(this, panel)) this.wire(domain);
    this.drawState();
    this.offerAutomaticSetUp(domain);
    this.lookAtDns(false);
  }

  /**
   * Takes the focus back after a dialog one of its buttons opened when that button is gone
   * (Remove… took the domain away): to the domains table, on its active row.
   */
  restoreFocus(opener) {
    const table = document.getElementById('domains-table');
    if (table?.restoreFocus) table.restoreFocus(opener);
    else document.getElementById('main')?.focus({ preventScroll: true });
  }

  /** The panel's buttons, once each time the panel is drawn anew. */
  wire(domain) {
    const verifyButton = this.querySelector('#verify-button');
    verifyButton.addEventListener('click', async () => {
      verifyButton.disabled = true;
      verifyButton.textContent = 'Checking…';
      await actions.verify(domain.hostname);
      const again = this.querySelector('#verify-button');
      if (again) again.disabled = false;
      if (again && again.textContent === 'Checking…') again.textContent = verifyLabel(actions.findDomain(domain.hostname) ?? domain);
    });
    this.querySelector('#detail-diagnose').addEventListener('click', () => actions.diagnose(domain.hostname));
    const saveButton = this.querySelector('#detail-save-diagnostics');
    saveButton.addEventListener('click', async () => {
      saveButton.disabled = true;
      saveButton.textContent = 'Saving diagnostics…';
      await actions.saveDiagnostics(domain.hostname);
      const again = this.querySelector('#detail-save-diagnostics');
      if (again) { again.disabled = false; again.textContent = 'Save diagnostics…'; }
    });
    this.querySelector('#detail-remove').addEventListener('click', () => actions.remove(domain.hostname));
    this.querySelector('#detail-open-demo-dns')?.addEventListener('click', () => document.getElementById('demo-dns-host')?.open());
    this.querySelector('#detail-make-primary').addEventListener('click', () => actions.makePrimary(domain.hostname));
    this.querySelector('#detail-redirect').addEventListener('click', () => actions.redirectDialog(domain.hostname));
    this.querySelector('#detail-move').addEventListener('click', () => moveDialog(domain.hostname));
    wireCopyButtons(this);
  }

  /**
   * The status, what was found, what to do and when: drawn again on every tick of the clock
   * and every poll, and each part written only when its words changed. The reason is a live
   * region: it keeps its node and is announced when the reason changes, not at each tick; a
   * selection in the advice (a record's value) survives the ticks.
   */
  drawState() {
    const hostname = store.get().selected;
    const domain = hostname && actions.findDomain(hostname);
    const box = this.querySelector('#detail-state');
    if (!domain || !box || this.querySelector('#detail-panel')?.dataset.hostname !== hostname) return;
    const { session, nextChecks, dnsNow } = store.get();
    const now = screenNow();
    // The provider's name, once the doctor's look at the DNS has found it, goes into the
    // line's own node: the Open Demo DNS button beside it, and the space before it, stay.
    const provider = dnsNow?.[hostname]?.provider;
    const providerText = this.querySelector('#detail-provider-line');
    // Only while the record is to be created: a verified or live domain's line says it is in place.
    if (provider && providerText && domain.status === 'pending_verification') setText(providerText, providerLine(domain, provider));
    this.drawRecordWarnings(domain, dnsNow?.[hostname]);
    // As the row reads it: the last Diagnose, else the pre-flight's warnings kept since Add.
    const diagnosis = store.get().diagnoses?.[hostname] ?? store.get().preflight?.[hostname] ?? null;
    const refusal = caRefusal({ diagnosis, readiness: renewalOf(hostname) });
    const status = statusView(domain, now, { caIdentity: session?.ca_identity, refusal, liveElsewhere: diagnosis?.preflight ? diagnosis.liveElsewhere : null });
    const next = nextChecks?.of?.(hostname);
    const waiting = statusKey(domain) === STATUS.WAITING;
    // During a switch, removing the record that serves the site waits for the certificate:
    // removed before it, the site would be down until the certificate is issued.
    const switching = switchApplies(domain, store.get().liveElsewhere?.[hostname] ?? null);
    const beforeCertificate = switching && domain.certificate?.status !== 'issued';
    let advice = waiting
      ? verificationAdvice(domain, {
        nowMs: now,
        dnsNow: dnsNow?.[hostname] ?? null,
        resolverDelaySeconds: session?.propagation_delay_seconds ?? null,
        nextCheckAt: next?.kind === 'verify' ? next.at : null,
      })
      : '';
    if (beforeCertificate) advice = advice.replace(/^Remove (it|them) at your DNS provider\./, 'Remove $1 at your DNS provider once the certificate is ready: step 1 keeps the site up until then.');
    const checked = domain.verification?.checked_at;
    // A look already due (the poll that makes it is under way) reads "now", never "ago".
    const nextText = next && !waiting ? `Next look ${relativeTime(new Date(Math.max(next.at, now)).toISOString(), now).replace('just now', 'now')}.` : '';
    if (!box.querySelector('#domain-reason')) {
      render(box, html`
      <p id="domain-reason" class="reason-full" role="status"></p>
      <p id="domain-advice" class="advice" hidden></p>
      <div id="detail-preflight" class="preflight" hidden></div>
      <p class="muted small" id="detail-checked-line"></p>`);
    }
    this.drawPreflight(box.querySelector('#detail-preflight'), domain, status.reason);
    renderChanged(this.querySelector('#detail-status-line'), html`<span class="badge tone-${status.tone}" id="detail-status" data-status="${status.key}">${status.label}</span> <span class="muted">${roleLabel(domain)}</span>`);
    setText(box.querySelector('#domain-reason'), status.reason);
    const adviceText = box.querySelector('#domain-advice');
    setText(adviceText, advice);
    if (adviceText.hidden !== !advice) adviceText.hidden = !advice;
    renderChanged(box.querySelector('#detail-checked-line'), html`Last checked by the platform: <span id="detail-checked">${checked ? html`<time datetime="${checked}">${whenText(checked, now)}</time>` : 'never'}</span>${nextText ? html` · <span id="detail-next">${nextText}</span>` : ''}`);
  }

  /**
   * The pre-flight's warnings (found before the name was added, or by a later look at its
   * DNS), each with its fix, until a look no longer finds them; nothing once the domain is live,
   * and not the one the status line already gives as the reason ("Will fail: CAA at …").
   */
  drawPreflight(box, domain, reason = '') {
    const kept = domain.status === 'live' ? null : store.get().preflight?.[domain.hostname];
    const said = (w) => w.severity === 'error' && reason.includes(String(w.title ?? '').replace(/\.$/, ''));
    const warnings = (kept?.findings ?? []).filter((w) => !said(w) && notTheSwitch(w));
    if (box.hidden !== !warnings.length) box.hidden = !warnings.length;
    const key = JSON.stringify(warnings.map((w) => [w.code, w.title, w.fix?.summary]));
    if (box.dataset.drawn === key) return;
    box.dataset.drawn = key;
    render(box, warnings.length ? html`<p><strong>What will stand in the way:</strong></p>
      <ul id="detail-preflight-warnings">${warnings.map((w) => html`<li class="warn" data-code="${w.code}"><span class="preflight-title">${w.title}</span>${w.fix?.summary ? html` <span class="muted small">${w.fix.summary}</span>` : w.detail ? html` <span class="muted small">${w.detail}</span>` : ''}</li>`)}</ul>` : html``);
  }

  /**
   * The record card's warnings once the name's records are known (the doctor's look arrives
   * after the panel is drawn): the record actually in the way, or no word about one.
   */
  drawRecordWarnings(domain, look) {
    const list = this.querySelector('#record-warnings');
    if (!list || domain.status !== 'pending_verification') return;
    const found = foundAtName(domain, look);
    const key = JSON.stringify(found);
    if (list.dataset.found === key) return;
    list.dataset.found = key;
    render(list, html`${recordWarnings(domain, recordToCreate(domain), found).map((w) => html`<li>${w}</li>`)}`);
    // The plan beside it says the same: the record found in the way is marked "remove".
    const body = this.querySelector('#record-plan tbody');
    if (body) render(body, planRows(recordPlan(domain, found)));
  }

  /**
   * Domain Desk's own look at the name's records and DNS provider (the doctor asking the
   * zone's servers, DNS only, no API request), for a domain waiting for DNS: taken once per
   * platform check, and again when the user changed a record in Demo DNS.
   */
  async lookAtDns(force) {
    const hostname = store.get().selected;
    const domain = hostname && actions.findDomain(hostname);
    // Verified, the name is looked at again only to learn whether its pre-flight's warnings
    // (a CAA record that would refuse the certificate) still hold.
    const stillWarned = domain?.status === 'verified' && store.get().preflight?.[hostname];
    if (!domain || (domain.status !== 'pending_verification' && !stillWarned)) return;
    const key = `${hostname}|${domain.verification?.checked_at}`;
    if (!force && this.looked === key) return;
    this.looked = key;
    try {
      const { report, preflight } = await api.dnsLook(hostname, domain.dns_record?.value ?? null);
      // The same look says whether the pre-flight's warnings still hold, and whether the name
      // is served by another host today (then its two steps show here, also for a name added
      // elsewhere than this window's Add domain).
      if (preflight) {
        actions.keepPreflight(hostname, preflight.warnings ?? [], preflight.live_elsewhere);
        actions.keepLiveElsewhere(hostname, preflight.live_elsewhere);
      }
      // When the look was made, on the platform's clock (the doctor's run reads it in the
      // demo): the screen's "now" may be a tick old, ten minutes of a clock at 600×.
      const lookedAt = Date.parse(report?.generated_at);
      const look = dnsNowFromReport(report, hostname, Number.isNaN(lookedAt) ? screenNow() : lookedAt);
      if (look) store.set((s) => ({ dnsNow: { ...s.dnsNow, [hostname]: look } }));
    } catch {
      // Without a look the advice says what the platform found and what to do about it.
    }
  }

  /** Shows "Set up automatically" when the domain's DNS provider supports Domain Connect. */
  async offerAutomaticSetUp(domain) {
    if (domain.status !== 'pending_verification') return;
    // The provider writes the routing record: during a switch, only once the certificate is
    // ready (step 2), never before it.
    if (switchApplies(domain, store.get().liveElsewhere?.[domain.hostname] ?? null) && domain.certificate?.status !== 'issued') return;
    this.offers ??= new Map();
    let offer = this.offers.get(domain.hostname);
    if (!offer) {
      offer = api.domainConnectOffer(domain.hostname).catch(() => ({ offered: false }));
      this.offers.set(domain.hostname, offer);
    }
    const answer = await offer;
    const button = this.querySelector('#detail-auto');
    if (!answer.offered || !button || this.querySelector('#detail-panel')?.dataset.hostname !== domain.hostname) return;
    button.hidden = false;
    const note = this.querySelector('#detail-auto-note');
    note.hidden = false;
    // A set-up under way ("Waiting for your browser…") and the note that the browser could
    // not be opened (with Copy link and Try again) stay when a new copy of the domain draws
    // the panel again.
    if (!button.disabled) button.textContent = `Set up automatically at ${answer.provider}`;
    const offered = `${answer.provider} supports Domain Connect: it shows you the record in your browser and writes it when you approve.`;
    if (!note.querySelector('#detail-browser-failed')) note.textContent = offered;
    const start = async () => {
      button.disabled = true;
      // Asks first, naming the host of the provider's consent page; the button says it waits
      // for the browser only once the user said yes.
      const result = await actions.setUpAutomatically(domain.hostname, answer, {
        onApproved: () => { button.textContent = 'Waiting for your browser…'; },
      });
      const again = this.querySelector('#detail-auto');
      if (again) { again.disabled = false; again.textContent = `Set up automatically at ${answer.provider}`; }
      const noteNow = this.querySelector('#detail-auto-note');
      if (noteNow && result?.outcome !== 'browser_not_opened') noteNow.textContent = offered;
      if (result?.outcome === 'browser_not_opened' && noteNow) {
        render(noteNow, html`<span id="detail-browser-failed">The browser could not be opened. Open the link to ${answer.provider}’s consent page in a browser yourself, or try again.</span>
          <span class="inline-actions">${result.url ? html`<button type="button" id="detail-copy-link" class="copy-button" data-copy="${result.url}">Copy link</button>` : ''}
          <button type="button" id="detail-auto-retry">Try again</button></span>`);
        wireCopyButtons(noteNow);
        noteNow.querySelector('#detail-auto-retry').addEventListener('click', start);
      }
    };
    // The panel keeps its nodes when a new copy of the domain draws it the same (a re-verify
    // finding the same, every minute while it waits), and this runs again for each copy: one
    // listener at a time, or one click would open the provider's page once for every copy.
    button.removeEventListener('click', this.startAutomaticSetUp);
    this.startAutomaticSetUp = start;
    button.addEventListener('click', start);
  }
}
