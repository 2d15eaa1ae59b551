const rec = { frames: [], keys: [], shown: [], at: [], on: true };
window.__ddRecording = rec;
const tick = (t) => { if (!rec.on) return; rec.frames.push(t); requestAnimationFrame(tick); };
requestAnimationFrame(tick);
const box = document.getElementById(arguments[0]);
const table = document.getElementById('domains-table');
rec.stop = () => box.removeEventListener('input', listener);
const listener = (e) => {
  if (!rec.on) return;
  const at = e.timeStamp;
  rec.at.push(at);
  const value = box.value;
  requestAnimationFrame(() => rec.keys.push(performance.now() - at));
  if (box.id !== 'domain-filter') return;
  // the animation frame in which the table holds this key's query (a later key supersedes it)
  const check = () => {
    if (box.value !== value) return;
    if (table.filteredBy === value) rec.shown.push(performance.now() - at);
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
};
box.addEventListener('input', listener);
return true;
