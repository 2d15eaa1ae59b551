// The writes a view makes on a timer or for each keystroke: a value already in the page is
// not written again (WebKit lays out and draws an element again for a same-value write).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderChanged, setAttribute, setStyle, setText } from '../lib/dom.js';
import { html } from '../lib/html.js';

/** An element that counts the writes that reach it, as the page would see them. */
function element({ text = '', attributes = {}, style = {} } = {}) {
  const writes = [];
  const props = new Map(Object.entries(style));
  const attrs = new Map(Object.entries(attributes));
  let content = text;
  const node = { nodeType: 3, get data() { return content; }, set data(value) { writes.push(['data', value]); content = value; } };
  return {
    writes,
    get firstChild() { return content === '' ? null : node; },
    get lastChild() { return this.firstChild; },
    get textContent() { return content; },
    set textContent(value) { writes.push(['textContent', value]); content = value; },
    getAttribute: (name) => (attrs.has(name) ? attrs.get(name) : null),
    setAttribute: (name, value) => { writes.push(['attribute', name, value]); attrs.set(name, value); },
    style: {
      getPropertyValue: (name) => props.get(name) ?? '',
      setProperty: (name, value) => { writes.push(['style', name, value]); props.set(name, value); },
    },
  };
}

test('a style property is written when it changes and never with the value it has', () => {
  const bar = element();
  setStyle(bar, 'width', '100%');
  setStyle(bar, 'width', '100%');
  setStyle(bar, 'width', '97%');
  setStyle(bar, 'width', '97%');
  assert.deepEqual(bar.writes, [['style', 'width', '100%'], ['style', 'width', '97%']]);
});

test('an attribute is written when it changes, an empty value included, and not otherwise', () => {
  const meter = element({ attributes: { 'data-level': 'ok' } });
  setAttribute(meter, 'data-level', 'ok');
  setAttribute(meter, 'data-at', '');
  setAttribute(meter, 'data-at', '');
  setAttribute(meter, 'data-level', 'low');
  assert.deepEqual(meter.writes, [['attribute', 'data-at', ''], ['attribute', 'data-level', 'low']]);
});

test('a text is written when it changes: in its text node when there is one, and never again', () => {
  const budget = element({ text: '59 of 60 requests left this minute' });
  setText(budget, '59 of 60 requests left this minute');
  setText(budget, '58 of 60 requests left this minute');
  setText(budget, '');
  setText(budget, '');
  setText(budget, 'Budget unknown');
  assert.deepEqual(budget.writes, [
    ['data', '58 of 60 requests left this minute'],
    ['textContent', ''],
    ['textContent', 'Budget unknown'],
  ]);
});

test('a part drawn again on every tick keeps its nodes until its markup changes', () => {
  const writes = [];
  const line = { set innerHTML(markup) { writes.push(markup); } };
  const checked = (when) => html`Last checked by the platform: <time datetime="2026-11-27T06:00:00Z">${when}</time>`;
  renderChanged(line, checked('2 min ago'));
  renderChanged(line, checked('2 min ago'));
  renderChanged(line, checked('3 min ago'));
  renderChanged(line, checked('3 min ago'));
  assert.equal(writes.length, 2);
  assert.match(writes[1], /3 min ago/);
  assert.throws(() => renderChanged(line, '<b>raw</b>'), TypeError, 'escaped markup only, as render()');
});
