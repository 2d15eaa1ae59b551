import { test } from 'node:test';
import assert from 'node:assert/strict';
import { meterView, queuedText, fraction, heldText } from '../lib/meter.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const nowS = NOW / 1000;

test('before any request the budget is unknown', () => {
  assert.equal(meterView(null, NOW).level, 'unknown');
});

test('remaining of limit for the binding window, with time to reset', () => {
  const v = meterView({ limit: 300, remaining: 287, reset: nowS + 42, window: 'minute', queued: { interactive: 0, background: 0 } }, NOW);
  assert.equal(v.budget, '287 of 300 left this minute');
  assert.equal(v.reset, 'resets in 42 s');
  assert.equal(v.level, 'ok');
  assert.equal(v.queued, 'Nothing queued');
  const day = meterView({ limit: 1000, remaining: 50, reset: nowS + 7200, window: 'day' }, NOW);
  assert.equal(day.budget, '50 of 1000 left today');
  assert.equal(day.level, 'low');
});

test('a 429 pause counts down', () => {
  const state = { limit: 60, remaining: 0, reset: nowS + 12, window: 'minute', paused_until: new Date(NOW + 12_000).toISOString(), queued: { interactive: 1, background: 4 } };
  const v = meterView(state, NOW);
  assert.equal(v.level, 'paused');
  assert.equal(v.pause, 'Paused after a 429 — retrying in 12 s');
  assert.equal(meterView(state, NOW + 5_000).pause, 'Paused after a 429 — retrying in 7 s');
  // After the reset the minute's budget is back, as far as the day window allows.
  const after = meterView({ ...state, day: { limit: 1000, remaining: 40 } }, NOW + 13_000);
  assert.equal(after.level, 'ok');
  assert.equal(after.budget, '40 of 60 left this minute');
  assert.equal(after.reset, '');
  assert.equal(meterView({ ...state, paused_until: null }, NOW).level, 'empty');
  assert.equal(v.queued, '5 queued: 1 interactive, 4 background');
  assert.match(v.label, /^0 of 60 left this minute; resets in 12 s; Paused after a 429/);
});

test('a ban wins over a pause', () => {
  const v = meterView({ limit: 60, remaining: 0, reset: nowS + 30, banned_until: new Date(NOW + 900_000).toISOString(), paused_until: new Date(NOW + 5000).toISOString() }, NOW);
  assert.equal(v.level, 'banned');
  assert.match(v.pause, /15 min/);
});

test('fraction is clamped', () => {
  assert.equal(fraction({ limit: 10, remaining: 20 }), 1);
  assert.equal(fraction({ limit: 10, remaining: 5 }), 0.5);
  assert.equal(queuedText(undefined), 'Nothing queued');
  assert.equal(queuedText({ interactive: 0, background: 1, bulk: 2 }), '3 queued: 0 interactive, 1 background, 2 bulk');
});

test('the day reserve says what it holds back and why, and nothing when it is off', () => {
  const base = { limit: 1000, remaining: 40, reset: nowS + 7200, window: 'day' };
  assert.equal(meterView(base, NOW).held, '');
  assert.equal(meterView({ ...base, held_back: null }, NOW).held, '');
  const recent = { requests: 50, reason: 'interactive_recent', until: new Date(NOW + 240_000).toISOString(), blocking: true };
  const v = meterView({ ...base, held_back: recent }, NOW);
  assert.equal(v.held, "50 of today's requests kept for your clicks (you used the app recently; for 4 min more) — background work waits for the next day");
  assert.match(v.label, /kept for your clicks/);
  assert.equal(
    heldText({ requests: 50, reason: 'interactive_waiting', until: null, blocking: false }, NOW),
    "50 of today's requests kept for your clicks (your requests are waiting)",
  );
  // Values are numbers from the queue; anything else shows nothing rather than markup.
  assert.equal(heldText({ requests: '<img src=x>', reason: 'interactive_recent' }, NOW), '');
});
