import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addBlockedReason, planName, deployText } from '../lib/project.js';
import { zoneFor } from '../lib/zone-record.js';

const pro = { account: { plan: 'pro', limits: { max_domains_per_project: 50 } } };
const deployed = { last_deploy: { status: 'succeeded', created_at: '2026-11-21T10:00:00Z' } };

test('the Free plan cannot add domains and is told why', () => {
  assert.match(addBlockedReason({ account: { plan: 'free' } }, deployed, 0), /Pro plan or above/);
});

test('a project without a successful deploy says what to do', () => {
  assert.match(addBlockedReason(pro, { last_deploy: null }, 0), /never been deployed/);
  assert.match(addBlockedReason(pro, { last_deploy: { status: 'failed' } }, 0), /last deploy of this project failed/);
});

test('the plan limit blocks at the maximum, not before', () => {
  assert.equal(addBlockedReason(pro, deployed, 49), null);
  assert.match(addBlockedReason(pro, deployed, 50), /50 domains, the most the Pro plan allows/);
});

test('plan names and deploy words', () => {
  assert.equal(planName('business'), 'Business');
  assert.equal(deployText({ last_deploy: null }, 0), 'Never deployed');
  assert.equal(deployText(deployed, Date.parse('2026-11-21T12:00:00Z')), 'Deployed 2\u00a0h ago');
});

test('a hostname finds its demo zone, the longest match winning', () => {
  const zones = ['example.com', 'example.co.uk', 'co.uk'];
  assert.equal(zoneFor('shop.example.co.uk', zones), 'example.co.uk');
  assert.equal(zoneFor('example.com', zones), 'example.com');
  assert.equal(zoneFor('shop.other.net', zones), null);
  assert.equal(zoneFor(null, zones), null);
});

test('the demo says what to try first and which zones Demo DNS lets you edit', async () => {
  const { demoHint } = await import('../lib/project.js');
  const hint = demoHint(['example.com', 'example.net', 'example.org', 'example.co.uk']);
  assert.match(hint, /^To start, open Pro site and add shop\.example\.com/);
  assert.match(hint, /Demo DNS lets you edit the zones example\.com, example\.net, example\.org and example\.co\.uk\.$/);
  assert.doesNotMatch(demoHint(null), /zones/, 'without the list, no zones are named');
  assert.match(demoHint(['example.com']), /the zones example\.com\.$/);
});
