import { test } from 'node:test';
import assert from 'node:assert/strict';
import { upsertDomain, upsertDomains, removeDomain } from '../lib/domain-list.js';

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
