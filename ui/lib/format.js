// Times and durations in words a person reads at a glance. Every function takes "now" as an
// argument so the tests (and the demo's sped-up clock) decide what time it is.

/**
 * The space between a number and its unit ("60 s", "5 min"): a no-break space, so that a line
 * never breaks between them.
 */
export const NBSP = '\u00a0';

/** "42 s", "3 min 05 s", "2 h 10 min", "3 days". Negative input counts as zero. */
export function duration(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s}${NBSP}s`;
  if (s < 3600) {
    const m = Math.floor(s / 60);
    return s % 60 ? `${m}${NBSP}min ${String(s % 60).padStart(2, '0')}${NBSP}s` : `${m}${NBSP}min`;
  }
  if (s < 86400) {
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    return m ? `${h}${NBSP}h ${m}${NBSP}min` : `${h}${NBSP}h`;
  }
  const d = Math.floor(s / 86400);
  return d === 1 ? `1${NBSP}day` : `${d}${NBSP}days`;
}

/**
 * "just now", "5 min ago", "in 3 h", "2 days ago"; "never" for a missing time. With
 * `{past: true}` a time that can only lie in the past (a check that happened) never reads as
 * "in 4 min" when the clocks disagree: it is "just now".
 */
export function relativeTime(iso, nowMs, { past = false } = {}) {
  if (!iso) return 'never';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return 'unknown';
  const diff = past ? Math.min(0, Math.round((then - nowMs) / 1000)) : Math.round((then - nowMs) / 1000);
  const abs = Math.abs(diff);
  if (abs < 45) return 'just now';
  let text;
  if (abs < 3600) text = `${Math.round(abs / 60)}${NBSP}min`;
  else if (abs < 86400) text = `${Math.round(abs / 3600)}${NBSP}h`;
  else {
    const days = Math.round(abs / 86400);
    text = days === 1 ? `1${NBSP}day` : `${days}${NBSP}days`;
  }
  return diff < 0 ? `${text} ago` : `in ${text}`;
}

/**
 * Absolute times are shown in the user's own time zone and locale, the way the rest of their
 * desktop shows them ("1 Dec 2026", "14:05", "1 Dec, 14:05"), never as ISO text. `zone` is
 * for tests: the window passes nothing and gets the system's zone.
 */
const formats = new Map();
let defaults = { locale: undefined, timeZone: undefined };

/** Sets the locale and time zone every time is shown in (tests pin both; the window does not). */
export function configureTimes({ locale, timeZone } = {}) {
  defaults = { locale, timeZone };
  formats.clear();
}

function formatter(key, options, zone) {
  const timeZone = zone ?? defaults.timeZone;
  const id = `${key}|${timeZone ?? ''}`;
  if (!formats.has(id)) formats.set(id, new Intl.DateTimeFormat(defaults.locale, { ...options, timeZone }));
  return formats.get(id);
}

function parsed(iso) {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

/** "1 Dec 2026" (in the user's locale). Empty for a missing time. */
export function shortDate(iso, zone) {
  const t = parsed(iso);
  if (t == null) return '';
  return formatter('date', { day: 'numeric', month: 'short', year: 'numeric' }, zone).format(t);
}

/** "1 Dec 2026, 14:05" (in the user's locale and zone). */
export function dateTime(iso, zone) {
  const t = parsed(iso);
  if (t == null) return '';
  return formatter('datetime', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' }, zone).format(t);
}

/**
 * The day of instant `ms` ("3 Dec", with the year when that differs too) when it is not the
 * day of `todayMs` on this computer, else "": the demo's clock, set ahead or run fast, says
 * which day it has reached.
 */
export function dayUnlessToday(ms, todayMs, zone) {
  const day = formatter('day', { year: 'numeric', month: 'numeric', day: 'numeric' }, zone);
  if (day.format(ms) === day.format(todayMs)) return '';
  const year = formatter('year', { year: 'numeric' }, zone);
  return year.format(ms) === year.format(todayMs)
    ? formatter('day-month', { day: 'numeric', month: 'short' }, zone).format(ms)
    : formatter('date', { day: 'numeric', month: 'short', year: 'numeric' }, zone).format(ms);
}

/**
 * The time of day of instant `ms` as every clock time in the window reads ("14:05"), with its
 * seconds when asked ("14:05:30").
 */
export function timeOfDayText(ms, { seconds = false } = {}, zone) {
  return seconds
    ? formatter('time-seconds', { hour: '2-digit', minute: '2-digit', second: '2-digit' }, zone).format(ms)
    : formatter('time', { hour: '2-digit', minute: '2-digit' }, zone).format(ms);
}

/**
 * The time of day when `iso` falls on the same day as `nowMs` ("14:05"), else with its date
 * ("28 Nov, 14:05"; with the year when that differs too).
 */
export function clockTime(iso, nowMs, zone) {
  const t = parsed(iso);
  if (t == null) return '';
  const day = formatter('day', { year: 'numeric', month: 'numeric', day: 'numeric' }, zone);
  if (day.format(t) === day.format(nowMs)) return formatter('time', { hour: '2-digit', minute: '2-digit' }, zone).format(t);
  const year = formatter('year', { year: 'numeric' }, zone);
  if (year.format(t) === year.format(nowMs)) return formatter('daytime', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' }, zone).format(t);
  return dateTime(iso, zone);
}

/** "5 min ago (14:05)": the relative time and the clock time, from the same now. */
export function whenText(iso, nowMs, zone) {
  if (!iso) return 'never';
  const rel = relativeTime(iso, nowMs, { past: true });
  const at = clockTime(iso, nowMs, zone);
  return at ? `${rel} (${at})` : rel;
}
