import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changeNotification, statusView, roleLabel, verifyLabel, recordPlan, recordToCreate, domainRow, verificationAdvice, dnsNowFromReport, verifiedNotice } from '../lib/domain-view.js';
import { configureTimes } from '../lib/format.js';
import { domain } from './fixtures.js';

configureTimes({ locale: 'en-GB', timeZone: 'UTC' });

const NOW = Date.parse('2026-11-21T12:00:00Z');

test('a new domain waits for DNS and says what to do', () => {
  const v = statusView(domain(), NOW);
  assert.equal(v.label, 'Waiting for DNS');
  assert.equal(v.tone, 'pending');
  assert.match(v.reason, /Create the CNAME record/);
  assert.equal(verifyLabel(domain()), 'Verify');
});

test('a conflicting A record is named with its value and the fix', () => {
  const d = domain({
    verification: {
      checked_at: '2026-11-21T11:59:00Z',
      error: { code: 'conflicting_record', message: 'x', found: [{ type: 'A', value: '192.0.2.10' }, { type: 'CNAME', value: 'cname.platform.test.' }] },
    },
  });
  const v = statusView(d, NOW);
  assert.equal(v.label, 'Waiting for DNS');
  assert.equal(v.tone, 'error');
  // what the platform saw and when, without the CNAME it wants among the culprits
  assert.equal(v.reason, 'The platform’s check at 11:59 found A 192.0.2.10 at “shop”, which blocks the CNAME.');
  assert.match(verificationAdvice(d, { nowMs: NOW }), /^Remove it at your DNS provider\./);
  assert.equal(verifyLabel(d), 'Re-verify');
  const plan = recordPlan(d);
  assert.deepEqual(plan.map((p) => [p.action, p.type, p.value]), [
    ['keep', 'CNAME', 'cname.platform.test'],
    ['remove', 'A', '192.0.2.10'],
  ]);
});

test('a wrong CNAME value is shown beside the expected one', () => {
  const d = domain({
    verification: { checked_at: '2026-11-21T11:59:00Z', error: { code: 'cname_mismatch', message: 'x', found: [{ type: 'CNAME', value: 'old-host.example.net' }] } },
  });
  assert.match(statusView(d, NOW).reason, /pointing to old-host\.example\.net, not to cname\.platform\.test/);
  assert.deepEqual(recordPlan(d).map((p) => p.action), ['add', 'remove']);
});

test('a missing record on an apex asks for ALIAS', () => {
  const d = domain({
    hostname: 'example.com', unicode_hostname: 'example.com', apex: true,
    dns_record: { type: 'ALIAS', name: '@', value: 'cname.platform.test', ttl: 3600 },
    verification: { checked_at: '2026-11-21T11:59:00Z', error: { code: 'record_missing', message: 'x', found: [] } },
  });
  assert.match(statusView(d, NOW).reason, /no ALIAS answer/);
  assert.match(statusView(d, NOW).reason, /apex \(@\)/);
  assert.match(verificationAdvice(d, { nowMs: NOW }), /ALIAS \(or ANAME\) record at @/);
});

test('verified domains are issuing, then failed with the CAA cause, then live', () => {
  const issuing = domain({ status: 'verified', certificate: { status: 'issuing', started_at: '2026-11-21T11:58:00Z', issued_at: null, expires_at: null, error: null } });
  const v = statusView(issuing, NOW);
  assert.equal(v.label, 'Verified — issuing certificate');
  assert.equal(v.tone, 'progress');
  assert.match(v.reason, /requested at 11:58/);

  const failed = domain({ status: 'verified', certificate: { status: 'failed', started_at: null, issued_at: null, expires_at: null, error: { code: 'caa_forbids_issuance', message: 'x' } } });
  const f = statusView(failed, NOW, { caIdentity: 'letsencrypt.org' });
  assert.equal(f.label, 'Certificate failed');
  assert.equal(f.tone, 'error');
  assert.match(f.reason, /0 issue "letsencrypt\.org"/);

  const live = domain({ status: 'live', certificate: { status: 'issued', started_at: null, issued_at: '2026-11-21T11:59:00Z', expires_at: '2027-02-19T11:59:00Z', error: null } });
  assert.equal(statusView(live, NOW).label, 'Live');
  assert.equal(domainRow(live, NOW).expires, '19 Feb 2027');
});

test('roles read as the dashboard shows them', () => {
  assert.equal(roleLabel(domain()), 'Primary');
  assert.equal(roleLabel(domain({ role: 'alias' })), 'Alias');
  assert.equal(roleLabel(domain({ role: 'redirect', redirect: { to: 'www.example.com', status: 301 } })), 'Redirect → www.example.com');
  // The platform names the target by its A-labels; the row reads as its owner wrote it.
  const toIdn = domain({ role: 'redirect', status: 'live', redirect: { to: 'xn--bcher-kva.example', status: 301 } });
  assert.equal(roleLabel(toIdn), 'Redirect → bücher.example');
  assert.match(statusView(toIdn, Date.now()).reason, /to bücher\.example\.$/);
  // the narrow Role column shows where a redirect goes; its title keeps the whole label
  const row = domainRow(toIdn, Date.now());
  assert.equal(row.roleText, '→\u00a0bücher.example');
  assert.equal(row.role, 'Redirect → bücher.example');
  assert.equal(domainRow(domain({ role: 'alias' }), Date.now()).roleText, 'Alias');
});

test('the record to create carries the spec warnings', () => {
  const r = recordToCreate(domain());
  assert.deepEqual([r.type, r.name, r.value, r.ttl], ['CNAME', 'shop', 'cname.platform.test', 3600]);
  const text = r.warnings.join(' ');
  assert.match(text, /A or AAAA record at “shop” blocks the CNAME/);
  assert.match(text, /48 hours/);
  assert.match(text, /browsers may warn/);
  const apex = recordToCreate(domain({ apex: true, hostname: 'example.co.uk', dns_record: { type: 'ALIAS', name: '@', value: 't', ttl: 3600 } }));
  assert.match(apex.warnings[0], /cannot hold a CNAME/);
});

test('rows show the Unicode name and are searchable by status words', () => {
  const row = domainRow(domain({ hostname: 'xn--bcher-kva.example.com', unicode_hostname: 'bücher.example.com' }), NOW);
  assert.equal(row.unicode, 'bücher.example.com');
  assert.ok(row.search.includes('waiting for dns'));
  assert.ok(row.search.includes('xn--bcher-kva'));
  assert.equal(row.checked, 'never');
});

const conflicting = () => domain({
  verification: {
    checked_at: '2026-11-21T11:59:30Z',
    error: { code: 'conflicting_record', message: 'x', found: [{ type: 'A', value: '192.0.2.10' }, { type: 'CNAME', value: 'cname.platform.test.' }] },
  },
});

test('a record the user already deleted is not asked to be removed again: the resolver lag is said, with the time left', () => {
  const d = conflicting();
  // Domain Desk's own look, after the platform's check, no longer finds the A record
  const dnsNow = { at: Date.parse('2026-11-21T11:59:50Z'), records: [{ type: 'CNAME', value: 'cname.platform.test', ttl: 3600 }] };
  const advice = verificationAdvice(d, { nowMs: NOW, dnsNow, resolverDelaySeconds: 60, nextCheckAt: NOW + 4 * 60_000 });
  assert.doesNotMatch(advice, /Remove/);
  assert.match(advice, /no longer finds it in the zone \(looked at 11:59\)/);
  assert.match(advice, /up to 1\u00a0min after a change \(30\u00a0s left, until 12:00\)/);
  assert.match(advice, /Checked again by itself in 4\u00a0min/);
  // once the lag has passed, the resolver sees the change
  assert.match(verificationAdvice(d, { nowMs: NOW + 60_000, dnsNow, resolverDelaySeconds: 60 }), /by now it sees the change/);
  // a real platform does not say how long: the TTL is named instead
  assert.match(verificationAdvice(d, { nowMs: NOW, dnsNow }), /until its TTL runs out/);
});

test('a record still in the zone is asked to be removed; a look older than the check proves nothing', () => {
  const d = conflicting();
  const still = { at: Date.parse('2026-11-21T11:59:50Z'), records: [{ type: 'A', value: '192.0.2.10', ttl: 300 }] };
  assert.match(verificationAdvice(d, { nowMs: NOW, dnsNow: still }), /^Remove it at your DNS provider\. Press Re-verify/);
  const older = { at: Date.parse('2026-11-21T11:58:00Z'), records: [] };
  assert.match(verificationAdvice(d, { nowMs: NOW, dnsNow: older }), /^Remove it/);
});

test('a CNAME the platform missed but the zone has now is explained as the lag too', () => {
  const d = domain({ verification: { checked_at: '2026-11-21T11:59:30Z', error: { code: 'record_missing', message: 'x', found: [] } } });
  const dnsNow = { at: Date.parse('2026-11-21T11:59:45Z'), records: [{ type: 'CNAME', value: 'cname.platform.test.', ttl: 3600 }] };
  assert.match(verificationAdvice(d, { nowMs: NOW, dnsNow, resolverDelaySeconds: 60 }), /finds the CNAME to cname\.platform\.test in the zone now/);
  assert.match(verificationAdvice(d, { nowMs: NOW }), /^Add a CNAME named “shop” to cname\.platform\.test\./);
});

test('the look at DNS now is read from the authoritative or named servers only', () => {
  const report = {
    hosts: [{
      hostname: 'shop.example.com',
      views: [
        { source: { kind: 'public' }, status: 'ok', records: [{ name: 'shop.example.com', type: 'A', value: '192.0.2.10', ttl: 60 }] },
        { source: { kind: 'authoritative' }, status: 'ok', records: [{ name: 'shop.example.com', type: 'CNAME', value: 'cname.platform.test', ttl: 3600 }, { name: 'cname.platform.test', type: 'A', value: '203.0.113.1', ttl: 60 }] },
      ],
    }],
  };
  assert.deepEqual(dnsNowFromReport(report, 'shop.example.com', 5), { at: 5, records: [{ type: 'CNAME', value: 'cname.platform.test', ttl: 3600 }], provider: null });
  report.hosts[0].provider = { provider: { name: 'Cloudflare' } };
  assert.equal(dnsNowFromReport(report, 'shop.example.com', 5).provider, 'Cloudflare');
  assert.equal(dnsNowFromReport(report, 'other.example.com', 5), null);
});

test('a check already due reads "now", never a time ago: the poll that makes it is under way', () => {
  const d = conflicting();
  assert.match(verificationAdvice(d, { nowMs: NOW, nextCheckAt: NOW - 20 * 60_000 }), /Checked again by itself now, or press Re-verify/);
  assert.match(verificationAdvice(d, { nowMs: NOW, nextCheckAt: NOW + 2 * 60_000 }), /Checked again by itself in 2\u00a0min/);
});

test('the notice after Verify says what the row says: live, issuing, a failed certificate, or a failed check on a domain that stays live', () => {
  const checked = { checked_at: '2026-11-21T11:59:30Z', error: null };
  const live = domain({ status: 'live', verification: checked });
  assert.deepEqual(verifiedNotice(live, NOW), { message: 'shop.example.com is live; the platform’s check found its record in place.', tone: 'ok' });
  const issuing = domain({ status: 'verified', verification: checked, certificate: { status: 'issuing' } });
  assert.equal(verifiedNotice(issuing, NOW).message, 'shop.example.com verified; the certificate is being issued.');
  const failed = domain({ status: 'verified', verification: checked, certificate: { status: 'failed', error: { code: 'caa_forbidden', message: 'x' } } });
  assert.equal(verifiedNotice(failed, NOW).tone, 'warning');
  assert.match(verifiedNotice(failed, NOW).message, /^shop\.example\.com is verified, but its certificate failed\. /);
  const broken = domain({ status: 'live', verification: { checked_at: '2026-11-21T11:59:30Z', error: { code: 'record_missing', message: 'x', found: [] } } });
  const notice = verifiedNotice(broken, NOW);
  assert.equal(notice.tone, 'warning');
  assert.match(notice.message, /^shop\.example\.com is still live, but the platform’s check at 11:59( [AP]M)? found no CNAME at “shop”\.$/);
});

test('a certificate being issued says when it was requested as a time of day, the same at every tick', () => {
  const issuing = domain({ status: 'verified', certificate: { status: 'issuing', started_at: '2026-11-21T11:57:00Z' } });
  const reason = statusView(issuing, NOW).reason;
  assert.match(reason, /^Certificate requested at 11:57( [AP]M)?; this usually takes a couple of minutes\./);
  assert.equal(statusView(issuing, NOW + 60_000).reason, reason);
});

test('a notification says what the row says', () => {
  const failed = domain({
    status: 'verified',
    certificate: { status: 'failed', error: { code: 'caa_forbids_issuance', message: 'CAA record at example.com forbids issuance by letsencrypt.org' } },
  });
  const note = changeNotification('certificate_failed', failed, 'Site', 'letsencrypt.org');
  assert.equal(note.title, 'Certificate failed');
  assert.equal(note.body, `${failed.unicode_hostname}: ${statusView(failed, Date.now(), { caIdentity: 'letsencrypt.org' }).reason}`);
  assert.match(note.body, /0 issue "letsencrypt\.org"/);
  assert.deepEqual(changeNotification('live', domain({ status: 'live' }), 'Site'), { title: 'Domain live', body: `${domain().unicode_hostname} now serves Site over HTTPS.` });
  assert.equal(changeNotification('waiting', domain(), 'Site'), null);
});

test('one truth: a certificate the app knows the CA will refuse is "Issuing — will fail", with the finding, not "a couple of minutes"', async () => {
  const { caRefusal, diagnosesWith, ISSUING_WILL_FAIL } = await import('../lib/domain-view.js');
  const issuing = domain({ hostname: 'www.locked.example.org', unicode_hostname: 'www.locked.example.org', status: 'verified', certificate: { status: 'issuing', started_at: '2026-11-21T11:58:00Z' } });
  const caa = {
    code: 'caa_forbids_issuance', severity: 'error',
    title: 'CAA at locked.example.org forbids letsencrypt.org from issuing for www.locked.example.org',
    detail: '…', fix: { summary: 'Add the CAA record 0 issue "letsencrypt.org" at @ in the zone locked.example.org; the other CAs it lists may stay.' },
  };
  const report = { generated_at: '2026-11-21T11:59:00Z', hosts: [{ hostname: 'www.locked.example.org', findings: [{ code: 'dns_ok', severity: 'ok', title: 'fine' }, caa] }] };
  const diagnoses = diagnosesWith({}, report);
  assert.deepEqual(Object.keys(diagnoses), ['www.locked.example.org']);
  const refusal = caRefusal({ diagnosis: diagnoses['www.locked.example.org'] });
  const v = statusView(issuing, NOW, { refusal });
  assert.equal(v.label, ISSUING_WILL_FAIL);
  assert.equal(v.tone, 'error');
  assert.equal(v.reason, `Will fail: ${caa.title}. ${caa.fix.summary}`);
  assert.doesNotMatch(v.reason, /couple of minutes/);
  // The row says the same.
  assert.equal(domainRow(issuing, NOW, { refusal }).status.label, ISSUING_WILL_FAIL);
  // DNSSEC and a proxy in front of the name: the CA cannot validate either.
  for (const code of ['dnssec_bogus', 'dnssec_failure', 'proxied_by_cloudflare']) {
    assert.ok(caRefusal({ diagnosis: { findings: [{ code, severity: 'error', title: code }] } }), code);
  }
  // A warning, or another error, is no refusal; nothing known, nothing said.
  assert.equal(caRefusal({ diagnosis: { findings: [{ ...caa, severity: 'warning' }] } }), null);
  assert.equal(caRefusal({ diagnosis: { findings: [{ code: 'record_missing', severity: 'error', title: 'x' }] } }), null);
  assert.equal(caRefusal({}), null);
  assert.match(statusView(issuing, NOW, { refusal: null }).reason, /couple of minutes/);
  // The renewal watch's look knows it too.
  const watch = caRefusal({ readiness: { state: 'at_risk', cause: 'the CAA record at locked.example.org now allows only other-ca.example', finding: { fix: { summary: 'Add …' } } } });
  assert.deepEqual(watch, { title: 'The CAA record at locked.example.org now allows only other-ca.example', fix: 'Add …' });
  // Only an issuing domain says it: a live one keeps serving, a failed one says why it failed.
  const live = domain({ status: 'live', certificate: { status: 'issued', expires_at: '2027-02-19T12:00:00Z' } });
  assert.equal(statusView(live, NOW, { refusal }).label, 'Live');
  // A later report replaces an earlier one; an earlier one does not replace a later.
  const fixed = { generated_at: '2026-11-21T12:05:00Z', hosts: [{ hostname: 'www.locked.example.org', findings: [] }] };
  const after = diagnosesWith(diagnoses, fixed);
  assert.equal(caRefusal({ diagnosis: after['www.locked.example.org'] }), null);
  assert.equal(diagnosesWith(after, report)['www.locked.example.org'], after['www.locked.example.org']);
});

test('a waiting row leads with the pre-flight warning kept since Add, and forgets it when none is kept', async () => {
  const { statusView, preflightLine } = await import('../lib/domain-view.js');
  const waiting = domain({ status: 'pending_verification' });
  const warnings = [
    { code: 'caa_forbids', severity: 'error', title: 'CAA at locked.example.org allows only other-ca.example.', fix: { summary: 'Add a CAA record.' } },
    { code: 'stale_aaaa', severity: 'warning', title: 'An AAAA record points elsewhere' },
  ];
  assert.equal(preflightLine(warnings), 'Warning: CAA at locked.example.org allows only other-ca.example (and 1 more).');
  const now = Date.parse('2026-11-21T12:00:00Z');
  assert.match(statusView(waiting, now, { warnings }).reason, /^Warning: CAA at locked\.example\.org allows only other-ca\.example \(and 1 more\)\. /);
  assert.doesNotMatch(statusView(waiting, now, { warnings: [] }).reason, /Warning/);
  assert.doesNotMatch(statusView(waiting, now, {}).reason, /Warning/);
});

test('the records plan follows Domain Desk’s own look while the domain waits for DNS', () => {
  const shop = domain({ hostname: 'shop.example.com', status: 'pending_verification', apex: false, verification: null, dns_record: { type: 'CNAME', name: 'shop', value: 'cname.pages.example.net', ttl: 300 } });
  // Not looked yet: only the record to add.
  assert.deepEqual(recordPlan(shop).map((p) => p.action), ['add']);
  // The look found the old host's A record: it is marked remove, as the record card says.
  const plan = recordPlan(shop, [{ type: 'A', value: '192.0.2.10' }]);
  assert.deepEqual(plan.map((p) => `${p.action} ${p.type} ${p.value}`), ['add CNAME cname.pages.example.net', 'remove A 192.0.2.10']);
  // Once verified, the platform's word stands.
  assert.deepEqual(recordPlan({ ...shop, status: 'verified' }, [{ type: 'A', value: '192.0.2.10' }]).map((p) => p.action), ['keep']);
});

test('a name served by another host today waits for its switch in the pending tone, not as an error', async () => {
  const { statusView } = await import('../lib/domain-view.js');
  const now = Date.parse('2026-11-21T12:00:00Z');
  const seen = domain({
    hostname: 'shop.example.org',
    status: 'pending_verification',
    verification: { checked_at: '2026-11-21T11:59:00Z', error: { code: 'conflicting_record', message: 'A 192.0.2.77 blocks the CNAME', found: [{ type: 'A', value: '192.0.2.77' }] } },
  });
  const switching = statusView(seen, now, { liveElsewhere: ['192.0.2.77'] });
  assert.equal(switching.tone, 'pending');
  // what the platform's check found is said as it is (the old record may be a leftover)
  assert.equal(switching.reason, statusView(seen, now, {}).reason);
  // without the pre-flight's word that a site lives there, the platform's finding is an error
  assert.equal(statusView(seen, now, {}).tone, 'error');
});

test('"served by another host today" is the switch\'s own line, never a warning', async () => {
  const { statusView } = await import('../lib/domain-view.js');
  const now = Date.parse('2026-11-21T12:00:00Z');
  const fresh = domain({ hostname: 'shop.example.org', status: 'pending_verification', verification: { checked_at: null, error: null } });
  const warnings = [{ code: 'live_elsewhere', severity: 'warning', title: 'shop.example.org is served today by 192.0.2.77, not the platform: switch when the certificate is ready' }];
  const view = statusView(fresh, now, { warnings, liveElsewhere: ['192.0.2.77'] });
  assert.equal(view.tone, 'pending');
  assert.doesNotMatch(view.reason, /Warning/);
  assert.doesNotMatch(statusView(fresh, now, { warnings }).reason, /Warning/);
});
