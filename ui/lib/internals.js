// What must never reach the window's text: the marks of internals a user cannot act on.
// The end-to-end walk checks every screen against this list, and the unit tests check the
// window's own sentences against it.

export const INTERNALS = Object.freeze([
  { name: 'Rust Debug formatting', pattern: /\b[A-Z][A-Za-z]+\s?\{\s?[a-z_]+:|\b(Some|Ok|Err)\(|ExitStatus|unix_wait_status/ },
  { name: 'an error chain', pattern: /:\s[a-z][^:.]{2,60}:\s[a-z][^:.]{2,60}:\s/ },
  { name: 'an OS error number', pattern: /\(os error \d+\)/ },
  // A loopback address with its port is an internal; a DNS answer's A 127.0.0.1 (the demo's
  // platform lives on this computer) is what DNS says, and is shown as such.
  { name: 'a loopback address and port', pattern: /\b127\.\d+\.\d+\.\d+:\d+\b|\[::1\]:\d+|\blocalhost:\d+/ },
  { name: 'an ISO timestamp', pattern: /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2}| UTC)?\b/ },
  { name: 'a raw id', pattern: /\b(prj|acc|dep|dom|rec)_[A-Za-z0-9]{4,}\b/ },
  // The doctor's answer statuses as the report's JSON names them; the window says them in words.
  { name: 'a DNS status code name', pattern: /\b(no_error|nx_domain|serv_fail|other_rcode)\b/ },
  { name: 'a library message', pattern: /tls handshake eof|error sending request|hyper::|reqwest::|tokio::|panicked at/i },
]);

/** The internals `text` shows: [{name, match}], empty when it is clean. */
export function internalsIn(text) {
  const found = [];
  for (const { name, pattern } of INTERNALS) {
    const match = String(text ?? '').match(pattern);
    if (match) found.push({ name, match: match[0] });
  }
  return found;
}
