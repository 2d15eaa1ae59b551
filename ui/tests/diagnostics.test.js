// Save diagnostics… on a domain: what the window asks the Rust side and what it tells the user,
// against a fake `__TAURI__` and a fake document that collects the notices.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { saveDiagnostics, diagnosticsNotice } from '../lib/actions.js';
import { store } from '../lib/app-state.js';
import { domain } from './fixtures.js';

let notices;
let calls;
let answer;

beforeEach(() => {
  notices = [];
  calls = [];
  const document = new EventTarget();
  document.addEventListener('dd-toast', (e) => notices.push(e.detail));
  globalThis.document = document;
  globalThis.__TAURI__ = {
    core: {
      invoke: async (command, args) => {
        calls.push({ command, args });
        if (answer instanceof Error) throw answer.cause;
        return answer;
      },
    },
  };
  store.set({ project: { id: 'prj_1', name: 'Pro site' }, domains: [domain()], selected: 'shop.example.com' });
});

afterEach(() => {
  delete globalThis.__TAURI__;
  delete globalThis.document;
  store.set({ project: null, domains: [] });
});

test('saving diagnostics runs the doctor against the domain\'s target and says where the file is', async () => {
  answer = { path: '/home/ada/diagnostics-shop.example.com.json', errors: 1, warnings: 0 };
  assert.deepEqual(await saveDiagnostics('shop.example.com'), answer);
  assert.deepEqual(calls, [{
    command: 'diagnostics_save',
    args: { hostname: 'shop.example.com', target: 'cname.platform.test' },
  }]);
  assert.equal(notices.length, 1);
  assert.equal(notices[0].tone, 'warning');
  assert.match(notices[0].message, /^Saved the diagnostics of shop\.example\.com to \/home\/ada\/diagnostics-shop\.example\.com\.json \(the doctor found 1 error and 0 warnings\)\. Send this file to support/);
});

test('closing the save dialog saves nothing and says nothing', async () => {
  answer = null;
  assert.equal(await saveDiagnostics('shop.example.com'), null);
  assert.equal(calls.length, 1);
  assert.deepEqual(notices, []);
});

test('a failure to save is shown with its reason', async () => {
  answer = new Error('io', { cause: { kind: 'io', message: 'Permission denied (os error 13)' } });
  assert.equal(await saveDiagnostics('shop.example.com'), null);
  assert.equal(notices.length, 1);
  assert.equal(notices[0].tone, 'error');
  assert.match(notices[0].message, /^The diagnostics of shop\.example\.com could not be saved\. /);
  assert.match(notices[0].message, /Permission denied/);
});

test('the notice counts what the doctor found, in words', () => {
  const path = '/tmp/d.json';
  assert.deepEqual(diagnosticsNotice('a.example', { path, errors: 0, warnings: 0 }), {
    message: 'Saved the diagnostics of a.example to /tmp/d.json (the doctor found no problem). Send this file to support: it holds every DNS answer and certificate the doctor saw.',
    tone: 'ok',
  });
  assert.match(diagnosticsNotice('a.example', { path, errors: 0, warnings: 2 }).message, /found 0 errors and 2 warnings/);
  assert.equal(diagnosticsNotice('a.example', { path, errors: 0, warnings: 2 }).tone, 'ok');
  assert.equal(diagnosticsNotice('a.example', { path, errors: 3, warnings: 1 }).tone, 'warning');
});
