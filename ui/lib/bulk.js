// Words for Import… and Export…: the progress line while rows go out, and the summary after.

/** Seconds as 1h02m, 3m05s, 12s. */
export function durationText(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/** `120 of 250 · 3.2 a second · about 1m05s left` from the import's progress message. */
export function progressText(progress) {
  const parts = [`${progress.answered} of ${progress.total}`];
  if (progress.rate > 0) parts.push(`${progress.rate.toFixed(1)} a second`);
  const eta = progress.eta ? progress.eta.secs + progress.eta.nanos / 1e9 : null;
  if (eta != null && progress.answered < progress.total) parts.push(`about ${durationText(eta)} left (the plan's rate limit)`);
  return parts.join(' · ');
}

/** Share done, 0 to 1. */
export function progressShare(progress) {
  return progress.total ? progress.answered / progress.total : 1;
}

/** The summary after an import: a headline, a tone, and a line per row that needs a look. */
export function summaryView(result) {
  const { summary } = result;
  const earlier = summary.already_present.filter((r) => r.added_by_earlier_run).length;
  const counts = [
    `${summary.created.length} added`,
    `${summary.already_present.length} already there${earlier ? ` (${earlier} by an earlier run)` : ''}`,
  ];
  if (summary.refused.length) counts.push(`${summary.refused.length} refused`);
  if (summary.unfinished.length) counts.push(`${summary.unfinished.length} not done`);
  const lines = [
    ...summary.refused.map((r) => `Line ${r.line}: ${r.hostname} — ${r.reason}`),
    ...summary.unfinished.map((r) => `Line ${r.line}: ${r.hostname} — ${r.reason}`),
    ...summary.already_present.filter((r) => r.differs).map((r) => `Line ${r.line}: ${r.hostname} is there, but ${r.differs}`),
  ];
  const done = !summary.refused.length && !summary.unfinished.length && !summary.stopped;
  return {
    headline: `${summary.stopped ? 'Import stopped' : 'Import finished'}: ${counts.join(', ')}.`,
    tone: done ? 'ok' : 'warning',
    lines,
    retry: result.retry_file ? `The rows to try again are in ${result.retry_file}; import that file once the reasons above are fixed.` : null,
  };
}
