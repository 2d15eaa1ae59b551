import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverName, hostOf, sortedFindings, summary, answerText, evidenceText, agreementText, resolversDisagree, changeText, certificateText, providerText, fixSteps } from '../lib/report.js';

// Shaped as domain_desk_doctor::Report serialises.
const host = {
  hostname: 'shop.example.com',
  unicode_hostname: 'shop.example.com',
  findings: [
    { code: 'name_kind', severity: 'info', title: 'A subdomain', detail: '', evidence: [], fix: null },
    { code: 'conflicting_record', severity: 'error', title: 'An A record blocks the CNAME', detail: 'A 192.0.2.10 at shop', evidence: [],
      fix: { summary: 'Remove the A record.', changes: [{ action: 'remove', zone: 'example.com', name: 'shop', type: 'A', value: '192.0.2.10', ttl: 3600 }] } },
    { code: 'propagation_pending', severity: 'warning', title: 'Resolvers disagree', detail: '', evidence: [], fix: null },
  ],
  views: [
    { source: { label: 'ns (authoritative)', address: '127.0.0.1:8853', kind: 'authoritative' }, status: 'no_error', error: null, records: [{ name: 'shop.example.com', type: 'A', ttl: 3600, value: '192.0.2.10' }], agrees: true },
    { source: { label: 'cache', address: '127.0.0.1:53', kind: 'given' }, status: 'nx_domain', error: null, records: [], agrees: false },
    { source: { label: 'other', address: '10.0.0.1:53', kind: 'given' }, status: 'timeout', error: 'timed out after 1.5 s', records: [], agrees: null },
  ],
  tls: null,
};

test('the one host of a report is found', () => {
  assert.equal(hostOf({ report: { hosts: [host] } }), host);
  assert.equal(hostOf({}), null);
});

test('problems come first and the summary counts them', () => {
  assert.deepEqual(sortedFindings(host).map((f) => f.severity), ['error', 'warning', 'info']);
  assert.equal(summary(host), '1 problem, 1 warning');
  assert.equal(summary({ findings: [] }), 'No problems found');
});

test('each server says what it answered, with TTLs, and disagreement is noticed', () => {
  assert.equal(answerText(host.views[0]), 'A 192.0.2.10 (TTL 3600)');
  assert.equal(answerText(host.views[1]), 'name does not exist (NXDOMAIN)');
  assert.equal(answerText(host.views[2]), 'no answer in time');
  assert.equal(agreementText(host.views[1]), 'differs from the authoritative answer');
  assert.equal(agreementText(host.views[2]), '');
  assert.equal(resolversDisagree(host), true);
  assert.equal(resolversDisagree({ views: [host.views[0]] }), false);
});

test('fixes read as the DNS provider asks for them', () => {
  assert.equal(changeText(host.findings[1].fix.changes[0]), 'remove A at shop.example.com: 192.0.2.10 (TTL 3600)');
  assert.equal(changeText({ action: 'add', zone: 'example.net', name: '@', type: 'ALIAS', value: 't.test', ttl: null }), 'add ALIAS at @ (example.net): t.test');
});

test('the certificate served, or why there is none', () => {
  assert.equal(certificateText(host).text, 'Not probed: the DNS record is not right yet, so no certificate can be served.');
  // a CAA record that refuses the CA is not the record being wrong
  const refused = { findings: [{ code: 'caa_forbids_issuance', severity: 'error' }, { code: 'record_correct', severity: 'ok' }] };
  assert.equal(certificateText(refused).text, 'Not probed: the problem above stops the certificate from being issued; fix it first.');
  assert.equal(certificateText({ findings: [] }).text, 'Not probed.');
  // the edge on loopback is named by its role, and the failure in words, never the library's
  const eof = certificateText({ tls: { address: '127.0.0.1:41173', connected: false, error: 'TLS handshake failed: tls handshake eof' } }).text;
  assert.equal(eof, 'The platform’s edge on this computer closed the connection during the secure handshake: it has no certificate for this name yet.');
  assert.doesNotMatch(eof, /127\.0\.0\.1|eof|handshake failed/);
  assert.equal(certificateText({ tls: { address: '203.0.113.7:443', connected: false, error: 'cannot connect: Connection refused (os error 111)' } }).text, 'The platform’s edge at 203.0.113.7 refused the connection (nothing listens there).');
  const good = { tls: { connected: true, certificate: { subject: 'CN=shop', issuer: 'Local CA', names: ['shop.example.com'], covers_hostname: true, trusted: true } } };
  assert.equal(certificateText(good).ok, true);
  const bad = { tls: { connected: true, certificate: { covers_hostname: false, trusted: false, trust_error: 'unknown issuer' } } };
  assert.equal(certificateText(bad).text, 'The certificate served does not cover this name, and is not trusted: it is not signed by a certificate authority browsers trust.');
  const expired = { tls: { connected: true, certificate: { covers_hostname: true, trusted: false, trust_error: 'invalid peer certificate: Expired' } } };
  assert.equal(certificateText(expired).text, 'The certificate served is not trusted: it has expired.');
});

test('servers are named by their role, never by a loopback address and port', () => {
  assert.equal(serverName({ kind: 'given', label: 'the demo’s DNS server', address: '127.0.0.1:41173' }), 'the demo’s DNS server');
  assert.equal(serverName({ kind: 'given', label: '127.0.0.1:41173', address: '127.0.0.1:41173' }), 'the local DNS server you named');
  assert.equal(serverName({ kind: 'public', label: 'Google 8.8.8.8', address: '8.8.8.8:53' }), 'Google 8.8.8.8');
  assert.equal(serverName({ kind: 'authoritative', label: 'ns1.example.com (authoritative)', address: '192.0.2.53:53' }), 'ns1.example.com, the zone’s nameserver');
  assert.equal(serverName({ kind: 'system', label: '127.0.0.53:53', address: '127.0.0.53:53' }), 'this computer’s resolver');
});

test('the DNS provider and the fix in its words, when the doctor knows them', () => {
  const atCloudflare = {
    provider: { provider: { id: 'cloudflare', name: 'Cloudflare' }, matched_nameservers: ['amy.ns.cloudflare.com', 'bob.ns.cloudflare.com'] },
  };
  assert.equal(providerText(atCloudflare), 'DNS provider: Cloudflare (amy.ns.cloudflare.com, bob.ns.cloudflare.com)');
  assert.equal(providerText(host), '');
  assert.equal(providerText({ provider: null }), '');
  const fix = { summary: 'Turn the proxy off.', changes: [], steps: ['At Cloudflare, set Proxy status to DNS only.', '', 7] };
  assert.deepEqual(fixSteps(fix), ['At Cloudflare, set Proxy status to DNS only.']);
  assert.deepEqual(fixSteps(host.findings[1].fix), []);
  assert.deepEqual(fixSteps(null), []);
});

test("a finding's evidence says what was answered in words, never a status's code name", () => {
  assert.equal(evidenceText({ status: 'no_error', records: [{ type: 'A', value: '192.0.2.10' }] }), 'A 192.0.2.10');
  assert.equal(evidenceText({ status: 'no_error', records: [] }), 'no records');
  assert.equal(evidenceText({ status: 'nx_domain', records: [] }), 'name does not exist (NXDOMAIN)');
  assert.equal(evidenceText({ status: 'timeout', records: [] }), 'no answer in time');
  assert.equal(evidenceText({ status: 'something_new', records: [] }), 'error');
});

test('a cached answer counts down to a time in the local clock, from the finding\'s exact cached_until', async () => {
  const { localTimes } = await import('../lib/report.js');
  const { configureTimes } = await import('../lib/format.js');
  configureTimes({ locale: 'en-GB', timeZone: 'Europe/Paris' });
  const finding = {
    code: 'negative_cached',
    title: 'the system resolver still answers "no such name" for fresh.example.com from its cache, until 12:45 UTC (in 5 minutes)',
    cached_until: '2026-11-21T12:45:00Z',
  };
  const now = Date.parse('2026-11-21T12:40:00Z');
  assert.equal(
    localTimes(finding.title, finding, now),
    'the system resolver still answers "no such name" for fresh.example.com from its cache, until 13:45 (in 5 minutes)',
  );
  // another UTC time in the words is not this finding's instant, and stays as written
  assert.equal(localTimes('signed at 09:00 UTC', finding, now), 'signed at 09:00 UTC');
  // without cached_until the words are the doctor's
  assert.equal(localTimes('until 12:45 UTC', { code: 'x' }, now), 'until 12:45 UTC');
  configureTimes({ locale: 'en-GB', timeZone: 'UTC' });
});
