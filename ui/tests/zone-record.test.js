import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkZoneRecord, signaturesNotice } from '../lib/zone-record.js';
import { propagationText } from '../lib/zone-record.js';

test('names are made relative to the zone, @ for the apex', () => {
  assert.equal(checkZoneRecord({ name: 'Shop.example.com', type: 'cname', value: 'x.platform.test' }, 'example.com').record.name, 'shop');
  assert.equal(checkZoneRecord({ name: '', type: 'ALIAS', value: 'x.platform.test' }, 'example.com').record.name, '@');
  assert.equal(checkZoneRecord({ name: 'example.com.', type: 'A', value: '192.0.2.1' }, 'example.com').record.name, '@');
});

test('values are checked per type', () => {
  assert.equal(checkZoneRecord({ name: 'a', type: 'A', value: '300.1.1.1' }).field, 'value');
  assert.equal(checkZoneRecord({ name: 'a', type: 'AAAA', value: '2001:db8::10' }).ok, true);
  assert.equal(checkZoneRecord({ name: 'a', type: 'AAAA', value: '2001:db8' }).ok, false);
  assert.equal(checkZoneRecord({ name: 'a', type: 'CNAME', value: 'not a host' }).field, 'value');
  assert.equal(checkZoneRecord({ name: '@', type: 'CAA', value: '0 issue "letsencrypt.org"' }).ok, true);
  assert.match(checkZoneRecord({ name: '@', type: 'CAA', value: 'issue letsencrypt' }).message, /0 issue/);
  assert.equal(checkZoneRecord({ name: '@', type: 'TXT', value: 'hello world' }).ok, true);
  assert.equal(checkZoneRecord({ name: 'a', type: 'MX', value: 'x' }).field, 'type');
});

test('a CNAME at the apex is refused, the TTL defaults to 3600 and is bounded', () => {
  assert.equal(checkZoneRecord({ name: '@', type: 'CNAME', value: 'x.test' }).field, 'type');
  assert.equal(checkZoneRecord({ name: 'a', type: 'TXT', value: 'x' }).record.ttl, 3600);
  assert.equal(checkZoneRecord({ name: 'a', type: 'TXT', value: 'x', ttl: '60' }).record.ttl, 60);
  assert.equal(checkZoneRecord({ name: 'a', type: 'TXT', value: 'x', ttl: '0' }).field, 'ttl');
  assert.equal(checkZoneRecord({ name: 'bad name', type: 'TXT', value: 'x' }).field, 'name');
});

test('the DNSSEC switch says what expired signatures do, and when they are mended', () => {
  const broken = signaturesNotice('example.com', 'expired');
  assert.match(broken, /^example\.com: /);
  assert.match(broken, /expired/);
  assert.match(broken, /SERVFAIL/);
  assert.equal(signaturesNotice('example.com', 'valid'), 'example.com: DNSSEC signatures are valid again.');
});

test('Demo DNS says how long the platform’s resolver takes to see a change', () => {
  assert.match(propagationText(60), /sees a change 1\u00a0min after you make it \(on the demo’s clock\)/);
  assert.match(propagationText(0), /at once/);
  assert.match(propagationText(undefined), /after the demo’s propagation delay/);
});
