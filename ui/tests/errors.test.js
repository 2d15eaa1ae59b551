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

test('a refused key never shows the platform’s sentence for API clients', () => {
  const err = { kind: 'api', code: 'unauthorized', message: 'Send a valid API key as `Authorization: Bearer <key>`.' };
  const text = errorText(err);
  assert.equal(text, 'The platform refused the API key. Copy the key again from the platform’s dashboard, or connect with a new one.');
  assert.ok(!text.includes('Bearer'), text);
});

test('a host that does not exist says so, with its next step, and no generic advice', () => {
  const err = { kind: 'no_such_host', message: 'No host named api.exmaple.com exists: no DNS record names it. Check the platform’s address for a typo.' };
  assert.equal(errorText(err), err.message);
  assert.ok(!errorText(err).includes('internet connection'));
});
