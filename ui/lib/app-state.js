// The app state: the window's one store (session, projects, the open project's domains,
// settings, the demo clock's offset) and the loads that fill it through the Rust side. The
// store machinery itself is create-store.js.

import { createStore } from './create-store.js';
import { api } from './api.js';
import { mark } from './perf.js';
import { errorText } from './errors.js';
import { WALL_CLOCK, clockFromReading, nextTickDelay, platformTime } from './clock.js';
import { keepUnchanged } from './domain-list.js';
import { keepDiagnosesIn } from './diagnoses.js';
import { diagnosesWith } from './domain-view.js';

const base = createStore({
  /** null until signed in: {mode, account, base_url, account_id, platform_domain, ca_identity}. */
  /** Which screen shows: boot, first-run, projects or project. */
  route: 'boot',
  session: null,
  accounts: [],
  projects: null,
  /** The open project, or null for the list. */
  project: null,
  /** Domains of the open project, as the API returns them. */
  domains: [],
  /** The hostname whose details are shown. */
  selected: null,
  /** Pre-flight warnings by hostname (Add domain's quick look), kept until a later look clears them. */
  preflight: {},
  /** The id of the open project while its domains are on their way (a loading state, not "no domains"). */
  domainsLoading: null,
  queue: null,
  settings: { theme: 'system', polling: true },
  /** The platform's clock as last read (clock.js); this computer's until a reading comes. */
  clock: WALL_CLOCK,
  /** The screen's "now" in platform milliseconds: the last tick's, or news newer than it. Everything drawn uses it. */
  now: Date.now(),
  /**
   * The platform milliseconds of the last tick (or clock reading): what was drawn at an older
   * tick is drawn again. News between two ticks moves `now` on for what it changes, not this:
   * the rest of the screen is as old as a tick, as it always is between ticks.
   */
  tickedAt: Date.now(),
  /** When each watched domain is checked next: `of(hostname)` is {at: platform ms, kind} or null. */
  nextChecks: { of: () => null },
  /** Domain Desk's own latest look at a name's records: {hostname: {at, records}}. */
  dnsNow: {},
  /**
   * Each name's last Diagnose: {hostname: {at, findings}} (domain-view.js `diagnosesWith`);
   * forgotten when a record changes in Demo DNS, as what it found may no longer hold.
   */
  diagnoses: {},
});

/**
 * Each domain copy's latest time, read once: a copy is replaced, never changed, when news
 * comes, and the list of thousands is looked over at every change of it (an answer applied,
 * a poll's batch), where only the new copies have anything new.
 */
const latestOfCopy = new WeakMap();

function latestOfDomain(d) {
  let latest = latestOfCopy.get(d);
  if (latest === undefined) {
    latest = -Infinity;
    for (const iso of [d.verification?.checked_at, d.certificate?.started_at, d.certificate?.issued_at]) {
      if (!iso) continue;
      const t = Date.parse(iso);
      if (t > latest) latest = t;
    }
    latestOfCopy.set(d, latest);
  }
  return latest;
}

/** The latest platform time a list of domains reports (a check, a certificate's start or issue). */
export function latestTime(domains) {
  let latest = -Infinity;
  for (const d of domains ?? []) {
    const t = latestOfDomain(d);
    if (t > latest) latest = t;
  }
  return latest;
}

/**
 * The window's one store. News from the platform can be newer than the last tick (at 600× a
 * tick is ten platform minutes): the screen's `now` then moves on with it, in the same
 * change, so no time on screen ever lies in the screen's future.
 */
export const store = {
  ...base,
  set(patch) {
    base.set((state) => {
      const next = typeof patch === 'function' ? patch(state) : patch;
      if (!next?.domains || next.now != null) return next;
      const latest = latestTime(next.domains);
      return latest > state.now ? { ...next, now: Math.max(latest, platformNow()) } : next;
    });
  },
};

keepDiagnosesIn((report) => store.set((s) => ({ diagnoses: diagnosesWith(s.diagnoses, report) })));
globalThis.document?.addEventListener?.('dd-dns-changed', () => {
  if (Object.keys(store.get().diagnoses).length) store.set({ diagnoses: {} });
});

/** "Now" as the platform sees it at this instant: the demo's clock may run ahead and fast. */
export function platformNow() {
  return platformTime(store.get().clock, Date.now());
}

/** The "now" every time on screen is computed from (the last tick's). */
export function screenNow() {
  return store.get().now;
}

let ticker = null;
let lastReading = Date.now();
/**
 * Moves the screen's "now" on, as often as its texts can change at the clock's speed and at
 * each turn of the platform's minute (`nextTickDelay`), and reads the demo's clock again every
 * half minute: it can be set or sped up from outside the window (`domain-desk serve`'s control
 * plane).
 */
function armTicker() {
  clearTimeout(ticker);
  ticker = setTimeout(() => {
    // Never behind news that moved "now" on (an answer from a clock moved ahead since it was
    // read): the screen's times do not run backwards. A new reading of the clock
    // (`refreshClock`) may take them back, when the clock was set back.
    const now = Math.max(platformNow(), store.get().now);
    store.set({ now, tickedAt: now });
    if (store.get().session?.mode === 'demo' && Date.now() - lastReading > 30_000) {
      lastReading = Date.now();
      refreshClock().catch(() => {});
    }
    armTicker();
  }, nextTickDelay(store.get().clock, Date.now()));
  ticker.unref?.(); // under Node's test runner the ticker keeps nothing alive
}
armTicker();

export async function loadProjects() {
  mark('projects-requested');
  const projects = await api.projects();
  mark('projects-answered');
  store.set({ projects });
  return projects;
}

/**
 * Asks for a project and its domains: `[project, domains]`. A failure is kept for whoever
 * awaits the answer (an answer nobody awaits, for a project that is gone, stays quiet).
 */
export function loadProject(id) {
  mark('domains-requested');
  const loading = Promise.all([api.project(id), api.domains(id)]);
  loading.catch(() => {});
  return loading;
}

/** Opens `project`, with its answer from `loadProject` when it was asked for early. */
export async function openProject(project, loading = null) {
  store.set({ project, domains: [], selected: null, domainsLoading: project.id });
  // An early answer that failed is asked for again: it may have been asked before the list
  // said the project exists.
  const answer = loading ? loading.catch(() => loadProject(project.id)) : loadProject(project.id);
  let fresh;
  let domains;
  try {
    [fresh, domains] = await answer;
  } finally {
    if (store.get().domainsLoading === project.id) store.set({ domainsLoading: null });
  }
  mark('domains-answered');
  if (store.get().project?.id === project.id) store.set({ project: fresh, domains });
  api.saveSettings({ ...store.get().settings, last_project: project.id }).catch(() => {});
}

export async function refreshDomains(background = false) {
  const project = store.get().project;
  if (!project) return;
  const domains = await api.domains(project.id, background);
  if (store.get().project?.id === project.id) store.set((s) => ({ domains: keepUnchanged(s.domains, domains) }));
}

/**
 * Reads the platform's clock again (the offline demo's can be set, advanced and sped up);
 * against a real platform the clock is this computer's.
 */
export async function refreshClock() {
  let clock = WALL_CLOCK;
  lastReading = Date.now();
  if (store.get().session?.mode === 'demo') {
    const asked = Date.now();
    const reading = await api.clock();
    // Anchored where the reading was taken (`read_at_ms`, the middle of the request to the
    // service, on this computer's clock); else in the middle of this call, which can wait.
    clock = clockFromReading(reading, Number.isFinite(reading?.read_at_ms) ? reading.read_at_ms : (asked + Date.now()) / 2);
  }
  const now = platformTime(clock, Date.now());
  store.set({ clock, now, tickedAt: now });
  armTicker();
}

/** Fetches the open project again (its URL changes when the primary domain goes live). */
export async function refreshProject() {
  const project = store.get().project;
  if (!project) return;
  const fresh = await api.project(project.id);
  if (store.get().project?.id === project.id) store.set({ project: fresh });
}

/** After signing in: the projects, the queue state, and the last project when there is one. */
export async function startSession(session, lastProject) {
  store.set({ session, project: null, domains: [], selected: null, projects: null });
  api.accounts().then((accounts) => store.set({ accounts })).catch(() => {});
  api.queueState().then((queue) => store.set({ queue })).catch(() => {});
  refreshClock().catch(() => {});
  try {
    // The last project's domains are asked beside the project list, not after it: with
    // thousands of domains they are most of the wait for the first screen.
    const early = lastProject ? loadProject(lastProject) : null;
    const projects = await loadProjects();
    const last = projects.find((p) => p.id === lastProject);
    if (last) {
      store.set({ route: 'project' });
      await openProject(last, early);
    } else {
      store.set({ route: 'projects' });
    }
  } catch (err) {
    store.set({ route: 'projects' });
    document.dispatchEvent(new CustomEvent('dd-toast', { detail: { message: errorText(err), tone: 'error' } }));
  }
}
