// How many notices the window shows at once: as many of the newest as fit in a share of its
// height, the newest always.
import { test } from 'node:test';
import assert from 'node:assert/strict';

// The element module defines a custom element class; Node has no HTMLElement.
globalThis.HTMLElement ??= class {};
const { noticesThatFit, NOTICES_SHARE } = await import('../components/toasts/toasts.js');

// Notices 118 px tall in a column, 8 px apart, with 16 px of padding and, when any wait, a
// 25 px line saying so: what three warnings of a few lines measured at 900×600.
const column = (count) => (n) => 16 + n * 118 + (n - 1) * 8 + (n < count ? 25 : 0);

test('at 900×600 one notice of three shows, the others wait; at 1200×780 two', () => {
  assert.equal(noticesThatFit(3, column(3), 600 * NOTICES_SHARE), 1);
  assert.equal(noticesThatFit(3, column(3), 780 * NOTICES_SHARE), 2);
  assert.equal(noticesThatFit(3, column(3), 1200 * NOTICES_SHARE), 3);
});

test('the newest notice shows even when it alone is taller than the share', () => {
  assert.equal(noticesThatFit(2, () => 900, 240), 1);
  assert.equal(noticesThatFit(1, () => 900, 240), 1);
});

test('each try measures the notices as they would be drawn, newest first kept', () => {
  const tried = [];
  noticesThatFit(3, (n) => { tried.push(n); return n * 100; }, 150);
  assert.deepEqual(tried, [3, 2]);
});
