const [frames, step] = arguments;
const done = arguments[arguments.length - 1];
const viewport = document.getElementById('domains-viewport');
// the table's own work per frame: its paint(), timed from outside (removed at the end)
const table = document.getElementById('domains-table');
const paint = table.paint;
const script = [];
table.paint = function timed(force) {
  const t0 = performance.now();
  const result = paint.call(this, force);
  script.push(performance.now() - t0);
  return result;
};
const times = [];
const started = performance.now();
const tick = (t) => {
  times.push(t);
  if (times.length > frames || performance.now() - started > 30000) {
    const end = viewport.scrollTop;
    const first = document.querySelector('#domains-grid .vt-row[data-index]');
    delete table.paint;
    viewport.scrollTop = 0;
    return done({ times, script, end, first_row: first ? Number(first.dataset.index) : null });
  }
  viewport.scrollTop += step;
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
