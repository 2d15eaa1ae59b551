import { test } from 'node:test';
import assert from 'node:assert/strict';
import { upsertDomain, upsertDomains, removeDomain, keepUnchanged, sameJson, sharedWith } from '../lib/domain-list.js';

test('domains are replaced in place or appended, and removed by hostname', () => {
  const list = [{ hostname: 'a.example.com', status: 'live' }, { hostname: 'b.example.com', status: 'verified' }];
  const updated = upsertDomain(list, { hostname: 'b.example.com', status: 'live' });
  assert.deepEqual(updated.map((d) => d.status), ['live', 'live']);
  assert.equal(list[1].status, 'verified', 'the old list is not changed');
  assert.equal(upsertDomain(list, { hostname: 'c.example.com' }).length, 3);
  assert.deepEqual(removeDomain(list, 'a.example.com').map((d) => d.hostname), ['b.example.com']);
});

test('several answers at once make the list that upserting them one by one makes', () => {
  const list = ['a', 'b', 'c', 'd'].map((n) => ({ hostname: `${n}.example.com`, status: 'pending_verification' }));
  const answers = [
    { hostname: 'c.example.com', status: 'verified' },
    { hostname: 'new.example.com', status: 'pending_verification' },
    { hostname: 'a.example.com', status: 'live' },
    { hostname: 'c.example.com', status: 'live' },
    { hostname: 'other.example.com', status: 'pending_verification' },
  ];
  const oneByOne = answers.reduce(upsertDomain, list);
  assert.deepEqual(upsertDomains(list, answers), oneByOne);
  assert.equal(upsertDomains(list, []), list, 'no answers: the same list');
  assert.equal(list[2].status, 'pending_verification', 'the old list is not changed');
  const kept = upsertDomains(list, [answers[0]]);
  assert.equal(kept[1], list[1], 'the others stay the same objects');
});

test('a list read again keeps the objects of the domains that read as before', () => {
  const a = { hostname: 'a.example', status: 'live', verification: { checked_at: '2026-11-27T10:00:00Z', records: [1, 2] } };
  const b = { hostname: 'b.example', status: 'pending', verification: null };
  const previous = [a, b];
  // the same answer, parsed again: new objects, the same values
  const again = JSON.parse(JSON.stringify(previous));
  assert.equal(keepUnchanged(previous, again), previous);
  // one domain changed: a new list, the unchanged domain kept as its old object
  const changed = JSON.parse(JSON.stringify(previous));
  changed[1].status = 'verified';
  const out = keepUnchanged(previous, changed);
  assert.notEqual(out, previous);
  assert.equal(out[0], a);
  assert.deepEqual(out[1], changed[1]);
  // a change deep inside (an array's member) counts
  const deep = JSON.parse(JSON.stringify(previous));
  deep[0].verification.records[1] = 3;
  assert.deepEqual(keepUnchanged(previous, deep)[0], deep[0]);
  assert.notEqual(keepUnchanged(previous, deep)[0], a);
  // a key gone, or a value null where it was an object, counts
  const gone = JSON.parse(JSON.stringify(previous));
  delete gone[0].verification.checked_at;
  assert.deepEqual(keepUnchanged(previous, gone)[0], gone[0]);
  // the platform's order wins; a domain removed or added makes a new list
  const swapped = JSON.parse(JSON.stringify([b, a]));
  assert.deepEqual(keepUnchanged(previous, swapped), [b, a]);
  assert.equal(keepUnchanged(previous, swapped)[0], b);
  assert.deepEqual(keepUnchanged(previous, [JSON.parse(JSON.stringify(a))]), [a]);
  assert.equal(keepUnchanged([], again), again);
});

test('an answer that reads as the domain held changes nothing', () => {
  const a = { hostname: 'a.example', status: 'live', certificate: { expires_at: 'x' } };
  const list = [a];
  assert.equal(upsertDomain(list, JSON.parse(JSON.stringify(a))), list);
  assert.equal(upsertDomains(list, [JSON.parse(JSON.stringify(a))]), list);
  const changed = { ...a, status: 'verified' };
  assert.deepEqual(upsertDomains(list, [changed])[0], changed);
  assert.deepEqual(upsertDomain(list, changed)[0], changed);
  assert.notEqual(upsertDomain(list, changed)[0], a, 'a new object for a domain that changed');
  assert.equal(sameJson([1, { a: null }], [1, { a: null }]), true);
  assert.equal(sameJson({ a: [] }, { a: {} }), false);
  assert.equal(sameJson({ a: 1 }, { a: 1, b: undefined }), false);
});

test('an answer that differs keeps every part of the domain held that reads the same', () => {
  const held = {
    hostname: 'a.example', status: 'pending_verification',
    dns_record: { type: 'CNAME', name: 'a', value: 'p.platform.test' },
    verification: { checked_at: '2026-11-28T10:00:00Z', error: { code: 'record_missing', found: [{ type: 'A', value: '192.0.2.1' }] } },
    certificate: null,
  };
  // a re-verify a minute later: the same domain, parsed afresh, checked at a new time
  const answer = JSON.parse(JSON.stringify(held));
  answer.verification.checked_at = '2026-11-28T10:01:00Z';
  const kept = upsertDomains([held], [answer])[0];
  assert.deepEqual(kept, answer, 'it reads as the answer');
  assert.notEqual(kept, held);
  assert.notEqual(kept.verification, held.verification, 'the part that changed is new');
  assert.equal(kept.dns_record, held.dns_record, 'the parts that did not are the held objects');
  assert.equal(kept.verification.error, held.verification.error);
  assert.equal(held.verification.checked_at, '2026-11-28T10:00:00Z', 'the held domain is not changed');
  assert.equal(answer.verification.checked_at, '2026-11-28T10:01:00Z', 'nor the answer');
  // arrays: members that read the same are kept, a member added or changed is the answer's
  const found = [{ type: 'A', value: '192.0.2.1' }, { type: 'A', value: '192.0.2.2' }];
  const more = sharedWith(held.verification.error.found, found);
  assert.deepEqual(more, found);
  assert.equal(more[0], held.verification.error.found[0]);
  assert.equal(more[1], found[1]);
  // a part that changed its kind (an object where there was null, an array where an object) is the answer's
  const issued = { ...answer, certificate: { expires_at: '2027-02-26T00:00:00Z' } };
  assert.equal(sharedWith(held, issued).certificate, issued.certificate);
  assert.deepEqual(sharedWith({ a: { x: 1 } }, { a: [1] }), { a: [1] });
  // a key gone from the answer is gone from what is kept
  const { certificate: _, ...without } = answer;
  assert.deepEqual(sharedWith(held, without), without);
  // keepUnchanged and upsertDomain share the same way
  assert.equal(keepUnchanged([held], [answer])[0].dns_record, held.dns_record);
  assert.equal(upsertDomain([held], answer)[0].verification.error, held.verification.error);
});
