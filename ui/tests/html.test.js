import { test } from 'node:test';
import assert from 'node:assert/strict';
import { html, escape } from '../lib/html.js';

test('values are escaped, markup is kept', () => {
  const name = '<img src=x onerror=alert(1)>';
  assert.equal(String(html`<b>${name}</b>`), '<b>&lt;img src=x onerror=alert(1)&gt;</b>');
});

test('nested html is not escaped twice', () => {
  const inner = html`<i>${'a&b'}</i>`;
  assert.equal(String(html`<p>${inner}</p>`), '<p><i>a&amp;b</i></p>');
});

test('arrays join and null disappears', () => {
  assert.equal(escape([html`<li>1</li>`, '<2>', null]), '<li>1</li>&lt;2&gt;');
});

test('a name breaks after its dots and hyphens only, and reads and escapes as it is', async () => {
  const { breakable } = await import('../lib/html.js');
  assert.equal(String(breakable('cname.pages.local-platform.test')), 'cname.<wbr>pages.<wbr>local-<wbr>platform.<wbr>test');
  // Nothing after a final dot or hyphen, and nothing inside a label.
  assert.equal(String(breakable('example.com.')), 'example.<wbr>com.');
  assert.equal(String(breakable('bücher')), 'bücher');
  assert.equal(String(breakable('→\u00a0www.example.com')), '→\u00a0www.<wbr>example.<wbr>com');
  // Escaped piece by piece: a name is untrusted input.
  assert.equal(String(breakable('<b>.x-"y"')), '&lt;b&gt;.<wbr>x-<wbr>&quot;y&quot;');
  assert.equal(String(breakable(null)), '');
  // Its text (the markup without the break opportunities) is the value.
  assert.equal(String(breakable('a-b.c')).replaceAll('<wbr>', ''), 'a-b.c');
});
