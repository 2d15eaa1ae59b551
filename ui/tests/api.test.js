// The window's calls reach the Rust commands with the names and argument keys they declare
// (Tauri maps camelCase keys to snake_case parameters). A fake `__TAURI__` records the calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api } from '../lib/api.js';
import { invoke } from '../lib/tauri.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

test('without the window there is a clear error, not a crash', async () => {
  delete globalThis.__TAURI__;
  await assert.rejects(invoke('app_info'), (err) => err.kind === 'no_backend' && /not running inside its window/.test(err.message));
});

test('every command the UI calls is registered, permitted, and gets the keys it expects', async () => {
  const calls = [];
  globalThis.__TAURI__ = { core: { invoke: async (cmd, args) => { calls.push([cmd, args]); return null; } } };
  await api.addDomain('prj_1', 'shop.example.com', 'www.example.com');
  await api.domain('prj_1', 'shop.example.com', true);
  await api.connect('https://api.example.com', 'k');
  await api.addZoneRecord('example.com', { name: 'shop', type: 'A', value: '192.0.2.1', ttl: 3600 });
  await api.diagnose('shop.example.com', 'cname.platform.test');
  assert.deepEqual(calls, [
    ['domain_add', { projectId: 'prj_1', hostname: 'shop.example.com', redirectTo: 'www.example.com' }],
    ['domain_get', { projectId: 'prj_1', hostname: 'shop.example.com', background: true }],
    ['connect', { baseUrl: 'https://api.example.com', apiKey: 'k' }],
    ['demo_dns_add', { zone: 'example.com', record: { name: 'shop', type: 'A', value: '192.0.2.1', ttl: 3600 } }],
    ['diagnose', { hostname: 'shop.example.com', target: 'cname.platform.test' }],
  ]);

  // Call every entry of the api object and check each command is granted (commands.test.js
  // checks every invoke( in ui/ against the Rust handler list).
  calls.length = 0;
  for (const fn of Object.values(api)) await fn('x', 'y', 'z');
  const capability = JSON.parse(readFileSync(join(root, 'capabilities', 'main.json'), 'utf8'));
  for (const [cmd] of calls) {
    assert.ok(capability.permissions.includes(`allow-${cmd.replaceAll('_', '-')}`), `${cmd} is not granted`);
  }
  delete globalThis.__TAURI__;
});
