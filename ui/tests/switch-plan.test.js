// Issue 60 in the window: the www name offered beside an apex, the two steps of a switch
// without a gap (the certificate through `_acme-challenge`, then the routing record), their
// states as the platform reports them, wildcards with their two records, and nothing that
// says browsers may warn when they will not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { companionOf, switchApplies, switchSteps, certificateReady, delegationCardRecord, routingCardRecord, stepStateLabel } from '../lib/switch-plan.js';
import { switchCard, switchIntro, switchSummary, delegationInPlace } from '../lib/switch-card.js';
import { statusView, statusKey, STATUS } from '../lib/domain-view.js';
import { configureTimes } from '../lib/format.js';
import { domain } from './fixtures.js';

globalThis.HTMLElement ??= class {};
const { checkTyped, hostnameLine } = await import('../components/add-domain/add-domain.js');

configureTimes({ locale: 'en-GB', timeZone: 'UTC' });
const NOW = Date.parse('2026-11-21T12:00:00Z');
const VALIDATION = {
  method: null,
  dns_record: { type: 'CNAME', name: '_acme-challenge.shop', fqdn: '_acme-challenge.shop.example.org', value: 'shop.example.org.acme.pages.local-platform.test' },
};
const OLD_HOST = ['192.0.2.77'];

/** shop.example.org at a step of the switch: its certificate's status and the domain's. */
function shop({ cert = 'none', status = 'pending_verification' } = {}) {
  return domain({
    hostname: 'shop.example.org',
    unicode_hostname: 'shop.example.org',
    status,
    verification: {
      checked_at: '2026-11-21T11:59:00Z',
      error: status === 'live' ? null : { code: 'conflicting_record', message: 'x', found: [{ type: 'A', value: '192.0.2.77' }] },
    },
    certificate: { status: cert, started_at: cert === 'none' ? null : '2026-11-21T11:58:00Z', issued_at: cert === 'issued' ? '2026-11-21T11:59:30Z' : null, expires_at: null, error: null, validation: { ...VALIDATION, method: cert === 'issued' ? 'dns' : null } },
  });
}

test('an apex is offered its www name, redirecting to it, and a www name its apex', () => {
  const apex = { ascii: 'example.com', unicode: 'example.com', apex: true, wildcard: false, relative_name: '@', registrable_domain: 'example.com' };
  assert.deepEqual(companionOf(apex), { hostname: 'www.example.com', unicode: 'www.example.com', redirectTo: 'example.com', label: 'Also add www.example.com, redirecting to example.com' });
  const www = { ascii: 'www.example.co.uk', unicode: 'www.example.co.uk', apex: false, wildcard: false, relative_name: 'www', registrable_domain: 'example.co.uk' };
  assert.deepEqual(companionOf(www), { hostname: 'example.co.uk', unicode: 'example.co.uk', redirectTo: 'www.example.co.uk', label: 'Also add example.co.uk, redirecting to www.example.co.uk' });
  const sub = { ascii: 'shop.example.com', unicode: 'shop.example.com', apex: false, wildcard: false, relative_name: 'shop', registrable_domain: 'example.com' };
  assert.equal(companionOf(sub), null, 'any other subdomain: nothing offered');
  assert.equal(companionOf({ ...sub, ascii: '*.shop.example.com', wildcard: true }), null);
  assert.equal(companionOf(apex, [domain({ hostname: 'www.example.com' })]), null, 'not when the project has it already');
});

test('the two steps, from the record to create to live', () => {
  const states = (d) => switchSteps(d, { liveElsewhere: OLD_HOST }).map((s) => s.state);
  assert.deepEqual(states(shop()), ['todo', 'waiting']);
  assert.deepEqual(states(shop({ cert: 'issuing' })), ['working', 'waiting']);
  assert.deepEqual(states(shop({ cert: 'issued' })), ['done', 'todo']);
  assert.deepEqual(states(shop({ cert: 'issued', status: 'live' })), ['done', 'done']);
  const ready = switchSteps(shop({ cert: 'issued' }), { liveElsewhere: OLD_HOST })[1];
  assert.match(ready.text, /^Switch when you are ready: replace the record at “shop” \(192\.0\.2\.77\) with this CNAME/);
  assert.match(ready.text, /visitors meet no warning/);
  assert.equal(stepStateLabel('waiting'), 'After step 1');
});

test('the steps apply to a name live elsewhere, a certificate issued that way, and a wildcard', () => {
  assert.equal(switchApplies(shop(), OLD_HOST), true);
  assert.equal(switchApplies(shop(), null), false, 'an ordinary new name keeps its one record');
  assert.equal(switchApplies(shop({ cert: 'issued' }), null), true, 'known from the platform alone after a restart');
  assert.equal(switchApplies(shop({ cert: 'issued', status: 'live' }), OLD_HOST), false, 'once live: the record in place');
  const wildcard = domain({ hostname: '*.shop.example.com', unicode_hostname: '*.shop.example.com', role: 'alias', dns_record: { type: 'CNAME', name: '*.shop', value: 'cname.platform.test', ttl: 3600 }, certificate: { status: 'none', validation: { method: null, dns_record: { type: 'CNAME', name: '_acme-challenge.shop', fqdn: '_acme-challenge.shop.example.com', value: 'shop.example.com.acme.platform.test' } } } });
  assert.equal(switchApplies(wildcard), true);
  const [first, second] = switchSteps(wildcard);
  assert.equal(first.title, 'The certificate’s record');
  assert.equal(second.state, 'todo', 'a wildcard’s routing record can go in at once');
  assert.match(switchIntro(wildcard), /two records/);
  assert.equal(switchApplies(domain()), false, 'no validation record named: nothing to show');
});

test('the row reads “Certificate ready — switch your DNS when you are ready”, and no step says browsers may warn', () => {
  const ready = shop({ cert: 'issued' });
  assert.equal(statusKey(ready), STATUS.CERT_READY);
  assert.equal(certificateReady(ready), true);
  const v = statusView(ready, NOW);
  assert.equal(v.label, 'Certificate ready');
  assert.match(v.reason, /^Switch your DNS when you are ready/);
  assert.doesNotMatch(v.reason, /browsers may warn/i);
  const issuing = statusView(shop({ cert: 'issuing' }), NOW);
  assert.equal(issuing.label, 'Issuing certificate');
  assert.equal(issuing.tone, 'progress', 'not a failure: the old host serves the site meanwhile');
  assert.doesNotMatch(issuing.reason, /browsers may warn/i);
  for (const d of [shop(), shop({ cert: 'issuing' }), ready]) {
    const route = routingCardRecord(d, { liveElsewhere: OLD_HOST });
    assert.ok(route.warnings.every((w) => !/browsers may warn/i.test(w)), route.warnings.join(' | '));
    assert.ok(route.warnings.every((w) => !/remove it first/i.test(w)), 'a replacement, not a removal to make now');
    const card = String(switchCard(d, 'detail', { liveElsewhere: OLD_HOST }));
    assert.doesNotMatch(card, /browsers may warn/i);
  }
});

test('the step cards hold both records with Copy buttons, the values quoted nowhere but shown whole', () => {
  const card = String(switchCard(shop({ cert: 'issued' }), 'add', { liveElsewhere: OLD_HOST }));
  assert.match(card, /id="add-acme-value"/);
  assert.match(card, /id="add-route-value"/);
  assert.match(card, /data-copy="_acme-challenge\.shop"/);
  assert.match(card, /data-copy="shop\.example\.org\.acme\.pages\.local-platform\.test"/);
  assert.match(card, /data-copy="cname\.platform\.test"/);
  assert.match(card, /data-step="delegation" data-state="done"/);
  assert.match(card, /data-step="routing" data-state="todo"/);
  assert.match(card, /served today by 192\.0\.2\.77/);
  const acme = delegationCardRecord(shop());
  assert.equal(acme.fqdn, '_acme-challenge.shop.example.org');
  assert.match(acme.warnings[0], /renews the certificate through it/);
});

test('a wildcard is typed like any name and said with its two records', () => {
  assert.deepEqual(checkTyped('*.Shop.example.com'), { ok: true, ascii: '*.shop.example.com', changed: true, wildcard: true });
  assert.equal(checkTyped('*.').ok, false);
  assert.equal(checkTyped('shop.*.example.com').ok, false);
  const line = hostnameLine({ ascii: '*.shop.example.com', unicode: '*.shop.example.com', apex: false, wildcard: true, relative_name: '*.shop', registrable_domain: 'example.com' });
  assert.equal(line, '*.shop.example.com covers every name one label under shop.example.com: you will create a CNAME named “*.shop” and a CNAME for its certificate.');
});

test('the two steps at a glance: one line at the top of the details', () => {
  const line = String(switchSummary(shop({ cert: 'issued' }), 'detail', { liveElsewhere: OLD_HOST }));
  assert.match(line, /id="detail-steps-line"/);
  assert.match(line, /data-step="delegation" data-state="done">Step 1 certificate <span class="badge tone-ok">Done<\/span>/);
  assert.match(line, /data-step="routing" data-state="todo">Step 2 switch <span class="badge tone-pending">To do<\/span>/);
});

test('once live, the record the certificate is renewed through is shown, to keep', () => {
  const live = shop({ cert: 'issued', status: 'live' });
  const shown = String(delegationInPlace(live));
  assert.match(shown, /Certificate record in place/);
  assert.match(shown, /data-copy="_acme-challenge\.shop"/);
  assert.match(shown, /keep it while the domain is attached/);
  const byHttp = { ...live, certificate: { ...live.certificate, validation: { ...live.certificate.validation, method: 'http' } } };
  assert.equal(String(delegationInPlace(byHttp)), '', 'validated through the routing record: nothing more to keep');
  assert.equal(String(delegationInPlace(shop({ cert: 'issued' }))), '', 'not live yet: the steps show it');
});
