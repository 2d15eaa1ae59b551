import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pollDelay, pollClass, PollSchedule, pollPlan, notableChange, awaitsPlatform } from '../lib/poll-schedule.js';
import { domain } from './fixtures.js';

test('the delay grows as the state ages', () => {
  assert.equal(pollDelay(0), 5_000);
  assert.equal(pollDelay(119_999), 5_000);
  assert.equal(pollDelay(120_000), 15_000);
  assert.equal(pollDelay(30 * 60_000), 60_000);
  assert.equal(pollDelay(2 * 3_600_000), 300_000);
  assert.equal(pollDelay(3 * 86_400_000), 1_800_000);
});

test('live domains are not polled; issuing ones are polled actively', () => {
  assert.equal(pollClass(domain({ status: 'live' })), 'none');
  assert.equal(pollClass(domain({ status: 'verified', certificate: { status: 'issuing' } })), 'active');
  assert.equal(pollClass(domain({ status: 'verified', certificate: { status: 'failed' } })), 'slow');
  assert.equal(pollClass(domain()), 'slow');
});

test('the schedule backs off with age and restarts when the state changes', () => {
  let t = 0;
  const s = new PollSchedule(() => t);
  const issuing = domain({ status: 'verified', certificate: { status: 'issuing' } });
  assert.equal(s.observe(issuing), false, 'first sight is not a change');
  assert.deepEqual(s.due(), []);
  assert.equal(s.nextIn(), 5_000);
  t = 5_000;
  assert.deepEqual(s.due(), ['shop.example.com']);
  // same state seen again three minutes in: now every 15 s
  t = 180_000;
  s.observe(issuing);
  assert.equal(s.nextIn(), 15_000);
  // it went live: a change, and it leaves the schedule
  t = 181_000;
  assert.equal(s.observe(domain({ status: 'live', certificate: { status: 'issued' } })), true);
  assert.equal(s.nextIn(), null);
});

test('slow domains are polled at most once a minute', () => {
  let t = 0;
  const s = new PollSchedule(() => t);
  s.observe(domain());
  assert.equal(s.nextIn(), 60_000);
  s.forget('shop.example.com');
  assert.equal(s.nextIn(), null);
});

test('many due domains cost one list request; few are fetched one by one', () => {
  assert.deepEqual(pollPlan([]), { kind: 'idle' });
  assert.deepEqual(pollPlan(['a', 'b']), { kind: 'each', hostnames: ['a', 'b'] });
  assert.deepEqual(pollPlan(['a', 'b', 'c', 'd', 'e', 'f']), { kind: 'list' });
});

test('going live and a failed certificate are worth a notification; nothing else is', () => {
  const issuing = domain({ status: 'verified', certificate: { status: 'issuing' } });
  assert.equal(notableChange(issuing, domain({ status: 'live', certificate: { status: 'issued' } })), 'live');
  assert.equal(notableChange(issuing, domain({ status: 'verified', certificate: { status: 'failed' } })), 'certificate_failed');
  assert.equal(notableChange(issuing, issuing), null);
  assert.equal(notableChange(undefined, issuing), null);
});

test('closing the window keeps watching what waits on DNS or a certificate, nothing else', () => {
  assert.equal(awaitsPlatform(domain({ status: 'waiting' })), true);
  assert.equal(awaitsPlatform(domain({ status: 'verified', certificate: { status: 'issuing' } })), true);
  assert.equal(awaitsPlatform(domain({ status: 'live' })), false);
  assert.equal(awaitsPlatform(domain({ status: 'verified', certificate: { status: 'failed' } })), false);
});
