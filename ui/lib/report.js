// The DNS doctor's report for one hostname, as the Diagnose panel shows it. The report comes
// from the `diagnose` command (domain_desk_doctor::Report, one host); its Markdown comes with
// it, rendered by the doctor itself, so "Copy report" says exactly what the CLI says.
//
// A host report: {hostname, unicode_hostname, name: {apex, zone, relative_name, ...},
//   expected_record: {type, name, value, ttl}, views: [{source: {label, address, kind},
//   status, error, records: [{name, type, ttl, value}], cache_expires_in_seconds, agrees,
//   chain: {links: [{name, target, ttl}], end: {kind, name, addresses?, status?}}}],
//   caa: {steps, deciding_name, decision}, tls: {address, connected, error, certificate,
//   http_status, location}, provider: {provider: {name, apex_alias_note, ...},
//   matched_nameservers} or null, findings: [{code, severity, title, detail, evidence,
//   fix: {summary, changes, steps}, cached_until}]}

import { clockTime } from './format.js';

/** Problems that stop a certificate while the name's record may well be right. */
const CERTIFICATE_BLOCKERS = new Set(['caa_forbids_issuance', 'caa_lookup_failed', 'dnssec_failure', 'dnssec_bogus', 'proxied_by_cloudflare']);

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2, ok: 3 };
const SEVERITY_WORD = { error: 'Problem', warning: 'Warning', info: 'Note', ok: 'OK' };
const STATUS_WORD = {
  no_error: 'answered',
  nx_domain: 'name does not exist (NXDOMAIN)',
  serv_fail: 'server failure (SERVFAIL)',
  refused: 'refused',
  other_rcode: 'error',
  timeout: 'no answer in time',
  failed: 'unreachable',
};

export function severityWord(severity) {
  return SEVERITY_WORD[severity] ?? severity;
}

/** The one host of a single-hostname report. */
export function hostOf(diagnosis) {
  return diagnosis?.report?.hosts?.[0] ?? null;
}

/** Findings with problems first, stable within a severity. */
export function sortedFindings(host) {
  return (host?.findings ?? [])
    .map((f, i) => ({ f, i }))
    .sort((a, b) => (SEVERITY_ORDER[a.f.severity] ?? 9) - (SEVERITY_ORDER[b.f.severity] ?? 9) || a.i - b.i)
    .map(({ f }) => f);
}

/** "2 problems, 1 warning" or "No problems found". */
export function summary(host) {
  const count = (s) => (host?.findings ?? []).filter((f) => f.severity === s).length;
  const errors = count('error');
  const warnings = count('warning');
  const parts = [];
  if (errors) parts.push(`${errors} problem${errors === 1 ? '' : 's'}`);
  if (warnings) parts.push(`${warnings} warning${warnings === 1 ? '' : 's'}`);
  return parts.length ? parts.join(', ') : 'No problems found';
}

/**
 * An answer as the chain it is, in the doctor's words (AnswerChain::to_text): every name, each
 * CNAME's target after "→", and how it ends on the last name — "www.example.com →
 * cname.pages.exmaple.net: no such name", never "no such name" beside the name asked.
 */
export function chainText(chain) {
  const end = chain?.end;
  if (!end) return '';
  const names = [...(chain.links ?? []).map((link) => link.name), end.name].join(' → ');
  switch (end.kind) {
    case 'addresses': return `${names} → ${(end.addresses ?? []).join(', ')}`;
    case 'no_such_name': return `${names}: no such name`;
    case 'no_address': return `${names}: no address`;
    case 'out_of_zone': return `${names} (another zone’s to answer)`;
    case 'failed': return `${names}: ${STATUS_WORD[end.status] ?? 'error'}`;
    default: return names;
  }
}

/** Whether a chain ends without an answer: a missing name, no address, or a failure. */
export function chainFails(chain) {
  return ['no_such_name', 'no_address', 'failed'].includes(chain?.end?.kind);
}

/**
 * What a server answered: its chain ("www.example.com → edge.platform.test → 192.0.2.1"), or
 * for a report without chains "CNAME cname.platform.test (TTL 3600); A 192.0.2.1 (TTL 300)",
 * or why there is none.
 */
export function answerText(view) {
  if (view.error) return dnsErrorWords(view.error);
  if (view.chain?.end) return chainText(view.chain);
  if (view.status && view.status !== 'no_error') return STATUS_WORD[view.status] ?? view.status;
  if (!view.records?.length) return 'no records';
  return view.records.map((r) => `${r.type} ${r.value} (TTL ${r.ttl})`).join('; ');
}

/**
 * What a server answered to one question of a finding's evidence: "A 192.0.2.10", "no
 * records" (an answer with nothing of that type), or its error in words, never the status's
 * code name.
 */
export function evidenceText(evidence) {
  if (evidence.records?.length) return evidence.records.map((r) => `${r.type} ${r.value}`).join(', ');
  if (!evidence.status || evidence.status === 'no_error') return 'no records';
  return STATUS_WORD[evidence.status] ?? 'error';
}

/** "agrees", "differs from the authoritative answer", or "" when unknown. */
export function agreementText(view) {
  if (view.agrees === true) return 'agrees';
  if (view.agrees === false) return 'differs from the authoritative answer';
  return '';
}

/** Whether the servers disagree (a change is propagating, or a cache holds an old answer). */
export function resolversDisagree(host) {
  return (host?.views ?? []).some((v) => v.agrees === false);
}

/** "add CNAME shop → cname.platform.test" lines for a finding's fix. */
export function changeText(change) {
  const where = change.name === '@' ? `@ (${change.zone})` : `${change.name}.${change.zone}`;
  return `${change.action} ${change.type} at ${where}: ${change.value}${change.ttl ? ` (TTL ${change.ttl})` : ''}`;
}

const LOOPBACK = /^(127\.|\[::1\]|::1|localhost)/i;

/**
 * A DNS server named by its role, never by a loopback address and port: "the demo’s DNS
 * server", "Google 8.8.8.8", "ns1.example.com, the zone’s nameserver".
 */
export function serverName(source) {
  const label = String(source?.label ?? '');
  switch (source?.kind) {
    case 'authoritative':
      return `${label.replace(/\s*\(authoritative\)$/, '')}, the zone’s nameserver`;
    case 'system':
      return LOOPBACK.test(label) ? 'this computer’s resolver' : `this computer’s resolver (${label.replace(/:53$/, '')})`;
    case 'given':
      return LOOPBACK.test(label) ? 'the local DNS server you named' : label;
    default:
      return label;
  }
}

/** Where the edge is, for a person: the platform's edge on this computer, or its address. */
function edgeName(address) {
  return LOOPBACK.test(String(address ?? '')) ? 'the platform’s edge on this computer' : `the platform’s edge at ${String(address).replace(/:443$/, '')}`;
}

/**
 * A TLS failure in words a customer can act on, from the probe's technical message: what
 * happened, never the library's text.
 */
export function tlsFailureWords(error) {
  const e = String(error ?? '').toLowerCase();
  if (!e) return 'did not complete a secure connection';
  if (e.includes('timed out') || e.includes('within')) return 'did not answer in time';
  if (e.includes('refused')) return 'refused the connection (nothing listens there)';
  if (e.includes('eof') || e.includes('reset') || e.includes('closed')) return 'closed the connection during the secure handshake: it has no certificate for this name yet';
  if (e.includes('unrecognisedname') || e.includes('unrecognized name') || e.includes('handshakefailure') || e.includes('handshake failure')) return 'has no certificate for this name';
  if (e.includes('not a valid tls server name')) return 'cannot be asked for this name';
  return 'did not complete a secure connection';
}

/** A certificate's trust problem in words: expired, not yet valid, or not from a trusted CA. */
export function trustWords(trustError) {
  const e = String(trustError ?? '').toLowerCase();
  if (e.includes('expired')) return 'it has expired';
  if (e.includes('notvalidyet') || e.includes('not valid yet') || e.includes('not yet valid')) return 'it is not valid yet';
  if (e.includes('unknownissuer') || e.includes('unknown issuer') || e.includes('issuer')) return 'it is not signed by a certificate authority browsers trust';
  if (e.includes('parse')) return 'it could not be read';
  if (e.includes('name') || e.includes('notvalidforname')) return 'it is for another name';
  return 'browsers would not trust it';
}

/** The certificate served, in words: subject and issuer, or why there is none. */
export function certificateText(host) {
  const tls = host?.tls;
  if (!tls) {
    // The doctor probes TLS only when nothing it found stands in the way; what does (the
    // record, or a CAA record, DNSSEC) is the problem above, not always the DNS record.
    const problems = (host?.findings ?? []).filter((f) => f?.severity === 'error');
    const recordWrong = problems.some((f) => !CERTIFICATE_BLOCKERS.has(f.code));
    if (!problems.length) return { ok: false, text: 'Not probed.' };
    return {
      ok: false,
      text: recordWrong
        ? 'Not probed: the DNS record is not right yet, so no certificate can be served.'
        : 'Not probed: the problem above stops the certificate from being issued; fix it first.',
    };
  }
  if (!tls.connected) return { ok: false, text: `${capitalise(edgeName(tls.address))} ${tlsFailureWords(tls.error)}.` };
  const c = tls.certificate;
  if (!c) return { ok: false, text: `${capitalise(edgeName(tls.address))} ${tlsFailureWords(tls.error)}.` };
  const problems = [];
  if (!c.covers_hostname) problems.push('does not cover this name');
  if (!c.trusted) problems.push(`is not trusted: ${trustWords(c.trust_error)}`);
  return { ok: problems.length === 0, text: problems.length ? `The certificate served ${problems.join(', and ')}.` : 'A valid certificate is served for this name.' };
}

function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/** A DNS server's failure in words: no answer in time, unreachable, or what it answered. */
export function dnsErrorWords(error) {
  const e = String(error ?? '').toLowerCase();
  if (e.includes('timed out') || e.includes('timeout') || e.includes('no answer')) return 'no answer in time';
  if (e.includes('refused')) return 'refused the question';
  if (e.includes('unreachable') || e.includes('connect')) return 'unreachable';
  return 'could not be asked';
}

/** "DNS provider: Cloudflare (amy.ns.cloudflare.com)", or "" when the doctor does not know it. */
export function providerText(host) {
  const found = host?.provider;
  if (!found?.provider?.name) return '';
  const from = (found.matched_nameservers ?? []).join(', ');
  return `DNS provider: ${found.provider.name}${from ? ` (${from})` : ''}`;
}

/** The fix as steps at the zone's DNS provider (empty when the provider is unknown). */
export function fixSteps(fix) {
  return Array.isArray(fix?.steps) ? fix.steps.filter((step) => typeof step === 'string' && step) : [];
}

/**
 * Which clock the doctor judged time by (signatures, certificate dates, its own stamp), when
 * it was not this computer's: "times by the platform’s clock".
 */
export function clockWords(report) {
  const clock = report?.clock;
  if (!clock) return '';
  const source = typeof clock === 'string' ? clock : clock.source ?? clock.kind;
  return source && source !== 'wall' && source !== 'system' && source !== 'this_computer' ? 'times by the platform’s clock' : '';
}

/**
 * A finding's words with the time it counts down to in this computer's local time. The doctor
 * writes "until 12:45 UTC" (its reports are read in tickets across time zones); the window
 * says the same instant as the clock on the user's screen ("until 13:45"), taken from the
 * finding's exact `cached_until`, never re-parsed from the words.
 */
export function localTimes(text, finding, nowMs) {
  if (typeof text !== 'string' || !finding?.cached_until) return text;
  const at = Date.parse(finding.cached_until);
  if (Number.isNaN(at)) return text;
  const utc = new Date(at).toISOString().slice(11, 16);
  const local = clockTime(finding.cached_until, nowMs);
  return local ? text.split(`${utc} UTC`).join(local) : text;
}
