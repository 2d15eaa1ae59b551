// Dialogs are found by role through their registration, not by a global id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerDialog, dialog } from '../lib/dialogs.js';
import { confirmDialog } from '../lib/actions.js';

test('a dialog is found while it is registered, and only the one registered last', () => {
  assert.equal(dialog('confirm'), null);
  const first = { name: 'first' };
  const second = { name: 'second' };
  const leaveFirst = registerDialog('confirm', first);
  assert.equal(dialog('confirm'), first);
  const leaveSecond = registerDialog('confirm', second);
  // an element removed after another took its role does not take the role away
  leaveFirst();
  assert.equal(dialog('confirm'), second);
  leaveSecond();
  assert.equal(dialog('confirm'), null);
});

test('a confirmation with no dialog connected is a refusal, and one with a dialog is its answer', async () => {
  assert.equal(await confirmDialog({ title: 'Remove?', body: '', confirm: 'Remove' }), false);
  const asked = [];
  const leave = registerDialog('confirm', { ask: async (options) => { asked.push(options.title); return true; } });
  assert.equal(await confirmDialog({ title: 'Remove?', body: '', confirm: 'Remove' }), true);
  assert.deepEqual(asked, ['Remove?']);
  leave();
});

// A tiny element: enough of the DOM for where the focus goes back to.
function element(tag, { id = '', hostname = null, parent = null, connected = true } = {}) {
  const e = {
    tagName: tag.toUpperCase(), id, parentElement: parent, disabled: false, focused: 0,
    dataset: hostname ? { hostname } : {},
    get isConnected() { return connected && (!parent || parent.isConnected); },
    set isConnected(value) { connected = value; },
    closest(selector) {
      for (let x = this; x; x = x.parentElement) {
        if (selector === 'dialog' && x.tagName === 'DIALOG') return x;
        if (selector === '[data-hostname]' && x.dataset.hostname) return x;
        if (selector === '[hidden]' && x.hidden) return x;
      }
      return null;
    },
    focus() { this.focused += 1; },
  };
  return e;
}

function page(byId = {}, openDialog = null) {
  return { getElementById: (id) => byId[id] ?? null, querySelector: (s) => (s === 'dialog[open]' ? openDialog : null) };
}

test('a closed dialog gives the focus back to the control that opened it', async () => {
  const { rememberOpener, focusReturn } = await import('../lib/dialogs.js');
  const dialogEl = element('dialog');
  const exportButton = element('button', { id: 'export-button' });
  const addButton = element('button', { id: 'add-domain-button' });
  rememberOpener(dialogEl, addButton);
  // Not to another control (it went to Export… before), and not while a dialog is open.
  assert.equal(focusReturn(dialogEl, page({ 'export-button': exportButton }, element('dialog'))), null);
  assert.deepEqual(focusReturn(dialogEl, page({ 'export-button': exportButton })), { element: addButton });
  // Once given back, it is forgotten: a later close with no opener moves nothing.
  assert.equal(focusReturn(dialogEl, page()), null);
});

test('a control drawn again is found by its id, a gone one through what can take the focus back', async () => {
  const { rememberOpener, focusReturn } = await import('../lib/dialogs.js');
  const dialogEl = element('dialog');
  const panel = element('aside', { id: 'detail-panel', hostname: 'shop.example.com' });
  const home = element('dd-domain-detail');
  home.restoreFocus = () => {};
  panel.parentElement = home;
  const redirect = element('button', { id: 'detail-redirect', parent: panel });
  rememberOpener(dialogEl, redirect);
  redirect.isConnected = false;
  const drawnAgain = element('button', { id: 'detail-redirect', parent: element('aside', { hostname: 'shop.example.com' }) });
  assert.deepEqual(focusReturn(dialogEl, page({ 'detail-redirect': drawnAgain })), { element: drawnAgain });

  // Remove… took the domain away: its panel is gone, the panel's host takes the focus back
  // (the table's row), with what opened the dialog.
  const remove = element('button', { id: 'detail-remove', parent: panel });
  rememberOpener(dialogEl, remove);
  remove.isConnected = false;
  const otherDomains = element('button', { id: 'detail-remove', parent: element('aside', { hostname: 'www.example.com' }) });
  const back = focusReturn(dialogEl, page({ 'detail-remove': otherDomains }));
  assert.equal(back.home, home, 'not the same button of another domain');
  assert.equal(back.opener.hostname, 'shop.example.com');
});

test('a row reused for another domain is not where the focus goes back', async () => {
  const { rememberOpener, focusReturn } = await import('../lib/dialogs.js');
  const dialogEl = element('dialog');
  const table = element('dd-domains-table');
  table.restoreFocus = () => {};
  const row = element('div', { hostname: 'site03.example.net', parent: table });
  rememberOpener(dialogEl, row);
  row.dataset.hostname = 'site19.example.net'; // the list scrolled and the row was patched
  const back = focusReturn(dialogEl, page());
  assert.equal(back.home, table);
  assert.equal(back.opener.hostname, 'site03.example.net');
});

test('a dialog opened as another closes gives the focus back to the first one’s opener', async () => {
  const { rememberOpener, focusReturn } = await import('../lib/dialogs.js');
  const add = element('dialog');
  const dns = element('dialog');
  const addButton = element('button', { id: 'add-domain-button' });
  rememberOpener(add, addButton);
  // Add domain's Open Demo DNS: the focus is still on the link inside the closing dialog.
  rememberOpener(dns, element('button', { id: 'add-open-demo-dns', parent: add }));
  assert.equal(focusReturn(add, page({}, dns)), null, 'not while Demo DNS is open');
  assert.deepEqual(focusReturn(dns, page()), { element: addButton });
  // Nothing focused at all (the body) remembers nothing.
  const about = element('dialog');
  rememberOpener(about, element('body'));
  assert.equal(focusReturn(about, page({ main: element('main') })), null);
});
