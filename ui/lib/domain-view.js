// What a domain from the API means to a person: its status in words with the reason and what
// to do next, its role, and the records to add or remove (desired next to found).
//
// The API keeps the domain's status and the certificate's status apart; the table shows one
// badge derived from both, and the reason line says why a domain is stuck.

import { dateTime, shortDate, relativeTime, clockTime, duration } from './format.js';
import { toUnicode } from './hostname.js';

export const STATUS = Object.freeze({
  WAITING: 'waiting',
  ISSUING: 'issuing',
  CERT_FAILED: 'cert_failed',
  LIVE: 'live',
  // Still pending, its certificate already issued through the `_acme-challenge` record: the
  // switch of the routing record can come when the user is ready.
  CERT_READY: 'cert_ready',
});

const LABELS = {
  [STATUS.WAITING]: 'Waiting for DNS',
  [STATUS.ISSUING]: 'Verified — issuing certificate',
  [STATUS.CERT_FAILED]: 'Certificate failed',
  [STATUS.LIVE]: 'Live',
  [STATUS.CERT_READY]: 'Certificate ready',
};

/** The badge of a certificate being issued that the app already knows the CA will refuse. */
export const ISSUING_WILL_FAIL = 'Issuing — will fail';

/** Findings of the doctor that mean the CA will refuse to issue (or cannot validate) the name. */
const REFUSING = new Set(['caa_forbids_issuance', 'dnssec_bogus', 'dnssec_failure', 'proxied_by_cloudflare']);

/**
 * The store's Diagnose results with those of `report` (a doctor report: `{generated_at,
 * hosts: [{hostname, findings}]}`) in place of older ones: `{hostname: {at, findings}}`.
 */
export function diagnosesWith(diagnoses, report) {
  const at = Date.parse(report?.generated_at ?? '');
  const next = { ...(diagnoses ?? {}) };
  for (const host of report?.hosts ?? []) {
    if (!host?.hostname || !Array.isArray(host.findings)) continue;
    const earlier = next[host.hostname];
    if (earlier && !Number.isNaN(at) && earlier.at > at) continue;
    next[host.hostname] = { at: Number.isNaN(at) ? null : at, findings: host.findings };
  }
  return next;
}

/**
 * What the app already knows will make the CA refuse the name's certificate, or null: an
 * error finding of the domain's last Diagnose (CAA forbids the CA, DNSSEC fails, a CDN proxy
 * answers for the name), else the renewal watch's look when it found the renewal will fail.
 * `{title, fix}`: the finding's title and its fix, in the doctor's words.
 */
export function caRefusal({ diagnosis = null, readiness = null } = {}) {
  const finding = diagnosis?.findings?.find((f) => f?.severity === 'error' && REFUSING.has(f.code));
  if (finding) return { title: String(finding.title ?? ''), fix: String(finding.fix?.summary ?? '') };
  if (readiness?.state === 'at_risk' && readiness.cause) {
    const cause = String(readiness.cause);
    return { title: cause.charAt(0).toUpperCase() + cause.slice(1), fix: String(readiness.finding?.fix?.summary ?? '') };
  }
  return null;
}

/** One of STATUS, from the domain's and its certificate's status. */
export function statusKey(domain) {
  if (domain.status === 'live') return STATUS.LIVE;
  if (domain.status === 'verified') {
    return domain.certificate?.status === 'failed' ? STATUS.CERT_FAILED : STATUS.ISSUING;
  }
  if (domain.certificate?.status === 'issued') return STATUS.CERT_READY;
  return STATUS.WAITING;
}

function foundList(found) {
  return (found ?? []).map((r) => `${r.type} ${r.value}`).join(', ');
}

const norm = (v) => String(v ?? '').toLowerCase().replace(/\.$/, '');

/**
 * What the platform's last check found, as it said it, with the time of that check: "The
 * platform's check at 12:41 found A 192.0.2.10 at “shop”, which blocks the CNAME." This is
 * what the table shows; it is never an instruction, so it cannot repeat one the user has
 * already carried out.
 */
export function verificationFinding(domain, nowMs) {
  const error = domain.verification?.error;
  const record = domain.dns_record ?? {};
  const where = record.name === '@' ? 'the apex (@)' : `“${record.name}”`;
  const checkedAt = domain.verification?.checked_at;
  const check = checkedAt ? `The platform’s check at ${clockTime(checkedAt, nowMs)}` : 'The platform’s check';
  if (!error) {
    if (!checkedAt) return `Not checked yet. Create the ${record.type} record below at your DNS provider; the domain is then checked by itself, or press Verify.`;
    return `${check} found the record right.`;
  }
  switch (error.code) {
    case 'record_missing':
      return domain.apex
        ? `${check} found no ALIAS answer at ${where}: the apex does not point to ${record.value}.`
        : `${check} found no CNAME at ${where}.`;
    case 'cname_mismatch': {
      const targets = (error.found ?? []).filter((r) => String(r.type).toUpperCase() === 'CNAME').map((r) => norm(r.value));
      return `${check} found the CNAME at ${where} pointing to ${targets.join(', ') || 'another name'}, not to ${record.value}.`;
    }
    case 'conflicting_record':
      return `${check} found ${foundList(conflicting(domain)) || 'another record'} at ${where}, which blocks the ${record.type}.`;
    case 'dns_lookup_failed':
      return `${check} could not look the name up (timeout or server failure).`;
    default:
      return `${check} failed: ${error.message || 'verification failed'}.`;
  }
}

/** The records the platform found that are not the one it wants (what blocks it). */
function conflicting(domain) {
  const want = domain.dns_record ?? {};
  return (domain.verification?.error?.found ?? []).filter((r) => !(String(r.type).toUpperCase() === String(want.type).toUpperCase() && norm(r.value) === norm(want.value)));
}

/**
 * The records at the name as Domain Desk's own look (the doctor asking the zone's servers)
 * found them: `{at, records: [{type, value, ttl}]}`, or null when there is no look yet.
 * From a doctor report: the authoritative answers, or the servers the caller named (the
 * demo's DNS server).
 */
export function dnsNowFromReport(report, hostname, atMs) {
  const host = report?.hosts?.find((h) => h.hostname === hostname);
  if (!host) return null;
  const provider = host.provider?.provider?.name ?? null;
  const views = host.views.filter((v) => ['authoritative', 'given'].includes(v.source.kind) && v.status !== 'error' && !v.error);
  if (views.length === 0) return provider ? { at: atMs, records: null, provider } : null;
  const records = [];
  for (const view of views) {
    for (const r of view.records) {
      if (norm(r.name) !== norm(hostname)) continue;
      if (!records.some((x) => x.type === r.type && norm(x.value) === norm(r.value))) records.push({ type: r.type, value: r.value, ttl: r.ttl });
    }
  }
  return { at: atMs, records, provider };
}

/**
 * What to do next, knowing what the platform saw, what Domain Desk sees now, and when the
 * domain is checked again. When the platform's check found a record that is gone now (or
 * missed one that is there now), the platform's resolver held an old answer: that is said,
 * with how long it keeps one, instead of repeating an instruction the user carried out.
 */
export function verificationAdvice(domain, { nowMs, dnsNow = null, resolverDelaySeconds = null, nextCheckAt = null } = {}) {
  const error = domain.verification?.error;
  const record = domain.dns_record ?? {};
  const next = nextCheckAt != null
    // A check already due (the poll that makes it is under way) reads "now", never "ago".
    ? ` Checked again by itself ${relativeTime(new Date(Math.max(nextCheckAt, nowMs)).toISOString(), nowMs).replace('just now', 'now')}, or press Re-verify.`
    : ' Press Re-verify to check again.';
  if (!error) return '';
  const checkedAt = Date.parse(domain.verification?.checked_at ?? '');
  const lookIsNewer = dnsNow && !Number.isNaN(checkedAt) ? dnsNow.at >= checkedAt : Boolean(dnsNow);
  const lag = (what) => {
    if (resolverDelaySeconds == null) return `${what} The platform’s resolver still held the old answer at its check and keeps it until its TTL runs out.`;
    const until = Number.isNaN(checkedAt) ? null : checkedAt + resolverDelaySeconds * 1000;
    const left = until == null ? 0 : (until - nowMs) / 1000;
    return left > 0
      ? `${what} The platform’s resolver still held the old answer at its check; it keeps one for up to ${duration(resolverDelaySeconds)} after a change (${duration(left)} left, until ${clockTime(new Date(until).toISOString(), nowMs)}).`
      : `${what} The platform’s resolver held the old answer at its check; by now it sees the change.`;
  };
  if (dnsNow && !dnsNow.records) dnsNow = null;
  const seen = (type, value) => dnsNow?.records.some((r) => r.type === type && (value == null || norm(r.value) === norm(value)));
  switch (error.code) {
    case 'conflicting_record': {
      const found = conflicting(domain);
      if (lookIsNewer && found.length > 0 && found.every((f) => !seen(String(f.type).toUpperCase(), f.value))) {
        return lag(`Domain Desk no longer finds ${found.length === 1 ? 'it' : 'them'} in the zone (looked at ${clockTime(new Date(dnsNow.at).toISOString(), nowMs)}).`) + next;
      }
      return `Remove ${found.length === 1 ? 'it' : 'them'} at your DNS provider.${next}`;
    }
    case 'record_missing': {
      const add = domain.apex
        ? `Add an ALIAS (or ANAME) record at @ to ${record.value}.`
        : `Add a CNAME named “${record.name}” to ${record.value}.`;
      const cached = negativeCacheText(domain, nowMs);
      if (cached) {
        // Said instead of "add the record": the record may well be there. Only when Domain
        // Desk's newer look finds no CNAME either does the instruction come first.
        const missingNow = lookIsNewer && !domain.apex && dnsNow && !seen('CNAME', record.value);
        return `${missingNow ? `${add} ` : ''}${cached}${next}`;
      }
      if (lookIsNewer && !domain.apex && seen('CNAME', record.value)) {
        return lag(`Domain Desk finds the CNAME to ${record.value} in the zone now.`) + next;
      }
      return `${add}${next}`;
    }
    case 'cname_mismatch':
      if (lookIsNewer && seen('CNAME', record.value)) {
        return lag(`Domain Desk finds the CNAME pointing to ${record.value} now.`) + next;
      }
      return `Change the CNAME’s value to exactly ${record.value}.${next}`;
    case 'dns_lookup_failed':
      return `Check that the domain’s name servers answer.${next}`;
    default:
      return next.trim();
  }
}

/**
 * What a `record_missing` says when the platform's resolver answered it from its negative
 * cache (the error's `cached_at` and `cached_until`), in local time: "The platform’s resolver
 * cached “no such record” for shop.example.com at 12:40 and asks again at 12:45; a record
 * created since counts from then." '' for any other error.
 */
export function negativeCacheText(domain, nowMs) {
  const error = domain.verification?.error;
  if (error?.code !== 'record_missing' || !error.cached_until) return '';
  const until = clockTime(error.cached_until, nowMs);
  if (!until) return '';
  const name = domain.unicode_hostname || domain.hostname;
  const at = error.cached_at ? ` at ${clockTime(error.cached_at, nowMs)}` : '';
  return `The platform’s resolver cached “no such record” for ${name}${at} and asks again at ${until}; a record created since counts from then.`;
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

/**
 * The desktop notification for a change a background check found (`notableChange`), or null:
 * its words are the row's, so the notification and the window never tell two stories (the
 * platform's own message for a failed certificate names the zone it found, not the fix).
 */
export function changeNotification(change, domain, projectName, caIdentity) {
  const name = domain.unicode_hostname || domain.hostname;
  if (change === 'live') return { title: 'Domain live', body: `${name} now serves ${projectName} over HTTPS.` };
  if (change === 'certificate_failed') return { title: 'Certificate failed', body: `${name}: ${certificateReason(domain, caIdentity)}` };
  return null;
}

/**
 * The notice after a Verify that the platform did not leave waiting, as the row and the
 * panel say it: `{message, tone}`. A live or verified domain stays so when a check fails (the
 * platform keeps serving it), and the notice says what the check found rather than "verified".
 */
export function verifiedNotice(domain, nowMs, options = {}) {
  const name = domain.unicode_hostname || domain.hostname;
  const key = statusKey(domain);
  if (domain.verification?.error) {
    const finding = verificationFinding(domain, nowMs);
    const found = finding.charAt(0).toLowerCase() + finding.slice(1);
    return { message: `${name} is still ${key === STATUS.LIVE ? 'live' : 'verified'}, but ${found}`, tone: 'warning' };
  }
  if (key === STATUS.LIVE) return { message: `${name} is live; the platform’s check found its record in place.`, tone: 'ok' };
  if (key === STATUS.CERT_FAILED) return { message: `${name} is verified, but its certificate failed. ${statusView(domain, nowMs, options).reason}`, tone: 'warning' };
  return { message: `${name} verified; the certificate is being issued.`, tone: 'ok' };
}

/** A pre-flight warning other than "served by another host today" (the switch's own steps). */
export const notTheSwitch = (warning) => warning?.code !== 'live_elsewhere';

/** The platform's findings that are the old site's records while a live name switches. */
const KEPT_UNTIL_THE_SWITCH = new Set(['conflicting_record', 'cname_mismatch', 'apex_address_mismatch', 'record_missing']);

/** Status badge text, tone (for colour and icon) and the reason line. */
export function statusView(domain, nowMs, options = {}) {
  const key = statusKey(domain);
  let reason;
  switch (key) {
    case STATUS.WAITING:
      reason = verificationFinding(domain, nowMs);
      // What the pre-flight found before the name was added stays in sight until a later
      // look no longer finds it: first, since it changes what the user should do.
      // (A site served elsewhere is no warning: the two steps of the switch say it.)
      if (options.warnings?.some(notTheSwitch)) reason = `${preflightLine(options.warnings.filter(notTheSwitch))} ${reason}`;
      break;
    case STATUS.ISSUING: {
      const since = domain.certificate?.started_at;
      // One truth: a certificate the app already knows will be refused is not said to be
      // coming in a couple of minutes.
      if (options.refusal) {
        const { title, fix } = options.refusal;
        return { key, label: ISSUING_WILL_FAIL, tone: 'error', reason: `Will fail: ${title.replace(/\.$/, '')}.${fix ? ` ${fix}` : ''}` };
      }
      reason = since
        // A time of day, not "3 min ago": the reason is a live region, and a relative time
        // would be announced again at every tick.
        ? `Certificate requested at ${clockTime(since, nowMs)}; this usually takes a couple of minutes. Browsers may warn until it is issued.`
        : 'The certificate is being requested; browsers may warn until it is issued.';
      break;
    }
    case STATUS.CERT_FAILED:
      reason = certificateReason(domain, options.caIdentity);
      break;
    case STATUS.CERT_READY:
      reason = `Switch your DNS when you are ready: point the ${domain.dns_record?.type ?? 'DNS'} record at the platform; the certificate is already issued, so visitors meet no warning.`;
      break;
    default:
      reason = domain.role === 'redirect' && domain.redirect
        ? `Serving over HTTPS; answers with ${domain.redirect.status} to ${toUnicode(domain.redirect.to)}.`
        : 'Serving the project over HTTPS.';
  }
  const tone = { waiting: 'pending', issuing: 'progress', cert_failed: 'error', live: 'ok', cert_ready: 'progress' }[key];
  // A certificate issued through the `_acme-challenge` record while the old host still serves
  // the name: what the routing record's check found is no failure yet.
  if (key === STATUS.WAITING && domain.certificate?.status === 'issuing') {
    return { key, label: 'Issuing certificate', tone: 'progress', reason: `The certificate is being issued through the _acme-challenge record while the site stays where it is; the switch of the ${domain.dns_record?.type ?? 'DNS'} record can wait until it is ready.` };
  }
  // A name the pre-flight found served by another host today: the old record the platform's
  // check found may be the site the user keeps up until the certificate is ready (DNS alone
  // cannot tell it from a leftover), so what the check found is said as it is, not in red.
  const found = domain.verification?.error?.code;
  const switching = key === STATUS.WAITING && options.liveElsewhere?.length > 0 && KEPT_UNTIL_THE_SWITCH.has(found);
  const failed = key === STATUS.WAITING && Boolean(domain.verification?.error) && !switching;
  return { key, label: LABELS[key], tone: failed ? 'error' : tone, reason };
}

/**
 * The pre-flight's warnings in one line for the row: "Warning: CAA at example.org allows only
 * other-ca.example (and 1 more)."
 */
export function preflightLine(warnings) {
  const first = String(warnings?.[0]?.title ?? '').replace(/\.$/, '');
  if (!first) return '';
  const more = warnings.length > 1 ? ` (and ${warnings.length - 1} more)` : '';
  return `Warning: ${first}${more}.`;
}

/** "Primary", "Alias", "Redirect → www.example.com" (the target as people read it: "bücher.example", not its A-labels). */
export function roleLabel(domain) {
  if (domain.role === 'primary') return 'Primary';
  if (domain.role === 'redirect') return `Redirect → ${domain.redirect?.to ? toUnicode(domain.redirect.to) : '?'}`;
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

/** Why Redirect is not offered on the primary domain (the row's menu and the details panel): the platform refuses it. */
export const PRIMARY_CANNOT_REDIRECT = 'The primary domain cannot redirect: make another domain primary first';

/** The verb of the verify button: Verify first, Re-verify once it has been checked. */
export function verifyLabel(domain) {
  if (domain.status === 'live') return 'Re-verify';
  return domain.verification?.checked_at || domain.status === 'verified' ? 'Re-verify' : 'Verify';
}

/** A table row: everything the table shows of a domain, as of `nowMs`. */
export function domainRow(domain, nowMs, options = {}) {
  const keys = rowKeys(domain);
  const role = roleLabel(domain);
  return {
    ...keys,
    role,
    // The Role column is narrow: a redirect shows where it goes ("→ bücher.example.com", the
    // arrow held to the name so that the name starts on the first line), which "Redirect → …"
    // cut to two lines did not; its title keeps the whole label.
    roleText: domain.role === 'redirect' && domain.redirect?.to ? `→\u00a0${toUnicode(domain.redirect.to)}` : role,
    status: statusView(domain, nowMs, options),
    expires: shortDate(domain.certificate?.expires_at),
    expiresTitle: dateTime(domain.certificate?.expires_at),
    checked: relativeTime(domain.verification?.checked_at, nowMs, { past: true }),
    checkedTitle: dateTime(domain.verification?.checked_at),
  };
}

/**
 * What the table sorts and filters a domain by, none of it read from the clock: its names,
 * role, status and the text a filter searches (names, status and role in lower case). A
 * row (`domainRow`) holds the same keys beside its texts.
 */
export function rowKeys(domain) {
  const unicode = domain.unicode_hostname || domain.hostname;
  const key = statusKey(domain);
  return {
    hostname: domain.hostname,
    unicode,
    roleKey: domain.role,
    status: { key },
    search: `${domain.hostname} ${unicode} ${LABELS[key]} ${roleLabel(domain)}`.toLowerCase(),
  };
}

/**
 * The records the customer's zone should end up with, next to what the verifier found, each
 * marked add, remove or keep.
 */
export function recordPlan(domain, seen = null) {
  const want = domain.dns_record;
  const error = domain.verification?.error;
  const plan = [];
  // What Domain Desk's own look found at the name (`seen`, `[{type, value}]`) is newer than
  // the platform's last check while the domain waits for DNS: the plan says what is there now.
  const found = Array.isArray(seen) && domain.status === 'pending_verification' ? seen : error?.found ?? [];
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
    fqdn: domain.unicode_hostname || domain.hostname,
    warnings,
  };
}

/** "Expires in 8 days (4 Dec, 12:00)": an ownership challenge's deadline in local time. */
export function challengeExpiry(expiresAt, nowMs) {
  const t = Date.parse(expiresAt ?? '');
  if (Number.isNaN(t)) return '';
  if (t <= nowMs) return 'This record has expired: add the name again for a new one.';
  return `The record proves control until it expires ${relativeTime(expiresAt, nowMs)} (${clockTime(expiresAt, nowMs)}).`;
}
