// What the project view's Refresh says it found, and its Add domain shortcut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { domain } from './fixtures.js';

// The element module defines a custom element class; Node has no HTMLElement.
globalThis.HTMLElement ??= class {};
const { refreshedText, isAddShortcut, ProjectView } = await import('../components/project-view/project-view.js');

test('Refresh says what it found: nothing new, or what changed', () => {
  const shop = domain();
  const www = domain({ hostname: 'www.example.com', unicode_hostname: 'www.example.com' });
  assert.equal(refreshedText([shop, www], [shop, www]), 'Up to date: 2 domains, none changed.');
  assert.equal(refreshedText([shop, www], [domain({ status: 'verified' }), www]), 'Refreshed: 2 domains, 1 changed.');
  assert.equal(refreshedText([shop], [shop, www]), 'Refreshed: 2 domains, 1 new.');
  assert.equal(refreshedText([shop, www], [www]), 'Refreshed: 1 domain, 1 gone.');
});

test('Ctrl+N (or Cmd+N) opens Add domain; other keys do not', () => {
  assert.equal(isAddShortcut({ key: 'n', ctrlKey: true }), true);
  assert.equal(isAddShortcut({ key: 'N', metaKey: true }), true);
  assert.equal(isAddShortcut({ key: 'n' }), false);
  assert.equal(isAddShortcut({ key: 'n', ctrlKey: true, shiftKey: true }), false);
});

test('one poll at a time: a poll started while one runs does nothing, and the first arms the next', async () => {
  const view = new ProjectView();
  let polls = 0;
  let armed = 0;
  let finish;
  view.pollOnce = () => { polls += 1; return new Promise((resolve) => { finish = resolve; }); };
  view.arm = () => { armed += 1; };
  const first = view.poll();
  await view.poll();
  assert.equal(polls, 1);
  assert.equal(armed, 0);
  finish();
  await first;
  assert.equal(armed, 1);
  assert.equal(view.polling, false);
});

test('a view no longer on the page arms nothing: a poll that ends after it left polls no more', () => {
  const view = new ProjectView();
  view.isConnected = false;
  view.publish = () => assert.fail('published from a view that left the page');
  view.reportWatch = () => assert.fail('reported from a view that left the page');
  view.arm();
  assert.equal(view.timer, undefined);
});
