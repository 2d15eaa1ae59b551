// The projects of the signed-in account: name, plan, default address, primary domain and last
// deploy. Opening one shows its settings with the Domains section.
import { html } from '../../lib/html.js';
import { render, setText } from '../../lib/dom.js';
import { store, openProject, loadProjects, screenNow } from '../../lib/app-state.js';
import { planName, deployText, demoHint } from '../../lib/project.js';
import { api } from '../../lib/api.js';
import { errorText } from '../../lib/errors.js';
import { toUnicode } from '../../lib/hostname.js';
import { toast } from '../../lib/toast.js';

/** "Pro site" → "pro-site", for stable test ids. */
function slug(name) {
  return String(name).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

export class ProjectList extends HTMLElement {
  connectedCallback() {
    this.unsubscribe = store.subscribe((_s, changed) => {
      if (changed.includes('projects') || changed.includes('session')) this.draw();
      if (changed.includes('session')) this.loadZones();
      else if (changed.includes('now')) this.drawDeploys();
    });
    this.draw();
    this.loadZones();
    if (!store.get().projects) loadProjects().catch((err) => toast(errorText(err), 'error', { scope: 'account' }));
  }

  disconnectedCallback() {
    this.unsubscribe?.();
  }

  /** The demo's zones, for its hint (Demo DNS's own list). */
  async loadZones() {
    if (store.get().session?.mode !== 'demo' || this.zones) return;
    try {
      this.zones = await api.zones();
      const hint = this.querySelector('#demo-hint');
      if (hint) hint.textContent = demoHint(this.zones);
    } catch {
      // The hint then names no zones.
    }
  }

  draw() {
    const { projects, session } = store.get();
    const plan = planName(session?.account?.plan);
    const now = screenNow();
    render(this, html`
      <section aria-labelledby="projects-title">
        <div class="section-head">
          <h2 id="projects-title">Projects</h2>
          <span class="muted" id="account-plan">${session?.account?.name ?? ''} · ${plan} plan</span>
          <button type="button" id="projects-refresh">Refresh</button>
        </div>
        ${session?.mode === 'demo' && session?.account?.plan !== 'free' ? html`<p class="demo-hint" id="demo-hint">${demoHint(this.zones)}</p>` : ''}
        ${projects == null ? html`<p class="muted">Loading projects…</p>` : projects.length === 0
          ? html`<p class="muted">This account has no projects yet.</p>`
          : html`<table class="projects" id="projects">
              <thead><tr><th scope="col">Project</th><th scope="col">Plan</th><th scope="col">Default address</th><th scope="col">Primary domain</th><th scope="col">Last deploy</th></tr></thead>
              <tbody>${projects.map((p) => html`<tr>
                <td><button type="button" class="link project-open" data-project-id="${p.id}" data-testid="project-${slug(p.name)}" data-project-name="${p.name}">${p.name}</button></td>
                <td>${plan}</td>
                <td class="mono">${p.default_address}</td>
                <td class="mono">${p.primary_domain ? toUnicode(p.primary_domain) : '—'}</td>
                <td class="${p.last_deploy?.status === 'succeeded' ? '' : 'warn'} project-deploy" data-project-id="${p.id}">${deployText(p, now)}</td>
              </tr>`)}</tbody>
            </table>`}
      </section>`);
    this.querySelector('#projects-refresh').addEventListener('click', () => loadProjects().catch((err) => toast(errorText(err), 'error', { scope: 'account' })));
    this.querySelectorAll('.project-open').forEach((button) => button.addEventListener('click', () => {
      const project = store.get().projects.find((p) => p.id === button.dataset.projectId);
      store.set({ route: 'project' });
      openProject(project).catch((err) => toast(errorText(err), 'error', { scope: 'account' }));
    }));
  }

  /**
   * The last deploys' relative times ("Deployed 5 min ago") at the clock's tick, from the same
   * now as every other time on screen: only their words are written, so the focus on a
   * project's link stays where it is.
   */
  drawDeploys() {
    const { projects } = store.get();
    const now = screenNow();
    for (const cell of this.querySelectorAll('.project-deploy')) {
      const project = projects?.find((p) => p.id === cell.dataset.projectId);
      if (project) setText(cell, deployText(project, now));
    }
  }
}
