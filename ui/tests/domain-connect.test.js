// "Set up automatically" asks before the browser opens: the confirmation names the host of the
// provider's consent page (from an unsigned DNS record), and the set-up is sent only on yes,
// with that host, so the Rust side opens nothing when the page has moved since.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { setUpAutomatically, consentQuestion } from '../lib/actions.js';
import { store } from '../lib/app-state.js';
import { registerDialog } from '../lib/dialogs.js';

const OFFER = { offered: true, provider: 'Demo DNS', host: 'dc.provider.example:8443' };
let calls;
let asked;
let unregister;

function answering(yes) {
  unregister?.();
  unregister = registerDialog('confirm', { ask: async (options) => { asked.push(options); return yes; } });
}

beforeEach(() => {
  calls = [];
  asked = [];
  globalThis.document = new EventTarget();
  globalThis.__TAURI__ = {
    core: {
      invoke: async (command, args) => {
        calls.push({ command, args });
        return { outcome: 'applied', message: 'Demo DNS wrote the record.', domain: null };
      },
    },
  };
  store.set(() => ({ project: { id: 'prj_1', name: 'Pro site' }, domains: [] }));
});

afterEach(() => {
  unregister?.();
  unregister = null;
});

test('the confirmation names the provider and the host of its consent page', () => {
  const question = consentQuestion(OFFER.provider, OFFER.host);
  assert.match(question.title, /dc\.provider\.example:8443/);
  assert.match(question.title + question.body, /Demo DNS/);
  assert.ok(question.confirm);
});

test('no is a set-up never sent: nothing opens', async () => {
  answering(false);
  const result = await setUpAutomatically('shop.example.com', OFFER);
  assert.equal(result.outcome, 'declined');
  assert.equal(asked.length, 1);
  assert.match(asked[0].title, /dc\.provider\.example:8443/);
  assert.deepEqual(calls.filter((c) => c.command === 'domain_connect_set_up'), []);
});

test('yes sends the set-up with the host the user approved', async () => {
  answering(true);
  const result = await setUpAutomatically('shop.example.com', OFFER);
  assert.equal(result.outcome, 'applied');
  const sent = calls.filter((c) => c.command === 'domain_connect_set_up');
  assert.equal(sent.length, 1);
  assert.deepEqual(sent[0].args, { projectId: 'prj_1', hostname: 'shop.example.com', providerHost: 'dc.provider.example:8443' });
});

test('"waiting for your browser" is said only once the user said yes', async () => {
  const approvals = [];
  answering(false);
  await setUpAutomatically('shop.example.com', OFFER, { onApproved: () => approvals.push('no') });
  assert.deepEqual(approvals, []);
  answering(true);
  await setUpAutomatically('shop.example.com', OFFER, { onApproved: () => approvals.push('yes') });
  assert.deepEqual(approvals, ['yes']);
});
