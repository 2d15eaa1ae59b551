// The notices' rules with a fake clock: they expire, stack at most three, and a repeated
// message is counted instead of stacked.
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

test('a notice goes away by itself; an error stays longer', () => {
  const timers = fakeTimers();
  const notices = new Notices({ timers });
  notices.add('Added shop.example.com.', 'ok');
  notices.add('The API key was refused.', 'error');
  timers.advance(NOTICE_MS.ok - 1);
  assert.deepEqual(messages(notices), ['Added shop.example.com.', 'The API key was refused.']);
  timers.advance(1);
  assert.deepEqual(messages(notices), ['The API key was refused.']);
  timers.advance(NOTICE_MS.error - NOTICE_MS.ok);
  assert.deepEqual(messages(notices), []);
  assert.equal(timers.pending, 0, 'no timer is left behind');
  assert.ok(NOTICE_MS.error > NOTICE_MS.ok);
});

test('at most three are shown; a fourth drops the oldest', () => {
  const timers = fakeTimers();
  const notices = new Notices({ timers });
  for (const n of [1, 2, 3, 4, 5]) notices.add(`Notice ${n}`, 'ok');
  assert.equal(MAX_NOTICES, 3);
  assert.deepEqual(messages(notices), ['Notice 3', 'Notice 4', 'Notice 5']);
  assert.equal(timers.pending, 3, 'the dropped notices took their timers with them');
});

test('the same message again is counted, moves to the end and starts its time again', () => {
  const timers = fakeTimers();
  const notices = new Notices({ timers });
  notices.add('shop.example.com: verification failed — see the reason.', 'error');
  notices.add('Demo clock: 600×.', 'ok');
  timers.advance(3_000);
  for (let i = 0; i < 11; i++) notices.add('shop.example.com: verification failed — see the reason.', 'error');
  assert.deepEqual(notices.list().map(({ message, count }) => [message, count]), [
    ['Demo clock: 600×.', 1],
    ['shop.example.com: verification failed — see the reason.', 12],
  ]);
  timers.advance(NOTICE_MS.error - 1);
  assert.deepEqual(messages(notices), ['shop.example.com: verification failed — see the reason.'], 'the repeat restarted the error’s time');
  timers.advance(1);
  assert.deepEqual(notices.list(), []);
});

test('dismissing removes the notice and its timer, and every change is reported', () => {
  const timers = fakeTimers();
  const seen = [];
  const notices = new Notices({ timers, onChange: (list) => seen.push(list.map((n) => n.message)) });
  const id = notices.add('Copied cname.platform.test', 'ok');
  notices.dismiss(id);
  notices.dismiss(id);
  assert.deepEqual(seen, [['Copied cname.platform.test'], []]);
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
