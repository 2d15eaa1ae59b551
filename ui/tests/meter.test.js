import { test } from 'node:test';
import assert from 'node:assert/strict';
import { meterView, queuedText, fraction, heldText, timeOfDay, emptyText } from '../lib/meter.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const nowS = NOW / 1000;

test('before any request the budget is unknown', () => {
  assert.equal(meterView(null, NOW).level, 'unknown');
});

// Times of day in UTC here, so the tests do not depend on the machine's time zone.
const utc = (ms, nowMs) => new Date(ms).toISOString().slice(11, ms - nowMs < 60_000 ? 19 : 16);
const view = (state, now = NOW) => meterView(state, now, { timeText: utc });

test('remaining of limit for the binding window in plain words, with when it refills', () => {
  const v = view({ limit: 300, remaining: 287, reset: nowS + 42, window: 'minute', queued: { interactive: 0, background: 0 } });
  assert.equal(v.budget, '287 of 300 requests left this minute');
  assert.equal(v.reset, 'refills at 12:00:42');
  assert.equal(v.resetAt, NOW + 42_000);
  assert.equal(v.level, 'ok');
  assert.equal(v.queued, '', 'nothing waiting is not worth a word');
  const day = view({ limit: 1000, remaining: 50, reset: nowS + 7200, window: 'day' });
  assert.equal(day.budget, '50 of 1000 requests left today');
  assert.equal(day.reset, 'refills at 14:00');
  assert.equal(day.level, 'low');
  assert.equal(view({ limit: 60, remaining: 60, reset: nowS + 42, window: 'minute' }).reset, '', 'a full window has nothing to refill');
});

test('the words change only when a figure that matters changes, not every second', () => {
  const state = { limit: 60, remaining: 58, reset: nowS + 50, window: 'minute', queued: { interactive: 0, background: 3 } };
  const seen = new Set();
  for (let s = 0; s < 50; s++) {
    const v = view(state, NOW + s * 1000);
    seen.add([v.budget, v.reset, v.pause, v.queued, v.held].join('|'));
  }
  assert.equal(seen.size, 1, `one text over the 50 s: ${[...seen].join(' / ')}`);
  const paused = { ...state, remaining: 0, paused_until: new Date(NOW + 40_000).toISOString() };
  const pauses = new Set();
  for (let s = 0; s < 40; s++) pauses.add(view(paused, NOW + s * 1000).pause);
  assert.deepEqual([...pauses], ['Paused until 12:00:40 — 3 requests waiting']);
  // At the reset the window is full again without a request: that does change the words.
  assert.equal(view(state, NOW + 51_000).budget, '60 of 60 requests left this minute');
});

test('a 429 pause says until when and what waits', () => {
  const state = { limit: 60, remaining: 0, reset: nowS + 12, window: 'minute', paused_until: new Date(NOW + 12_000).toISOString(), queued: { interactive: 1, background: 2 } };
  const v = view(state);
  assert.equal(v.level, 'paused');
  assert.equal(v.pause, 'Paused until 12:00:12 — 3 requests waiting');
  assert.equal(v.queued, '', 'the pause already says what waits');
  const long = view({ ...state, paused_until: new Date(NOW + 41 * 60_000).toISOString() });
  assert.equal(long.pause, 'Paused until 12:41 — 3 requests waiting');
  // After the reset the minute's budget is back, as far as the day window allows.
  const after = view({ ...state, day: { limit: 1000, remaining: 40 } }, NOW + 13_000);
  assert.equal(after.level, 'ok');
  assert.equal(after.budget, '40 of 60 requests left this minute');
  assert.equal(after.reset, '');
  const empty = view({ ...state, paused_until: null });
  assert.equal(empty.level, 'empty', 'an exhausted budget is its own level (drawn red)');
  assert.equal(empty.queued, '3 requests waiting: 1 yours, 2 in the background');
  assert.match(v.label, /^0 of 60 requests left this minute; refills at 12:00:12; Paused until 12:00:12/);
});

test('a ban wins over a pause', () => {
  const v = view({ limit: 60, remaining: 0, reset: nowS + 30, banned_until: new Date(NOW + 900_000).toISOString(), paused_until: new Date(NOW + 5000).toISOString() });
  assert.equal(v.level, 'banned');
  assert.equal(v.pause, 'Paused until 12:15: the platform refused the key for asking while limited');
});

test('fraction is clamped; the work waiting in plain words', () => {
  assert.equal(fraction({ limit: 10, remaining: 20 }), 1);
  assert.equal(fraction({ limit: 10, remaining: 5 }), 0.5);
  assert.equal(queuedText(undefined), '');
  assert.equal(queuedText({ interactive: 1, background: 0 }), '1 request waiting: 1 yours');
  assert.equal(queuedText({ interactive: 0, background: 1, bulk: 2 }), '3 requests waiting: 1 in the background, 2 from the import');
});

test('a time of day shows seconds only when the moment is less than a minute away', () => {
  const at = new Date(2026, 10, 21, 12, 41, 7).getTime();
  assert.equal(timeOfDay(at, at - 30_000), '12:41:07');
  assert.equal(timeOfDay(at, at - 5 * 60_000), '12:41');
});

test('the day reserve says in plain words what waits and until when, and nothing when nothing waits', () => {
  const base = { limit: 1000, remaining: 40, reset: nowS + 7200, window: 'day' };
  assert.equal(meterView(base, NOW).held, '');
  assert.equal(meterView({ ...base, held_back: null }, NOW).held, '');
  const recent = { requests: 50, reason: 'interactive_recent', until: new Date(NOW + 240_000).toISOString(), blocking: true };
  const v = view({ ...base, held_back: recent });
  assert.equal(v.held, 'Background checks wait until 12:04 (50 kept for you)');
  // The words stay still while the reserve lasts: a time of day, not a countdown.
  assert.equal(view({ ...base, held_back: recent }, NOW + 61_000).held, v.held);
  assert.match(v.label, /Background checks wait until 12:04/);
  // Once its time has passed (the queue sends nothing new when only time passes), it is not said.
  assert.equal(view({ ...base, held_back: recent }, NOW + 241_000).held, '');
  // A reserve that stops nothing (background work has enough) is not worth a word.
  assert.equal(view({ ...base, held_back: { ...recent, blocking: false } }).held, '');
  // Kept for requests that wait: said while they wait, and not once they have gone (the
  // tooltip kept "your requests are waiting" after the wait ended).
  const waiting = { requests: 50, reason: 'interactive_waiting', until: null, blocking: true };
  assert.equal(
    heldText(waiting, NOW, utc, { interactive: 2, background: 5 }),
    'Background checks wait for your requests (50 kept for you)',
  );
  assert.equal(heldText(waiting, NOW, utc, { interactive: 0, background: 5 }), '');
  const after = view({ ...base, held_back: waiting, queued: { interactive: 0, background: 5 } });
  assert.equal(after.held, '');
  assert.doesNotMatch(after.label, /your requests/);
  // Values are numbers from the queue; anything else shows nothing rather than markup.
  assert.equal(heldText({ requests: '<img src=x>', reason: 'interactive_recent' }, NOW), '');
});

test('a project whose domains are on their way is loading, never "No custom domains yet"', () => {
  const paused = { limit: 60, remaining: 0, reset: nowS + 20, window: 'minute', paused_until: new Date(NOW + 20_000).toISOString(), queued: { interactive: 3, background: 0 } };
  assert.equal(emptyText({ total: 0, loading: true, queue: paused, now: NOW, timeText: utc }), 'Loading domains… Paused until 12:00:20 — 3 requests waiting.');
  assert.equal(emptyText({ total: 0, loading: true, queue: null, now: NOW }), 'Loading domains…');
  assert.equal(emptyText({ total: 0, loading: true, queue: { limit: 60, remaining: 50, queued: { interactive: 1, background: 4 } }, now: NOW }), 'Loading domains… 5 requests waiting.');
  assert.equal(emptyText({ total: 0, loading: false, queue: paused, now: NOW }), 'No custom domains yet. The project is served at its default address.');
  assert.equal(emptyText({ total: 3, loading: false, queue: null, now: NOW }), 'No domain matches the filter.');
  // the demo says what to try with the site it seeds live on another host
  assert.match(emptyText({ total: 0, loading: false, queue: null, now: NOW, demo: true }), /^No custom domains yet\. .* add shop\.example\.org: it is served by another host \(192\.0\.2\.77\) today\.$/);
  assert.doesNotMatch(emptyText({ total: 0, loading: true, queue: null, now: NOW, demo: true }), /shop\.example\.org/);
});

test("the meter's times are on the window's one clock: the demo's, when it is set ahead or runs fast", async () => {
  const { configureTimes } = await import('../lib/format.js');
  const { screenTimeOfDay } = await import('../lib/meter.js');
  configureTimes({ locale: 'en-GB', timeZone: 'UTC' });
  try {
    const state = { limit: 300, remaining: 287, reset: nowS + 42, window: 'minute', queued: { interactive: 0, background: 0 } };
    // this computer's clock: as the budget's own
    const wall = { platformMs: null, wallMs: 0, speed: 1 };
    assert.equal(meterView(state, NOW, { timeText: screenTimeOfDay(wall) }).reset, 'refills at 12:00:42');
    // the demo's clock 5 minutes ahead: the refill is named on it, as the clock on screen reads
    const ahead = { platformMs: NOW + 300_000, wallMs: NOW, speed: 1 };
    assert.equal(meterView(state, NOW, { timeText: screenTimeOfDay(ahead) }).reset, 'refills at 12:05:42');
    // the clock as read a fraction of a second off (the reading's round trip): still 12:05:42
    const offBy = (ms) => ({ platformMs: NOW + 300_000 + ms, wallMs: NOW, speed: 1 });
    assert.equal(meterView(state, NOW, { timeText: screenTimeOfDay(offBy(-400)) }).reset, 'refills at 12:05:42');
    assert.equal(meterView(state, NOW, { timeText: screenTimeOfDay(offBy(400)) }).reset, 'refills at 12:05:42');
    // at 600× the 42 s of real time are 7 hours of the demo's: its time of day, no seconds
    const fast = { platformMs: NOW, wallMs: NOW, speed: 600 };
    assert.equal(meterView(state, NOW, { timeText: screenTimeOfDay(fast) }).reset, 'refills at 19:00');
    // five real minutes at 600× are 50 hours of the demo's: the day is named with the time
    const later = { ...state, held_back: { requests: 50, reason: 'interactive_recent', until: new Date(NOW + 300_000).toISOString(), blocking: true } };
    assert.match(meterView(later, NOW, { timeText: screenTimeOfDay(fast) }).held, /wait until 23 Nov, 14:00 \(/);
    // a stopped demo clock never gets there: the refill, in real time, on this computer's clock
    const stopped = { platformMs: NOW + 300_000, wallMs: NOW, speed: 0 };
    assert.equal(meterView(state, NOW, { timeText: screenTimeOfDay(stopped) }).reset, 'refills at 12:00:42');
    // a pause the same way
    const paused = { ...state, paused_until: new Date(NOW + 20_000).toISOString() };
    assert.equal(meterView(paused, NOW, { timeText: screenTimeOfDay(ahead) }).pause, 'Paused until 12:05:20');
  } finally {
    configureTimes();
  }
});
