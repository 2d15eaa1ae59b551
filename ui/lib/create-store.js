// The store machinery: one frozen object, replaced on each change, with subscribers.
// Components read what they need and re-render; nothing else holds state that two components
// share. The window's one store, and what it holds, is app-state.js.

export function createStore(initial) {
  let state = Object.freeze({ ...initial });
  const listeners = new Set();
  return {
    get: () => state,
    /** Merges `patch` (or the result of `patch(state)`) and notifies subscribers once. */
    set(patch) {
      const next = typeof patch === 'function' ? patch(state) : patch;
      const changed = Object.keys(next).filter((k) => !Object.is(state[k], next[k]));
      if (changed.length === 0) return;
      state = Object.freeze({ ...state, ...next });
      for (const fn of [...listeners]) fn(state, changed);
    },
    /** Calls `fn(state, changedKeys)` after each change; returns the unsubscribe function. */
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}
