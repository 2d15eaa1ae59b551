// Short messages in the corner, read out by screen readers: "Added shop.example.com", errors
// with what to do. The toasts element listens for `dd-toast` events on the document.

export function toast(message, tone = 'info') {
  document.dispatchEvent(new CustomEvent('dd-toast', { detail: { message, tone } }));
}
