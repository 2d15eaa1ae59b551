// What the row menu and the detail panel do to a domain. Each action updates the store with
// the API's answer, so the table changes in place, and reports failures in words.

import { api } from './api.js';
import { store, refreshDomains, loadProjects, refreshProject } from './app-state.js';
import { upsertDomain, removeDomain } from './domain-list.js';
import { errorText } from './errors.js';
import { toast } from './toast.js';
import { redirectNotice, verificationFinding } from './domain-view.js';
import { dialog } from './dialogs.js';

function projectId() {
  return store.get().project?.id;
}

function fail(err) {
  toast(errorText(err), 'error');
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
    if (domain.status === 'pending_verification') {
      if (fromMenu || store.get().selected !== domain.hostname) {
        toast(`${domain.unicode_hostname} is not verified yet. ${verificationFinding(domain, store.get().now)}`, 'info');
      }
    } else toast(`${domain.unicode_hostname} verified; the certificate is being issued.`, 'ok');
    return domain;
  } catch (err) {
    fail(err);
    return null;
  }
}

/** Set up automatically (Domain Connect): the consent page opens in the browser; Verify after. */
export async function setUpAutomatically(hostname) {
  try {
    const result = await api.domainConnectSetUp(projectId(), hostname);
    if (result.domain) store.set((s) => ({ domains: upsertDomain(s.domains, result.domain) }));
    toast(result.message, result.outcome === 'applied' ? 'ok' : 'warning');
    return result;
  } catch (err) {
    // No browser opened: the caller offers Copy link and Try again in place.
    if (err?.kind === 'browser_not_opened') return { outcome: 'browser_not_opened', url: err.url ?? null };
    fail(err);
    return null;
  }
}

/**
 * What to say after a removal: when the name's record still points at the platform, which
 * record to delete, since a dangling CNAME lets whoever attaches the name next take it over.
 */
export function removedNotice(name, dangling) {
  if (!dangling) return { message: `Removed ${name}.`, tone: 'ok' };
  return {
    message: `Removed ${name}. Its ${dangling.type} record ${dangling.fqdn} → ${dangling.value} still points at the platform: delete it at your DNS provider, or whoever adds ${name} to their project next takes it over.`,
    tone: 'warning',
  };
}

export async function remove(hostname) {
  const domain = findDomain(hostname);
  const name = domain?.unicode_hostname ?? hostname;
  const ok = await confirmDialog({
    title: `Remove ${name}?`,
    body: 'Traffic to this name stops at once, and redirects to it will point to the project’s current address. You can add it again later, but it must be verified again.',
    confirm: 'Remove domain',
  });
  if (!ok) return false;
  try {
    const dangling = await api.removeDomain(projectId(), hostname);
    store.set((s) => ({ domains: removeDomain(s.domains, hostname), selected: s.selected === hostname ? null : s.selected }));
    const notice = removedNotice(name, dangling);
    toast(notice.message, notice.tone);
    refreshDomains().catch(() => {});
    refreshProject().catch(() => {});
    loadProjects().catch(() => {});
    return true;
  } catch (err) {
    fail(err);
    return false;
  }
}

export async function makePrimary(hostname) {
  try {
    await api.makePrimary(projectId(), hostname);
    await refreshDomains();
    refreshProject().catch(() => {});
    loadProjects().catch(() => {});
    toast(`${findDomain(hostname)?.unicode_hostname ?? hostname} is now the primary domain.`, 'ok');
  } catch (err) {
    fail(err);
  }
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
    return true;
  } catch (err) {
    toast(`The domains could not be refreshed. ${errorText(err)}`, 'error');
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
    toast(notice.message, notice.tone);
    return saved;
  } catch (err) {
    toast(`The diagnostics of ${name} could not be saved. ${errorText(err)}`, 'error');
    return null;
  }
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
