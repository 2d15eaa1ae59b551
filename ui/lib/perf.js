// Milestones of a launch as User Timing marks (`performance.mark`), read by the app benchmark
// (xtask/src/bench/app.rs) to split the time to the painted Domains rows. Only the first mark
// of each name counts; later ones (a reload, another project) are not set again.

const seen = new Set();

/** Sets the mark `dd:<name>` once per page load. */
export function mark(name) {
  const full = `dd:${name}`;
  if (seen.has(full) || typeof performance?.mark !== 'function') return;
  seen.add(full);
  performance.mark(full);
}
