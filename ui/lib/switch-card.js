// The two steps of a switch without a gap (lib/switch-plan.js) as the Add domain dialog and
// the detail panel show them: each step's title, its state as a badge, a line of what it
// means now, and its record card with Copy buttons.
import { html } from './html.js';
import { recordCard } from './record-card.js';
import { switchSteps, stepStateLabel, delegationCardRecord, delegationRecord, routingCardRecord, isWildcard } from './switch-plan.js';

const TONE = { done: 'ok', working: 'progress', todo: 'pending', waiting: 'pending', failed: 'error' };

/** The sentence above the steps. */
export function switchIntro(domain, liveElsewhere = null) {
  const name = domain.unicode_hostname || domain.hostname;
  if (isWildcard(domain)) return `A wildcard needs two records: one through which its certificate is issued, one that sends every name under ${name.slice(2)} to the platform.`;
  const where = liveElsewhere?.length ? `${name} is served today by ${liveElsewhere.join(', ')}. ` : '';
  return `${where}Get the certificate first, then switch the DNS when you are ready: nobody meets a certificate warning in between.`;
}

/**
 * The steps, ids under `prefix` (`add`, `detail`); the routing record's card under
 * `routePrefix`, the ids the plain record card has where the steps are not shown.
 */
export function switchCard(domain, prefix, { liveElsewhere = null, routePrefix = `${prefix}-route` } = {}) {
  const steps = switchSteps(domain, { liveElsewhere });
  const records = {
    delegation: delegationCardRecord(domain),
    routing: routingCardRecord(domain, { liveElsewhere }),
  };
  return html`<section class="switch" id="${prefix}-switch" aria-labelledby="${prefix}-switch-title">
    <p id="${prefix}-switch-title"><strong>${isWildcard(domain) ? 'Two records for a wildcard' : 'Keep the site up while you switch'}</strong></p>
    <p class="muted small" id="${prefix}-switch-intro">${switchIntro(domain, liveElsewhere)}</p>
    <ol class="switch-steps" id="${prefix}-steps">${steps.map((s, i) => html`<li class="switch-step" data-step="${s.key}" data-state="${s.state}" id="${prefix}-step-${s.key}">
      <div class="switch-step-head"><span class="step-title">${s.title}</span> <span class="badge tone-${TONE[s.state] ?? 'pending'}" id="${prefix}-step-${s.key}-state">${stepStateLabel(s.state)}</span></div>
      <p class="small step-text" id="${prefix}-step-${s.key}-text">${s.text}</p>
      ${recordCard(domain, i === 0 ? `${prefix}-acme` : routePrefix, { live: s.state === 'done', record: records[s.key] })}
    </li>`)}</ol>
  </section>`;
}

/**
 * The two steps in one line for the top of the detail panel, in view without scrolling:
 * "Step 1 Done · Step 2 To do", each state a badge; the steps in full are further down.
 */
export function switchSummary(domain, prefix, { liveElsewhere = null } = {}) {
  const steps = switchSteps(domain, { liveElsewhere });
  const short = isWildcard(domain) ? ['Certificate record', 'Routing record'] : ['Step 1 certificate', 'Step 2 switch'];
  return html`<p class="switch-summary small" id="${prefix}-steps-line">${steps.map((s, i) => html`<span class="switch-summary-step" data-step="${s.key}" data-state="${s.state}">${short[i]} <span class="badge tone-${TONE[s.state] ?? 'pending'}">${stepStateLabel(s.state)}</span></span>`)}</p>`;
}

/**
 * Once the routing record is in place: the `_acme-challenge` record the certificate was
 * validated through (and is renewed through), to keep; '' when it was validated otherwise.
 */
export function delegationInPlace(domain) {
  if (domain.status !== 'live' || domain.certificate?.validation?.method !== 'dns' || !delegationRecord(domain)) return '';
  return html`<h5 id="detail-acme-title">Certificate record in place</h5>
    <p class="muted small">The platform validated the certificate through this record and renews it through it: keep it while the domain is attached.</p>
    ${recordCard(domain, 'detail-acme', { live: true, record: delegationCardRecord(domain) })}`;
}
