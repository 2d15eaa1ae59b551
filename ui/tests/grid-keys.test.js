// The Domains table's keyboard map: arrows and paging move between rows (never past the
// ends), Enter opens the details, Shift+F10 and the context-menu key open the row's menu, and
// Tab is not the grid's (the table is one Tab stop). Enter submitting a dialog from a select.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gridKey, headerKey } from '../lib/grid-keys.js';
import { submitsOnEnter } from '../lib/dom.js';

const key = (k, mods = {}) => ({ key: k, ...mods });

test('arrows, paging, Home and End move between rows and stop at the ends', () => {
  assert.deepEqual(gridKey(key('ArrowDown'), 3, 28, 5), { move: 4 });
  assert.deepEqual(gridKey(key('ArrowUp'), 3, 28, 5), { move: 2 });
  assert.deepEqual(gridKey(key('ArrowUp'), 0, 28, 5), { header: true }, 'Up from the first row reaches the headers');
  assert.deepEqual(gridKey(key('ArrowDown'), 27, 28, 5), { move: 27 });
  assert.deepEqual(gridKey(key('PageDown'), 25, 28, 5), { move: 27 });
  assert.deepEqual(gridKey(key('PageUp'), 3, 28, 5), { move: 0 });
  assert.deepEqual(gridKey(key('Home'), 12, 28, 5), { move: 0 });
  assert.deepEqual(gridKey(key('End'), 12, 28, 5), { move: 27 });
});

test('the column headers are part of the grid: Left and Right between them, Down back to the rows', () => {
  assert.deepEqual(headerKey(key('ArrowRight'), 0, 3), { column: 1 });
  assert.deepEqual(headerKey(key('ArrowRight'), 2, 3), { column: 2 });
  assert.deepEqual(headerKey(key('ArrowLeft'), 0, 3), { column: 0 });
  assert.deepEqual(headerKey(key('End'), 0, 3), { column: 2 });
  assert.deepEqual(headerKey(key('ArrowDown'), 1, 3), { rows: true });
  assert.equal(headerKey(key('Enter'), 1, 3), null, 'Enter is the sort button’s own');
  assert.equal(headerKey(key('Tab'), 1, 3), null);
});

test('Enter opens the details; the menu opens with Shift+F10 or the context-menu key', () => {
  assert.deepEqual(gridKey(key('Enter'), 3, 28, 5), { open: true });
  assert.deepEqual(gridKey(key('F10', { shiftKey: true }), 3, 28, 5), { menu: true });
  assert.deepEqual(gridKey(key('ContextMenu'), 3, 28, 5), { menu: true });
  assert.equal(gridKey(key('F10'), 3, 28, 5), null, 'F10 alone is not the menu');
});

test('Tab, letters and modified keys are not the grid’s', () => {
  assert.equal(gridKey(key('Tab'), 3, 28, 5), null);
  assert.equal(gridKey(key('Tab', { shiftKey: true }), 3, 28, 5), null);
  assert.equal(gridKey(key('a'), 3, 28, 5), null);
  assert.equal(gridKey(key('ArrowDown', { ctrlKey: true }), 3, 28, 5), null);
  assert.equal(gridKey(key('ArrowDown'), 0, 0, 5), null, 'no rows, nothing to move to');
});

test('Enter on a select, radio or checkbox in a form submits it; elsewhere it does not', () => {
  const form = {};
  assert.equal(submitsOnEnter({ key: 'Enter', target: { tagName: 'SELECT', form } }), true);
  assert.equal(submitsOnEnter({ key: 'Enter', target: { tagName: 'INPUT', type: 'radio', form } }), true);
  assert.equal(submitsOnEnter({ key: 'Enter', target: { tagName: 'INPUT', type: 'text', form } }), false, 'the browser submits from a text field itself');
  assert.equal(submitsOnEnter({ key: 'Enter', target: { tagName: 'BUTTON', form } }), false, 'a button does its own thing');
  assert.equal(submitsOnEnter({ key: 'Enter', target: { tagName: 'SELECT', form: null } }), false);
  assert.equal(submitsOnEnter({ key: 'Enter', shiftKey: true, target: { tagName: 'SELECT', form } }), false);
  assert.equal(submitsOnEnter({ key: 'ArrowDown', target: { tagName: 'SELECT', form } }), false);
});
