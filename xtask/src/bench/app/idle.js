const frames = arguments[0];
const done = arguments[arguments.length - 1];
const times = [];
const started = performance.now();
const finish = () => done({
  times, visibility: document.visibilityState, focus: document.hasFocus(),
  elapsed: performance.now() - started,
});
const tick = (t) => {
  times.push(t);
  if (times.length > frames || performance.now() - started > 10000) return finish();
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
