// `domain-desk://` links, as the Rust side read them (crates/api/src/links.rs): show the hostname's
// diagnosis, a project, or one of its domains. A link only shows something; a refused link is
// a notice. The Rust side keeps the last link until the window takes it, so one that arrives
// while the window is still starting is shown once it has signed in.
import { api } from './api.js';
import { listen } from './tauri.js';
import { store, loadProjects, openProject } from './app-state.js';
import { toast } from './toast.js';
import { errorText } from './errors.js';
import { dialog } from './dialogs.js';

/** Listens for links and shows the one waiting, once the first screen is up. */
export function startLinks() {
  listen('link://received', () => takeLink()).catch(() => {});
  const ready = () => store.get().route !== 'boot';
  if (ready()) takeLink();
  else {
    const unsubscribe = store.subscribe(() => {
      if (!ready()) return;
      unsubscribe();
      takeLink();
    });
  }
}

async function takeLink() {
  if (store.get().route === 'boot') return; // taken once the first screen shows
  let outcome;
  try {
    outcome = await api.takeLink();
  } catch {
    return;
  }
  if (outcome) await showLink(outcome);
}

/** Shows what a link asked for; `outcome` is `{outcome: 'open', link}` or `{outcome: 'refused', message}`. */
export async function showLink(outcome) {
  if (outcome.outcome === 'refused') {
    toast(outcome.message, 'warning');
    return;
  }
  const link = outcome.link;
  if (link.kind === 'diagnose') {
    dialog('diagnose')?.open(link.hostname);
    return;
  }
  if (!store.get().session) {
    toast('Sign in or start the demo, then open the link again: it names a project.', 'warning');
    return;
  }
  try {
    const projects = store.get().projects ?? (await loadProjects());
    const project = projects.find((p) => p.id === link.project_id);
    if (!project) {
      toast('The link names a project this account does not have.', 'warning');
      return;
    }
    store.set({ route: 'project' });
    await openProject(project);
    if (link.kind === 'domain') {
      if (store.get().domains.some((d) => d.hostname === link.hostname)) store.set({ selected: link.hostname });
      else toast('The link names a domain this project does not have.', 'warning');
    }
  } catch (err) {
    toast(errorText(err), 'error');
  }
}
