// Opening a project with its answer asked for early (at launch, beside the project list), and
// what happens when that early answer failed. A fake `__TAURI__` answers the commands.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { store, loadProject, openProject, latestTime, refreshClock } from '../lib/app-state.js';

const PROJECT = { id: 'prj_1', name: 'site' };
const DOMAINS = [{ hostname: 'www.example.com' }];

/** A fake backend: `answers[command]` is a function of the call's number (0, 1, …). */
function backend(answers) {
  const calls = [];
  globalThis.__TAURI__ = {
    core: {
      invoke: async (command, args) => {
        const number = calls.filter(([c]) => c === command).length;
        calls.push([command, args]);
        const answer = answers[command];
        if (!answer) return null;
        return answer(number);
      },
    },
  };
  return calls;
}

test('an early answer is used as it is: nothing is asked twice', async () => {
  const calls = backend({
    project_get: () => ({ ...PROJECT, url: 'https://site.example' }),
    domains_list: () => DOMAINS,
  });
  const early = loadProject(PROJECT.id);
  await openProject(PROJECT, early);
  assert.deepEqual(store.get().domains, DOMAINS);
  assert.equal(store.get().project.url, 'https://site.example');
  const asked = calls.map(([c]) => c).filter((c) => c !== 'settings_set');
  assert.deepEqual(asked, ['project_get', 'domains_list']);
});

test('an early answer that failed is asked for again when the project is opened', async () => {
  const calls = backend({
    project_get: () => PROJECT,
    domains_list: (number) => {
      if (number === 0) throw { kind: 'network', message: 'The service did not answer.' };
      return DOMAINS;
    },
  });
  const early = loadProject(PROJECT.id);
  await openProject(PROJECT, early);
  assert.deepEqual(store.get().domains, DOMAINS);
  assert.equal(calls.filter(([c]) => c === 'domains_list').length, 2);
});

test('an early answer for a project that is never opened fails quietly', async () => {
  backend({
    project_get: () => {
      throw { kind: 'api', message: 'No project prj_gone.' };
    },
    domains_list: () => DOMAINS,
  });
  const unhandled = [];
  const note = (reason) => unhandled.push(reason);
  process.on('unhandledRejection', note);
  loadProject('prj_gone');
  await new Promise((resolve) => setTimeout(resolve, 20));
  process.off('unhandledRejection', note);
  assert.deepEqual(unhandled, []);
});

test('without an early answer, opening asks for the project and its domains', async () => {
  const calls = backend({ project_get: () => PROJECT, domains_list: () => DOMAINS });
  await openProject(PROJECT);
  assert.deepEqual(store.get().domains, DOMAINS);
  assert.deepEqual(
    calls.map(([c, args]) => [c, args.projectId]).filter(([c]) => c !== 'settings_set'),
    [
      ['project_get', 'prj_1'],
      ['domains_list', 'prj_1'],
    ],
  );
});

test('news newer than the last tick moves the screen’s now with it; older news leaves it', () => {
  const now = Date.parse('2026-11-26T10:22:43Z');
  store.set({ now });
  // a check at 10:24, after the last tick (at 600× a tick is ten platform minutes)
  store.set({ domains: [{ hostname: 'shop.example.com', verification: { checked_at: '2026-11-26T10:24:15Z' } }] });
  assert.ok(store.get().now >= Date.parse('2026-11-26T10:24:15Z'), 'no time on screen lies in its future');
  const moved = store.get().now;
  store.set({ domains: [{ hostname: 'shop.example.com', verification: { checked_at: '2026-11-26T10:00:00Z' } }] });
  assert.equal(store.get().now, moved);
});

test('the latest time of a list: each copy of a domain is read once, a new copy afresh', () => {
  const checked = { hostname: 'shop.example.com', verification: { checked_at: '2026-11-26T10:24:15Z' } };
  const issued = { hostname: 'www.example.com', certificate: { started_at: '2026-11-26T10:20:00Z', issued_at: '2026-11-26T10:31:00Z' } };
  const parse = Date.parse;
  let parsed = 0;
  Date.parse = (iso) => { parsed += 1; return parse(iso); };
  try {
    assert.equal(latestTime([checked, issued, { hostname: 'new.example.com' }]), parse('2026-11-26T10:31:00Z'));
    assert.equal(parsed, 3);
    assert.equal(latestTime([checked, issued]), parse('2026-11-26T10:31:00Z'), 'the same copies: nothing read again');
    assert.equal(parsed, 3);
    const rechecked = { ...checked, verification: { checked_at: '2026-11-26T10:40:00Z' } };
    assert.equal(latestTime([rechecked, issued]), parse('2026-11-26T10:40:00Z'), 'a new copy is read');
    assert.equal(parsed, 4);
    assert.equal(latestTime([]), -Infinity);
  } finally {
    Date.parse = parse;
  }
});

test('while a project’s domains are on their way the store says so, and not after, even when they fail', async () => {
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  backend({ project_get: () => PROJECT, domains_list: () => held });
  const opening = openProject(PROJECT);
  assert.equal(store.get().domainsLoading, PROJECT.id, 'loading, not "no domains"');
  assert.deepEqual(store.get().domains, []);
  release(DOMAINS);
  await opening;
  assert.equal(store.get().domainsLoading, null);
  backend({ project_get: () => PROJECT, domains_list: () => { throw { kind: 'network', message: 'gone' }; } });
  await assert.rejects(openProject(PROJECT));
  assert.equal(store.get().domainsLoading, null, 'a failed load is not loading forever');
});

test("the demo clock's reading is anchored where the service read it, not where the slow call ended", async () => {
  const readAt = Date.now() - 1_500; // the service read its clock 1.5 s before the call returned
  backend({
    clock_get: async () => ({ now: new Date(readAt + 300_000).toISOString(), speed: 1, read_at_ms: readAt }),
  });
  const session = store.get().session;
  store.set({ session: { mode: 'demo' } });
  try {
    await refreshClock();
    const { clock } = store.get();
    assert.equal(clock.wallMs, readAt);
    assert.equal(clock.platformMs, readAt + 300_000);
  } finally {
    store.set({ session });
  }
});

test('a Diagnose result is kept in the app state for the row and the details', async () => {
  const { api } = await import('../lib/api.js');
  const report = { generated_at: '2026-11-21T11:59:00Z', hosts: [{ hostname: 'www.locked.example.org', findings: [{ code: 'caa_forbids_issuance', severity: 'error', title: 'CAA at locked.example.org forbids letsencrypt.org' }] }] };
  backend({ diagnose: () => ({ report, markdown: '' }) });
  const answer = await api.diagnose('www.locked.example.org');
  assert.equal(answer.report, report, 'the caller gets the answer as it came');
  assert.equal(store.get().diagnoses['www.locked.example.org'].findings[0].code, 'caa_forbids_issuance');
});
