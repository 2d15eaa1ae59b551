import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeError, errorText } from '../lib/errors.js';

test('known kinds come with what to do', () => {
  const e = describeError({ kind: 'plan_upgrade_required', message: 'Custom domains need a paid plan.' });
  assert.match(e.action, /Pro plan or above/);
  assert.equal(errorText({ kind: 'deploy_required', message: 'No successful deploy.' }), 'No successful deploy. Deploy the project successfully once; domains can be added after that.');
});

test('unknown shapes still give a message', () => {
  assert.equal(describeError('boom').message, 'boom');
  assert.equal(describeError(null).message, 'Something went wrong.');
  assert.equal(errorText({ kind: 'brand_new', message: 'Odd.' }), 'Odd.');
});

test('the platform code wins over the kind of failure', () => {
  assert.equal(describeError({ kind: 'api', code: 'domain_taken', message: 'Taken.' }).kind, 'domain_taken');
  assert.match(errorText({ kind: 'network', message: 'Refused.' }), /platform could not be reached\. Check the internet connection/);
});
