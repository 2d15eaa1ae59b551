// Times and durations in words a person reads at a glance. Every function takes "now" as an
// argument so the tests (and the demo's sped-up clock) decide what time it is.

/** "42 s", "3 min 05 s", "2 h 10 min", "3 days". Negative input counts as zero. */
export function duration(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) {
    const m = Math.floor(s / 60);
    return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  }
  if (s < 86400) {
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  const d = Math.floor(s / 86400);
  return d === 1 ? '1 day' : `${d} days`;
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
  if (abs < 3600) text = `${Math.round(abs / 60)} min`;
  else if (abs < 86400) text = `${Math.round(abs / 3600)} h`;
  else {
    const days = Math.round(abs / 86400);
    text = days === 1 ? '1 day' : `${days} days`;
  }
  return diff < 0 ? `${text} ago` : `in ${text}`;
}

/** "2026-12-01" in UTC: unambiguous in every locale. Empty for a missing time. */
export function shortDate(iso) {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  return new Date(t).toISOString().slice(0, 10);
}

/** "2026-12-01 14:05 UTC". */
export function dateTime(iso) {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  return `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
