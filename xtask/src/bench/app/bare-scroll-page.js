// The machine's floor for scrolling: the same window with a document of 5,000 plain rows as
// tall as the table's (no script, no style beyond the rows' size), in a scrolling box that
// fills the window. The styles are set through the CSSOM: the window's content security
// policy, which a document written in its place keeps, refuses inline style sheets.
document.open();
document.write('<!doctype html><html><head><meta charset="utf-8"></head><body><div id="bare-viewport"></div></body></html>');
document.close();
document.documentElement.style.cssText = 'height: 100%';
document.body.style.cssText = 'margin: 0; height: 100%; font: 14px system-ui, sans-serif';
const viewport = document.getElementById('bare-viewport');
viewport.style.cssText = 'height: 100%; overflow: auto';
const rows = document.createDocumentFragment();
for (let i = 0; i < 5000; i++) {
  const row = document.createElement('div');
  row.style.cssText = 'display: flex; gap: 24px; align-items: center; box-sizing: border-box; height: 56px; padding: 0 12px; border-bottom: 1px solid #ddd';
  for (const text of [`site-${i}.example.com`, 'Redirect', 'Waiting for DNS', 'never']) {
    const cell = document.createElement('span');
    cell.textContent = text;
    row.append(cell);
  }
  rows.append(row);
}
viewport.append(rows);
return { height: viewport.clientHeight, content: viewport.scrollHeight };
