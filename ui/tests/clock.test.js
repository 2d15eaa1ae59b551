import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WALL_CLOCK, clockFromReading, platformTime, tickEvery, wallDelayUntil } from '../lib/clock.js';

test('the platform clock is extrapolated at its speed from one reading', () => {
  const wall = Date.parse('2026-11-26T12:00:00Z');
  const clock = clockFromReading({ now: '2026-11-26T22:27:00Z', speed: 600 }, wall);
  assert.equal(new Date(platformTime(clock, wall)).toISOString(), '2026-11-26T22:27:00.000Z');
  // one real second later the demo's clock is ten minutes on
  assert.equal(new Date(platformTime(clock, wall + 1000)).toISOString(), '2026-11-26T22:37:00.000Z');
  // a stopped clock stays put
  const stopped = clockFromReading({ now: '2026-11-26T22:27:00Z', speed: 0 }, wall);
  assert.equal(platformTime(stopped, wall + 60_000), Date.parse('2026-11-26T22:27:00Z'));
  // no reading: this computer's clock
  assert.equal(platformTime(WALL_CLOCK, wall), wall);
  assert.equal(clockFromReading({ now: 'garbage' }, wall), WALL_CLOCK);
});

test('ticks come often enough for minute texts at the clock’s speed, and not more than once a second', () => {
  assert.equal(tickEvery(WALL_CLOCK), 15_000);
  assert.equal(tickEvery({ platformMs: 0, wallMs: 0, speed: 60 }), 1_000);
  assert.equal(tickEvery({ platformMs: 0, wallMs: 0, speed: 600 }), 1_000);
  assert.equal(tickEvery({ platformMs: 0, wallMs: 0, speed: 5 }), 3_000);
  assert.equal(tickEvery({ platformMs: 0, wallMs: 0, speed: 0 }), 15_000);
});

test('a platform deadline is reached in wall time divided by the speed', () => {
  const clock = { platformMs: 1_000_000, wallMs: 0, speed: 600 };
  assert.equal(wallDelayUntil(clock, 1_000_000 + 4 * 60_000, 0), 400);
  assert.equal(wallDelayUntil(clock, 0, 0), 0);
  assert.equal(wallDelayUntil({ platformMs: 0, wallMs: 0, speed: 0 }, 10, 0), Infinity);
  assert.equal(wallDelayUntil(WALL_CLOCK, 5_000, 1_000), 4_000);
});
