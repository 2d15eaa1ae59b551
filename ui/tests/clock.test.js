import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WALL_CLOCK, clockFromReading, nextTickDelay, platformTime, tickEvery, wallDelayUntil } from '../lib/clock.js';

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

test('the screen ticks at the turn of the minute, so the clock on screen turns with it', () => {
  const at = (text) => Date.parse(`2026-11-27T${text}Z`);
  // this computer's clock: 08:55:50 waits 10 s (and a few ms), not the usual 15 s
  assert.equal(nextTickDelay(WALL_CLOCK, at('08:55:50')), 10_005);
  // the tick a few ms into 08:56 waits the usual 15 s
  assert.equal(nextTickDelay(WALL_CLOCK, at('08:56:00.005')), 15_000);
  // every minute is reached: from anywhere in it, the next tick is never later than its turn
  for (let ms = 0; ms < 60_000; ms += 250) {
    const wall = at('08:55:00') + ms;
    const tick = wall + nextTickDelay(WALL_CLOCK, wall);
    assert.ok(tick <= at('08:56:00') + 5, `from ${ms} ms into the minute`);
    assert.ok(tick - wall <= 15_000 && tick > wall);
  }
  // a demo clock at 5×: a platform minute is 12 s of wall time, the interval 3 s
  const fast = { platformMs: at('22:27:59'), wallMs: 0, speed: 5 };
  assert.equal(nextTickDelay(fast, 0), 205);
  // 60× and faster: every tick falls in a new minute already, the interval stays
  assert.equal(nextTickDelay({ platformMs: at('22:27:59'), wallMs: 0, speed: 60 }, 0), 1_000);
  assert.equal(nextTickDelay({ platformMs: at('22:27:59'), wallMs: 0, speed: 600 }, 0), 1_000);
  // a stopped clock never turns: the usual interval
  assert.equal(nextTickDelay({ platformMs: at('22:27:59'), wallMs: 0, speed: 0 }, 0), 15_000);
});
