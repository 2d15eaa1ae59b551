import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verificationAdvice, negativeCacheText } from '../lib/domain-view.js';
import { configureTimes } from '../lib/format.js';
import { domain } from './fixtures.js';

const NOW = Date.parse('2026-11-21T12:42:00Z');

function cachedMissing(overrides = {}) {
  return domain({
    verification: {
      checked_at: '2026-11-21T12:42:00Z',
      error: {
        code: 'record_missing',
        message: "The platform's resolver cached 'no such name' for shop.example.com at 12:40 UTC and asks again at 12:45 UTC. …",
        found: [],
        cached_at: '2026-11-21T12:40:00Z',
        cached_until: '2026-11-21T12:45:00Z',
      },
    },
    ...overrides,
  });
}

test('a record_missing from the resolver cache says until when, in local time, instead of "add the record"', () => {
  configureTimes({ locale: 'en-GB', timeZone: 'Europe/Paris' });
  const advice = verificationAdvice(cachedMissing(), { nowMs: NOW, resolverDelaySeconds: 60 });
  assert.equal(
    advice,
    'The platform’s resolver cached “no such record” for shop.example.com at 13:40 and asks again at 13:45; a record created since counts from then. Press Re-verify to check again.',
  );
  assert.doesNotMatch(advice, /Add a CNAME/);
  // Domain Desk's own look finds the CNAME: still the cache, not the 60 s propagation delay
  const dnsNow = { at: NOW, records: [{ type: 'CNAME', value: 'cname.platform.test', ttl: 3600 }] };
  assert.match(verificationAdvice(cachedMissing(), { nowMs: NOW, dnsNow, resolverDelaySeconds: 60 }), /^The platform’s resolver cached “no such record” .* asks again at 13:45;/);
  // ... and when it finds none, the instruction comes first
  const nothing = { at: NOW, records: [] };
  assert.match(verificationAdvice(cachedMissing(), { nowMs: NOW, dnsNow: nothing }), /^Add a CNAME named “shop” to cname\.platform\.test\. The platform’s resolver cached/);
  configureTimes({ locale: 'en-GB', timeZone: 'UTC' });
});

test('a record_missing without the cache fields keeps its instruction', () => {
  configureTimes({ locale: 'en-GB', timeZone: 'UTC' });
  const plain = domain({ verification: { checked_at: '2026-11-21T12:42:00Z', error: { code: 'record_missing', message: 'x', found: [] } } });
  assert.equal(negativeCacheText(plain, NOW), '');
  assert.match(verificationAdvice(plain, { nowMs: NOW }), /^Add a CNAME named “shop” to cname\.platform\.test\./);
});
