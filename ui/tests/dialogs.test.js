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
