// Move to another project: the target chosen from the account's projects, a confirmation
// that says nothing stops being served, and the platform's move (status, certificate and
// validation kept; the edge serves the target project's site under the name from the same
// instant).
import { api } from './api.js';
import { store, refreshDomains, loadProjects, refreshProject } from './app-state.js';
import { removeDomain } from './domain-list.js';
import { dialog } from './dialogs.js';
import { toast } from './toast.js';

/** The projects a domain of `currentId` can move to: the account's others, by name. */
export function moveTargets(projects, currentId) {
  return (projects ?? []).filter((p) => p.id !== currentId).sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * What the dialog says about moving `domain` from `from` to `to` (projects): what keeps
 * working, and what changes (a primary's role, redirects that pointed to it).
 */
export function moveSummary(domain, from, to, domains = []) {
  const name = domain.unicode_hostname || domain.hostname;
  const lines = [];
  if (domain.status === 'live') lines.push(`${name} keeps its certificate and is served from ${to.name} from the same moment: nothing stops being served.`);
  else lines.push(`${name} keeps its status, records and certificate; nothing stops being served.`);
  if (domain.role === 'primary') {
    lines.push(to.primary_domain
      ? `It joins ${to.name} as an alias (${to.primary_domain} stays its primary); ${from.name} is then served at its own address.`
      : `It becomes the primary domain of ${to.name}; ${from.name} is then served at its own address.`);
  } else if (domain.role === 'redirect') {
    lines.push(`In ${to.name} it serves the site as an alias instead of redirecting.`);
  }
  const pointing = domains.filter((d) => d.role === 'redirect' && d.redirect?.to === domain.hostname);
  if (pointing.length) lines.push(`${pointing.map((d) => d.unicode_hostname || d.hostname).join(', ')} ${pointing.length === 1 ? 'redirects' : 'redirect'} to ${from.name}’s current address instead.`);
  return lines.join(' ');
}

/**
 * A refusal in the words of the move (the platform's own message speaks of adding a domain),
 * or null for any other: the target has no deploy to serve the name, or no room for it.
 */
export function moveRefusal(err, to) {
  const code = err?.code ?? err?.kind;
  if (code === 'deploy_required') return `${to.name} has no successful deploy yet, so it has nothing to serve under the name. Deploy it once, then move the domain.`;
  if (code === 'domain_limit_reached') return `${to.name} has as many domains as its plan allows. Remove one there, or upgrade its plan, then move the domain.`;
  return null;
}

/** The notice once moved. */
export function movedNotice(domain, to) {
  return `Moved ${domain.unicode_hostname || domain.hostname} to ${to.name}; it is served from there.`;
}

export function moveDialog(hostname) {
  dialog('move')?.open(hostname);
}

/**
 * Moves `hostname` of the open project to `to` (a project). Resolves the moved domain; throws
 * the platform's refusal for the dialog to show.
 */
export async function moveDomain(hostname, to) {
  const from = store.get().project;
  const before = store.get().domains.find((d) => d.hostname === hostname);
  const moved = await api.moveDomain(from.id, hostname, to.id);
  store.set((s) => ({ domains: removeDomain(s.domains, hostname), selected: s.selected === hostname ? null : s.selected }));
  toast(movedNotice(before ?? moved, to), 'ok', { scope: 'project' });
  refreshDomains().catch(() => {});
  refreshProject().catch(() => {});
  loadProjects().catch(() => {});
  return moved;
}
