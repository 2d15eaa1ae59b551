// The window's one clock. Every time on screen comes from the platform's clock — the local
// service's when the offline demo runs it fast, else this computer's — and every relative
// time is computed from the same "now": the last tick's, held in the store, so the table and
// the detail panel can never say "1 min ago" and "just now" about the same check.
//
// The platform's clock is known from one reading, `{now, speed}`, taken at a wall-clock
// instant; between readings it is extrapolated at its speed (600× in a fast demo).

/** The clock of a platform that reports none: this computer's. */
export const WALL_CLOCK = Object.freeze({ platformMs: null, wallMs: 0, speed: 1 });

/** A reading of the platform's clock (`GET /_local/clock`), anchored at `wallMs`. */
export function clockFromReading(reading, wallMs) {
  const platformMs = Date.parse(reading?.now);
  if (Number.isNaN(platformMs)) return WALL_CLOCK;
  const speed = Number.isFinite(reading.speed) && reading.speed >= 0 ? reading.speed : 1;
  return { platformMs, wallMs, speed };
}

/** The platform's time at wall-clock instant `wallMs`. */
export function platformTime(clock, wallMs) {
  if (clock?.platformMs == null) return wallMs;
  return clock.platformMs + (wallMs - clock.wallMs) * clock.speed;
}

/**
 * Wall-clock milliseconds between ticks, so that minute-resolution texts ("5 min ago") stay
 * right: four ticks a platform minute, at least one a second and at most one every 15 s.
 */
export function tickEvery(clock) {
  const speed = clock?.platformMs == null ? 1 : clock.speed;
  if (!(speed > 0)) return 15_000;
  return Math.min(15_000, Math.max(1_000, 15_000 / speed));
}

/** Wall-clock milliseconds until the platform's clock reaches `platformMs` (0 if it has). */
export function wallDelayUntil(clock, platformMs, wallMs) {
  const left = platformMs - platformTime(clock, wallMs);
  if (left <= 0) return 0;
  const speed = clock?.platformMs == null ? 1 : clock.speed;
  return speed > 0 ? left / speed : Infinity;
}

/**
 * Wall-clock milliseconds from `wallMs` to the screen's next tick: the usual interval
 * ([`tickEvery`]), or sooner when the platform's clock turns to a new minute before it, so
 * the time of day on screen turns with the minute. Between ticks every text keeps the last
 * tick's "now", and the clock's "8:55" would otherwise stay up to 15 s into 8:56 while the
 * rate meter, which reads the seconds, already counts down to 8:57:00. When a platform minute
 * lasts no longer than the interval (60× and faster) every tick is in a new minute anyway.
 */
export function nextTickDelay(clock, wallMs) {
  const every = tickEvery(clock);
  const speed = clock?.platformMs == null ? 1 : clock.speed;
  if (!(speed > 0) || 60_000 / speed <= every) return every;
  const intoMinute = ((platformTime(clock, wallMs) % 60_000) + 60_000) % 60_000;
  // a few ms past the turn, so the tick's "now" is in the new minute
  const toNextMinute = Math.ceil((60_000 - intoMinute) / speed) + 5;
  return Math.min(every, toNextMinute);
}
