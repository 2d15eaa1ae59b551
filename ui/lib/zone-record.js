// Checks a record typed into the Demo DNS panel before it is sent, with the words a DNS
// provider would use. The local service checks again (and refuses CNAME conflicts).
import { duration } from './format.js';

export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'ALIAS', 'CAA', 'TXT'];

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const NAME = /^(@|\*|[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*)$/i;
const HOST = /^([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.?$/i;
const CAA = /^\d{1,3}\s+(issue|issuewild|iodef)\s+"[^"]*"$/i;

function isIpv6(value) {
  if (!/^[0-9a-f:]+$/i.test(value) || !value.includes(':')) return false;
  const parts = value.split('::');
  if (parts.length > 2) return false;
  const groups = parts.flatMap((p) => (p === '' ? [] : p.split(':')));
  if (groups.some((g) => g.length < 1 || g.length > 4)) return false;
  return parts.length === 2 ? groups.length < 8 : groups.length === 8;
}

/** `{ok: true, record: {name, type, value, ttl}}` or `{ok: false, field, message}`. */
export function checkZoneRecord({ name, type, value, ttl }, zone = '') {
  let n = String(name ?? '').trim().toLowerCase();
  const z = zone.toLowerCase();
  if (n === '' || n === z || n === `${z}.`) n = '@';
  else if (z && n.endsWith(`.${z}`)) n = n.slice(0, -(z.length + 1));
  else if (z && n.endsWith(`.${z}.`)) n = n.slice(0, -(z.length + 2));
  if (!NAME.test(n)) return { ok: false, field: 'name', message: 'Enter the name relative to the zone, such as shop, or @ for the zone itself.' };
  const t = String(type ?? '').toUpperCase();
  if (!RECORD_TYPES.includes(t)) return { ok: false, field: 'type', message: `Choose one of ${RECORD_TYPES.join(', ')}.` };
  const v = String(value ?? '').trim();
  if (v === '') return { ok: false, field: 'value', message: 'Enter the record’s value.' };
  if (t === 'A' && !IPV4.test(v)) return { ok: false, field: 'value', message: 'An A record holds an IPv4 address such as 192.0.2.10.' };
  if (t === 'AAAA' && !isIpv6(v)) return { ok: false, field: 'value', message: 'An AAAA record holds an IPv6 address such as 2001:db8::10.' };
  if ((t === 'CNAME' || t === 'ALIAS') && !HOST.test(v)) return { ok: false, field: 'value', message: `A ${t} record holds a hostname such as target.example.net.` };
  if (t === 'CNAME' && n === '@') return { ok: false, field: 'type', message: 'The zone’s apex (@) cannot hold a CNAME; use ALIAS.' };
  if (t === 'CAA' && !CAA.test(v)) return { ok: false, field: 'value', message: 'Write a CAA record as: 0 issue "letsencrypt.org".' };
  let seconds = 3600;
  if (ttl !== undefined && ttl !== null && String(ttl).trim() !== '') {
    seconds = Number(ttl);
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > 604800) return { ok: false, field: 'ttl', message: 'The TTL is a whole number of seconds from 1 to 604800.' };
  }
  return { ok: true, record: { name: n, type: t, value: v, ttl: seconds } };
}

/** The demo zone a hostname lives in, if any (the longest matching zone). */
export function zoneFor(hostname, zones) {
  const name = String(hostname ?? '').toLowerCase();
  return [...zones].sort((a, b) => b.length - a.length).find((z) => name === z || name.endsWith(`.${z}`)) ?? null;
}

/** What changing a zone's signatures means for the user. */
export function signaturesNotice(zone, signatures) {
  return signatures === 'expired'
    ? `${zone}: its DNSSEC signatures have expired, so validating resolvers answer SERVFAIL for its names. Diagnose shows the problem and its fix.`
    : `${zone}: DNSSEC signatures are valid again.`;
}

/**
 * What Demo DNS says about timing: how long the platform's resolver takes to see a change
 * (the demo's propagation delay, on the demo's clock), so a Verify right after an edit that
 * still fails is expected, not a mystery.
 */
export function propagationText(seconds) {
  const intro = 'This panel plays your DNS provider for the demo zones.';
  if (!Number.isFinite(seconds) || seconds < 0) return `${intro} The platform sees a change after the demo’s propagation delay.`;
  if (seconds === 0) return `${intro} The platform’s resolver sees a change at once.`;
  return `${intro} The platform’s resolver sees a change ${duration(seconds)} after you make it (on the demo’s clock): a Verify sooner still finds the old records.`;
}
