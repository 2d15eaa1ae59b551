import { test } from 'node:test';
import assert from 'node:assert/strict';
import { upsertDomain, removeDomain } from '../lib/domain-list.js';

test('domains are replaced in place or appended, and removed by hostname', () => {
  const list = [{ hostname: 'a.example.com', status: 'live' }, { hostname: 'b.example.com', status: 'verified' }];
  const updated = upsertDomain(list, { hostname: 'b.example.com', status: 'live' });
  assert.deepEqual(updated.map((d) => d.status), ['live', 'live']);
  assert.equal(list[1].status, 'verified', 'the old list is not changed');
  assert.equal(upsertDomain(list, { hostname: 'c.example.com' }).length, 3);
  assert.deepEqual(removeDomain(list, 'a.example.com').map((d) => d.hostname), ['b.example.com']);
});
