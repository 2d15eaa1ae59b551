import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LiveNotices } from '../lib/live-notices.js';
import { domain } from './fixtures.js';

const issuing = (hostname) => domain({ hostname, unicode_hostname: hostname, status: 'verified', certificate: { status: 'issuing' } });
const live = (hostname) => domain({ hostname, unicode_hostname: hostname, status: 'live', certificate: { status: 'issued' } });
const told = (notices) => notices.map((n) => `${n.change} ${n.domain.hostname}`);

// The regression: a poll saw a.example.com go live and the project's refresh that followed
// brought b.example.com live too; the next poll compared with a list that already said live,
// and b's notification never came.
test('a domain that went live through the refresh after a poll is told, once', () => {
  const notices = new LiveNotices();
  assert.deepEqual(notices.observe('p1', [issuing('a.example.com'), issuing('b.example.com')], { tell: true }), []);
  // The poll's answer.
  assert.deepEqual(told(notices.observe('p1', [live('a.example.com'), issuing('b.example.com')], { tell: true })), ['live a.example.com']);
  // The project's refresh, which is not the poll's own reading.
  assert.deepEqual(told(notices.observe('p1', [live('a.example.com'), live('b.example.com')], { tell: true })), ['live b.example.com']);
  // The next poll reads both live: nothing is told twice.
  assert.deepEqual(notices.observe('p1', [live('a.example.com'), live('b.example.com')], { tell: true }), []);
});

test('every domain that goes live in one change is told', () => {
  const notices = new LiveNotices();
  const names = ['a.example.com', 'b.example.com', 'c.example.com'];
  notices.observe('p1', names.map(issuing), { tell: true });
  assert.deepEqual(told(notices.observe('p1', names.map(live), { tell: true })), names.map((n) => `live ${n}`));
});

test('a change the user made in the window is taken as seen, and a new project starts quiet', () => {
  const notices = new LiveNotices();
  notices.observe('p1', [issuing('a.example.com')], { tell: true });
  assert.deepEqual(notices.observe('p1', [live('a.example.com')], { tell: false }), []);
  assert.deepEqual(notices.observe('p1', [live('a.example.com')], { tell: true }), []);
  // Another project whose domain is live already: nothing to tell.
  assert.deepEqual(notices.observe('p2', [live('a.example.com')], { tell: true }), []);
  // A domain removed and added again is new: its first sight tells nothing.
  notices.observe('p2', [], { tell: true });
  assert.deepEqual(notices.observe('p2', [live('a.example.com')], { tell: true }), []);
});

test('a certificate that fails is told', () => {
  const notices = new LiveNotices();
  notices.observe('p1', [issuing('a.example.com')], { tell: true });
  const failed = domain({ hostname: 'a.example.com', status: 'verified', certificate: { status: 'failed' } });
  assert.deepEqual(told(notices.observe('p1', [failed], { tell: true })), ['certificate_failed a.example.com']);
});
