// The rate-limit meter's words: how much of the binding window is left, when it resets, a
// countdown while the queue is paused after a 429 or a ban, and the queued work per class.
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
// you are using the app; it lapses a few minutes after the last click.

import { duration } from './format.js';

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
 * {level: "unknown"|"ok"|"low"|"empty"|"paused"|"banned", budget, reset, pause, queued, label}.
 * `label` is one sentence for screen readers and tooltips.
 */
export function meterView(state, nowMs) {
  if (!state || state.limit == null) {
    const queued = queuedText(state?.queued);
    return { level: 'unknown', budget: 'Budget unknown until the first request', reset: '', pause: '', queued, held: '', label: 'Rate limit not known yet.', fraction: 1 };
  }
  const window = state.window === 'day' ? 'today' : 'this minute';
  const resetIn = secondsUntil(state.reset, nowMs);
  // Once the binding window has reset, its whole limit is back (as far as the other window
  // allows) even though no request has told the queue yet.
  const refilled = resetIn <= 0 && state.reset != null;
  const otherRemaining = state.window === 'day' ? state.minute?.remaining : state.day?.remaining;
  const remaining = refilled ? Math.min(state.limit, otherRemaining ?? state.limit) : state.remaining;
  const budget = `${remaining} of ${state.limit} left ${window}`;
  const reset = resetIn > 0 ? `resets in ${duration(resetIn)}` : '';
  const bannedFor = secondsUntil(state.banned_until, nowMs);
  const pausedFor = secondsUntil(state.paused_until, nowMs);
  let level;
  let pause = '';
  if (bannedFor > 0) {
    level = 'banned';
    pause = `Key banned after repeated requests while limited — requests resume in ${duration(bannedFor)}`;
  } else if (pausedFor > 0) {
    level = 'paused';
    pause = `Paused after a 429 — retrying in ${duration(pausedFor)}`;
  } else if (remaining <= 0) {
    level = 'empty';
  } else if (remaining / state.limit < 0.1) {
    level = 'low';
  } else {
    level = 'ok';
  }
  const queued = queuedText(state.queued);
  const held = heldText(state.held_back, nowMs);
  const label = [budget, reset, pause, queued, held].filter(Boolean).join('; ') + '.';
  return { level, budget, reset, pause, queued, held, label, fraction: fraction({ limit: state.limit, remaining }) };
}

/**
 * What the day reserve holds back and why: "" when background work may use the whole day.
 * "50 of today's requests kept for your clicks (you used the app recently; for 4 min
 * more)", with "— background work waits for the next day" while it is what stops that work.
 * Shown with textContent by the meter.
 */
export function heldText(held, nowMs) {
  const requests = Number(held?.requests);
  if (!held || !Number.isFinite(requests) || requests <= 0) return '';
  const why = held.reason === 'interactive_waiting'
    ? 'your requests are waiting'
    : 'you used the app recently';
  const left = secondsUntil(held.until, nowMs);
  const until = held.reason === 'interactive_recent' && left > 0 ? `; for ${duration(left)} more` : '';
  const blocking = held.blocking ? ' — background work waits for the next day' : '';
  return `${requests} of today's requests kept for your clicks (${why}${until})${blocking}`;
}

/** "Nothing queued", "3 queued: 1 interactive, 2 background" (bulk named only when there is some). */
export function queuedText(queued) {
  const interactive = queued?.interactive ?? 0;
  const background = queued?.background ?? 0;
  const bulk = queued?.bulk ?? 0;
  const total = interactive + background + bulk;
  if (total === 0) return 'Nothing queued';
  return `${total} queued: ${interactive} interactive, ${background} background${bulk ? `, ${bulk} bulk` : ''}`;
}
