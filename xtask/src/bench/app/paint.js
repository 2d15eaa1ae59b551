const want = arguments[0];
const done = arguments[arguments.length - 1];
const fcp = () => {
  const entries = performance.getEntriesByType('paint');
  const entry = entries.find((e) => e.name === 'first-contentful-paint') || entries[0];
  return entry ? performance.timeOrigin + entry.startTime : null;
};
const shown = () => {
  const rows = document.querySelectorAll('#domains-grid .vt-row[data-index]').length;
  const empty = document.getElementById('domains-empty');
  const total = (document.getElementById('domain-count') || {}).textContent || '';
  if (want === 0) {
    return empty && !empty.hidden && empty.textContent.startsWith('No custom domains') ? { rows, total } : null;
  }
  return rows > 0 && total.startsWith(`${want} domain`) ? { rows, total } : null;
};
const check = () => {
  const view = shown();
  if (!view) return setTimeout(check, 5);
  requestAnimationFrame(() => setTimeout(() => {
    const origin = performance.timeOrigin;
    const at = (t) => (t > 0 ? origin + t : null);
    const nav = performance.getEntriesByType('navigation')[0] || {};
    const marks = {};
    for (const m of performance.getEntriesByType('mark')) {
      if (m.name.startsWith('dd:') && !(m.name in marks)) marks[m.name] = origin + m.startTime;
    }
    done({
      painted: Date.now(), first_paint: fcp(), rows: view.rows, total: view.total,
      time_origin: origin, response_end: at(nav.responseEnd),
      dom_content_loaded: at(nav.domContentLoadedEventEnd), load_end: at(nav.loadEventEnd), marks,
    });
  }, 0));
};
check();
