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

/** Converts a Unicode name to lowercase A-labels the way browsers do (UTS 46), or null. */
export function toAscii(name) {
  try {
    const host = new URL(`http://${name}/`).hostname;
    return host || null;
  } catch {
    return null;
  }
}

/**
 * Checks a hostname as typed. Returns `{ok: true, ascii, changed}` (changed: the stored form
 * differs from what was typed, e.g. Unicode or upper case) or `{ok: false, message}`.
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
