// The DNS doctor's report for one hostname, as the Diagnose panel shows it. The report comes
// from the `diagnose` command (domain_desk_doctor::Report, one host); its Markdown comes with
// it, rendered by the doctor itself, so "Copy report" says exactly what the CLI says.
//
// A host report: {hostname, unicode_hostname, name: {apex, zone, relative_name, ...},
//   expected_record: {type, name, value, ttl}, views: [{source: {label, address, kind},
//   status, error, records: [{name, type, ttl, value}], cache_expires_in_seconds, agrees}],
//   caa: {steps, deciding_name, decision}, tls: {address, connected, error, certificate,
//   http_status, location}, provider: {provider: {name, apex_alias_note, ...},
//   matched_nameservers} or null, findings: [{code, severity, title, detail, evidence,
//   fix: {summary, changes, steps}}]}

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

/** "CNAME cname.platform.test (TTL 3600); A 192.0.2.1 (TTL 300)", or why there is none. */
export function answerText(view) {
  if (view.error) return view.error;
  if (view.status && view.status !== 'no_error') return STATUS_WORD[view.status] ?? view.status;
  if (!view.records?.length) return 'no records';
  return view.records.map((r) => `${r.type} ${r.value} (TTL ${r.ttl})`).join('; ');
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

/** The certificate served, in words: subject and issuer, or why there is none. */
export function certificateText(host) {
  const tls = host?.tls;
  if (!tls) return { ok: false, text: 'Not probed: the DNS is not right yet, so no certificate can be served.' };
  if (!tls.connected) return { ok: false, text: tls.error ? `Could not connect to ${tls.address}: ${tls.error}` : `Could not connect to ${tls.address}.` };
  const c = tls.certificate;
  if (!c) return { ok: false, text: tls.error ?? 'The edge served no certificate.' };
  const problems = [];
  if (!c.covers_hostname) problems.push('does not cover this name');
  if (!c.trusted) problems.push(c.trust_error ? `not trusted: ${c.trust_error}` : 'not trusted');
  return { ok: problems.length === 0, text: problems.length ? `Certificate ${problems.join('; ')}.` : 'A valid certificate is served for this name.' };
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
