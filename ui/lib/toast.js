// Short messages below the main area, read out by screen readers: "Added shop.example.com",
// errors with what to do. The toasts element listens for `dd-toast` events on the document;
// lib/notices.js holds the rules (which stay, which go, and when).

/**
 * @param {string} message
 * @param {string} [tone] ok, info, warning or error
 * @param {object} [options] see Notices.add: `key`, `cause`, and `scope` — 'project' or
 *   'account' for a notice that belongs to the open project or the signed-in account
 */
export function toast(message, tone = 'info', options = {}) {
  document.dispatchEvent(new CustomEvent('dd-toast', { detail: { message, tone, options } }));
}

/** Removes the notice named `key` (the action it reported on has now succeeded). */
export function resolveToast(key) {
  document.dispatchEvent(new CustomEvent('dd-toast-resolve', { detail: { key } }));
}
