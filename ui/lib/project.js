// Words about a project and its account: the plan's name, the last deploy, and why Add domain
// is unavailable (Free plan, no successful deploy, the plan's domain limit).

import { relativeTime } from './format.js';

const PLAN_NAMES = { free: 'Free', pro: 'Pro', business: 'Business', enterprise: 'Enterprise' };

export function planName(plan) {
  return PLAN_NAMES[plan] ?? plan ?? '';
}

export function deployText(project, nowMs) {
  const d = project.last_deploy;
  if (!d) return 'Never deployed';
  return `${d.status === 'succeeded' ? 'Deployed' : 'Deploy failed'} ${relativeTime(d.created_at, nowMs, { past: true })}`;
}

/** Why Add domain is unavailable for this project and account, or null when it is. */
export function addBlockedReason(session, project, domainCount) {
  const plan = session?.account?.plan;
  if (plan === 'free') return 'Custom domains need the Pro plan or above. Upgrade the account to add domains; the project stays at its default address until then.';
  if (!project?.last_deploy || project.last_deploy.status !== 'succeeded') {
    return project?.last_deploy
      ? 'The last deploy of this project failed. Fix it and deploy successfully; domains can be added after that.'
      : 'This project has never been deployed. Deploy it once; domains can be added after that.';
  }
  const max = session?.account?.limits?.max_domains_per_project;
  if (max != null && domainCount >= max) return `This project has ${domainCount} domains, the most the ${planName(plan)} plan allows. Remove one or upgrade the plan.`;
  return null;
}

/** "a, b, c and d". */
function andList(items) {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * The demo's first hint on its projects list: what to try first, and which zones Demo DNS
 * lets the user edit (`zones`, as the demo lists them; without them the hint names none).
 */
export function demoHint(zones) {
  const first = 'To start, open Pro site and add shop.example.com: its zone still holds an old A record, and the window shows what to remove and when the domain goes live.';
  const names = (zones ?? []).filter((z) => typeof z === 'string' && z);
  return names.length ? `${first} Demo DNS lets you edit the zones ${andList(names)}.` : first;
}
