// What the row menu and the detail panel do to a domain. Each action updates the store with
// the API's answer, so the table changes in place, and reports failures in words.

import { api } from './api.js';
import { store, refreshDomains, loadProjects, refreshProject } from './app-state.js';
import { upsertDomain, removeDomain } from './domain-list.js';
import { errorText } from './errors.js';
import { toast, resolveToast } from './toast.js';
import { noteDangling, removeConfirmBody } from './dangling.js';
import { redirectNotice, verificationFinding, verifiedNotice } from './domain-view.js';
import { dialog } from './dialogs.js';

function projectId() {
  return store.get().project?.id;
}

/** A failure of an action on the open project: it belongs to that project (notices.js). */
function fail(err) {
  toast(errorText(err), 'error', { scope: 'project' });
}

/** True while `hostname` is in the open project and still waits for verification. */
export function stillUnverified(hostname) {
  return (state) => state.domains.some((d) => d.hostname === hostname && d.status === 'pending_verification');
}

export function findDomain(hostname) {
  return store.get().domains.find((d) => d.hostname === hostname);
}

/**
 * Verify (or Re-verify). `{fromMenu}`: pressed in the row's menu, where the detail panel may
 * not show the reason, so a failed check is said in a notice too: what the platform's check
 * found, with its time (a statement of what was seen then, never an instruction that could
 * outlive it). From the detail panel the reason beside the button says it.
 */
export async function verify(hostname, { fromMenu = false } = {}) {
  try {
    const domain = await api.verify(projectId(), hostname);
    store.set((s) => ({ domains: upsertDomain(s.domains, domain) }));
    // A failure is said where the domain is shown (its reason). From the row's menu, where the
    // panel may not show it, a notice says what the platform's check found and when; it stays
    // until the domain is verified or gone (or the user leaves the project).
    if (domain.status === 'pending_verification') {
      if (fromMenu || store.get().selected !== domain.hostname) {
        toast(`${domain.unicode_hostname} is not verified yet. ${verificationFinding(domain, store.get().now)}`, 'info', { key: `verify:${hostname}`, scope: 'project', cause: stillUnverified(hostname) });
      }
    } else {
      resolveToast(`verify:${hostname}`);
      const notice = verifiedNotice(domain, store.get().now, { caIdentity: store.get().session?.ca_identity });
      toast(notice.message, notice.tone, { scope: 'project' });
    }
    return domain;
  } catch (err) {
    fail(err);
    return null;
  }
}

/**
 * The question asked before the browser opens: the consent page's address comes from the
 * domain's `_domainconnect` DNS record, which nobody signs, so the user sees its host first.
 */
export function consentQuestion(provider, host) {
  return {
    title: `Open ${provider}’s page at ${host}?`,
    body: `Your browser will open ${host}, where ${provider} shows the record and writes it when you approve there. Open it only if ${host} is your DNS provider’s.`,
    confirm: 'Open in browser',
    tone: 'suggestion',
  };
}

/**
 * Set up automatically (Domain Connect): once the user approves the host of the provider's
 * consent page (`offer`, from `domain_connect_offer`), the page opens in the browser; Verify
 * after. The host goes with the request: the Rust side opens nothing if the page has moved.
 * `onApproved` runs once the user says yes, before the browser is asked to open the page.
 */
export async function setUpAutomatically(hostname, offer, { onApproved } = {}) {
  if (!offer?.host || !(await confirmDialog(consentQuestion(offer.provider, offer.host)))) return { outcome: 'declined' };
  onApproved?.();
  try {
    const result = await api.domainConnectSetUp(projectId(), hostname, offer.host);
    if (result.domain) store.set((s) => ({ domains: upsertDomain(s.domains, result.domain) }));
    toast(result.message, result.outcome === 'applied' ? 'ok' : 'warning', { scope: 'project' });
    return result;
  } catch (err) {
    // No browser opened: the caller offers Copy link and Try again in place.
    if (err?.kind === 'browser_not_opened') return { outcome: 'browser_not_opened', url: err.url ?? null };
    fail(err);
    return null;
  }
}

/**
 * What to say after a removal: a confirmation that goes by itself. A record that still points
 * at the platform is not in it: that warning stays in the removed domain's place
 * (lib/dangling.js), since a dangling CNAME lets whoever attaches the name next take it over.
 */
export function removedNotice(name) {
  return { message: `Removed ${name}.`, tone: 'ok' };
}

export async function remove(hostname) {
  const domain = findDomain(hostname);
  const name = domain?.unicode_hostname ?? hostname;
  const ok = await confirmDialog({
    title: `Remove ${name}?`,
    body: removeConfirmBody(domain, name, store.get().session?.mode === 'demo'),
    confirm: 'Remove domain',
  });
  if (!ok) return false;
  try {
    const project = projectId();
    const dangling = await api.removeDomain(project, hostname);
    noteDangling(project, hostname, name, dangling);
    store.set((s) => ({ domains: removeDomain(s.domains, hostname), selected: s.selected === hostname ? null : s.selected }));
    const notice = removedNotice(name);
    toast(notice.message, notice.tone, { scope: 'project' });
    refreshDomains().catch(() => {});
    refreshProject().catch(() => {});
    loadProjects().catch(() => {});
    return true;
  } catch (err) {
    fail(err);
    return false;
  }
}

/**
 * Make primary, then the offer the change calls for: the old primary still serves the project
 * as an alias; redirecting it to the new one keeps one address for visitors.
 */
export async function makePrimary(hostname) {
  const old = store.get().domains.find((d) => d.role === 'primary' && d.hostname !== hostname);
  try {
    await api.makePrimary(projectId(), hostname);
    await refreshDomains();
    refreshProject().catch(() => {});
    loadProjects().catch(() => {});
    const name = findDomain(hostname)?.unicode_hostname ?? hostname;
    toast(`${name} is now the primary domain.`, 'ok', { scope: 'project' });
    const offer = redirectOffer(old, name);
    if (offer && findDomain(old.hostname) && (await confirmDialog(offer))) await setRedirect(old.hostname, hostname);
  } catch (err) {
    fail(err);
  }
}

/**
 * The question after Make primary: redirect the old primary to the new one? null when there
 * was none. A suggestion, harmless (it can be undone with Redirect…): not drawn as a removal.
 */
export function redirectOffer(old, name) {
  if (!old) return null;
  return {
    title: `Redirect ${old.unicode_hostname} to ${name}?`,
    body: `${old.unicode_hostname} was the primary domain and now serves the project as an alias. Redirect it to ${name} (301) so visitors and search engines use one address.`,
    confirm: 'Redirect',
    tone: 'suggestion',
  };
}

export async function setRedirect(hostname, to) {
  try {
    await api.setRedirect(projectId(), hostname, to);
    await refreshDomains();
    const target = to ? (findDomain(to)?.unicode_hostname ?? to) : null;
    toast(redirectNotice(findDomain(hostname), hostname, target), 'ok');
    return true;
  } catch (err) {
    fail(err);
    return false;
  }
}

/** The Refresh button: the domains again from the platform; a failure is said, not swallowed. */
export async function refreshList() {
  try {
    await refreshDomains();
    resolveToast('refresh');
    // What the list brings can change the project too: a primary domain added by an import,
    // or one that went live, changes its address ("Served at") and the projects' list.
    refreshProject().catch(() => {});
    loadProjects().catch(() => {});
    return true;
  } catch (err) {
    toast(`The domains could not be refreshed. ${errorText(err)}`, 'error', { key: 'refresh', scope: 'project' });
    return false;
  }
}

export async function openInBrowser(hostname) {
  try {
    await api.openInBrowser(hostname);
  } catch (err) {
    fail(err);
  }
}

/**
 * What to say once diagnostics are saved: where, what the doctor found, and what the file is
 * for (support replays it with `domain-desk doctor --replay`).
 */
export function diagnosticsNotice(name, saved) {
  const count = (n, what) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const found = saved.errors || saved.warnings
    ? `the doctor found ${count(saved.errors, 'error')} and ${count(saved.warnings, 'warning')}`
    : 'the doctor found no problem';
  return {
    message: `Saved the diagnostics of ${name} to ${saved.path} (${found}). Send this file to support: it holds every DNS answer and certificate the doctor saw.`,
    tone: saved.errors ? 'warning' : 'ok',
  };
}

/** Save diagnostics…: runs the doctor with capture on and writes the file the user picks. */
export async function saveDiagnostics(hostname) {
  const domain = findDomain(hostname);
  const name = domain?.unicode_hostname ?? hostname;
  try {
    const saved = await api.saveDiagnostics(hostname, domain?.dns_record?.value ?? null);
    if (!saved) return null; // the save dialog was closed
    const notice = diagnosticsNotice(name, saved);
    toast(notice.message, notice.tone, { scope: 'project' });
    return saved;
  } catch (err) {
    toast(`The diagnostics of ${name} could not be saved. ${errorText(err)}`, 'error', { scope: 'project' });
    return null;
  }
}

/**
 * The pre-flight warnings found for `hostname` before it was added, kept for its row until a
 * later look (the details' look at its DNS at each platform check, or the next pre-flight) no
 * longer finds them. Kept in the shape of a Diagnose (`{findings, preflight: true}`), so the
 * row's "Issuing — will fail" reads a forbidding CAA found here as it reads Diagnose's.
 */
export function keepPreflight(hostname, warnings, liveElsewhere = []) {
  store.set((s) => {
    const preflight = { ...(s.preflight ?? {}) };
    const earlier = preflight[hostname];
    const kept = { findings: warnings, liveElsewhere: liveElsewhere ?? [], preflight: true };
    if (!warnings.length) delete preflight[hostname];
    // The same warnings again keep their object: the rows drawn from it are not made anew.
    else if (!earlier || JSON.stringify([earlier.findings, earlier.liveElsewhere]) !== JSON.stringify([kept.findings, kept.liveElsewhere])) preflight[hostname] = kept;
    return { preflight };
  });
}

/**
 * Where `hostname` is served today by another host (`addresses`, from a pre-flight look), for
 * its two steps; forgotten when a later look finds it served elsewhere no more.
 */
export function keepLiveElsewhere(hostname, addresses) {
  store.set((s) => {
    const kept = { ...(s.liveElsewhere ?? {}) };
    const earlier = kept[hostname];
    if (addresses?.length) {
      if (earlier && JSON.stringify(earlier) === JSON.stringify(addresses)) return {};
      kept[hostname] = addresses;
    } else if (earlier) delete kept[hostname];
    else return {};
    return { liveElsewhere: kept };
  });
}

export function diagnose(hostname) {
  dialog('diagnose')?.open(hostname);
}

export function redirectDialog(hostname) {
  dialog('redirect')?.open(hostname);
}

/** Resolves true when the user confirms; false when they do not, or no dialog can ask. */
export function confirmDialog(options) {
  const asking = dialog('confirm');
  return asking ? asking.ask(options) : Promise.resolve(false);
}
