// The window's dialogs, by role. Each dialog element registers itself when it is connected and
// leaves when it is removed, so actions open it through this reference instead of looking a
// global id up in the document; with none connected (a test, a page without it), `dialog()`
// says so with `null`.

const connected = new Map();

/** Makes `element` the dialog for `role` (`confirm`, `redirect`, `diagnose`); returns its removal. */
export function registerDialog(role, element) {
  connected.set(role, element);
  return () => {
    if (connected.get(role) === element) connected.delete(role);
  };
}

/** The connected dialog for `role`, or `null`. */
export function dialog(role) {
  return connected.get(role) ?? null;
}
