// The app state: the window's one store (session, projects, the open project's domains,
// settings, the demo clock's offset) and the loads that fill it through the Rust side. The
// store machinery itself is create-store.js.

import { createStore } from './create-store.js';
import { api } from './api.js';
import { mark } from './perf.js';
import { errorText } from './errors.js';

export const store = createStore({
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
  queue: null,
  settings: { theme: 'system', polling: true },
  /** Wall-clock offset of the demo's clock, for "3 min ago" on sped-up time. */
  clockOffsetMs: 0,
});

/** "Now" as the platform sees it: the demo's clock may run ahead of the wall clock. */
export function platformNow() {
  return Date.now() + store.get().clockOffsetMs;
}

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
  store.set({ project, domains: [], selected: null });
  // An early answer that failed is asked for again: it may have been asked before the list
  // said the project exists.
  const answer = loading ? loading.catch(() => loadProject(project.id)) : loadProject(project.id);
  const [fresh, domains] = await answer;
  mark('domains-answered');
  if (store.get().project?.id === project.id) store.set({ project: fresh, domains });
  api.saveSettings({ ...store.get().settings, last_project: project.id }).catch(() => {});
}

export async function refreshDomains(background = false) {
  const project = store.get().project;
  if (!project) return;
  const domains = await api.domains(project.id, background);
  if (store.get().project?.id === project.id) store.set({ domains });
}

export async function refreshClock() {
  if (store.get().session?.mode !== 'demo') return;
  const clock = await api.clock();
  store.set({ clockOffsetMs: Date.parse(clock.now) - Date.now() });
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
