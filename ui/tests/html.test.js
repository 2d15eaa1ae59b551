import { test } from 'node:test';
import assert from 'node:assert/strict';
import { html, escape } from '../lib/html.js';

test('values are escaped, markup is kept', () => {
  const name = '<img src=x onerror=alert(1)>';
  assert.equal(String(html`<b>${name}</b>`), '<b>&lt;img src=x onerror=alert(1)&gt;</b>');
});

test('nested html is not escaped twice', () => {
  const inner = html`<i>${'a&b'}</i>`;
  assert.equal(String(html`<p>${inner}</p>`), '<p><i>a&amp;b</i></p>');
});

test('arrays join and null disappears', () => {
  assert.equal(escape([html`<li>1</li>`, '<2>', null]), '<li>1</li>&lt;2&gt;');
});
