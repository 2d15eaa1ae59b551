import { test } from 'node:test';
import assert from 'node:assert/strict';
import { visibleRange, scrollToReveal, filterRows, filterOrder, narrows, sortIndices, reuseRows } from '../lib/virtual.js';
import { domainRow } from '../lib/domain-view.js';
import { domain } from './fixtures.js';

test('only the rows in view and a margin are rendered', () => {
  const r = visibleRange({ scrollTop: 4400, viewportHeight: 440, rowHeight: 44, count: 5000, overscan: 5 });
  assert.deepEqual(r, { start: 95, end: 116, offset: 95 * 44, total: 5000 * 44 });
  assert.ok(r.end - r.start < 30);
});

test('the range is clamped at both ends and empty tables are fine', () => {
  assert.equal(visibleRange({ scrollTop: -50, viewportHeight: 400, rowHeight: 40, count: 100 }).start, 0);
  const end = visibleRange({ scrollTop: 1e9, viewportHeight: 400, rowHeight: 40, count: 100 });
  assert.equal(end.end, 100);
  assert.deepEqual(visibleRange({ scrollTop: 0, viewportHeight: 400, rowHeight: 40, count: 0 }), { start: 0, end: 0, offset: 0, total: 0 });
});

test('keyboard focus scrolls just enough to reveal a row', () => {
  assert.equal(scrollToReveal({ index: 0, scrollTop: 400, viewportHeight: 200, rowHeight: 40 }), 0);
  assert.equal(scrollToReveal({ index: 20, scrollTop: 0, viewportHeight: 200, rowHeight: 40 }), 640);
  assert.equal(scrollToReveal({ index: 2, scrollTop: 0, viewportHeight: 200, rowHeight: 40 }), 0);
});

function manyRows(n) {
  const now = Date.parse('2026-11-21T12:00:00Z');
  const statuses = ['pending_verification', 'verified', 'live'];
  return Array.from({ length: n }, (_, i) => domainRow(domain({
    hostname: `site-${i}.example.com`,
    unicode_hostname: `site-${i}.example.com`,
    role: i === 0 ? 'primary' : 'alias',
    status: statuses[i % 3],
    certificate: { status: i % 3 === 2 ? 'issued' : 'none', expires_at: null },
  }), now));
}

test('filtering 5,000 domains by words is fast and exact', () => {
  const rows = manyRows(5000);
  const t0 = performance.now();
  const hits = filterRows(rows, 'site-42 live');
  const elapsed = performance.now() - t0;
  const expected = [];
  for (let i = 0; i < 5000; i++) if (String(i).startsWith('42') && i % 3 === 2) expected.push(`site-${i}.example.com`);
  assert.deepEqual(hits.map((i) => rows[i].hostname), expected);
  assert.deepEqual(filterRows(rows, 'SITE-4242.').map((i) => rows[i].hostname), ['site-4242.example.com']);
  assert.ok(elapsed < 50, `filter took ${elapsed} ms`);
  assert.equal(filterRows(rows, '').length, 5000);
  assert.equal(filterRows(rows, 'WAITING').length, 1667);
});

test('sorting by status puts problems first', () => {
  const rows = manyRows(6);
  const order = sortIndices(rows, [0, 1, 2, 3, 4, 5], 'status').map((i) => rows[i].status.key);
  assert.deepEqual(order, ['waiting', 'waiting', 'issuing', 'issuing', 'live', 'live']);
  assert.deepEqual(sortIndices(rows, [5, 0, 3], 'hostname'), [0, 3, 5]);
  assert.equal(sortIndices(rows, [3, 0], 'role')[0], 0);
  const many = manyRows(12);
  assert.deepEqual(sortIndices(many, [10, 2, 1], 'hostname').map((i) => many[i].hostname), ['site-1.example.com', 'site-2.example.com', 'site-10.example.com']);
});

test('filtering a sorted order keeps its order, and a grown query filters the previous matches', () => {
  const rows = manyRows(5000);
  const sorted = sortIndices(rows, [...rows.keys()], 'status');
  let order = sorted;
  let previous = '';
  // typed a key at a time, each keystroke filtering the previous matches when it may
  for (const query of ['s', 'si', 'site', 'site-', 'site-4', 'site-42', 'site-42 ', 'site-42 live']) {
    order = filterOrder(rows, narrows(previous, query) ? order : sorted, query);
    previous = query;
    const fresh = sortIndices(rows, filterRows(rows, query), 'status');
    assert.deepEqual(order, fresh, query);
  }
  // deleting is not narrowing: back to the whole sorted order
  assert.equal(narrows('site-42', 'site-4'), false);
  order = filterOrder(rows, narrows('site-42 live', 'site-4') ? order : sorted, 'site-4');
  assert.deepEqual(order, sortIndices(rows, filterRows(rows, 'site-4'), 'status'));
  assert.equal(narrows('Site', 'site-4'), true);
  assert.equal(narrows('live', 'alive'), false);
});

test('drawing a range again keeps unchanged rows, patches changed ones and makes only new ones', () => {
  const present = new Map([[3, '<a>'], [4, '<b>'], [5, '<c>'], [6, '<d>']]);
  // the same rows: nothing changes
  assert.deepEqual(reuseRows(present, [[3, '<a>'], [4, '<b>'], [5, '<c>'], [6, '<d>']]), { drop: [], patch: [], make: [] });
  // a filter changed the rows at 4 and 6, and the range grew by one
  assert.deepEqual(
    reuseRows(present, [[3, '<a>'], [4, '<x>'], [5, '<c>'], [6, '<y>'], [7, '<z>']]),
    { drop: [], patch: [4, 6], make: [7] },
  );
  // the same markup at another index is another row (it is positioned by its index)
  assert.deepEqual(reuseRows(present, [[4, '<a>'], [5, '<b>']]), { drop: [3, 6], patch: [4, 5], make: [] });
  // an empty page makes everything; an empty range drops everything
  assert.deepEqual(reuseRows(new Map(), [[0, '<a>'], [1, '<b>']]), { drop: [], patch: [], make: [0, 1] });
  assert.deepEqual(reuseRows(present, []), { drop: [3, 4, 5, 6], patch: [], make: [] });
});

test('a filter every row matches answers with the order itself; otherwise a new order, the old one untouched', () => {
  const rows = ['site-1.example.com', 'site-2.example.com', 'shop.example.com'].map((search) => ({ search }));
  const order = [2, 0, 1];
  assert.equal(filterOrder(rows, order, 'example'), order, 'every row matches: the same array');
  const some = filterOrder(rows, order, 'site');
  assert.deepEqual(some, [0, 1]);
  assert.notEqual(some, order);
  assert.deepEqual(order, [2, 0, 1], 'the order filtered is not changed');
  assert.deepEqual(filterOrder(rows, order, 'nothing'), []);
  assert.deepEqual(filterOrder(rows, rows.keys(), 'SITE 2'), [1], 'any iterable, every word, any case');
});

test('the active row stays in the page wherever the list is scrolled, in order, and only once', async () => {
  const { rowsToDraw } = await import('../lib/virtual.js');
  const range = { start: 20, end: 26 };
  assert.deepEqual(rowsToDraw(range, 22, 100), [20, 21, 22, 23, 24, 25], 'in the range: nothing more');
  assert.deepEqual(rowsToDraw(range, 3, 100), [3, 20, 21, 22, 23, 24, 25], 'above: first');
  assert.deepEqual(rowsToDraw(range, 80, 100), [20, 21, 22, 23, 24, 25, 80], 'below: last');
  assert.deepEqual(rowsToDraw(range, 80, 24), [20, 21, 22, 23], 'an active row past the end (the list narrowed) is none');
  assert.deepEqual(rowsToDraw({ start: 0, end: 0 }, 0, 0), []);
});
