// The words after a copy: the value quoted, with no full stop a reader could take for DNS's
// trailing dot ("Copied cname.pages.local-platform.test." read as the root's dot).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copiedNotice } from '../lib/record-card.js';

test('a copied name is quoted and no full stop follows it', () => {
  assert.equal(copiedNotice('cname.pages.local-platform.test'), 'Copied “cname.pages.local-platform.test”');
  assert.doesNotMatch(copiedNotice('shop'), /\.$/);
  assert.equal(copiedNotice('https://dc.provider.example/v2/domainTemplates/providers/x/services/y/apply?domain=example.com'), 'Copied the link');
  assert.equal(copiedNotice('anything', 'the report'), 'Copied the report');
});

import { recordWarnings, withUnit } from '../lib/record-card.js';
import { recordToCreate } from '../lib/domain-view.js';
import { domain } from './fixtures.js';

test('a value with a unit never breaks between number and unit', () => {
  assert.equal(withUnit(60, 's'), '60\u00a0s');
});

test('the record card names the record found in the way, or nothing, once the zone is read', () => {
  const blog = domain({ hostname: 'blog.example.com', unicode_hostname: 'blog.example.com', apex: false, dns_record: { type: 'CNAME', name: 'blog', value: 'cname.pages.example.net', ttl: 300 } });
  const r = recordToCreate(blog);
  // Not read yet: the general warning stands.
  assert.ok(recordWarnings(blog, r, null).some((w) => w.startsWith('An A or AAAA record at “blog”')));
  // Read, nothing in the way: no word about A records.
  const clear = recordWarnings(blog, r, [{ type: 'CNAME', value: 'cname.pages.example.net.' }]);
  assert.ok(!clear.some((w) => /A or AAAA|blocks/.test(w)), clear.join('\n'));
  assert.ok(clear.length > 0, 'the other warnings stay');
  // Read, an A record in the way: that record, by its value.
  const blocked = recordWarnings(blog, r, [{ type: 'A', value: '192.0.2.10' }]);
  assert.equal(blocked[0], 'The A record “192.0.2.10” at “blog” blocks the CNAME: remove it first.');
  assert.ok(!blocked.some((w) => w.startsWith('An A or AAAA record')));
});

test('at the apex only addresses other than the platform’s are named', () => {
  const apex = domain({ hostname: 'example.com', unicode_hostname: 'example.com', apex: true, dns_record: { type: 'A', name: '@', value: '192.0.2.1', ttl: 300 } });
  const r = recordToCreate(apex);
  const found = recordWarnings(apex, r, [{ type: 'A', value: '192.0.2.1' }, { type: 'A', value: '198.51.100.7' }]);
  assert.equal(found[0], 'The A record “198.51.100.7” at @ competes with the platform’s address: remove it.');
  assert.equal(found.filter((w) => w.includes('competes')).length, 1);
  assert.ok(!found.some((w) => w.startsWith('Remove other A or AAAA records')));
});

import { foundAtName } from '../lib/record-card.js';

test('the records found come from the doctor’s look, else the platform’s check, else nothing is known', () => {
  const blog = domain({ hostname: 'blog.example.com', verification: { error: { code: 'conflicting_record', found: [{ type: 'a', value: '192.0.2.10' }] } } });
  assert.deepEqual(foundAtName(blog, { records: [{ type: 'CNAME', value: 'x.example.net', ttl: 300 }] }), [{ type: 'CNAME', value: 'x.example.net' }]);
  assert.deepEqual(foundAtName(blog, null), [{ type: 'A', value: '192.0.2.10' }]);
  assert.equal(foundAtName(domain({ hostname: 'new.example.com', verification: null }), { records: null }), null);
});
