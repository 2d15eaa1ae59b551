// The notices' rules (lib/notices.js's header) with a fake clock: confirmations expire, errors
// stay until dismissed or resolved, at most three show, repeats are counted, and a notice of a
// project or account goes when the user switches away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Notices, MAX_NOTICES, NOTICE_MS } from '../lib/notices.js';

/** A clock that moves only when told to. */
function fakeTimers() {
  let now = 0;
  let nextId = 1;
  const pending = new Map();
  return {
    setTimeout(fn, ms) {
      const id = nextId++;
      pending.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout(id) {
      pending.delete(id);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...pending.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        pending.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = until;
    },
    get pending() {
      return pending.size;
    },
  };
}

const messages = (notices) => notices.list().map((n) => n.message);

test('a confirmation goes by itself; an error stays until it is dismissed', () => {
  const timers = fakeTimers();
  const notices = new Notices({ timers });
  notices.add('Added shop.example.com.', 'ok');
  const error = notices.add('The API key was refused.', 'error');
  timers.advance(NOTICE_MS.ok - 1);
  assert.deepEqual(messages(notices), ['Added shop.example.com.', 'The API key was refused.']);
  timers.advance(1);
  assert.deepEqual(messages(notices), ['The API key was refused.']);
  timers.advance(60 * 60_000);
  assert.deepEqual(messages(notices), ['The API key was refused.'], 'an error is never timed out unread');
  assert.equal(timers.pending, 0, 'an error has no timer');
  notices.dismiss(error);
  assert.deepEqual(messages(notices), []);
});

test('an error goes when its cause is gone: resolved by key, or its cause no longer holds', () => {
  const timers = fakeTimers();
  const notices = new Notices({ timers });
  notices.add('The domains could not be refreshed.', 'error', { key: 'refresh' });
  const pending = (hostname) => (state) => state.domains.some((d) => d.hostname === hostname && d.status === 'pending_verification');
  notices.add('shop.example.com: verification failed — see the reason.', 'error', { cause: pending('shop.example.com') });
  notices.add('www.example.com: verification failed — see the reason.', 'error', { cause: pending('www.example.com') });
  notices.check({ domains: [{ hostname: 'shop.example.com', status: 'pending_verification' }, { hostname: 'www.example.com', status: 'pending_verification' }] });
  assert.equal(notices.list().length, 3, 'causes that still hold keep their notices');
  notices.resolve('refresh');
  assert.deepEqual(messages(notices), ['shop.example.com: verification failed — see the reason.', 'www.example.com: verification failed — see the reason.']);
  // shop is verified now, www was removed.
  notices.check({ domains: [{ hostname: 'shop.example.com', status: 'verified' }] });
  assert.deepEqual(messages(notices), []);
  // A cause that cannot read the state (a project closed) no longer holds either.
  notices.add('Broken', 'error', { cause: (s) => s.domains.length > 0 });
  notices.check({});
  assert.deepEqual(messages(notices), []);
});

test('at most three are shown; a new one drops the oldest confirmation, never an unread error', () => {
  const timers = fakeTimers();
  const notices = new Notices({ timers });
  for (const n of [1, 2, 3, 4, 5]) notices.add(`Notice ${n}`, 'ok');
  assert.equal(MAX_NOTICES, 3);
  assert.deepEqual(messages(notices), ['Notice 3', 'Notice 4', 'Notice 5']);
  assert.equal(timers.pending, 3, 'the dropped notices took their timers with them');

  const errors = new Notices({ timers: fakeTimers() });
  errors.add('Error 1', 'error');
  errors.add('Saved', 'ok');
  errors.add('Error 2', 'error');
  errors.add('Error 3', 'error');
  assert.deepEqual(messages(errors), ['Error 1', 'Error 2', 'Error 3'], 'the confirmation made room');
  errors.add('Error 4', 'error');
  assert.deepEqual(messages(errors), ['Error 2', 'Error 3', 'Error 4'], 'three shown');
  assert.equal(errors.hidden(), 1, 'the oldest error waits behind them');
  errors.dismiss(errors.list()[0].id);
  assert.deepEqual(messages(errors), ['Error 1', 'Error 3', 'Error 4'], 'and shows when one goes');
  assert.equal(errors.hidden(), 0);
});

test('the same message again is counted, moves to the end and starts its time again', () => {
  const timers = fakeTimers();
  const notices = new Notices({ timers });
  notices.add('Copied cname.platform.test', 'ok');
  notices.add('Demo clock: 600×.', 'ok');
  timers.advance(3_000);
  for (let i = 0; i < 11; i++) notices.add('Copied cname.platform.test', 'ok');
  assert.deepEqual(notices.list().map(({ message, count }) => [message, count]), [
    ['Demo clock: 600×.', 1],
    ['Copied cname.platform.test', 12],
  ]);
  timers.advance(NOTICE_MS.ok - 1);
  assert.deepEqual(messages(notices), ['Copied cname.platform.test'], 'the repeat restarted its time');
  timers.advance(1);
  assert.deepEqual(notices.list(), []);
});

test('the same key is the same notice, with the newest words', () => {
  const notices = new Notices({ timers: fakeTimers() });
  notices.add('shop.example.com: verification failed — no CNAME yet.', 'error', { key: 'verify:shop' });
  notices.add('shop.example.com: verification failed — an A record blocks the CNAME.', 'error', { key: 'verify:shop' });
  assert.deepEqual(notices.list().map(({ message, count }) => [message, count]), [
    ['shop.example.com: verification failed — an A record blocks the CNAME.', 2],
  ]);
});

test('notices of an account or a project go when the user switches away; the others stay', () => {
  const notices = new Notices({ timers: fakeTimers() });
  notices.add('The settings file could not be read.', 'warning');
  notices.add('Pro site: the domains could not be refreshed.', 'error', { scope: { account: 'acc_pro', project: 'prj_pro' } });
  notices.add('The projects could not be loaded.', 'error', { scope: { account: 'acc_pro' } });
  notices.within({ account: 'acc_pro', project: 'prj_pro' });
  assert.equal(notices.list().length, 3, 'nothing moved');
  notices.within({ account: 'acc_pro', project: null });
  assert.deepEqual(messages(notices), ['The settings file could not be read.', 'The projects could not be loaded.'], 'the project was closed');
  notices.within({ account: 'acc_free', project: null });
  assert.deepEqual(messages(notices), ['The settings file could not be read.'], 'another account');
});

test('dismissing removes the notice and its timer, and every change is reported', () => {
  const timers = fakeTimers();
  const seen = [];
  const notices = new Notices({ timers, onChange: (list, hidden) => seen.push([list.map((n) => n.message), hidden]) });
  const id = notices.add('Copied cname.platform.test', 'ok');
  notices.dismiss(id);
  notices.dismiss(id);
  assert.deepEqual(seen, [[['Copied cname.platform.test'], 0], [[], 0]]);
  assert.equal(timers.pending, 0);
});

test('a warning stays until it is dismissed', () => {
  const timers = fakeTimers();
  const notices = new Notices({ timers });
  notices.add('The settings file could not be read; it was kept beside it.', 'warning');
  timers.advance(10 * 60_000);
  assert.deepEqual(messages(notices), ['The settings file could not be read; it was kept beside it.']);
  notices.dismiss(notices.list()[0].id);
  assert.deepEqual(messages(notices), []);
});
