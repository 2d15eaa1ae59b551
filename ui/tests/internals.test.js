import { test } from 'node:test';
import assert from 'node:assert/strict';
import { internalsIn } from '../lib/internals.js';
import { describeError, errorText } from '../lib/errors.js';
import { certificateText } from '../lib/report.js';

test('the pattern list catches each kind of internal', () => {
  const caught = (text) => internalsIn(text).map((f) => f.name);
  assert.deepEqual(caught('could not open the browser (ExitStatus(unix_wait_status(768)))'), ['Rust Debug formatting']);
  assert.ok(caught('error sending request: client error (Connect): tcp connect error: Connection refused (os error 111)').includes('an OS error number'));
  assert.deepEqual(caught('asked 127.0.0.1:41173 with checking disabled'), ['a loopback address and port']);
  assert.deepEqual(caught('CNAME cname.platform.test, A 127.0.0.1'), []);
  assert.deepEqual(caught('Last checked 2026-11-26T12:49:00Z'), ['an ISO timestamp']);
  assert.deepEqual(caught('Export prj_8f3kQ2x.csv'), ['a raw id']);
  assert.deepEqual(caught('Could not connect: tls handshake eof'), ['a library message']);
  assert.deepEqual(caught('The platform’s check at 12:41 found A 192.0.2.10 at “shop”, which blocks the CNAME.'), []);
  assert.deepEqual(caught('Expires 19 Feb 2027, 23:30'), []);
});

test('technical failures reach the window in words, with the next step', () => {
  const network = { kind: 'network', message: 'error sending request: client error (Connect): tcp connect error: Connection refused (os error 111)' };
  assert.equal(describeError(network).message, 'The platform could not be reached.');
  assert.deepEqual(internalsIn(errorText(network)), []);
  const browser = { kind: 'browser_not_opened', message: 'The browser could not be opened.', url: 'https://x' };
  assert.match(errorText(browser), /Copy the link/);
  // a platform sentence stays the platform's
  assert.equal(describeError({ kind: 'deploy_required', message: 'Deploy first.' }).message, 'Deploy first.');
  // a name another account holds: no advice that contradicts the challenge
  const taken = { kind: 'domain_taken', message: 'Another account holds shop.example.com.', ownership_challenge: { name: '_domain-desk-challenge.shop' } };
  assert.doesNotMatch(errorText(taken), /[Rr]emove it/);
  assert.match(errorText({ kind: 'domain_taken', message: 'Another project of this account holds it.' }), /remove it there first/);
});

test('the certificate panel’s sentences carry no internals', () => {
  for (const tls of [
    { address: '127.0.0.1:41173', connected: false, error: 'TLS handshake failed: tls handshake eof' },
    { address: '127.0.0.1:8443', connected: false, error: 'cannot connect: Connection refused (os error 111)' },
    { address: '127.0.0.1:8443', connected: true, certificate: { covers_hostname: true, trusted: false, trust_error: 'invalid peer certificate: UnknownIssuer' } },
  ]) assert.deepEqual(internalsIn(certificateText({ tls }).text), [], JSON.stringify(tls));
});
