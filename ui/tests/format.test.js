import { test } from 'node:test';
import assert from 'node:assert/strict';
import { duration, relativeTime, shortDate, dateTime, clockTime, whenText, configureTimes, dayUnlessToday, timeOfDayText } from '../lib/format.js';

configureTimes({ locale: 'en-GB', timeZone: 'UTC' });

test('durations round up and read naturally', () => {
  assert.equal(duration(0), '0\u00a0s');
  assert.equal(duration(41.2), '42\u00a0s');
  assert.equal(duration(-5), '0\u00a0s');
  assert.equal(duration(65), '1\u00a0min 05\u00a0s');
  assert.equal(duration(7200), '2\u00a0h');
  assert.equal(duration(7800), '2\u00a0h 10\u00a0min');
  assert.equal(duration(86400), '1\u00a0day');
  assert.equal(duration(3 * 86400 + 5), '3\u00a0days');
});

test('relative times on both sides of now', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  assert.equal(relativeTime(null, now), 'never');
  assert.equal(relativeTime('2026-11-21T11:59:50Z', now), 'just now');
  assert.equal(relativeTime('2026-11-21T11:55:00Z', now), '5\u00a0min ago');
  assert.equal(relativeTime('2026-11-21T15:00:00Z', now), 'in 3\u00a0h');
  assert.equal(relativeTime('2026-11-19T12:00:00Z', now), '2\u00a0days ago');
  assert.equal(relativeTime('garbage', now), 'unknown');
  assert.equal(relativeTime('2026-11-21T12:04:00Z', now, { past: true }), 'just now');
  assert.equal(relativeTime('2026-11-21T11:55:00Z', now, { past: true }), '5\u00a0min ago');
});

test('dates and times read in the user’s locale and time zone, never as ISO text', () => {
  assert.equal(shortDate('2027-02-19T23:30:00Z'), '19 Feb 2027');
  assert.equal(dateTime('2027-02-19T23:30:59Z'), '19 Feb 2027, 23:30');
  assert.equal(shortDate(null), '');
  // the same instant in another zone is another day and hour
  assert.equal(dateTime('2027-02-19T23:30:59Z', 'Asia/Tokyo'), '20 Feb 2027, 08:30');
  assert.doesNotMatch(dateTime('2027-02-19T23:30:59Z'), /T\d|Z$|UTC/);
});

test('a clock time carries its date only when the day differs from now', () => {
  const now = Date.parse('2026-11-26T22:27:00Z');
  assert.equal(clockTime('2026-11-26T12:49:00Z', now), '12:49');
  assert.equal(clockTime('2026-11-25T12:49:00Z', now), '25 Nov, 12:49');
  assert.equal(clockTime('2025-11-25T12:49:00Z', now), '25 Nov 2025, 12:49');
  assert.equal(clockTime(null, now), '');
});

test('"when" is the relative time and the clock time from one now', () => {
  const now = Date.parse('2026-11-26T22:27:00Z');
  assert.equal(whenText('2026-11-26T22:22:00Z', now), '5\u00a0min ago (22:22)');
  assert.equal(whenText('2026-11-26T22:26:50Z', now), 'just now (22:26)');
  assert.equal(whenText(null, now), 'never');
});

test("the demo clock's day is named only when it is not today here", () => {
  const today = Date.parse('2026-11-27T09:30:00Z');
  assert.equal(dayUnlessToday(Date.parse('2026-11-27T23:59:00Z'), today), '');
  assert.equal(dayUnlessToday(Date.parse('2026-12-03T10:21:00Z'), today), '3 Dec');
  assert.equal(dayUnlessToday(Date.parse('2027-01-02T10:21:00Z'), today), '2 Jan 2027');
  assert.equal(dayUnlessToday(Date.parse('2026-11-26T22:00:00Z'), today), '26 Nov');
});

test('a time of day reads as every clock time in the window, seconds when asked', () => {
  const at = Date.parse('2026-11-27T09:17:00.400Z');
  assert.equal(timeOfDayText(at), '09:17');
  assert.equal(timeOfDayText(at, { seconds: true }), '09:17:00');
});
