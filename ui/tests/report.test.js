import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reportMarkdown, sortedFindings, summary, resolversDisagree, answerText } from '../lib/report.js';

const report = {
  hostname: 'shop.example.com',
  checked_at: '2026-11-21T12:00:00Z',
  findings: [
    { severity: 'ok', code: 'cname_ok', title: 'The CNAME points to the platform' },
    { severity: 'error', code: 'conflicting_a', title: 'An A record blocks the CNAME', detail: 'A 192.0.2.10 at shop', fix: 'Delete the A record at shop.' },
    { severity: 'warning', code: 'low_ttl', title: 'TTL | odd' },
  ],
  resolvers: [
    { resolver: 'authoritative', address: '127.0.0.1:8853', answers: [{ type: 'A', value: '192.0.2.10', ttl: 3600 }] },
    { resolver: 'cache', answers: [] },
    { resolver: 'other', error: 'SERVFAIL' },
  ],
  certificate: { subject: 'CN=shop.example.com', issuer: 'Local CA', names: ['shop.example.com'], not_after: '2027-02-19T00:00:00Z' },
};

test('problems come first and the summary counts them', () => {
  assert.deepEqual(sortedFindings(report).map((f) => f.severity), ['error', 'warning', 'ok']);
  assert.equal(summary(report), '1 problem, 1 warning');
  assert.equal(summary({ findings: [] }), 'No problems found');
});

test('resolver answers read with their TTLs and disagreement is noticed', () => {
  assert.equal(answerText(report.resolvers[0]), 'A 192.0.2.10 (TTL 3600)');
  assert.equal(answerText(report.resolvers[1]), 'no answer');
  assert.equal(answerText(report.resolvers[2]), 'SERVFAIL');
  assert.equal(resolversDisagree(report), true);
  assert.equal(resolversDisagree({ resolvers: [report.resolvers[0], report.resolvers[0]] }), false);
});

test('the Markdown report has the findings with fixes, a resolver table and the certificate', () => {
  const md = reportMarkdown(report);
  assert.match(md, /^# DNS report for shop\.example\.com/);
  assert.match(md, /- \*\*Problem: An A record blocks the CNAME\*\* — A 192\.0\.2\.10 at shop\n {2}- Fix: Delete the A record at shop\./);
  assert.match(md, /\| authoritative \(127\.0\.0\.1:8853\) \| A 192\.0\.2\.10 \(TTL 3600\) \|/);
  assert.match(reportMarkdown({ hostname: 'x', resolvers: [{ resolver: 'a|b', answers: [] }] }), /\| a\\\|b \| no answer \|/);
  assert.match(md, /- Issuer: Local CA/);
  assert.match(reportMarkdown({ hostname: 'x.example.com' }), /No certificate was served/);
});
