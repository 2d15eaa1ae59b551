import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStore, upsertDomain, removeDomain } from '../lib/store.js';

test('subscribers hear each change once, with the keys that changed', () => {
  const store = createStore({ a: 1, b: 2 });
  const seen = [];
  const off = store.subscribe((state, changed) => seen.push([state.a, changed]));
  store.set({ a: 1 });
  store.set({ a: 5, b: 2 });
  store.set((s) => ({ b: s.a + 1 }));
  off();
  store.set({ a: 9 });
  assert.deepEqual(seen, [[5, ['a']], [5, ['b']]]);
  assert.equal(store.get().a, 9);
  assert.throws(() => { store.get().a = 3; }, TypeError, 'state is frozen');
});

test('domains are replaced in place or appended, and removed by hostname', () => {
  const list = [{ hostname: 'a.example.com', status: 'live' }, { hostname: 'b.example.com', status: 'verified' }];
  const updated = upsertDomain(list, { hostname: 'b.example.com', status: 'live' });
  assert.deepEqual(updated.map((d) => d.status), ['live', 'live']);
  assert.equal(list[1].status, 'verified', 'the old list is not changed');
  assert.equal(upsertDomain(list, { hostname: 'c.example.com' }).length, 3);
  assert.deepEqual(removeDomain(list, 'a.example.com').map((d) => d.hostname), ['b.example.com']);
});
