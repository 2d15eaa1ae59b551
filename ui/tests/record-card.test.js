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
