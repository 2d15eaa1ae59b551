// The renewal watch's latest results, as the domains table and the detail panel show them:
// the Rust side checks (daily by the platform's clock, and after every change) and sends
// `renewal://changed`; this module keeps the last view and tells its subscribers. The pure
// parts (what a readiness looks like in a row or a panel) are exported for the tests.
import { invoke, listen } from './tauri.js';
import { dayUnlessToday } from './format.js';

let view = { checked_at: null, next_check: null, domains: [], accounts: [] };
const listeners = new Set();
let started = false;

function set(next) {
  if (!next || !Array.isArray(next.domains)) return;
  view = next;
  for (const fn of listeners) fn(view);
}

function start() {
  if (started) return;
  started = true;
  invoke('renewal_state').then(set).catch(() => {});
  listen('renewal://changed', set);
}

/** Calls `fn(view)` after every check; returns the function that stops it. */
export function subscribeRenewal(fn) {
  start();
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The latest readiness of `hostname` in `within` (the current view by default), or null. */
export function renewalOf(hostname, within = view) {
  return within.domains.find((ready) => ready.hostname === hostname) ?? null;
}

/** Each view's map of readiness by hostname, made once: the table asks at every change of its list. */
const byHostname = new WeakMap();

/**
 * The latest readiness of every checked name, by hostname (one lookup per row). A view is
 * replaced, never changed, when a check reports, so its map is made once and kept with it.
 */
export function renewalsByHostname(within = view) {
  let map = byHostname.get(within);
  if (!map) {
    map = new Map(within.domains.map((ready) => [ready.hostname, ready]));
    byHostname.set(within, map);
  }
  return map;
}

/**
 * The row's Renewal indicator: a key for styling and tests, a short label, a title. A renewal
 * that will fail says from when in the label itself ("⚠ Fails 25 Jan"): "⚠ Renewal fails ·
 * 25 Jan" was cut before its date in the column.
 */
export function renewalIndicator(readiness) {
  if (!readiness) return { key: '', label: '', title: '' };
  switch (readiness.state) {
    case 'at_risk': {
      const at = Date.parse(readiness.renews_at ?? '');
      const checked = Date.parse(readiness.checked_at ?? '');
      const day = Number.isNaN(at) ? '' : dayUnlessToday(at, Number.isNaN(checked) ? at : checked) || 'today';
      return { key: 'at_risk', label: day ? `⚠ Fails ${day}` : '⚠ Renewal fails', title: readiness.finding?.detail ?? '' };
    }
    case 'unknown':
      return { key: 'unknown', label: '', title: readiness.note ?? 'DNS could not be asked' };
    default:
      return { key: 'ready', label: '', title: 'DNS lets the CA renew this certificate' };
  }
}

/** What the detail panel's Renewal section says; null for a domain that is not live. */
export function renewalSection(domain, readiness) {
  if (!domain || domain.status !== 'live' || domain.certificate?.status !== 'issued') return null;
  // The platform's own date first: after a renewal it moves before the next check does.
  const renewsAt = domain.certificate?.renews_at ?? readiness?.renews_at ?? null;
  const renewing = domain.certificate?.error ?? null;
  let state = 'Not checked yet';
  let tone = 'progress';
  if (readiness?.state === 'at_risk') { state = 'Will fail'; tone = 'error'; }
  else if (readiness?.state === 'ready') { state = 'Will renew'; tone = 'ok'; }
  else if (readiness?.state === 'unknown') { state = 'Could not check'; tone = 'pending'; }
  const fix = readiness?.finding?.fix ?? null;
  return {
    state,
    tone,
    renewsAt,
    checkedAt: readiness?.checked_at ?? null,
    problem: readiness?.state === 'at_risk' ? readiness.finding?.detail ?? readiness.cause ?? '' : '',
    fixSummary: fix?.summary ?? '',
    fixSteps: fix?.steps ?? [],
    platformError: renewing ? renewing.message : '',
  };
}

/**
 * The other accounts kept on this computer whose renewals will fail, for the account
 * switcher: `[{ accountId, label, hostnames }]`, the signed-in account left out (its own
 * problems are on its rows).
 */
export function otherAccountsAtRisk(within, sessionAccountId) {
  return (within?.accounts ?? [])
    .filter((account) => account.account_id !== sessionAccountId && account.at_risk?.length)
    .map((account) => ({
      accountId: account.account_id,
      label: account.account_label,
      hostnames: account.at_risk,
    }));
}

/** One line for the switcher's notice: who, which names, in the user's words. */
export function accountRiskLine(risk) {
  const names = risk.hostnames.length === 1
    ? risk.hostnames[0]
    : `${risk.hostnames.length} domains (${risk.hostnames.join(', ')})`;
  const verb = risk.hostnames.length === 1 ? 'its renewal will fail' : 'their renewals will fail';
  return `${risk.label}: ${names} — ${verb}`;
}
