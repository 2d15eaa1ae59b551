// Add domain: the name is checked as it is typed (syntax here, the Public Suffix List on the
// Rust side), the role is chosen (primary, alias or a redirect to another domain), then the
// DNS record to create is shown with copy buttons and the warnings.
import { html, breakable } from '../../lib/html.js';
import { render, openDialog, setText } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { store, loadProjects } from '../../lib/app-state.js';
import { upsertDomain } from '../../lib/domain-list.js';
import { checkHostname, duplicateOf } from '../../lib/hostname.js';
import { describeError } from '../../lib/errors.js';
import * as actions from '../../lib/actions.js';
import { recordCard, wireCopyButtons } from '../../lib/record-card.js';
import { screenNow } from '../../lib/app-state.js';
import { challengeExpiry } from '../../lib/domain-view.js';
import { companionOf, switchApplies } from '../../lib/switch-plan.js';
import { switchCard } from '../../lib/switch-card.js';

/**
 * `checkHostname`, and a wildcard (`*.shop.example.com`) checked by the name it stands over;
 * the Rust side then says whether it is deep enough (not `*.example.com`).
 */
export function checkTyped(value, options) {
  const text = String(value ?? '').trim();
  if (!text.startsWith('*.')) return checkHostname(text, options);
  const base = checkHostname(text.slice(2), options);
  if (!base.ok) return { ...base, suggestion: null };
  return { ok: true, ascii: `*.${base.ascii}`, changed: base.changed, wildcard: true };
}

/** The line under the name once the Rust side has checked it. */
export function hostnameLine(info) {
  if (info.wildcard) return `${info.unicode} covers every name one label under ${info.unicode.slice(2)}: you will create a CNAME named “${info.relative_name}” and a CNAME for its certificate.`;
  return info.apex
    ? `${info.unicode} is an apex domain: you will create an ALIAS (or ANAME) record at @.`
    : `${info.unicode} is a subdomain of ${info.registrable_domain}: you will create a CNAME named “${info.relative_name}”.`;
}

/** One pre-flight warning: its title, then its fix (or what it means) in small print. */
function warningItem(w) {
  return html`<li class="warn"><span class="preflight-title">${w.title}</span>${w.fix?.summary ? html` <span class="muted small">${w.fix.summary}</span>` : w.detail ? html` <span class="muted small">${w.detail}</span>` : ''}</li>`;
}

export class AddDomain extends HTMLElement {
  connectedCallback() {
    render(this, html`<dialog id="add-domain-dialog" aria-labelledby="add-domain-title"><div id="add-domain-body"></div></dialog>`);
    this.dialog = this.querySelector('dialog');
    this.body = this.querySelector('#add-domain-body');
  }

  disconnectedCallback() {
    this.stopExpiry?.();
  }

  open() {
    // A fresh name to check: nothing from the last one (a valid name just added, a check
    // still pending when the dialog closed) may submit this one.
    this.valid = false;
    this.checking = false;
    this.submitWhenChecked = false;
    clearTimeout(this.debounce);
    this.seq = (this.seq ?? 0) + 1;
    this.stopExpiry?.();
    // Nor what the last name offered: its www name, its roles as a wildcard, its old host.
    this.info = null;
    this.companion = null;
    this.rolesBefore = null;
    this.liveElsewhere = null;
    this.preflightDone = null;
    this.companionLiveElsewhere = null;
    this.companionLookDone = null;
    const { domains } = store.get();
    const targets = domains.filter((d) => d.role !== 'redirect');
    // The platform makes a new name primary when the project has none (its primary removed,
    // say): the dialog preselects what the platform will do.
    const hasPrimary = domains.some((d) => d.role === 'primary');
    render(this.body, html`
      <form id="add-domain-form" method="dialog" novalidate>
        <h3 id="add-domain-title">Add domain</h3>
        <label for="add-hostname">Domain or subdomain</label>
        <input id="add-hostname" name="hostname" type="text" autocomplete="off" spellcheck="false" placeholder="www.example.com" aria-describedby="add-hostname-message" required>
        <p id="add-hostname-message" class="field-message" aria-live="polite"></p>
        <div id="add-companion" hidden></div>
        <div id="add-preflight" aria-live="polite"></div>
        <div id="add-companion-preflight" aria-live="polite" hidden></div>
        <fieldset class="roles">
          <legend>Use it as</legend>
          <label><input type="radio" name="role" value="primary" id="add-role-primary" ${hasPrimary ? '' : html`checked`}> Primary — the project is served here</label>
          <label><input type="radio" name="role" value="alias" id="add-role-alias" ${hasPrimary ? html`checked` : ''}> Alias — serves the project too</label>
          <label><input type="radio" name="role" value="redirect" id="add-role-redirect" ${targets.length === 0 ? html`disabled` : ''}> Redirect to…</label>
          ${targets.length === 0
            ? html`<p class="muted small">A redirect needs another domain of this project to point to.</p>`
            : html`<select id="add-redirect-to" aria-label="Redirect target" disabled>
              ${targets.map((d) => html`<option value="${d.hostname}">${d.unicode_hostname}</option>`)}
            </select>`}
        </fieldset>
        <p id="add-domain-error" class="error" role="alert" hidden></p>
        <div id="add-ownership" hidden></div>
        <div class="dialog-buttons">
          <button type="button" id="add-cancel">Cancel</button>
          <button type="submit" id="add-submit" class="primary" disabled>Add domain</button>
        </div>
      </form>`);
    const input = this.body.querySelector('#add-hostname');
    input.addEventListener('input', () => this.check(input.value));
    // Enter in the name submits here, not by the form's implicit submission, which does
    // nothing while Add domain is disabled (the name still being checked).
    input.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' || e.isComposing) return;
      e.preventDefault();
      this.submit();
    });
    this.body.querySelectorAll('input[name=role]').forEach((r) => r.addEventListener('change', () => {
      const select = this.body.querySelector('#add-redirect-to');
      if (select) select.disabled = r.value !== 'redirect' || !r.checked;
      const companion = this.body.querySelector('#add-companion');
      if (companion && this.companion) companion.hidden = r.checked && r.value === 'redirect';
      const look = this.body.querySelector('#add-companion-preflight');
      if (look && this.companion) look.hidden = (r.checked && r.value === 'redirect') || !look.hasChildNodes();
    }));
    this.body.querySelector('#add-cancel').addEventListener('click', () => this.dialog.close());
    this.body.querySelector('#add-domain-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    openDialog(this.dialog, '#add-hostname');
  }

  /** Instant syntax feedback, then the Rust side's verdict (apex or subdomain) for the latest input. */
  check(value) {
    const message = this.body.querySelector('#add-hostname-message');
    const submit = this.body.querySelector('#add-submit');
    const local = checkTyped(value, { platformDomain: store.get().session?.platform_domain });
    this.info = null;
    this.liveElsewhere = null;
    this.companionLiveElsewhere = null;
    this.offerCompanion(null);
    this.valid = false;
    submit.disabled = true;
    // An Enter pressed for an earlier input is not one for this input.
    this.checking = false;
    this.submitWhenChecked = false;
    clearTimeout(this.debounce);
    // A refusal (and an ownership challenge) is about the name it was given: a new name
    // clears it.
    this.clearRefusal();
    this.offerTargets(local.ok ? local.ascii : null);
    if (!local.ok) {
      const suggestion = local.suggestion && checkHostname(local.suggestion).ok ? local.suggestion : null;
      if (suggestion) {
        render(message, html`${local.message} <button type="button" class="link" id="add-use-suggestion">Use ${suggestion}</button>`);
        message.querySelector('#add-use-suggestion').addEventListener('click', () => {
          const input = this.body.querySelector('#add-hostname');
          input.value = suggestion;
          input.focus();
          this.check(suggestion);
        });
      } else {
        message.textContent = value.trim() === '' ? '' : local.message;
      }
      message.className = 'field-message error';
      this.body.querySelector('#add-hostname').setAttribute('aria-invalid', String(value.trim() !== ''));
      return;
    }
    const existing = duplicateOf(local.ascii, store.get().domains);
    if (existing) {
      this.body.querySelector('#add-hostname').setAttribute('aria-invalid', 'true');
      message.className = 'field-message error';
      render(message, html`${existing.unicode_hostname} is already in this project. <button type="button" class="link" id="add-show-existing">Show it</button>`);
      message.querySelector('#add-show-existing').addEventListener('click', () => {
        this.dialog.close();
        store.set({ selected: existing.hostname });
      });
      return;
    }
    this.body.querySelector('#add-hostname').setAttribute('aria-invalid', 'false');
    message.className = 'field-message';
    message.textContent = local.changed ? `Will be added as ${local.ascii}` : '';
    const seq = (this.seq = (this.seq ?? 0) + 1);
    this.checking = true;
    this.debounce = setTimeout(async () => {
      try {
        const info = await api.checkHostname(value);
        if (seq !== this.seq) return;
        this.checking = false;
        this.valid = true;
        submit.disabled = false;
        message.className = 'field-message ok';
        message.textContent = hostnameLine(info);
        this.info = info;
        this.offerCompanion(companionOf(info, store.get().domains));
        // The name offered beside it gets its own look: its www name may be the one served
        // by another host today, and then it gets the two steps too.
        this.companionLookDone = this.companion ? this.lookAtCompanion(this.companion, seq) : null;
        this.wildcardRoles(info.wildcard);
        // A wildcard has no records of its own to look at: its names are any label under it.
        this.preflightDone = info.wildcard ? Promise.resolve() : this.preflight(local.ascii, seq);
        // Enter was pressed while this name was being checked: it is added now (not when
        // the dialog was closed meanwhile).
        if (this.submitWhenChecked && this.dialog.open) {
          this.submitWhenChecked = false;
          this.submit();
        }
      } catch (err) {
        if (seq !== this.seq) return;
        this.checking = false;
        this.submitWhenChecked = false;
        message.className = 'field-message error';
        message.textContent = describeError(err).message;
      }
    }, 200);
  }

  /**
   * The doctor's quick look at the name before it is added (DNS questions only, no API
   * request): what would stand in the way — a CAA record that refuses the platform's CA, a
   * proxy, failing DNSSEC, the name live on another host, a stale AAAA. Nothing blocks the
   * Add; the warnings are kept for the new row until a later look no longer finds them.
   */
  async preflight(ascii, seq) {
    const box = this.body.querySelector('#add-preflight');
    if (!box) return;
    render(box, html``);
    box.dataset.state = 'looking';
    const found = await this.look(ascii);
    if (seq !== this.seq) return;
    if (!found) {
      // The look is a courtesy: a name it cannot look at is added all the same.
      box.dataset.state = 'unknown';
      return;
    }
    this.liveElsewhere = this.keepLook(ascii, found);
    box.dataset.state = found.warnings?.length ? 'warned' : 'clear';
    if (!found.warnings?.length) return;
    render(box, html`<div class="preflight" id="add-preflight-warnings">
      <p><strong>Before you create the record:</strong></p>
      <ul>${found.warnings.map(warningItem)}</ul>
    </div>`);
  }

  /**
   * The same look at the name offered beside it (the www name beside an apex, or the apex),
   * its warnings under the offer, "For www.example.com:" first.
   */
  async lookAtCompanion(companion, seq) {
    const found = await this.look(companion.hostname);
    const box = this.body.querySelector('#add-companion-preflight');
    if (seq !== this.seq || this.companion !== companion || !box) return;
    box.dataset.state = found ? (found.warnings?.length ? 'warned' : 'clear') : 'unknown';
    if (!found) return;
    this.companionLiveElsewhere = this.keepLook(companion.hostname, found);
    if (!found.warnings?.length) return;
    render(box, html`<div class="preflight companion-preflight" id="add-companion-warnings">
      <p><strong>For ${companion.unicode}:</strong></p>
      <ul>${found.warnings.map(warningItem)}</ul>
    </div>`);
    box.hidden = this.body.querySelector('input[name=role]:checked')?.value === 'redirect';
  }

  /** The doctor's quick look at `ascii` (DNS questions only), or null when it cannot look. */
  async look(ascii) {
    const target = store.get().domains.find((d) => d.dns_record?.value)?.dns_record.value ?? null;
    try {
      return (await api.preflight(ascii, target)) ?? null;
    } catch {
      return null;
    }
  }

  /**
   * What a look found, kept for the new row (its warnings) and for the detail panel's two
   * steps (the store's `liveElsewhere`, by hostname). Returns the addresses the name is
   * served from today by another host, or null.
   */
  keepLook(ascii, found) {
    actions.keepPreflight(ascii, found.warnings ?? [], found.live_elsewhere);
    actions.keepLiveElsewhere(ascii, found.live_elsewhere);
    return found.live_elsewhere?.length ? found.live_elsewhere : null;
  }

  /**
   * "Also add www.example.com, redirecting to example.com" (or the apex beside a www name),
   * checked: one click adds both. Hidden for any other name, and while the name itself is to
   * be a redirect (a redirect to a redirect is refused).
   */
  offerCompanion(companion) {
    const box = this.body.querySelector('#add-companion');
    if (!box) return;
    this.companion = companion;
    const look = this.body.querySelector('#add-companion-preflight');
    if (look) {
      look.hidden = true;
      render(look, html``);
    }
    if (!companion) {
      box.hidden = true;
      render(box, html``);
      return;
    }
    render(box, html`<label class="companion"><input type="checkbox" id="add-companion-check" checked> <span id="add-companion-label">${companion.label}</span></label>`);
    box.hidden = this.body.querySelector('input[name=role]:checked')?.value === 'redirect';
  }

  /** A wildcard is always an alias: never primary, never a redirect. */
  wildcardRoles(wildcard) {
    const primary = this.body.querySelector('#add-role-primary');
    const redirect = this.body.querySelector('#add-role-redirect');
    const alias = this.body.querySelector('#add-role-alias');
    if (!primary || !alias) return;
    if (wildcard) {
      this.rolesBefore ??= { primary: primary.checked, redirect: redirect?.checked ?? false, redirectDisabled: redirect?.disabled ?? true };
      alias.checked = true;
      primary.disabled = true;
      if (redirect) redirect.disabled = true;
      const select = this.body.querySelector('#add-redirect-to');
      if (select) select.disabled = true;
    } else if (this.rolesBefore) {
      primary.disabled = false;
      if (redirect) redirect.disabled = this.rolesBefore.redirectDisabled;
      this.rolesBefore = null;
    }
  }

  /** The redirect targets: the project's domains that are not redirects, never the typed name. */
  offerTargets(ascii) {
    const select = this.body.querySelector('#add-redirect-to');
    if (!select) return;
    for (const option of select.options) option.hidden = option.value === ascii;
    if (!select.value || select.selectedOptions[0]?.hidden) select.value = [...select.options].find((o) => !o.hidden)?.value ?? '';
  }

  clearRefusal() {
    const error = this.body.querySelector('#add-domain-error');
    const ownership = this.body.querySelector('#add-ownership');
    if (error) { error.hidden = true; error.textContent = ''; }
    if (ownership) { ownership.hidden = true; render(ownership, html``); }
    const submit = this.body.querySelector('#add-submit');
    if (submit) submit.hidden = false;
  }

  async submit() {
    const submit = this.body.querySelector('#add-submit');
    // Enter on a role submits the form itself, also while Add domain is disabled: a name not
    // checked yet, one already being added, or one another account holds (Check and add is
    // the way on then).
    // Enter typed right after the name, before the check (a fifth of a second and a call)
    // has answered, is kept: the name is added once it is found good, and not if it is not.
    if (!this.valid && this.checking && !submit.hidden) {
      this.submitWhenChecked = true;
      return;
    }
    if (!this.valid || submit.disabled || submit.hidden) return;
    const project = store.get().project;
    const hostname = this.body.querySelector('#add-hostname').value.trim();
    const role = this.body.querySelector('input[name=role]:checked')?.value ?? 'alias';
    const redirectTo = role === 'redirect' ? this.body.querySelector('#add-redirect-to')?.value ?? null : null;
    const companion = role !== 'redirect' && this.companion && this.body.querySelector('#add-companion-check')?.checked ? this.companion : null;
    const error = this.body.querySelector('#add-domain-error');
    submit.disabled = true;
    error.hidden = true;
    try {
      let domain = await api.addDomain(project.id, hostname, redirectTo);
      store.set((s) => ({ domains: upsertDomain(s.domains, domain), selected: domain.hostname }));
      if (role === 'primary' && domain.role !== 'primary') {
        await actions.makePrimary(domain.hostname);
        domain = actions.findDomain(domain.hostname) ?? domain;
      }
      // The www name (or the apex) beside it: added after it, redirecting to it. Its failure
      // (the plan's limit, say) is said beside the records; the name itself stays added.
      let second = null;
      let secondError = null;
      if (companion) {
        try {
          second = await api.addDomain(project.id, companion.hostname, companion.redirectTo);
          store.set((s) => ({ domains: upsertDomain(s.domains, second) }));
        } catch (err) {
          secondError = `${companion.unicode} was not added: ${describeError(err).message}`;
        }
      }
      loadProjects().catch(() => {});
      // The looks' answers say whether the names are live elsewhere (a look of a moment).
      await Promise.race([Promise.all([this.preflightDone, second ? this.companionLookDone : null]), new Promise((r) => setTimeout(r, 3000))]);
      this.showRecord(domain, { second, secondError });
    } catch (err) {
      submit.disabled = false;
      if (err?.ownership_challenge) {
        this.showChallenge(hostname, err);
        return;
      }
      const { message, action } = describeError(err);
      error.textContent = action ? `${message} ${action}` : message;
      error.hidden = false;
    }
  }

  /**
   * Another account holds the name: the platform's challenge as a record card (TXT name
   * relative to the zone and in full, value, Copy buttons, when it expires), and "Check and
   * add", which adds again once the platform sees the TXT record. Nothing here tells the user
   * to remove the name anywhere: proving control is how it moves.
   */
  showChallenge(hostname, err, { again = false } = {}) {
    const c = err.ownership_challenge;
    const box = this.body.querySelector('#add-ownership');
    const delay = store.get().session?.propagation_delay_seconds;
    const expiry = challengeExpiry(c.expires_at, screenNow());
    render(box, html`<div class="ownership" id="ownership-card">
        <p><strong>Another account holds ${hostname}.</strong> Prove that you control the name: create this TXT record at its DNS provider${store.get().session?.mode === 'demo' ? html` (<button type="button" class="link" id="own-open-demo-dns">Open Demo DNS</button>)` : ''}, then press Check and add. The name then moves to this project.</p>
        <p class="warn" id="own-takes-over">Taking the name stops the other account’s project from serving it: its visitors reach this project instead.</p>
        <div class="record-card">
          <div class="rec-field"><span class="rec-label" id="own-type-label">Type</span><span class="rec-value"><code id="own-type" aria-labelledby="own-type-label">${c.type}</code></span><span></span></div>
          <div class="rec-field"><span class="rec-label" id="own-name-label">Name</span><span class="rec-value"><code id="own-name" aria-labelledby="own-name-label">${breakable(c.name)}</code> <span class="muted small rec-note" id="own-fqdn">${breakable(`— ${c.fqdn}`)}</span></span><button type="button" class="copy-button" data-copy="${c.name}" aria-label="Copy name">Copy</button></div>
          <div class="rec-field"><span class="rec-label" id="own-value-label">Value</span><span class="rec-value"><code id="own-value" aria-labelledby="own-value-label">${breakable(c.value)}</code></span><button type="button" class="copy-button" data-copy="${c.value}" aria-label="Copy value">Copy</button></div>
        </div>
        <p class="muted small" id="own-expiry">${expiry}</p>
        ${again ? html`<p class="warn" id="own-not-yet" role="status">The platform does not see the TXT record yet${delay != null ? ` (its resolver takes up to ${delay}\u00a0s to see a change)` : ''}. Check that it is saved at the DNS provider, then try again.</p>` : ''}
        <div class="dialog-buttons"><button type="button" id="own-check" class="primary">Check and add</button></div>
      </div>`);
    box.hidden = false;
    // Demo DNS opens over the dialog, which stays: Check and add is pressed after it closes.
    box.querySelector('#own-open-demo-dns')?.addEventListener('click', () => document.getElementById('demo-dns-host')?.open());
    // "expires in 7 days (Dec 4, 12:00)" follows the clock while it is shown: the demo's
    // runs the week out in minutes at 600×. It stops when the card is gone.
    this.stopExpiry?.();
    const stop = store.subscribe((_state, changed) => {
      if (!changed.includes('now')) return;
      const line = box.isConnected ? box.querySelector('#own-expiry') : null;
      if (line) setText(line, challengeExpiry(c.expires_at, screenNow()));
      else stop();
    });
    this.stopExpiry = stop;
    // Check and add is the one way on from here: the plain Add would only be refused again.
    this.body.querySelector('#add-submit').hidden = true;
    wireCopyButtons(box);
    box.querySelector('#own-check').addEventListener('click', async () => {
      const button = box.querySelector('#own-check');
      button.disabled = true;
      button.textContent = 'Checking…';
      const project = store.get().project;
      try {
        const domain = await api.addDomain(project.id, hostname, null);
        store.set((s) => ({ domains: upsertDomain(s.domains, domain), selected: domain.hostname }));
        loadProjects().catch(() => {});
        this.showRecord(domain);
      } catch (next) {
        if (next?.ownership_challenge) this.showChallenge(hostname, next, { again: true });
        else {
          const { message, action } = describeError(next);
          const error = this.body.querySelector('#add-domain-error');
          error.textContent = action ? `${message} ${action}` : message;
          error.hidden = false;
          button.disabled = false;
          button.textContent = 'Check and add';
        }
      }
    });
  }

  showRecord(domain, { second = null, secondError = null } = {}) {
    const liveElsewhere = this.liveElsewhere ?? null;
    const switching = switchApplies(domain, liveElsewhere);
    const demoDns = store.get().session?.mode === 'demo' ? html` <button type="button" class="link" id="add-open-demo-dns">Open Demo DNS</button>` : '';
    render(this.body, html`
      <h3 id="add-domain-title">${switching ? 'Create these DNS records' : second ? 'Create these DNS records' : 'Create this DNS record'}</h3>
      <p>At the DNS provider of <strong>${domain.unicode_hostname}</strong>, create:${demoDns}</p>
      ${switching ? switchCard(domain, 'add', { liveElsewhere, routePrefix: 'add-record' }) : recordCard(domain, 'add-record')}
      ${second ? html`<section class="companion-record" id="add-second"><p><strong>${second.unicode_hostname}</strong> <span class="muted small">redirects to ${domain.unicode_hostname} (301) once live:</span></p>${switchApplies(second, this.companionLiveElsewhere) ? switchCard(second, 'add-second', { liveElsewhere: this.companionLiveElsewhere, routePrefix: 'add-second-record' }) : recordCard(second, 'add-second-record')}</section>` : ''}
      ${secondError ? html`<p class="warn" id="add-second-error" role="status">${secondError}</p>` : ''}
      <div class="dialog-buttons">
        <button type="button" id="add-done">Done</button>
        <button type="button" id="add-verify-now" class="primary">Verify now</button>
      </div>`);
    wireCopyButtons(this.body);
    this.body.querySelector('#add-done').addEventListener('click', () => this.dialog.close());
    this.body.querySelector('#add-open-demo-dns')?.addEventListener('click', () => {
      this.dialog.close();
      document.getElementById('demo-dns-host')?.open();
    });
    this.body.querySelector('#add-verify-now').addEventListener('click', async () => {
      this.dialog.close();
      await actions.verify(domain.hostname);
    });
    // The value is what the user copies first: its Copy button has the focus, then Tab walks
    // to Done and Verify now. In the two steps, the first step's value.
    this.body.querySelector(switching ? '#add-acme-value' : '#add-record-value')?.closest('.rec-field')?.querySelector('.copy-button')?.focus();
  }
}
