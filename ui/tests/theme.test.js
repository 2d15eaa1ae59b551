import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyTheme } from '../lib/theme.js';

test('a chosen theme is set on the root; "system" leaves it to prefers-color-scheme', () => {
  const root = { dataset: {} };
  applyTheme(root, 'dark');
  assert.equal(root.dataset.theme, 'dark');
  applyTheme(root, 'system');
  assert.equal('theme' in root.dataset, false);
  applyTheme(root, 'purple');
  assert.equal('theme' in root.dataset, false);
});
