import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pollDelay, pollClass, PollSchedule, pollPlan, notableChange, verifyBudget, stateSignature, awaitsPlatform, replacedDomains, inChunks, REVERIFY_CHUNK } from '../lib/poll-schedule.js';
import { domain } from './fixtures.js';

test('the delay grows as the state ages', () => {
  assert.equal(pollDelay(0), 5_000);
  assert.equal(pollDelay(119_999), 5_000);
  assert.equal(pollDelay(120_000), 15_000);
  assert.equal(pollDelay(30 * 60_000), 60_000);
  assert.equal(pollDelay(2 * 3_600_000), 300_000);
  assert.equal(pollDelay(3 * 86_400_000), 1_800_000);
});

test('live domains are not watched; issuing ones are read; ones waiting for DNS are re-verified', () => {
  assert.equal(pollClass(domain({ status: 'live' })), 'none');
  assert.equal(pollClass(domain({ status: 'verified', certificate: { status: 'issuing' } })), 'get');
  assert.equal(pollClass(domain({ status: 'verified', certificate: { status: 'failed' } })), 'get-slow');
  assert.equal(pollClass(domain()), 'verify');
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
  // polled three minutes in, same state: now every 15 s
  t = 180_000;
  s.observe(issuing);
  s.polled('shop.example.com');
  assert.equal(s.nextIn(), 15_000);
  // it went live: a change, and it leaves the schedule
  t = 181_000;
  assert.equal(s.observe(domain({ status: 'live', certificate: { status: 'issued' } })), true);
  assert.equal(s.nextIn(), null);
});

test('a domain waiting for DNS is re-verified every minute, then less often as the same answer ages', () => {
  let t = 0;
  const s = new PollSchedule(() => t);
  const failing = (checkedAt) => domain({ verification: { checked_at: checkedAt, error: { code: 'conflicting_record', message: 'x', found: [{ type: 'A', value: '192.0.2.1' }] } } });
  s.observe(failing('a'));
  assert.equal(s.kindOf('shop.example.com'), 'verify');
  assert.equal(s.dueAt('shop.example.com'), 60_000);
  // each check finds the same thing: the time of the check is no news, the back-off grows
  assert.equal(stateSignature(failing('a')), stateSignature(failing('b')));
  t = 20 * 60_000;
  s.observe(failing('b'));
  assert.equal(s.nextIn(), 5 * 60_000);
  t = 3 * 3_600_000;
  s.observe(failing('c'));
  assert.equal(s.nextIn(), 15 * 60_000);
  // a copy read in between (same check) keeps the planned check
  t += 60_000;
  s.observe(failing('c'));
  assert.equal(s.nextIn(), 14 * 60_000);
  // the user changed a record: the back-off starts over, first check once the resolver can see it
  s.restart('shop.example.com', 65_000);
  assert.equal(s.nextIn(), 65_000);
  t += 65_000;
  s.observe(failing('d'));
  assert.equal(s.nextIn(), 60_000);
  // a failed certificate is read at most once a minute
  s.forget('shop.example.com');
  s.observe(domain({ status: 'verified', certificate: { status: 'failed' } }));
  assert.equal(s.nextIn(), 60_000);
  s.forget('shop.example.com');
  assert.equal(s.nextIn(), null);
});

test('a copy that brings no news keeps a due check due; a poll plans the next one', () => {
  let t = 0;
  const s = new PollSchedule(() => t);
  const issuing = domain({ status: 'verified', certificate: { status: 'issuing' } });
  s.observe(issuing);
  t = 6_000;
  assert.deepEqual(s.due(), ['shop.example.com']);
  s.observe(issuing); // another domain's news redrew the list: this check is still owed
  assert.deepEqual(s.due(), ['shop.example.com']);
  s.polled('shop.example.com'); // the read answered the same
  assert.deepEqual(s.due(), []);
  assert.equal(s.nextIn(), 5_000);
});

test('re-verification spends at most half of what is left of the rate limit; reads are batched', () => {
  const kinds = { a: 'verify', b: 'verify', c: 'verify', d: 'get', e: 'get' };
  const kindOf = (h) => kinds[h] ?? 'get';
  assert.deepEqual(pollPlan([], kindOf), { verify: [], deferred: [], read: { kind: 'idle' } });
  assert.deepEqual(pollPlan(['a', 'b', 'c', 'd', 'e'], kindOf, { verifyBudget: 2 }), {
    verify: ['a', 'b'], deferred: ['c'], read: { kind: 'each', hostnames: ['d', 'e'] },
  });
  assert.deepEqual(pollPlan(['d', 'e', 'f', 'g', 'h', 'i'], kindOf).read, { kind: 'list' });
  const now = Date.parse('2026-11-26T12:00:00Z');
  assert.equal(verifyBudget(null, now), 1);
  assert.equal(verifyBudget({ limit: 60, remaining: 9 }, now), 4);
  assert.equal(verifyBudget({ limit: 60, remaining: 0 }, now), 0);
  assert.equal(verifyBudget({ limit: 60, remaining: 50, paused_until: '2026-11-26T12:00:30Z' }, now), 0);
  assert.equal(verifyBudget({ limit: 60, remaining: 50, banned_until: '2026-11-26T11:00:00Z' }, now), 25);
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

test('an answer for one domain is the one domain to observe; any other change is the whole list', () => {
  const list = Array.from({ length: 4 }, (_, i) => domain({ hostname: `site-${i}.example.com` }));
  const answer = domain({ hostname: 'site-2.example.com', status: 'verified' });
  const after = list.map((d, i) => (i === 2 ? answer : d));
  assert.deepEqual(replacedDomains(list, after), [answer]);
  assert.deepEqual(replacedDomains(list, list.slice()), []);
  assert.equal(replacedDomains(null, list), null, 'nothing watched yet');
  assert.equal(replacedDomains(list, list.slice(1)), null, 'one removed');
  assert.equal(replacedDomains(list, [...list, answer]), null, 'one added');
  assert.equal(replacedDomains(list, [list[1], list[0], list[2], list[3]]), null, 'moved');
  assert.equal(replacedDomains(list, list.map((d, i) => (i === 0 ? domain({ hostname: 'other.example.com' }) : d))), null, 'another name in its place');
});

test('observing only the replaced domains plans the checks observing them all plans', () => {
  let t = Date.parse('2026-11-21T12:00:00Z');
  const now = () => t;
  const list = Array.from({ length: 6 }, (_, i) => domain({ hostname: `site-${i}.example.com`, status: i % 2 ? 'verified' : 'pending_verification' }));
  const all = new PollSchedule(now);
  const some = new PollSchedule(now);
  list.forEach((d) => { all.observe(d); some.observe(d); });
  t += 90_000;
  const after = list.map((d, i) => (i === 3 ? domain({ hostname: d.hostname, status: 'live' }) : i === 4 ? domain({ hostname: d.hostname, verification: { checked_at: '2026-11-21T12:01:00Z', error: null } }) : d));
  after.forEach((d) => all.observe(d));
  replacedDomains(list, after).forEach((d) => some.observe(d));
  assert.deepEqual([...some.entries], [...all.entries]);
});

test('a poll re-verifies in calls of at most REVERIFY_CHUNK domains, every domain once and in order', () => {
  assert.deepEqual(inChunks([], REVERIFY_CHUNK), []);
  assert.deepEqual(inChunks(['a', 'b', 'c', 'd', 'e'], 2), [['a', 'b'], ['c', 'd'], ['e']]);
  assert.deepEqual(inChunks(['a', 'b'], 0), [['a'], ['b']]);
  const due = Array.from({ length: 45 }, (_, i) => `site-${i}.example.com`);
  const calls = inChunks(due, REVERIFY_CHUNK);
  assert.deepEqual(calls.map((c) => c.length), [20, 20, 5]);
  assert.deepEqual(calls.flat(), due);
});

test('a domain observed again keeps its entry, changed in place, and its signature while it reads the same', () => {
  let t = 0;
  const s = new PollSchedule(() => t);
  const waiting = (checkedAt, found = '192.0.2.1') => domain({ verification: { checked_at: checkedAt, error: { code: 'conflicting_record', message: 'x', found: [{ type: 'A', value: found }] } } });
  s.observe(waiting('a'));
  const entry = s.entries.get('shop.example.com');
  const signature = entry.signature;
  t = 60_000;
  assert.equal(s.observe(waiting('b')), false);
  assert.equal(s.entries.get('shop.example.com'), entry, 'the same entry');
  assert.equal(entry.signature, signature, 'and the same signature string');
  assert.equal(entry.checkedAt, 'b');
  assert.equal(s.dueAt('shop.example.com'), 120_000);
  // news: the entry takes the new signature and the back-off starts again
  t = 90_000;
  assert.equal(s.observe(waiting('c', '192.0.2.9')), true);
  assert.equal(s.entries.get('shop.example.com'), entry);
  assert.notEqual(entry.signature, signature);
  assert.equal(entry.since, 90_000);
});
