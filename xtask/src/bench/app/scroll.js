// Scrolls the box with id `viewportId` `step` px a frame for `frames` frames and returns the
// frames' timestamps. On the app's page the table's own work per frame, its paint(), is timed
// from outside too (removed at the end); a bare page has no table.
const [frames, step, viewportId] = arguments;
const done = arguments[arguments.length - 1];
const viewport = document.getElementById(viewportId);
const table = document.getElementById('domains-table');
const paint = table?.paint;
const script = [];
if (paint) {
  table.paint = function timed(force) {
    const t0 = performance.now();
    const result = paint.call(this, force);
    script.push(performance.now() - t0);
    return result;
  };
}
const times = [];
const started = performance.now();
const tick = (t) => {
  times.push(t);
  if (times.length > frames || performance.now() - started > 30000) {
    const end = viewport.scrollTop;
    const first = document.querySelector('#domains-grid .vt-row[data-index]');
    if (paint) delete table.paint;
    viewport.scrollTop = 0;
    return done({ times, script, end, first_row: first ? Number(first.dataset.index) : null });
  }
  viewport.scrollTop += step;
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
