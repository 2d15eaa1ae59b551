// The one door to the Rust side. Errors arrive as {kind, message}.
export function invoke(command, args = {}) {
  const tauri = globalThis.__TAURI__;
  if (!tauri) return Promise.reject({ kind: 'no_backend', message: 'Domain Desk is not running inside its window.' });
  return tauri.core.invoke(command, args);
}

/** Subscribes to a namespaced event such as `queue://changed`; resolves to the unlisten function. */
export async function listen(event, handler) {
  const tauri = globalThis.__TAURI__;
  if (!tauri?.event) return () => {};
  return tauri.event.listen(event, (e) => handler(e.payload));
}

/** A channel a command sends progress on; `onMessage` gets each message. */
export function channel(onMessage) {
  const Channel = globalThis.__TAURI__?.core?.Channel;
  if (!Channel) return null;
  const ch = new Channel();
  ch.onmessage = onMessage;
  return ch;
}
