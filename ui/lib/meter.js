// The rate-limit meter's words: how much of the binding window is left, when it refills, until
// when the queue is paused after a 429 or a ban, and the work waiting.
//
// Input is the queue's state as the `queue://changed` event and the `rate_limit_state` command
// carry it:
//   {limit, remaining, reset (Unix s, local clock), window: "minute"|"day"|null,
//    paused_until: RFC 3339|null, banned_until: RFC 3339|null,
//    queued: {interactive, background, bulk},
//    held_back: null | {requests, reason: "interactive_waiting"|"interactive_recent",
//                       until: RFC 3339|null, blocking}}
// (domain_desk_client::QueueState). limit is null until the platform has answered once.
// held_back is the part of the day that background and bulk work leave for your clicks while
// you are using the app; it lapses a few minutes after the last click. The meter speaks of it
// only while it makes background checks wait.

import { platformTime } from './clock.js';
import { clockTime, duration, timeOfDayText } from './format.js';

function secondsUntil(iso, nowMs) {
  if (!iso) return 0;
  const t = typeof iso === 'number' ? iso * 1000 : Date.parse(iso);
  if (Number.isNaN(t)) return 0;
  return Math.max(0, Math.ceil((t - nowMs) / 1000));
}

/** The share of the budget left, 0 to 1, for the meter bar. */
export function fraction(state) {
  if (!state || !state.limit) return 1;
  return Math.min(1, Math.max(0, state.remaining / state.limit));
}

/**
 * A time of day on the computer's clock: the API budget's windows run on real time (the demo's
 * fast clock moves the platform's dates, not the minutes of a rate limit). Seconds only when
 * the moment is less than a minute away, where they matter.
 */
export function timeOfDay(ms, nowMs) {
  const d = new Date(ms);
  const two = (n) => String(n).padStart(2, '0');
  const hm = `${two(d.getHours())}:${two(d.getMinutes())}`;
  return ms - nowMs < 60_000 ? `${hm}:${two(d.getSeconds())}` : hm;
}

/**
 * The meter's times on the window's one clock, `clock` (the platform's; the demo's when it is
 * set ahead or runs fast): the budget's windows run on this computer's clock, so a moment
 * `ms` on it is shown as the time the platform's clock will read then, in the window's format,
 * with seconds when that is less than a minute away and with its day when that is another
 * (the demo's fast clock reaches later days within real minutes). Beside the demo's clock set 5 minutes
 * ahead, "refills at" then names the minute the clock on screen will show, not one 5 minutes
 * before it. A stopped clock names them on this computer's clock.
 */
export function screenTimeOfDay(clock) {
  // A stopped clock (the demo's, speed 0) never reaches a later time, while the budget still
  // refills in real time: its moments are named on this computer's clock then.
  if (clock?.platformMs != null && !(clock.speed > 0)) clock = null;
  return (ms, nowMs) => {
    // to the nearest second: the platform's clock is known from a reading anchored within its
    // request's round trip, and a refill at 12:01:00 must not read 12:00:59
    const at = Math.round(platformTime(clock, ms) / 1000) * 1000;
    const now = platformTime(clock, nowMs);
    if (at - now < 60_000) return timeOfDayText(at, { seconds: true });
    // with its day when that is another one: five real minutes are two days at 600×
    return clockTime(new Date(at).toISOString(), now);
  };
}

function instant(iso) {
  if (!iso) return null;
  const t = typeof iso === 'number' ? iso * 1000 : Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

/**
 * {level: "unknown"|"ok"|"low"|"empty"|"paused"|"banned", budget, reset, pause, queued, held,
 * label, fraction, resetAt}. The words are plain and change only when a figure that matters
 * changes — the remaining count, the window, a pause starting or ending, the work waiting —
 * never every second: times are times of day ("Paused until 12:41"), not countdowns.
 * `label` is one sentence for screen readers and tooltips; `resetAt` (ms) is when the window
 * refills.
 */
export function meterView(state, nowMs, { timeText = timeOfDay } = {}) {
  if (!state || state.limit == null) {
    const queued = queuedText(state?.queued);
    return { level: 'unknown', budget: 'Budget unknown until the first request', reset: '', pause: '', queued, held: '', label: ['Rate limit not known yet', queued].filter(Boolean).join('; ') + '.', fraction: 1, resetAt: null };
  }
  const window = state.window === 'day' ? 'today' : 'this minute';
  const resetAt = instant(state.reset);
  const resetIn = secondsUntil(state.reset, nowMs);
  // Once the binding window has reset, its whole limit is back (as far as the other window
  // allows) even though no request has told the queue yet.
  const refilled = resetIn <= 0 && state.reset != null;
  const otherRemaining = state.window === 'day' ? state.minute?.remaining : state.day?.remaining;
  const remaining = refilled ? Math.min(state.limit, otherRemaining ?? state.limit) : state.remaining;
  const budget = `${remaining} of ${state.limit} requests left ${window}`;
  const reset = resetIn > 0 && remaining < state.limit ? `refills at ${timeText(resetAt, nowMs)}` : '';
  const bannedFor = secondsUntil(state.banned_until, nowMs);
  const pausedFor = secondsUntil(state.paused_until, nowMs);
  const waiting = waitingCount(state.queued);
  const waitingText = waiting ? ` — ${waiting} ${waiting === 1 ? 'request' : 'requests'} waiting` : '';
  let level;
  let pause = '';
  if (bannedFor > 0) {
    level = 'banned';
    pause = `Paused until ${timeText(instant(state.banned_until), nowMs)}: the platform refused the key for asking while limited${waitingText}`;
  } else if (pausedFor > 0) {
    level = 'paused';
    pause = `Paused until ${timeText(instant(state.paused_until), nowMs)}${waitingText}`;
  } else if (remaining <= 0) {
    level = 'empty';
  } else if (remaining / state.limit < 0.1) {
    level = 'low';
  } else {
    level = 'ok';
  }
  // While paused, the pause says what waits.
  const queued = pause ? '' : queuedText(state.queued);
  const held = heldText(state.held_back, nowMs, timeText, state.queued);
  const label = [budget, reset, pause, queued, held].filter(Boolean).join('; ') + '.';
  return { level, budget, reset, pause, queued, held, label, fraction: fraction({ limit: state.limit, remaining }), resetAt: reset ? resetAt : null };
}

function waitingCount(queued) {
  return (queued?.interactive ?? 0) + (queued?.background ?? 0) + (queued?.bulk ?? 0);
}

/**
 * What waits because of the day reserve, and until when, in plain words short enough for the
 * status bar of the smallest window: "Background checks wait until 12:45 (50 kept for you)",
 * or, while your own requests are queued, "Background checks wait for your requests (50 kept
 * for you)". Nothing while
 * the reserve stops nothing (background work has requests enough), once its time has passed,
 * or when the requests it was kept for are no longer waiting (`queued`, the queue's counts):
 * the meter never says something waits after the wait ended. A time of day, not a countdown,
 * so the words stay still. Shown with textContent by the meter.
 */
export function heldText(held, nowMs, timeText = timeOfDay, queued = null) {
  const requests = Number(held?.requests);
  if (!held || !held.blocking || !Number.isFinite(requests) || requests <= 0) return '';
  const kept = `${requests} kept for you`;
  if (held.reason === 'interactive_waiting') {
    return (queued?.interactive ?? 0) > 0 ? `Background checks wait for your requests (${kept})` : '';
  }
  if (secondsUntil(held.until, nowMs) <= 0) return '';
  return `Background checks wait until ${timeText(instant(held.until), nowMs)} (${kept})`;
}

/** "" when nothing waits; "3 requests waiting: 1 yours, 2 in the background" (bulk named only when there is some). */
export function queuedText(queued) {
  const interactive = queued?.interactive ?? 0;
  const background = queued?.background ?? 0;
  const bulk = queued?.bulk ?? 0;
  const total = interactive + background + bulk;
  if (total === 0) return '';
  const parts = [interactive ? `${interactive} yours` : '', background ? `${background} in the background` : '', bulk ? `${bulk} from the import` : ''].filter(Boolean);
  return `${total} ${total === 1 ? 'request' : 'requests'} waiting: ${parts.join(', ')}`;
}

/**
 * The Domains table's note when it shows no rows. While the project's domains are on their
 * way it says so — with why it waits, when the queue is paused — and never "No custom domains
 * yet", which is only true once the platform has answered.
 */
export function emptyText({ total, loading, queue, now, timeText = timeOfDay, demo = false }) {
  if (total > 0) return 'No domain matches the filter.';
  if (!loading) {
    const empty = 'No custom domains yet. The project is served at its default address.';
    // The demo seeds a site live on another host: what to try with it, in one sentence.
    return demo ? `${empty} To try attaching a live site without a gap, add shop.example.org: it is served by another host (192.0.2.77) today.` : empty;
  }
  const view = meterView(queue, now, { timeText });
  if (view.pause) return `Loading domains… ${view.pause}.`;
  const waiting = waitingCount(queue?.queued);
  return waiting > 1 ? `Loading domains… ${waiting} requests waiting.` : 'Loading domains…';
}
