import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statusView, roleLabel, verifyLabel, recordPlan, recordToCreate, domainRow } from '../lib/domain-view.js';
import { domain } from './fixtures.js';

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
  assert.match(v.reason, /A 192\.0\.2\.10/);
  assert.match(v.reason, /Remove it/);
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
  assert.match(statusView(d, NOW).reason, /points to CNAME old-host\.example\.net, not to cname\.platform\.test/);
  assert.deepEqual(recordPlan(d).map((p) => p.action), ['add', 'remove']);
});

test('a missing record on an apex asks for ALIAS', () => {
  const d = domain({
    hostname: 'example.com', unicode_hostname: 'example.com', apex: true,
    dns_record: { type: 'ALIAS', name: '@', value: 'cname.platform.test', ttl: 3600 },
    verification: { checked_at: '2026-11-21T11:59:00Z', error: { code: 'record_missing', message: 'x', found: [] } },
  });
  assert.match(statusView(d, NOW).reason, /ALIAS \(or ANAME\)/);
  assert.match(statusView(d, NOW).reason, /apex \(@\)/);
});

test('verified domains are issuing, then failed with the CAA cause, then live', () => {
  const issuing = domain({ status: 'verified', certificate: { status: 'issuing', started_at: '2026-11-21T11:58:00Z', issued_at: null, expires_at: null, error: null } });
  const v = statusView(issuing, NOW);
  assert.equal(v.label, 'Verified — issuing certificate');
  assert.equal(v.tone, 'progress');
  assert.match(v.reason, /2 min ago/);

  const failed = domain({ status: 'verified', certificate: { status: 'failed', started_at: null, issued_at: null, expires_at: null, error: { code: 'caa_forbids_issuance', message: 'x' } } });
  const f = statusView(failed, NOW, { caIdentity: 'letsencrypt.org' });
  assert.equal(f.label, 'Certificate failed');
  assert.equal(f.tone, 'error');
  assert.match(f.reason, /0 issue "letsencrypt\.org"/);

  const live = domain({ status: 'live', certificate: { status: 'issued', started_at: null, issued_at: '2026-11-21T11:59:00Z', expires_at: '2027-02-19T11:59:00Z', error: null } });
  assert.equal(statusView(live, NOW).label, 'Live');
  assert.equal(domainRow(live, NOW).expires, '2027-02-19');
});

test('roles read as the dashboard shows them', () => {
  assert.equal(roleLabel(domain()), 'Primary');
  assert.equal(roleLabel(domain({ role: 'alias' })), 'Alias');
  assert.equal(roleLabel(domain({ role: 'redirect', redirect: { to: 'www.example.com', status: 301 } })), 'Redirect → www.example.com');
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
