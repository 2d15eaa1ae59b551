// What the actions tell the user, against a fake Rust side: a fake `__TAURI__` answers the
// commands and a fake document collects the notices.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { setRedirect, refreshList, remove, verify, removedNotice, makePrimary, redirectOffer, keepLiveElsewhere } from '../lib/actions.js';
import { dangling, danglingIn, danglingText, recordDeleted, forgetDangling, removeConfirmBody, pointsAtPlatform } from '../lib/dangling.js';
import { store } from '../lib/app-state.js';
import { registerDialog } from '../lib/dialogs.js';
import { redirectNotice } from '../lib/domain-view.js';
import { domain } from './fixtures.js';

const PROJECT = { id: 'prj_1', name: 'Pro site' };
let notices;
let unregister;
let options;
let resolved;
let answers;

beforeEach(() => {
  notices = [];
  options = [];
  resolved = [];
  const document = new EventTarget();
  document.addEventListener('dd-toast', (e) => {
    notices.push({ message: e.detail.message, tone: e.detail.tone });
    options.push(e.detail.options);
  });
  document.addEventListener('dd-toast-resolve', (e) => resolved.push(e.detail.key));
  // The confirmation dialog says yes.
  unregister?.();
  unregister = registerDialog('confirm', { ask: async () => true });
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
  assert.equal(options[0].key, 'refresh', 'a later Refresh that works takes it away');
});

test('a Refresh that works updates the table and says nothing', async () => {
  answers.domains_list = [shop];
  assert.equal(await refreshList(), true);
  assert.deepEqual(store.get().domains, [shop]);
  assert.deepEqual(notices, []);
  assert.deepEqual(resolved, ['refresh'], 'the failure of an earlier Refresh goes');
});

test('a removal whose record still points at the platform leaves the warning in the domain’s place, not in a notice', async () => {
  dangling.set({ items: [] });
  const record = { type: 'CNAME', name: 'shop', fqdn: 'shop.example.com', value: 'cname.pages.local-platform.test' };
  store.set({ domains: [shop, www('live')] });
  answers.domain_remove = record;
  answers.domains_list = [www('live')];
  assert.equal(await remove('shop.example.com'), true);
  assert.deepEqual(notices, [removedNotice('shop.example.com')]);
  assert.deepEqual(notices[0], { message: 'Removed shop.example.com.', tone: 'ok' }, 'a confirmation, which goes by itself');
  assert.equal(options[0].scope, 'project');
  const shown = danglingIn(dangling.get().items, 'prj_1', store.get().domains);
  assert.equal(shown.length, 1);
  assert.match(danglingText(shown[0]), /CNAME record shop → cname\.pages\.local-platform\.test still points at the platform: delete it at your DNS provider/);
  assert.match(danglingText(shown[0], true), /delete it in Demo DNS/);
  assert.match(danglingText(shown[0]), /takes it over/);
  // Not in another project, not once the name is back, and gone with its record.
  assert.deepEqual(danglingIn(dangling.get().items, 'prj_2', []), []);
  assert.deepEqual(danglingIn(dangling.get().items, 'prj_1', [shop]), []);
  recordDeleted({ type: 'CNAME', fqdn: 'shop.example.com.' });
  assert.deepEqual(dangling.get().items, []);
});

test('a removal with no record left says only that it is done; a dismissed warning goes', async () => {
  dangling.set({ items: [] });
  store.set({ domains: [shop] });
  answers.domain_remove = null;
  answers.domains_list = [];
  assert.equal(await remove('shop.example.com'), true);
  assert.deepEqual(notices, [{ message: 'Removed shop.example.com.', tone: 'ok' }]);
  assert.deepEqual(dangling.get().items, []);
  dangling.set({ items: [{ project: 'prj_1', hostname: 'a.example.com', name: 'a.example.com', record: { type: 'CNAME', name: 'a', fqdn: 'a.example.com', value: 'x' } }] });
  forgetDangling('prj_1', 'a.example.com');
  assert.deepEqual(dangling.get().items, []);
});

test('a failed verification stays while the domain waits, and a later success resolves it', async () => {
  const pending = domain({ status: 'pending_verification' });
  store.set({ domains: [pending] });
  answers.domain_verify = pending;
  await verify('shop.example.com');
  assert.equal(notices[0].tone, 'info');
  assert.match(notices[0].message, /is not verified yet/);
  assert.equal(options[0].key, 'verify:shop.example.com');
  assert.equal(options[0].cause(store.get()), true, 'the cause holds while the domain waits');
  assert.equal(options[0].cause({ domains: [shop] }), false, 'and is gone once it is verified');
  assert.equal(options[0].cause({ domains: [] }), false, 'or removed');
  answers.domain_verify = domain({ status: 'verified' });
  await verify('shop.example.com');
  assert.deepEqual(resolved, ['verify:shop.example.com']);
  assert.equal(notices[1].tone, 'ok');
});

test('Remove warns before, in its confirmation, when the record still points at the platform', async () => {
  let asked;
  unregister();
  unregister = registerDialog('confirm', { ask: async (o) => { asked = o; return false; } });
  store.set({ domains: [shop], session: { mode: 'demo' } });
  assert.equal(await remove('shop.example.com'), false);
  assert.match(asked.body, /CNAME record shop → cname\.platform\.test still points at the platform: delete it in Demo DNS too/);
  assert.match(removeConfirmBody(shop, 'shop.example.com'), /delete it at your DNS provider too/);
  const waiting = domain({ status: 'pending_verification' });
  assert.equal(pointsAtPlatform(waiting), false, 'never checked: nothing known to point here');
  assert.doesNotMatch(removeConfirmBody(waiting, 'shop.example.com'), /still points/);
  const found = domain({ status: 'pending_verification', verification: { checked_at: 'x', error: { code: 'propagating', found: [{ type: 'CNAME', value: 'cname.platform.test.' }] } } });
  assert.equal(pointsAtPlatform(found), true, 'the last check found the record');
  store.set({ session: null });
});

test('after Make primary the old primary may be redirected to the new one', async () => {
  const oldPrimary = domain({ hostname: 'old.example.com', unicode_hostname: 'old.example.com', role: 'primary', status: 'live' });
  const next = domain({ hostname: 'new.example.com', unicode_hostname: 'new.example.com', role: 'alias', status: 'live' });
  store.set({ domains: [oldPrimary, next] });
  let asked;
  const calls = [];
  unregister();
  unregister = registerDialog('confirm', { ask: async (o) => { asked = o; return true; } });
  const invoke = globalThis.__TAURI__.core.invoke;
  globalThis.__TAURI__.core.invoke = async (command, args) => { calls.push([command, args]); return invoke(command, args); };
  answers.domains_list = [{ ...oldPrimary, role: 'alias' }, { ...next, role: 'primary' }];
  await makePrimary('new.example.com');
  assert.deepEqual(asked, redirectOffer(oldPrimary, 'new.example.com'));
  assert.equal(asked.title, 'Redirect old.example.com to new.example.com?');
  assert.deepEqual(calls.filter(([c]) => c === 'domain_redirect').map(([, a]) => [a.hostname, a.to]), [['old.example.com', 'new.example.com']]);
  assert.equal(redirectOffer(undefined, 'new.example.com'), null, 'no old primary, no question');
});

test('a suggested, harmless step is not drawn in the destructive red; a removal is', async () => {
  globalThis.HTMLElement ??= class {};
  const { confirmClass } = await import('../components/confirm-dialog/confirm-dialog.js');
  const offer = redirectOffer({ unicode_hostname: 'old.example.com' }, 'new.example.com');
  assert.equal(confirmClass(offer.tone), 'primary');
  const { consentQuestion } = await import('../lib/actions.js');
  assert.equal(confirmClass(consentQuestion('Demo DNS', 'dc.example').tone), 'primary');
  assert.equal(confirmClass(undefined), 'danger-solid', 'a question without a tone (Remove, Reset demo) stays red');
});

test('a look that finds the name served elsewhere keeps its addresses for the two steps, and a later look that does not forgets them', () => {
  store.set({ liveElsewhere: {} });
  let changes = 0;
  const stop = store.subscribe((_s, changed) => { if (changed.includes('liveElsewhere')) changes += 1; });
  keepLiveElsewhere('shop.example.com', ['192.0.2.10']);
  assert.deepEqual(store.get().liveElsewhere, { 'shop.example.com': ['192.0.2.10'] });
  // The same answer again changes nothing: the panel is not drawn anew.
  keepLiveElsewhere('shop.example.com', ['192.0.2.10']);
  assert.equal(changes, 1);
  keepLiveElsewhere('shop.example.com', []);
  assert.deepEqual(store.get().liveElsewhere, {});
  keepLiveElsewhere('other.example.com', null);
  assert.equal(changes, 2);
  stop();
});
