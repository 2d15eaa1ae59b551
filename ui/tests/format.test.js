import { test } from 'node:test';
import assert from 'node:assert/strict';
import { duration, relativeTime, shortDate, dateTime } from '../lib/format.js';

test('durations round up and read naturally', () => {
  assert.equal(duration(0), '0 s');
  assert.equal(duration(41.2), '42 s');
  assert.equal(duration(-5), '0 s');
  assert.equal(duration(65), '1 min 05 s');
  assert.equal(duration(7200), '2 h');
  assert.equal(duration(7800), '2 h 10 min');
  assert.equal(duration(86400), '1 day');
  assert.equal(duration(3 * 86400 + 5), '3 days');
});

test('relative times on both sides of now', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  assert.equal(relativeTime(null, now), 'never');
  assert.equal(relativeTime('2026-11-21T11:59:50Z', now), 'just now');
  assert.equal(relativeTime('2026-11-21T11:55:00Z', now), '5 min ago');
  assert.equal(relativeTime('2026-11-21T15:00:00Z', now), 'in 3 h');
  assert.equal(relativeTime('2026-11-19T12:00:00Z', now), '2 days ago');
  assert.equal(relativeTime('garbage', now), 'unknown');
  assert.equal(relativeTime('2026-11-21T12:04:00Z', now, { past: true }), 'just now');
  assert.equal(relativeTime('2026-11-21T11:55:00Z', now, { past: true }), '5 min ago');
});

test('dates are UTC and unambiguous', () => {
  assert.equal(shortDate('2027-02-19T23:30:00Z'), '2027-02-19');
  assert.equal(dateTime('2027-02-19T23:30:59Z'), '2027-02-19 23:30 UTC');
  assert.equal(shortDate(null), '');
});
