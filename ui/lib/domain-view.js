// What a domain from the API means to a person: its status in words with the reason and what
// to do next, its role, and the records to add or remove (desired next to found).
//
// The API keeps the domain's status and the certificate's status apart; the table shows one
// badge derived from both, and the reason line says why a domain is stuck.

import { dateTime, shortDate, relativeTime } from './format.js';

export const STATUS = Object.freeze({
  WAITING: 'waiting',
  ISSUING: 'issuing',
  CERT_FAILED: 'cert_failed',
  LIVE: 'live',
});

const LABELS = {
  [STATUS.WAITING]: 'Waiting for DNS',
  [STATUS.ISSUING]: 'Verified — issuing certificate',
  [STATUS.CERT_FAILED]: 'Certificate failed',
  [STATUS.LIVE]: 'Live',
};

/** One of STATUS, from the domain's and its certificate's status. */
export function statusKey(domain) {
  if (domain.status === 'live') return STATUS.LIVE;
  if (domain.status === 'verified') {
    return domain.certificate?.status === 'failed' ? STATUS.CERT_FAILED : STATUS.ISSUING;
  }
  return STATUS.WAITING;
}

function foundList(found) {
  return (found ?? []).map((r) => `${r.type} ${r.value}`).join(', ');
}

/** Why a domain did not verify, in words, with what to do. */
export function verificationReason(domain) {
  const error = domain.verification?.error;
  const record = domain.dns_record ?? {};
  const where = record.name === '@' ? 'the apex (@)' : `“${record.name}”`;
  if (!error) {
    if (!domain.verification?.checked_at) {
      return `Not checked yet. Create the ${record.type} record below at your DNS provider, then press Verify.`;
    }
    return 'The record looked right at the last check.';
  }
  switch (error.code) {
    case 'record_missing':
      return domain.apex
        ? `No ALIAS answer found at ${where}: the apex does not point to ${record.value} yet. Add an ALIAS (or ANAME) record, wait for it to propagate, then Re-verify.`
        : `No CNAME record found at ${where}. Add a CNAME to ${record.value}, wait for it to propagate, then Re-verify.`;
    case 'cname_mismatch':
      return `The CNAME at ${where} points to ${foundList(error.found) || 'another name'}, not to ${record.value}. Change its value to exactly ${record.value}, then Re-verify.`;
    case 'conflicting_record':
      return `A conflicting record at ${where} blocks the ${record.type}: ${foundList(error.found)}. Remove it at your DNS provider, then Re-verify.`;
    case 'dns_lookup_failed':
      return 'DNS lookups for this name failed (timeout or server failure). Check that the domain’s name servers answer, then Re-verify.';
    default:
      return error.message || 'Verification failed.';
  }
}

/** Why a certificate failed, in words, with what to do. */
export function certificateReason(domain, caIdentity = 'letsencrypt.org') {
  const error = domain.certificate?.error;
  if (!error) return 'No certificate was issued in 30 minutes. Re-verify to start a fresh attempt.';
  switch (error.code) {
    case 'caa_forbids_issuance':
      return `A CAA record forbids the certificate authority. Add a CAA record 0 issue "${caIdentity}" (or remove the CAA records) on the name or its parent, then Re-verify.`;
    case 'dns_changed':
      return `The name no longer points to ${domain.dns_record?.value ?? 'the platform'}. Restore the ${domain.dns_record?.type ?? 'DNS'} record, then Re-verify.`;
    case 'dns_lookup_failed':
      return 'The certificate authority could not look the name up (timeout or server failure). Check the domain’s name servers, then Re-verify.';
    default:
      return `${error.message} Re-verify to start a fresh attempt.`;
  }
}

/** Status badge text, tone (for colour and icon) and the reason line. */
export function statusView(domain, nowMs, options = {}) {
  const key = statusKey(domain);
  let reason;
  switch (key) {
    case STATUS.WAITING:
      reason = verificationReason(domain);
      break;
    case STATUS.ISSUING: {
      const since = domain.certificate?.started_at;
      reason = since
        ? `Certificate requested ${relativeTime(since, nowMs, { past: true })}; this usually takes a couple of minutes. Browsers may warn until it is issued.`
        : 'The certificate is being requested; browsers may warn until it is issued.';
      break;
    }
    case STATUS.CERT_FAILED:
      reason = certificateReason(domain, options.caIdentity);
      break;
    default:
      reason = domain.role === 'redirect' && domain.redirect
        ? `Serving over HTTPS; answers with ${domain.redirect.status} to ${domain.redirect.to}.`
        : 'Serving the project over HTTPS.';
  }
  const tone = { waiting: 'pending', issuing: 'progress', cert_failed: 'error', live: 'ok' }[key];
  const failed = key === STATUS.WAITING && Boolean(domain.verification?.error);
  return { key, label: LABELS[key], tone: failed ? 'error' : tone, reason };
}

/** "Primary", "Alias", "Redirect → www.example.com". */
export function roleLabel(domain) {
  if (domain.role === 'primary') return 'Primary';
  if (domain.role === 'redirect') return `Redirect → ${domain.redirect?.to ?? '?'}`;
  return 'Alias';
}

/**
 * The notice after a redirect was set or cleared. A redirect is served only by a live
 * domain, so one that still waits for DNS or a certificate says it will redirect once live.
 */
export function redirectNotice(domain, hostname, to) {
  const name = domain?.unicode_hostname || hostname;
  if (!to) return `${name} no longer redirects.`;
  if (domain?.status === 'live') return `${name} now redirects to ${to} (301).`;
  return `${name} will redirect to ${to} (301) once it is live.`;
}

/** The verb of the verify button: Verify first, Re-verify once it has been checked. */
export function verifyLabel(domain) {
  if (domain.status === 'live') return 'Re-verify';
  return domain.verification?.checked_at || domain.status === 'verified' ? 'Re-verify' : 'Verify';
}

/** A table row: everything the table shows, precomputed once per domain. */
export function domainRow(domain, nowMs, options = {}) {
  const status = statusView(domain, nowMs, options);
  const unicode = domain.unicode_hostname || domain.hostname;
  return {
    hostname: domain.hostname,
    unicode,
    role: roleLabel(domain),
    roleKey: domain.role,
    status,
    expires: shortDate(domain.certificate?.expires_at),
    expiresTitle: dateTime(domain.certificate?.expires_at),
    checked: relativeTime(domain.verification?.checked_at, nowMs, { past: true }),
    checkedTitle: dateTime(domain.verification?.checked_at),
    search: `${domain.hostname} ${unicode} ${status.label} ${roleLabel(domain)}`.toLowerCase(),
  };
}

/**
 * The records the customer's zone should end up with, next to what the verifier found, each
 * marked add, remove or keep.
 */
export function recordPlan(domain) {
  const want = domain.dns_record;
  const error = domain.verification?.error;
  const plan = [];
  const found = error?.found ?? [];
  const norm = (v) => String(v ?? '').toLowerCase().replace(/\.$/, '');
  let desiredFound = domain.status !== 'pending_verification';
  for (const record of found) {
    const type = String(record.type).toUpperCase();
    if (['A', 'AAAA'].includes(type) && !domain.apex) {
      plan.push({ action: 'remove', type, name: want.name, value: record.value, why: `blocks the ${want.type}` });
    } else if (type === 'CNAME' && norm(record.value) !== norm(want.value)) {
      plan.push({ action: 'remove', type, name: want.name, value: record.value, why: 'points elsewhere' });
    } else if (['A', 'AAAA'].includes(type) && domain.apex && error?.code === 'conflicting_record') {
      plan.push({ action: 'remove', type, name: want.name, value: record.value, why: 'not the platform’s address' });
    } else if (norm(record.value) === norm(want.value)) {
      desiredFound = true;
    }
  }
  plan.unshift({
    action: desiredFound ? 'keep' : 'add',
    type: want.type,
    name: want.name,
    value: want.value,
    ttl: want.ttl,
    why: desiredFound ? 'in place' : 'create this record',
  });
  return plan;
}

/** The DNS record to create, as the provider asks for it, and the spec's warnings. */
export function recordToCreate(domain) {
  const r = domain.dns_record;
  const warnings = [];
  if (domain.apex) {
    warnings.push('An apex (@) cannot hold a CNAME. Use your provider’s ALIAS or ANAME record (some call it CNAME flattening); if it has none, move the domain’s DNS to a provider that does, or use a www subdomain as primary.');
    warnings.push('Remove other A or AAAA records at @ (for example a registrar’s parking page): they compete with the platform’s address.');
  } else {
    warnings.push(`An A or AAAA record at “${r.name}” blocks the CNAME: remove it first. Providers refuse a CNAME next to other records at the same name.`);
  }
  warnings.push('DNS changes can take up to 48 hours to propagate; most resolve within minutes.');
  warnings.push('Until the certificate exists, browsers may warn that the connection is not private.');
  return {
    type: r.type,
    name: r.name,
    value: r.value,
    ttl: r.ttl,
    fqdnHint: r.name === '@' ? domain.hostname : `${domain.hostname}.`,
    warnings,
  };
}
