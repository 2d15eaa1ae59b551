// arguments: [frames, longest wait in ms (10 s unless given)]
const frames = arguments[0];
const longest = arguments.length > 2 ? arguments[1] : 10000;
const done = arguments[arguments.length - 1];
const times = [];
const started = performance.now();
const finish = () => done({
  times, visibility: document.visibilityState, focus: document.hasFocus(),
  elapsed: performance.now() - started,
});
const tick = (t) => {
  times.push(t);
  if (times.length > frames || performance.now() - started > longest) return finish();
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
