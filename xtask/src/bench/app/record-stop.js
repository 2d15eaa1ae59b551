const done = arguments[arguments.length - 1];
const rec = window.__ddRecording;
requestAnimationFrame(() => requestAnimationFrame(() => {
  rec.on = false;
  rec.stop();
  done({ at: rec.at, frames: rec.frames, keys: rec.keys, shown: rec.shown, count: document.getElementById('domain-count')?.textContent ?? null });
}));
