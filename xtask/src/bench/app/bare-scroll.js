// Scrolls the bare page's box (bare-scroll-page.js) `step` px a frame for `frames` frames,
// as scroll.js scrolls the table, and returns the frames' timestamps.
const [frames, step] = arguments;
const done = arguments[arguments.length - 1];
const viewport = document.getElementById('bare-viewport');
const times = [];
const started = performance.now();
const tick = (t) => {
  times.push(t);
  if (times.length > frames || performance.now() - started > 30000) {
    const end = viewport.scrollTop;
    viewport.scrollTop = 0;
    return done({ times, end });
  }
  viewport.scrollTop += step;
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
