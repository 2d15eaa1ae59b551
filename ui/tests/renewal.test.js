// What a renewal readiness looks like in the domains table's row and the detail panel's
// Renewal section.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renewalIndicator, renewalSection, renewalOf, renewalsByHostname } from '../lib/renewal.js';
import { configureTimes } from '../lib/format.js';

const atRisk = {
  hostname: 'shop.example.com',
  state: 'at_risk',
  expires_at: '2027-02-24T10:00:00Z',
  renews_at: '2027-01-25T10:00:00Z',
  checked_at: '2026-12-01T00:00:00Z',
  cause: 'the CAA record at example.com now allows only other-ca.example',
  finding: {
    code: 'renewal_at_risk',
    detail: "shop.example.com's certificate expires on 24 Feb 2027; the platform renews it from 25 Jan; that renewal will fail: the CAA record at example.com now allows only other-ca.example.",
    fix: { summary: 'Add the CAA record 0 issue "letsencrypt.org" at @ in the zone example.com', steps: ['At Demo, add a CAA record'] },
  },
  note: null,
};

const live = {
  hostname: 'shop.example.com',
  status: 'live',
  certificate: { status: 'issued', expires_at: '2027-02-24T10:00:00Z', renews_at: '2027-01-25T10:00:00Z', error: null },
};

test('a renewal that will fail marks the row; a ready one does not', () => {
  configureTimes({ locale: 'en-GB', timeZone: 'UTC' });
  // The date its renewal fails from, in the label: the column cut it when it followed the words.
  assert.deepEqual(renewalIndicator(atRisk), { key: 'at_risk', label: '⚠ Fails 25 Jan 2027', title: atRisk.finding.detail });
  assert.equal(renewalIndicator({ ...atRisk, checked_at: '2027-01-02T00:00:00Z' }).label, '⚠ Fails 25 Jan');
  assert.equal(renewalIndicator({ ...atRisk, renews_at: null }).label, '⚠ Renewal fails');
  assert.equal(renewalIndicator({ ...atRisk, state: 'ready', finding: null }).label, '');
  assert.equal(renewalIndicator(null).key, '');
});

test('the section shows the next renewal, the problem and the fix, for live domains only', () => {
  const section = renewalSection(live, atRisk);
  assert.equal(section.state, 'Will fail');
  assert.equal(section.tone, 'error');
  assert.equal(section.renewsAt, '2027-01-25T10:00:00Z');
  assert.equal(section.checkedAt, '2026-12-01T00:00:00Z');
  assert.match(section.problem, /that renewal will fail: the CAA record at example\.com/);
  assert.match(section.fixSummary, /0 issue "letsencrypt.org"/);
  assert.deepEqual(section.fixSteps, ['At Demo, add a CAA record']);
  assert.equal(renewalSection({ ...live, status: 'verified' }, atRisk), null);
  const unchecked = renewalSection(live, null);
  assert.equal(unchecked.state, 'Not checked yet');
  assert.equal(unchecked.renewsAt, '2027-01-25T10:00:00Z', 'the platform says when, before any check');
  assert.equal(unchecked.problem, '');
});

test('readiness is found by hostname', () => {
  const view = { domains: [atRisk] };
  assert.equal(renewalOf('shop.example.com', view), atRisk);
  assert.equal(renewalOf('www.example.com', view), null);
  assert.equal(renewalsByHostname(view).get('shop.example.com'), atRisk);
});

test('a view\'s map by hostname is made once, and a new view gets its own', () => {
  const view = { domains: [atRisk] };
  assert.equal(renewalsByHostname(view), renewalsByHostname(view), 'the table asks at every change of its list');
  const next = { domains: [] };
  assert.equal(renewalsByHostname(next).get('shop.example.com'), undefined, 'a later check that no longer finds the name');
  assert.equal(renewalsByHostname(view).get('shop.example.com'), atRisk);
});

test('the account switcher names the other accounts whose renewals will fail', async () => {
  const { otherAccountsAtRisk, accountRiskLine } = await import('../lib/renewal.js');
  const view = {
    domains: [],
    accounts: [
      { account_id: 'offline-demo:pro', account_label: 'Offline demo · Pro', at_risk: ['www.example.com'] },
      { account_id: 'offline-demo:business', account_label: 'Offline demo · Business', at_risk: ['app.example.co.uk'] },
      { account_id: 'offline-demo:free', account_label: 'Offline demo · Free', at_risk: [] },
    ],
  };
  const risks = otherAccountsAtRisk(view, 'offline-demo:pro');
  assert.deepEqual(risks, [{ accountId: 'offline-demo:business', label: 'Offline demo · Business', hostnames: ['app.example.co.uk'] }]);
  assert.equal(accountRiskLine(risks[0]), 'Offline demo · Business: app.example.co.uk — its renewal will fail');
  assert.equal(
    accountRiskLine({ label: 'Shop', hostnames: ['a.example', 'b.example'] }),
    'Shop: 2 domains (a.example, b.example) — their renewals will fail',
  );
  assert.deepEqual(otherAccountsAtRisk({ domains: [] }, 'x'), []);
});

test('after a renewal the panel dates the next one by the platform, not by the last check', () => {
  const renewed = { ...live, certificate: { ...live.certificate, expires_at: '2027-04-26T10:00:00Z', renews_at: '2027-03-27T10:00:00Z' } };
  assert.equal(renewalSection(renewed, atRisk).renewsAt, '2027-03-27T10:00:00Z');
});
