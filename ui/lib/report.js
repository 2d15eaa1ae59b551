// The DNS doctor's report as the Diagnose panel shows it, and as Markdown for "Copy report".
//
// The report arrives from the `diagnose` command:
//   {hostname, checked_at, findings: [{severity, code, title, detail, fix}],
//    resolvers: [{resolver, address, answers: [{type, value, ttl}], error}],
//    certificate: null | {subject, issuer, names, not_before, not_after, error}}

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2, ok: 3 };
const SEVERITY_WORD = { error: 'Problem', warning: 'Warning', info: 'Note', ok: 'OK' };

export function severityWord(severity) {
  return SEVERITY_WORD[severity] ?? severity;
}

/** Findings with problems first, stable within a severity. */
export function sortedFindings(report) {
  return (report.findings ?? [])
    .map((f, i) => ({ f, i }))
    .sort((a, b) => (SEVERITY_ORDER[a.f.severity] ?? 9) - (SEVERITY_ORDER[b.f.severity] ?? 9) || a.i - b.i)
    .map(({ f }) => f);
}

/** One line summary: "2 problems, 1 warning" or "No problems found". */
export function summary(report) {
  const count = (s) => (report.findings ?? []).filter((f) => f.severity === s).length;
  const errors = count('error');
  const warnings = count('warning');
  const parts = [];
  if (errors) parts.push(`${errors} problem${errors === 1 ? '' : 's'}`);
  if (warnings) parts.push(`${warnings} warning${warnings === 1 ? '' : 's'}`);
  return parts.length ? parts.join(', ') : 'No problems found';
}

/** "CNAME x.platform.test (TTL 3600)" lines for one resolver, or its error. */
export function answerText(row) {
  if (row.error) return row.error;
  if (!row.answers?.length) return 'no answer';
  return row.answers.map((a) => `${a.type} ${a.value}${a.ttl != null ? ` (TTL ${a.ttl})` : ''}`).join('; ');
}

/** Whether the resolvers disagree (a propagation in progress or a stale cache). */
export function resolversDisagree(report) {
  const seen = new Set((report.resolvers ?? []).map((r) => (r.error ? `!${r.error}` : (r.answers ?? []).map((a) => `${a.type} ${a.value}`).sort().join('|'))));
  return seen.size > 1;
}

function cell(text) {
  return String(text ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The report as Markdown, for pasting into a support ticket. */
export function reportMarkdown(report) {
  const lines = [`# DNS report for ${report.hostname}`, ''];
  if (report.checked_at) lines.push(`Checked at ${report.checked_at}. ${summary(report)}.`, '');
  lines.push('## Findings', '');
  const findings = sortedFindings(report);
  if (findings.length === 0) lines.push('- No findings.');
  for (const f of findings) {
    lines.push(`- **${severityWord(f.severity)}: ${f.title}**${f.detail ? ` — ${f.detail}` : ''}`);
    if (f.fix) lines.push(`  - Fix: ${f.fix}`);
  }
  lines.push('', '## Resolvers', '', '| Resolver | Answer |', '|---|---|');
  for (const r of report.resolvers ?? []) lines.push(`| ${cell(r.resolver)}${r.address ? ` (${cell(r.address)})` : ''} | ${cell(answerText(r))} |`);
  lines.push('', '## Certificate served', '');
  const c = report.certificate;
  if (!c) lines.push('No certificate was served.');
  else if (c.error) lines.push(`Could not get a certificate: ${c.error}`);
  else {
    lines.push(`- Subject: ${c.subject ?? ''}`, `- Issuer: ${c.issuer ?? ''}`);
    if (c.names?.length) lines.push(`- Names: ${c.names.join(', ')}`);
    if (c.not_after) lines.push(`- Valid until: ${c.not_after}`);
  }
  return `${lines.join('\n')}\n`;
}
