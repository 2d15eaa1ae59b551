// Hostname validation as the user types, mirroring the contract's rules (api-v1.md,
// Conventions) and the messages of the Rust `Hostname` type. What needs the Public Suffix List
// (apex or subdomain, "a public suffix on its own") is answered by the Rust side through the
// `hostname_check` command; this module gives instant feedback for everything else.

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const IPV6 = /^\[?[0-9a-f:.]*:[0-9a-f:.]*\]?$/i;
const ALLOWED = /^[\p{L}\p{N}\p{M}.-]+$/u;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function invalid(message) {
  return { ok: false, message };
}

/**
 * The hostname inside a web address typed or pasted where a hostname belongs
 * (`https://Shop.Example.com/about`, `shop.example.com/about`, `shop.example.com:8080`), as
 * people write it, or null when there is none.
 */
function hostInAddress(text) {
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  if (!hasScheme && !/[/?#]|:\d+$/.test(text)) return null;
  let host;
  try {
    host = new URL(hasScheme ? text : `http://${text}`).hostname;
  } catch {
    return null;
  }
  host = toUnicode(host.replace(/\.$/, ''));
  return host && host.includes('.') && !IPV4.test(host) ? host : null;
}

/** Converts a Unicode name to lowercase A-labels the way browsers do (UTS 46), or null. */
export function toAscii(name) {
  try {
    const host = new URL(`http://${name}/`).hostname;
    return host || null;
  } catch {
    return null;
  }
}

// Punycode (RFC 3492), decoding only: the platform names domains by their A-labels
// (`xn--bcher-kva.example`) wherever it answers with a bare hostname (a redirect's target, a
// project's primary domain, a report's name), and the window shows each name as its owner
// wrote it.
const BASE = 36;
const T_MIN = 1;
const T_MAX = 26;
const SKEW = 38;
const DAMP = 700;
const INITIAL_BIAS = 72;
const INITIAL_N = 128;

function adapt(delta, points, first) {
  let d = first ? Math.floor(delta / DAMP) : delta >> 1;
  d += Math.floor(d / points);
  let k = 0;
  while (d > ((BASE - T_MIN) * T_MAX) >> 1) {
    d = Math.floor(d / (BASE - T_MIN));
    k += BASE;
  }
  return k + Math.floor(((BASE - T_MIN + 1) * d) / (d + SKEW));
}

function digitOf(code) {
  if (code >= 0x30 && code <= 0x39) return code - 22; // 0-9 are 26-35
  if (code >= 0x41 && code <= 0x5a) return code - 0x41;
  if (code >= 0x61 && code <= 0x7a) return code - 0x61;
  return BASE;
}

/** The code points of one punycode label (without its `xn--`), or null when it is not one. */
function decodeLabel(input) {
  const output = [];
  const delimiter = input.lastIndexOf('-');
  for (let j = 0; j < Math.max(delimiter, 0); j += 1) {
    const code = input.charCodeAt(j);
    if (code >= 0x80) return null;
    output.push(code);
  }
  let n = INITIAL_N;
  let bias = INITIAL_BIAS;
  let i = 0;
  for (let at = delimiter > 0 ? delimiter + 1 : 0; at < input.length;) {
    const before = i;
    let weight = 1;
    for (let k = BASE; ; k += BASE) {
      if (at >= input.length) return null;
      const digit = digitOf(input.charCodeAt(at));
      at += 1;
      if (digit >= BASE) return null;
      i += digit * weight;
      if (i > 0x10ffff * (output.length + 1)) return null;
      const t = k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias;
      if (digit < t) break;
      weight *= BASE - t;
    }
    const length = output.length + 1;
    bias = adapt(i - before, length, before === 0);
    n += Math.floor(i / length);
    i %= length;
    if (n > 0x10ffff) return null;
    output.splice(i, 0, n);
    i += 1;
  }
  return output;
}

/**
 * A hostname as people read it: each `xn--` label decoded to Unicode. A name that does not
 * decode to itself again (not a valid A-label) comes back as it was, so the window never shows
 * a name that is not the one the platform holds.
 */
export function toUnicode(name) {
  if (typeof name !== 'string' || !/(^|\.)xn--/i.test(name)) return name;
  const lower = name.toLowerCase();
  const labels = lower.split('.').map((label) => {
    if (!label.startsWith('xn--')) return label;
    const points = decodeLabel(label.slice(4));
    return points ? String.fromCodePoint(...points) : label;
  });
  const unicode = labels.join('.');
  return toAscii(unicode) === lower ? unicode : name;
}

/** A URL with its host as people read it (`https://bücher.example/`); anything else as it was. */
export function urlForPeople(url) {
  if (typeof url !== 'string') return url;
  return url.replace(/^(https?:\/\/)([^/:?#]+)/i, (_, scheme, host) => scheme + toUnicode(host));
}

/**
 * Checks a hostname as typed. Returns `{ok: true, ascii, changed}` (changed: the stored form
 * differs from what was typed, e.g. Unicode or upper case) or `{ok: false, message}`, with
 * `suggestion` when a web address was given: the hostname in it.
 * `platformDomain` (when known) refuses names under the platform's own domain.
 */
export function checkHostname(input, { platformDomain } = {}) {
  let name = String(input ?? '').trim();
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name === '') return invalid('Enter a hostname such as www.example.com.');
  if (/\s/.test(name)) return invalid('A hostname cannot contain spaces.');
  if (name.includes('*')) return invalid('Wildcard names are not supported; add each hostname on its own.');
  if (IPV4.test(name) || (name.includes(':') && IPV6.test(name))) {
    return invalid('An IP address is not a domain; enter the hostname that points to it.');
  }
  const inAddress = hostInAddress(name);
  if (inAddress && inAddress !== name) {
    // The name in it is offered (`suggestion`), not taken: the user sees what will be added.
    return { ok: false, message: `That is a web address; the hostname in it is ${inAddress}.`, suggestion: inAddress };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(name)) {
    return invalid('Enter only the hostname, without http:// or a path.');
  }
  if (name.startsWith('.') || name.includes('..')) {
    return invalid('A hostname cannot have an empty label (two dots in a row).');
  }
  if (name.includes('_')) {
    return invalid('A hostname cannot contain an underscore: names like _dmarc or _acme-challenge hold records for other services, and browsers cannot open them. Use a hyphen instead (my-shop.example.com).');
  }
  if (!ALLOWED.test(name)) {
    return invalid('Use only letters, digits and hyphens in each label, no hyphen at the start or end of a label, at most 63 characters a label and 253 in all.');
  }
  if (!name.includes('.')) {
    return invalid('Enter the full name with its domain, such as www.example.com.');
  }
  const lastLabel = name.slice(name.lastIndexOf('.') + 1);
  if (/^\d+$/.test(lastLabel)) return invalid('The last label of a hostname cannot be all digits.');
  const ascii = toAscii(name);
  if (!ascii) {
    return invalid('Use only letters, digits and hyphens in each label, no hyphen at the start or end of a label, at most 63 characters a label and 253 in all.');
  }
  const labels = ascii.split('.');
  for (const label of labels) {
    if (label.length < 1 || label.length > 63) return invalid('Each label of a hostname must have 1 to 63 characters.');
    if (!LABEL.test(label) || (label.slice(2, 4) === '--' && !label.startsWith('xn--'))) {
      return invalid('Use only letters, digits and hyphens in each label, no hyphen at the start or end of a label, at most 63 characters a label and 253 in all.');
    }
  }
  if (ascii.length > 253) return invalid('A hostname can have at most 253 characters.');
  if (platformDomain) {
    const platform = platformDomain.toLowerCase().replace(/\.$/, '');
    if (ascii === platform || ascii.endsWith(`.${platform}`)) {
      return invalid(`Names under ${platform} belong to the platform; every project already has one as its default address.`);
    }
  }
  return { ok: true, ascii, changed: ascii !== name };
}

/** The project's domain that `ascii` names already, or null. */
export function duplicateOf(ascii, domains) {
  const name = String(ascii ?? '').toLowerCase().replace(/\.$/, '');
  return (domains ?? []).find((d) => d.hostname === name) ?? null;
}

/**
 * The name to diagnose for what was typed: the hostname itself, or the one in a web address
 * pasted from a browser (`https://www.example.com/shop` → www.example.com). `{ascii}` or
 * `{message}` saying what is wrong.
 */
export function hostnameToDiagnose(typed) {
  const checked = checkHostname(String(typed ?? '').trim());
  const ascii = checked.ok ? checked.ascii : checked.suggestion && checkHostname(checked.suggestion).ascii;
  return ascii ? { ascii } : { message: checked.message };
}
