import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RowCache, sameRow, sameSortKeys } from '../lib/row-cache.js';
import { domainRow, rowKeys } from '../lib/domain-view.js';
import { upsertDomain } from '../lib/domain-list.js';
import { sortIndices } from '../lib/virtual.js';
import { domain } from './fixtures.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');

function counting() {
  const made = [];
  const cache = new RowCache((d, now, caIdentity) => {
    made.push(d.hostname);
    return domainRow(d, now, { caIdentity });
  });
  return { cache, made };
}

/** The rows of `domains` as the table draws them, each through `RowCache.row`. */
function drawn(cache, domains, { renewals = new Map(), ...context }) {
  return domains.map((d) => cache.row(d, { ...context, readiness: renewals.get(d.hostname) }));
}

const list = (n) => Array.from({ length: n }, (_, i) => domain({ hostname: `site-${i}.example.com`, unicode_hostname: `site-${i}.example.com` }));

test('an answer for one domain makes that row again and keeps every other', () => {
  const { cache, made } = counting();
  const before = list(500);
  const context = { now: NOW, caIdentity: 'ca', renewals: new Map() };
  const first = drawn(cache, before, context);
  assert.equal(made.length, 500);
  made.length = 0;
  const changed = domain({ hostname: 'site-7.example.com', unicode_hostname: 'site-7.example.com', status: 'verified' });
  const after = upsertDomain(before, changed);
  const second = drawn(cache, after, context);
  assert.deepEqual(made, ['site-7.example.com']);
  assert.equal(second[7].status.key, domainRow(changed, NOW).status.key);
  second.forEach((row, i) => { if (i !== 7) assert.equal(row, first[i]); });
});

test('a tick, another CA or a new readiness makes the rows again', () => {
  const { cache, made } = counting();
  const domains = list(3);
  const renewals = new Map();
  drawn(cache, domains, { now: NOW, caIdentity: 'ca', renewals });
  made.length = 0;
  drawn(cache, domains, { now: NOW + 60_000, caIdentity: 'ca', renewals });
  assert.equal(made.length, 3, 'a tick of the clock');
  made.length = 0;
  drawn(cache, domains, { now: NOW + 60_000, caIdentity: 'other', renewals });
  assert.equal(made.length, 3, 'another CA');
  made.length = 0;
  const readiness = new Map([['site-1.example.com', { state: 'at_risk' }]]);
  drawn(cache, domains, { now: NOW + 60_000, caIdentity: 'other', renewals: readiness });
  assert.deepEqual(made, ['site-1.example.com'], 'a readiness for one name');
});

test('the sort is kept only while every row keeps its keys and place', () => {
  const now = NOW;
  const rows = list(50).map((d) => domainRow(d, now));
  assert.equal(sameSortKeys(rows, rows.map((r) => ({ ...r, checked: 'just now' }))), true, 'a text beside the keys');
  const status = rows.slice();
  status[3] = domainRow(domain({ hostname: 'site-3.example.com', unicode_hostname: 'site-3.example.com', status: 'live' }), now);
  assert.equal(sameSortKeys(rows, status), false, 'a status');
  const role = rows.slice();
  role[4] = { ...rows[4], roleKey: 'alias' };
  assert.equal(sameSortKeys(rows, role), false, 'a role');
  assert.equal(sameSortKeys(rows, [...rows].reverse()), false, 'another place');
  assert.equal(sameSortKeys(rows, rows.slice(1)), false, 'one fewer');
  assert.equal(sameSortKeys(undefined, rows), false, 'nothing before');
  // Kept keys: sorting again gives the same order, by every column.
  const texts = rows.map((r) => ({ ...r, checked: 'later' }));
  for (const column of ['status', 'role', 'hostname']) {
    assert.deepEqual(sortIndices(texts, [...texts.keys()], column), sortIndices(rows, [...rows.keys()], column));
  }
});

test('news that moves now between two ticks makes only its own rows again, with the new now', () => {
  const { cache, made } = counting();
  const before = list(500);
  const first = drawn(cache, before, { now: NOW, tick: NOW, caIdentity: 'ca', renewals: new Map() });
  made.length = 0;
  // A poll's answer, checked 20 s after the tick: the screen's now moves on with it.
  const checkedAt = new Date(NOW + 20_000).toISOString();
  const changed = domain({ hostname: 'site-9.example.com', unicode_hostname: 'site-9.example.com', verification: { checked_at: checkedAt } });
  const after = upsertDomain(before, changed);
  const second = drawn(cache, after, { now: NOW + 20_000, tick: NOW, caIdentity: 'ca', renewals: new Map() });
  assert.deepEqual(made, ['site-9.example.com']);
  assert.deepEqual(second[9], domainRow(changed, NOW + 20_000, { caIdentity: 'ca' }), 'drawn with the moved now');
  second.forEach((row, i) => { if (i !== 9) assert.equal(row, first[i]); });
  // The next tick makes every row again.
  made.length = 0;
  drawn(cache, after, { now: NOW + 30_000, tick: NOW + 30_000, caIdentity: 'ca', renewals: new Map() });
  assert.equal(made.length, 500);
});

test('the selected domain\'s row is always made at now, as the details panel beside it is drawn', () => {
  const { cache, made } = counting();
  const checkedAt = new Date(NOW - 20_000).toISOString();
  const domains = list(20).map((d) => ({ ...d, verification: { ...d.verification, checked_at: checkedAt } }));
  const first = drawn(cache, domains, { now: NOW, tick: NOW, caIdentity: 'ca', renewals: new Map(), selected: 'site-3.example.com' });
  made.length = 0;
  // News for another domain moved now on: the selected row follows it, the others keep theirs.
  const second = drawn(cache, domains, { now: NOW + 50_000, tick: NOW, caIdentity: 'ca', renewals: new Map(), selected: 'site-3.example.com' });
  assert.deepEqual(made, ['site-3.example.com']);
  assert.deepEqual(second[3], domainRow(domains[3], NOW + 50_000, { caIdentity: 'ca' }));
  assert.notEqual(second[3].checked, first[3].checked, 'checked 20 s before: just now, then 1 min ago');
  second.forEach((row, i) => { if (i !== 3) assert.equal(row, first[i]); });
  made.length = 0;
  drawn(cache, domains, { now: NOW + 50_000, tick: NOW, caIdentity: 'ca', renewals: new Map(), selected: 'site-3.example.com' });
  assert.deepEqual(made, [], 'made once per now');
});

test('a row made again that reads as before is the row made before; one that reads otherwise is new', () => {
  const cache = new RowCache((d, now) => domainRow(d, now));
  const never = domain({ hostname: 'never.example.com', unicode_hostname: 'never.example.com' });
  const checked = domain({
    hostname: 'checked.example.com',
    unicode_hostname: 'checked.example.com',
    verification: { checked_at: new Date(NOW - 60_000).toISOString(), error: null },
  });
  const renewals = new Map();
  const first = drawn(cache, [never, checked], { now: NOW, caIdentity: 'ca', renewals });
  const later = drawn(cache, [never, checked], { now: NOW + 3_600_000, caIdentity: 'ca', renewals });
  assert.equal(later[0], first[0], 'never checked: the same words an hour later');
  assert.notEqual(later[1], first[1], '"1 min ago" is "1 h ago" an hour later');
  assert.notEqual(later[1].checked, first[1].checked);
});

test('rows compare by every value, one level into their objects', () => {
  const row = domainRow(domain(), NOW);
  assert.equal(sameRow(row, { ...row, status: { ...row.status } }), true);
  assert.equal(sameRow(row, { ...row, status: { ...row.status, reason: 'other' } }), false);
  assert.equal(sameRow(row, { ...row, checked: 'just now!' }), false);
  assert.equal(sameRow(row, { ...row, extra: 1 }), false);
});

test('the sort and filter keys are made once for each copy of a domain, and never at a tick', () => {
  const keyed = [];
  const cache = new RowCache((d, now) => domainRow(d, now), (d) => {
    keyed.push(d.hostname);
    return rowKeys(d);
  });
  const before = list(500);
  const first = before.map((d) => cache.keys(d));
  assert.equal(keyed.length, 500);
  keyed.length = 0;
  // A tick draws the rows in view at a new now; the keys of every domain are the same objects.
  drawn(cache, before.slice(0, 20), { now: NOW + 15_000, caIdentity: 'ca' });
  const atTick = before.map((d) => cache.keys(d));
  assert.deepEqual(keyed, []);
  atTick.forEach((keys, i) => assert.equal(keys, first[i]));
  assert.equal(sameSortKeys(first, atTick), true);
  // An answer for one domain: its copy gets its own keys, and its new status moves the sort.
  const changed = domain({ hostname: 'site-7.example.com', unicode_hostname: 'site-7.example.com', status: 'live' });
  const after = upsertDomain(before, changed).map((d) => cache.keys(d));
  assert.deepEqual(keyed, ['site-7.example.com']);
  assert.equal(after[7].status.key, 'live');
  assert.equal(sameSortKeys(first, after), false);
});

test('a row holds its domain\'s keys as they are made apart, and sorts and filters as they do', () => {
  const kinds = [
    domain(),
    domain({ hostname: 'xn--bcher-kva.example.com', unicode_hostname: 'bücher.example.com', role: 'alias' }),
    domain({ hostname: 'old.example.com', unicode_hostname: 'old.example.com', role: 'redirect', redirect: { to: 'shop.example.com', status: 301 }, status: 'live' }),
    domain({ hostname: 'issuing.example.com', unicode_hostname: 'issuing.example.com', status: 'verified', certificate: { status: 'issuing', started_at: '2026-11-21T11:58:00Z' } }),
    domain({ hostname: 'failed.example.com', unicode_hostname: 'failed.example.com', status: 'verified', certificate: { status: 'failed', error: { code: 'caa_forbids', message: 'CAA forbids' } } }),
  ];
  for (const d of kinds) {
    const row = domainRow(d, NOW);
    const keys = rowKeys(d);
    for (const name of ['hostname', 'unicode', 'roleKey', 'search']) assert.equal(keys[name], row[name], `${d.hostname}: ${name}`);
    assert.equal(keys.status.key, row.status.key, `${d.hostname}: status`);
  }
  const rows = kinds.map((d) => domainRow(d, NOW));
  const keys = kinds.map((d) => rowKeys(d));
  for (const column of ['status', 'role', 'hostname']) {
    assert.deepEqual(sortIndices(keys, [...keys.keys()], column), sortIndices(rows, [...rows.keys()], column), column);
  }
});

test('a row is kept while its domain is in view, across ticks, and let go once it leaves', () => {
  const { cache, made } = counting();
  const [a, b] = list(2);
  const at = (tick, d) => cache.row(d, { now: tick, tick, caIdentity: 'ca' });
  const first = at(NOW, a);
  cache.retain(new Set([a]));
  assert.equal(at(NOW + 15_000, a), first, 'the next tick: a row that reads the same is the row made before');
  cache.retain(new Set([a]));
  assert.equal(at(NOW + 30_000, a), first, 'and the tick after, while it stays in view');
  at(NOW + 30_000, b);
  cache.retain(new Set([b]));
  assert.equal(cache.made.size, 1, 'only the row in view is kept');
  made.length = 0;
  const later = at(NOW + 30_000, a);
  assert.deepEqual(made, [a.hostname], 'scrolled out of view: made again');
  assert.notEqual(later, first, 'and not compared with the row let go');
  assert.ok(sameRow(later, first), 'though it reads the same');
});

test('a new copy of a domain that sorts and filters as before keeps the keys of the earlier copy', () => {
  const cache = new RowCache((d, now) => domainRow(d, now));
  const before = list(3);
  const first = before.map((d) => cache.keys(d));
  const earlierOf = (hostname) => first.find((keys) => keys.hostname === hostname);
  // Re-verified: checked again, still waiting for its record.
  const rechecked = { ...before[1], verification: { ...before[1].verification, checked_at: '2026-11-21T12:01:00Z' } };
  const keys = cache.keys(rechecked, earlierOf);
  assert.equal(keys, first[1], 'the earlier keys object');
  assert.equal(cache.keys(rechecked), first[1], 'and it is this copy\'s keys from then on');
  // Live now: it sorts elsewhere, so its keys are its own.
  const live = { ...before[2], status: 'live' };
  const liveKeys = cache.keys(live, earlierOf);
  assert.notEqual(liveKeys, first[2]);
  assert.deepEqual(liveKeys, rowKeys(live));
  // No earlier copy to ask: made afresh, as before.
  assert.deepEqual(cache.keys({ ...before[0], verification: null }), rowKeys({ ...before[0], verification: null }));
});
