// What the actions tell the user, against a fake Rust side: a fake `__TAURI__` answers the
// commands and a fake document collects the notices.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { setRedirect, refreshList, removedNotice } from '../lib/actions.js';
import { store } from '../lib/app-state.js';
import { redirectNotice } from '../lib/domain-view.js';
import { domain } from './fixtures.js';

const PROJECT = { id: 'prj_1', name: 'Pro site' };
let notices;
let answers;

beforeEach(() => {
  notices = [];
  const document = new EventTarget();
  document.addEventListener('dd-toast', (e) => notices.push(e.detail));
  globalThis.document = document;
  answers = {};
  globalThis.__TAURI__ = {
    core: {
      invoke: async (command) => {
        const answer = answers[command];
        if (answer instanceof Error) throw answer.cause;
        return typeof answer === 'function' ? answer() : answer ?? null;
      },
    },
  };
  store.set({ project: PROJECT, domains: [], selected: null });
});

afterEach(() => {
  delete globalThis.__TAURI__;
  delete globalThis.document;
  store.set({ project: null, domains: [] });
});

const shop = domain({ status: 'live', certificate: { status: 'issued' } });
const www = (status) => domain({
  hostname: 'www.example.com',
  unicode_hostname: 'www.example.com',
  role: 'redirect',
  redirect: { to: 'shop.example.com', status: 301 },
  status,
});

test('a redirect set on a domain still waiting for DNS says it redirects once live', async () => {
  answers.domains_list = [shop, www('pending_verification')];
  assert.equal(await setRedirect('www.example.com', 'shop.example.com'), true);
  assert.deepEqual(notices, [{ message: 'www.example.com will redirect to shop.example.com (301) once it is live.', tone: 'ok' }]);
  assert.doesNotMatch(notices[0].message, /now redirects/);
});

test('a redirect set on a live domain redirects now', async () => {
  answers.domains_list = [shop, www('live')];
  await setRedirect('www.example.com', 'shop.example.com');
  assert.deepEqual(notices.map((n) => n.message), ['www.example.com now redirects to shop.example.com (301).']);
});

test('the notice after a redirect, for every state of the domain', () => {
  assert.equal(redirectNotice(www('verified'), 'www.example.com', 'shop.example.com'), 'www.example.com will redirect to shop.example.com (301) once it is live.');
  assert.equal(redirectNotice(undefined, 'www.example.com', 'shop.example.com'), 'www.example.com will redirect to shop.example.com (301) once it is live.');
  assert.equal(redirectNotice(www('live'), 'www.example.com', null), 'www.example.com no longer redirects.');
});

test('a failed Refresh is shown with the reason and what to do', async () => {
  answers.domains_list = new Error('timeout', { cause: { kind: 'timeout', message: 'The platform did not answer within 30 s.' } });
  assert.equal(await refreshList(), false);
  assert.equal(notices.length, 1);
  assert.equal(notices[0].tone, 'error');
  assert.match(notices[0].message, /could not be refreshed/);
  assert.match(notices[0].message, /did not answer within 30 s\. The platform is slow to answer\. Try again in a moment\./);
});

test('a Refresh that works updates the table and says nothing', async () => {
  answers.domains_list = [shop];
  assert.equal(await refreshList(), true);
  assert.deepEqual(store.get().domains, [shop]);
  assert.deepEqual(notices, []);
});

test('a removal whose record still points at the platform says which record to delete', () => {
  assert.deepEqual(removedNotice('shop.example.com', null), { message: 'Removed shop.example.com.', tone: 'ok' });
  const notice = removedNotice('shop.example.com', { type: 'CNAME', name: 'shop', fqdn: 'shop.example.com', value: 'cname.pages.local-platform.test' });
  assert.equal(notice.tone, 'warning');
  assert.match(notice.message, /CNAME record shop\.example\.com → cname\.pages\.local-platform\.test still points at the platform/);
  assert.match(notice.message, /takes it over/);
});
