// Attaching a name that already serves a site elsewhere, without a gap: the certificate first,
// through the `_acme-challenge` record (step 1), then the routing record that moves traffic
// (step 2), each with its state as the platform reports it. A wildcard needs both records
// too: its certificate comes only through the delegation. Also the www name offered beside an
// apex (and the apex beside a www name).

import { recordToCreate } from './domain-view.js';

/** The `_acme-challenge` CNAME the platform validates through, or null when it names none. */
export function delegationRecord(domain) {
  const r = domain?.certificate?.validation?.dns_record;
  return r && r.name && r.value ? r : null;
}

export const isWildcard = (domain) => String(domain?.hostname ?? '').startsWith('*.');

/** A pending domain whose certificate is already issued: ready for the switch. */
export function certificateReady(domain) {
  return domain?.status === 'pending_verification' && domain.certificate?.status === 'issued';
}

/**
 * Whether the two steps apply to `domain`: a wildcard (always two records), a name the
 * pre-flight found served by another host (`liveElsewhere`: its addresses), or a pending
 * name whose certificate is being issued or is issued already (the platform went the
 * delegation's way).
 */
export function switchApplies(domain, liveElsewhere = null) {
  if (!domain || !delegationRecord(domain)) return false;
  if (isWildcard(domain)) return domain.status !== 'live';
  if (domain.status !== 'pending_verification') return false;
  if (liveElsewhere?.length) return true;
  return ['issuing', 'issued'].includes(domain.certificate?.status);
}

/**
 * The two steps and where each stands: `[{key, title, state, text}]`, `state` one of `todo`,
 * `working`, `done`, `failed`. Step 2 waits (`todo`, `text` says so) until step 1 is done,
 * except for a wildcard, whose routing record can go in at any time (no site to keep up).
 */
export function switchSteps(domain, { liveElsewhere = null } = {}) {
  const cert = domain.certificate ?? {};
  const live = domain.status === 'live';
  const wildcard = isWildcard(domain);
  const d = delegationRecord(domain);
  let first;
  if (cert.status === 'issued' || live) first = { state: 'done', text: 'Certificate ready: the platform holds it for this name.' };
  else if (cert.status === 'issuing') first = { state: 'working', text: `Issuing the certificate through “${d.name}”; ${wildcard ? 'this' : 'the site stays on its host meanwhile, and this'} usually takes a couple of minutes.` };
  else if (cert.status === 'failed' || cert.error?.code === 'delegation_missing') first = { state: 'failed', text: cert.error?.message || 'The certificate could not be issued through this record.' };
  else first = { state: 'todo', text: `Create this CNAME, then press Verify: the certificate is issued through it${wildcard ? '' : ' while the site stays where it is'}.` };
  const where = domain.dns_record?.name === '@' ? 'at the apex (@)' : `at “${domain.dns_record?.name}”`;
  const old = liveElsewhere?.length ? ` (${liveElsewhere.join(', ')})` : '';
  let second;
  if (live) second = { state: 'done', text: 'Live: visitors reach the platform, over HTTPS.' };
  else if (wildcard) second = { state: 'todo', text: `Create this ${domain.dns_record?.type} ${where}; the domain is live at the next check once both records are in place.` };
  else if (first.state === 'done') second = { state: 'todo', text: `Switch when you are ready: replace the record ${where}${old} with this ${domain.dns_record?.type}. The domain is live at the next check, with its certificate: visitors meet no warning.` };
  else second = { state: 'waiting', text: `After step 1: replace the record ${where}${old} with this ${domain.dns_record?.type}. Until then visitors keep reaching the site where it is.` };
  return [
    { key: 'delegation', title: wildcard ? 'The certificate’s record' : 'Step 1 — the certificate first', ...first },
    { key: 'routing', title: wildcard ? 'The routing record' : 'Step 2 — switch your DNS', ...second },
  ];
}

/** A step's state in a word, for its badge. */
export function stepStateLabel(state) {
  return { todo: 'To do', waiting: 'After step 1', working: 'In progress', done: 'Done', failed: 'Failed' }[state] ?? state;
}

/**
 * The name offered beside the one being added: the www name beside an apex, redirecting to
 * it, or the apex beside a www name, redirecting to the www. `info` is `hostname_check`'s
 * answer; null for any other name (a wildcard, `shop.example.com`) or when the project has
 * the other name already.
 */
export function companionOf(info, domains = []) {
  if (!info || info.wildcard) return null;
  let hostname;
  let unicode;
  if (info.apex) {
    hostname = `www.${info.ascii}`;
    unicode = `www.${info.unicode}`;
  } else if (info.relative_name === 'www') {
    hostname = info.registrable_domain;
    unicode = String(info.unicode).replace(/^www\./, '');
  } else {
    return null;
  }
  if (domains.some((d) => d.hostname === hostname)) return null;
  return { hostname, unicode, redirectTo: info.ascii, label: `Also add ${unicode}, redirecting to ${info.unicode}` };
}

/** The `_acme-challenge` CNAME as a record card shows it (`recordCard`'s `record`). */
export function delegationCardRecord(domain) {
  const d = delegationRecord(domain);
  return {
    type: d.type,
    name: d.name,
    value: d.value,
    ttl: null,
    fqdn: d.fqdn,
    warnings: [isWildcard(domain)
      ? 'Keep this record while the wildcard is attached: the platform renews its certificate through it.'
      : 'Keep this record after the switch: the platform renews the certificate through it.'],
  };
}

/**
 * The routing record as the second step shows it: the warnings about creating it, without
 * the one that browsers may warn (its certificate comes first) and with the record it
 * replaces said as a replacement, not a removal to make now.
 */
export function routingCardRecord(domain, { liveElsewhere = null } = {}) {
  const r = recordToCreate(domain);
  const where = r.name === '@' ? 'at the apex (@)' : `at “${r.name}”`;
  const old = liveElsewhere?.length ? ` (${liveElsewhere.join(', ')})` : '';
  const warnings = r.warnings.filter((w) => !/browsers may warn/i.test(w) && !/blocks the CNAME: remove it first/.test(w) && !/Remove other A or AAAA records/.test(w));
  if (!isWildcard(domain)) warnings.unshift(`The switch replaces the record ${where} that serves the site today${old}: ${domain.apex ? 'the ALIAS takes the place of its A and AAAA records' : 'an A or AAAA record there blocks the CNAME, so replace it then, not before'}.`);
  return { ...r, warnings };
}
