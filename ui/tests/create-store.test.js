import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStore } from '../lib/create-store.js';

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
