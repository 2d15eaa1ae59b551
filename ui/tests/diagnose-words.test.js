// Which servers the Diagnose panel says it asked: with no account, the settings' servers, not "the demo's".
import { test } from 'node:test';
import assert from 'node:assert/strict';

globalThis.HTMLElement ??= class {};
const { askedWords } = await import('../components/diagnose-panel/diagnose-panel.js');

test('an offline run names whose servers it asked', () => {
  assert.equal(askedWords({ offline: true }, true), 'asked the demo’s DNS servers only');
  assert.equal(askedWords({ offline: true }, false), 'asked only the DNS servers set in the settings');
  assert.equal(askedWords({ offline: false }, false), 'asked the zone’s nameservers and public resolvers');
});
