// What the Connect form makes of the API base URL a user types.
import { test } from 'node:test';
import assert from 'node:assert/strict';

// The element module defines a custom element class; Node has no HTMLElement.
globalThis.HTMLElement ??= class {};
const { apiBaseUrl } = await import('../components/first-run/first-run.js');

test('a URL with its scheme is taken as typed', () => {
  assert.equal(apiBaseUrl(' https://api.example.com '), 'https://api.example.com');
  assert.equal(apiBaseUrl('http://127.0.0.1:8080'), 'http://127.0.0.1:8080');
  assert.equal(apiBaseUrl('HTTPS://API.example.com/v1'), 'HTTPS://API.example.com/v1');
});

test('a bare host gets https://, and this computer http://', () => {
  assert.equal(apiBaseUrl('api.example.com'), 'https://api.example.com');
  assert.equal(apiBaseUrl('api.example.com:8443/base'), 'https://api.example.com:8443/base');
  assert.equal(apiBaseUrl('localhost:8080'), 'http://localhost:8080');
  assert.equal(apiBaseUrl('127.0.0.1:3000'), 'http://127.0.0.1:3000');
  assert.equal(apiBaseUrl('[::1]:3000'), 'http://[::1]:3000');
});

test('what is not an address is refused', () => {
  for (const text of ['', '   ', 'api', 'ftp://api.example.com', 'api example.com', 'https://', 'https:// x']) {
    assert.equal(apiBaseUrl(text), null, text);
  }
});
