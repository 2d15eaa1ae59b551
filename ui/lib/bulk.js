// Words for Import… and Export…: the progress line while rows go out, the summary after, and
// the table of rows that refused a file (values from the user's file: markup only via `html`).
import { html } from './html.js';

/** Seconds as 1h02m, 3m05s, 12s. */
export function durationText(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/**
 * `120 of 250 · 3.2 a second · about 1m05s left` from the import's progress message, read
 * `sinceSeconds` after it came: the time left counts down while the import waits for the
 * plan's window and no row is answered (it never reads less than a second until it is done).
 */
export function progressText(progress, sinceSeconds = 0) {
  const parts = [`${progress.answered} of ${progress.total}`];
  if (progress.rate > 0) parts.push(`${progress.rate.toFixed(1)} a second`);
  const eta = progress.eta ? progress.eta.secs + progress.eta.nanos / 1e9 : null;
  if (eta != null && progress.answered < progress.total) parts.push(`about ${durationText(Math.max(eta - sinceSeconds, 1))} left (the plan's rate limit)`);
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
  const skipped = summary.skipped ?? [];
  if (skipped.length) counts.push(`${skipped.length} left out as invalid`);
  const lines = [
    ...summary.refused.map((r) => `Line ${r.line}: ${r.hostname} — ${r.reason}`),
    ...summary.unfinished.map((r) => `Line ${r.line}: ${r.hostname} — ${r.reason}`),
    ...summary.already_present.filter((r) => r.differs).map((r) => `Line ${r.line}: ${r.hostname} is there, but ${r.differs}`),
    ...skipped.map((r) => `Line ${r.line}: ${r.value} — ${r.message}`),
  ];
  const done = !summary.refused.length && !summary.unfinished.length && !skipped.length && !summary.stopped;
  return {
    headline: `${summary.stopped ? 'Import stopped' : 'Import finished'}: ${counts.join(', ')}.`,
    tone: done ? 'ok' : 'warning',
    lines,
    retry: result.retry_file ? `The rows to try again are in ${result.retry_file}; import that file once the reasons above are fixed.` : null,
  };
}

/** The refusal an import answers with (`import_refused`), or null for any other error. */
export function refusalOf(err) {
  return err?.kind === 'import_refused' && err.refusal && Array.isArray(err.refusal.problems) ? err.refusal : null;
}

/** "Import the 26 valid rows" (one row: "Import the 1 valid row"). */
export function importValidLabel(refusal) {
  return `Import the ${refusal.valid} valid ${refusal.valid === 1 ? 'row' : 'rows'}`;
}

/** The file's name without its folders, for a headline. */
function baseName(path) {
  return String(path).split(/[\\/]/).pop();
}

/**
 * The refusal as the bulk panel shows it until the next import, another file or Close: a
 * headline, a table (Line, Value, Problem), the button that imports the valid rows, and
 * where the other rows would go.
 */
export function refusalMarkup(refusal) {
  const count = refusal.problems.length;
  const rows = refusal.problems.map((p) => html`<tr><td class="num">${p.line}</td><td class="mono">${p.value}</td><td>${p.message}</td></tr>`);
  return html`
    <div class="bulk-refusal" id="import-refusal">
      <h3 id="import-refusal-title" tabindex="-1">Nothing was imported: ${count} ${count === 1 ? 'row' : 'rows'} of ${baseName(refusal.file)} cannot be imported as written.</h3>
      <table class="bulk-problems" aria-labelledby="import-refusal-title">
        <thead><tr><th scope="col">Line</th><th scope="col">Value</th><th scope="col">Problem</th></tr></thead>
        <tbody>${rows}</tbody>
      </table>
      ${refusal.valid > 0 ? html`
        <p>Fix these lines and import the file again, or import the valid rows now; the ${count} other ${count === 1 ? 'row goes' : 'rows go'} to <span class="mono">${refusal.retry_file}</span>, each under a comment saying why, to import later.</p>` : html`
        <p>No row of the file can be imported as written; fix these lines and import it again.</p>`}
      <div class="bulk-actions">
        ${refusal.valid > 0 ? html`<button type="button" id="import-valid">${importValidLabel(refusal)}</button>` : ''}
        <button type="button" id="import-refusal-close">Close</button>
      </div>
    </div>`;
}
