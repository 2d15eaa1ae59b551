// A project's settings with its Domains section: the table, the details of the selected
// domain, Add domain (or why it is not possible), and the background polling that keeps the
// statuses live.
import { html } from '../../lib/html.js';
import { render, renderChanged } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { store, refreshProject, platformNow, screenNow, refreshClock } from '../../lib/app-state.js';
import { upsertDomains, keepUnchanged } from '../../lib/domain-list.js';
import { PollSchedule, pollPlan, notableChange, awaitsPlatform, verifyBudget, replacedDomains, inChunks, REVERIFY_CHUNK } from '../../lib/poll-schedule.js';
import { wallDelayUntil } from '../../lib/clock.js';
import { deployText, planName, addBlockedReason } from '../../lib/project.js';
import { refreshList } from '../../lib/actions.js';
import { urlForPeople } from '../../lib/hostname.js';
import { changeNotification } from '../../lib/domain-view.js';
import { dangling, danglingIn, danglingText, forgetDangling } from '../../lib/dangling.js';
import { LiveNotices } from '../../lib/live-notices.js';

/** How often a stopped demo clock is read again, in real milliseconds. */
const STOPPED_CLOCK_LOOK_MS = 5_000;

export class ProjectView extends HTMLElement {
  connectedCallback() {
    // The watch runs on the platform's clock: "next check in 4 min" is in the minutes the
    // rest of the window shows, also when the demo's clock runs fast.
    this.schedule = new PollSchedule(platformNow);
    this.watched = null;
    this.notices = new LiveNotices();
    this.unsubscribe = store.subscribe((state, changed) => {
      if (changed.includes('project') || changed.includes('session')) this.drawHeader();
      else if (changed.includes('now')) this.drawDeploy();
      if (changed.includes('domains')) {
        this.tellChanges(state);
        this.watch(state.domains);
        this.drawAddState();
        this.drawDangling();
      }
      // Watching turned off stops the timer; turned on, it starts again at once.
      if (changed.includes('clock') || changed.includes('settings')) this.arm();
      if (changed.includes('project')) this.drawDangling();
    });
    this.onRecheck = (e) => this.recheck(e.detail?.hostnames ?? null, e.detail?.after ?? 0);
    document.addEventListener('dd-recheck', this.onRecheck);
    this.unsubscribeDangling = dangling.subscribe(() => this.drawDangling());
    // Ctrl+N: Add domain, from anywhere in the project's view (not from an open dialog).
    this.onShortcut = (e) => {
      if (!isAddShortcut(e) || document.querySelector('dialog[open]')) return;
      const button = this.querySelector('#add-domain-button');
      if (!button || button.disabled) return;
      e.preventDefault();
      button.click();
    };
    document.addEventListener('keydown', this.onShortcut);
    this.draw();
    this.tellChanges(store.get());
    this.watch(store.get().domains);
  }

  /**
   * Sends a desktop notification for each domain that went live (or whose certificate
   * failed) since the list last changed, whichever path changed it: a background poll, the
   * project's refresh after it, a status read elsewhere. While the user is looking at the
   * window and no poll runs, a change is theirs, seen on screen, and not notified.
   */
  tellChanges(state) {
    const project = state.project;
    if (!project) return;
    const tell = this.polling === true || document.visibilityState === 'hidden' || !document.hasFocus();
    for (const { change, domain } of this.notices.observe(project.id, state.domains, { tell })) {
      const notification = changeNotification(change, domain, project.name, state.session?.ca_identity);
      if (notification) api.notify(notification.title, notification.body).catch(() => {});
    }
  }

  disconnectedCallback() {
    this.unsubscribe?.();
    document.removeEventListener('dd-recheck', this.onRecheck);
    this.unsubscribeDangling?.();
    document.removeEventListener('keydown', this.onShortcut);
    clearTimeout(this.timer);
    api.reportWatch([]).catch(() => {});
    store.set({ nextChecks: { of: () => null } });
  }

  draw() {
    render(this, html`
      <nav class="crumbs" aria-label="Breadcrumb"><button type="button" class="link" id="back-to-projects">Projects</button> <span aria-hidden="true">/</span> <span id="project-crumb"></span></nav>
      <section class="project-settings" aria-labelledby="project-title">
        <h2 id="project-title">Project settings</h2>
        <dl class="project-facts" id="project-facts"></dl>
      </section>
      <section class="domains" aria-labelledby="domains-title">
        <div class="section-head">
          <h3 id="domains-title">Domains</h3>
          <button type="button" id="add-domain-button" class="primary" aria-keyshortcuts="Control+N" title="Add domain (Ctrl+N)">Add domain</button>
          <button type="button" id="domains-refresh">Refresh</button>
          <span id="domains-refreshed" class="muted small" role="status"></span>
        </div>
        <p id="add-domain-reason" class="blocked" hidden></p>
        <dd-bulk-panel id="bulk-panel"></dd-bulk-panel>
        <div id="dangling-records"></div>
        <div class="domains-layout">
          <dd-domains-table id="domains-table"></dd-domains-table>
          <dd-domain-detail id="domain-detail"></dd-domain-detail>
        </div>
      </section>`);
    this.querySelector('#back-to-projects').addEventListener('click', () => store.set({ route: 'projects', project: null, domains: [], selected: null }));
    this.querySelector('#add-domain-button').addEventListener('click', () => document.getElementById('add-domain-host').open());
    this.querySelector('#domains-refresh').addEventListener('click', () => this.refresh());
    this.querySelector('#dangling-records').addEventListener('click', (e) => {
      const button = e.target.closest('button[data-hostname]');
      if (!button) return;
      if (button.dataset.do === 'dns') document.getElementById('demo-dns-host')?.open(button.dataset.zone || undefined);
      else forgetDangling(store.get().project?.id, button.dataset.hostname);
    });
    this.drawHeader();
    this.drawDangling();
  }

  /** Refresh: the button says it works, and the note after it what it found. */
  async refresh() {
    const button = this.querySelector('#domains-refresh');
    const note = this.querySelector('#domains-refreshed');
    const before = store.get().domains;
    button.disabled = true;
    button.textContent = 'Refreshing…';
    note.textContent = '';
    const ok = await refreshList();
    if (!this.isConnected) return;
    button.disabled = false;
    button.textContent = 'Refresh';
    note.textContent = ok ? refreshedText(before, store.get().domains) : '';
  }

  /**
   * A removed domain's record that still points at the platform, in the place the domain had:
   * it stays until dismissed, the name is added again, or the record is deleted.
   */
  drawDangling() {
    const box = this.querySelector('#dangling-records');
    if (!box) return;
    const { project, domains, session } = store.get();
    const demo = session?.mode === 'demo';
    const items = danglingIn(dangling.get().items, project?.id, domains);
    // Drawn at every change of the list (each second while a poll's answers come in): only
    // when the warnings change, so an alert is not announced again and a focused Dismiss
    // keeps the focus.
    renderChanged(box, html`${items.map((d) => html`<div class="dangling warn-box" role="alert" data-hostname="${d.hostname}">
      <p>${danglingText(d, demo)}</p>
      <div class="dangling-actions">
        ${demo ? html`<button type="button" data-do="dns" data-hostname="${d.hostname}" data-zone="${zoneOf(d)}">Open Demo DNS</button>` : ''}
        <button type="button" data-do="dismiss" data-hostname="${d.hostname}" aria-label="Dismiss the warning about ${d.name}">Dismiss</button>
      </div>
    </div>`)}`);
  }

  drawHeader() {
    const { project, session } = store.get();
    if (!project) return;
    this.querySelector('#project-crumb').textContent = project.name;
    this.querySelector('#project-title').textContent = `${project.name} — settings`;
    // A project read again with the same facts (after a poll) leaves them, and a selection in
    // them, as they are.
    renderChanged(this.querySelector('#project-facts'), html`
      <div class="fact"><dt>Plan</dt><dd>${planName(session?.account?.plan)}</dd></div>
      <div class="fact"><dt>Default address</dt><dd class="mono" id="project-default-address">${project.default_address}</dd></div>
      <div class="fact"><dt>Served at</dt><dd class="mono" id="project-url">${urlForPeople(project.url)}</dd></div>
      <div class="fact"><dt>Last deploy</dt><dd id="project-deploy">${deployText(project, screenNow())}</dd></div>`);
    this.drawAddState();
  }

  drawDeploy() {
    const { project } = store.get();
    const cell = this.querySelector('#project-deploy');
    if (project && cell) {
      const text = deployText(project, screenNow());
      if (cell.textContent !== text) cell.textContent = text;
    }
  }

  /**
   * The user changed something that may change what the platform finds (a record in Demo
   * DNS): the domains waiting for DNS are checked again `afterMs` (platform time) from now,
   * once the platform's resolver can see the change, and their back-off starts over.
   */
  recheck(hostnames, afterMs) {
    for (const hostname of hostnames ?? [...this.schedule.entries.keys()]) {
      if (this.schedule.kindOf(hostname) === 'verify') this.schedule.restart(hostname, afterMs);
    }
    this.arm();
  }

  drawAddState() {
    const { project, session, domains } = store.get();
    const reason = addBlockedReason(session, project, domains.length);
    const button = this.querySelector('#add-domain-button');
    const note = this.querySelector('#add-domain-reason');
    if (!button) return;
    button.disabled = Boolean(reason);
    note.hidden = !reason;
    note.textContent = reason ?? '';
    if (reason) button.setAttribute('aria-describedby', 'add-domain-reason');
    else button.removeAttribute('aria-describedby');
  }

  /**
   * Puts every domain on the polling schedule and arms the timer for the next due poll. An
   * answer for one domain of thousands observes that one (`replacedDomains`), and while a poll
   * is under way, its answers arriving one by one, the timer is armed once, when it ends: with
   * thousands of domains waiting, each answer used to walk, copy and publish them all.
   */
  watch(domains) {
    const replaced = replacedDomains(this.watched, domains);
    if (replaced) {
      for (const d of replaced) this.schedule.observe(d);
    } else {
      const seen = new Set();
      for (const d of domains) {
        seen.add(d.hostname);
        this.schedule.observe(d);
      }
      for (const hostname of [...this.schedule.entries.keys()]) if (!seen.has(hostname)) this.schedule.forget(hostname);
    }
    this.watched = domains;
    if (!this.polling) this.arm();
  }

  arm() {
    clearTimeout(this.timer);
    // A poll that was under way when the view left the page ends by arming again: the view
    // gone, nothing is watched from it (a second view would poll beside it).
    if (!this.isConnected) return;
    this.reportWatch();
    this.publish();
    if (store.get().settings.polling === false) return;
    const next = this.schedule.nextDue();
    if (next == null) return;
    const wait = wallDelayUntil(store.get().clock, next, Date.now());
    // A stopped demo clock only moves when someone moves it (Demo DNS's +5 min, the control
    // plane): the clock is read again every few seconds so that a jump is seen soon.
    this.timer = setTimeout(() => this.poll(), Number.isFinite(wait) ? Math.max(1_000, wait) : STOPPED_CLOCK_LOOK_MS);
  }

  /**
   * When each watched domain is checked next, for "next check in 4 min" in the window:
   * `nextChecks.of(hostname)` is `{at, kind}` or null. A lookup into the schedule rather than
   * a copy of it: thousands of domains are watched, the details panel reads one of them, and
   * this runs at every change of the list (each second while a poll's answers come in).
   */
  publish() {
    const schedule = this.schedule;
    const watching = store.get().settings.polling !== false;
    const of = (hostname) => {
      const at = watching ? schedule.dueAt(hostname) : null;
      return at == null ? null : { at, kind: schedule.kindOf(hostname) };
    };
    store.set({ nextChecks: { of } });
  }

  /**
   * Tells the Rust side which domains still wait for DNS or a certificate, so that closing the
   * window keeps watching them from the tray. Not while a poll is under way: its notifications
   * are sent first, and the poll reports when it ends.
   */
  reportWatch() {
    if (this.polling) return;
    const watching = store.get().settings.polling === false ? [] : store.get().domains.filter(awaitsPlatform).map((d) => d.hostname);
    const key = watching.join(' ');
    if (key === this.reported) return;
    this.reported = key;
    api.reportWatch(watching).catch(() => {});
  }

  async poll() {
    // One poll at a time: a poll's fresh reading of the demo clock arms the timer again while
    // it runs, and a second poll would verify the same domains and notify the same change.
    // The poll under way arms the next one when it ends.
    if (this.polling) return;
    this.polling = true;
    try {
      // The demo's clock may have been moved or sped up from outside the window: what is due
      // is decided on a fresh reading of it (a local call, no API request).
      if (store.get().session?.mode === 'demo') await refreshClock().catch(() => {});
      await this.pollOnce();
    } finally {
      this.polling = false;
    }
    this.arm();
  }

  async pollOnce() {
    const project = store.get().project;
    if (!project) return;
    const plan = pollPlan(this.schedule.due(), (h) => this.schedule.kindOf(h), {
      verifyBudget: verifyBudget(store.get().queue, Date.now()),
    });
    const before = new Map(store.get().domains.map((d) => [d.hostname, d]));
    // Checks the rate limit cannot afford now wait a minute (platform time).
    for (const hostname of plan.deferred) this.schedule.postpone(hostname, 60_000);
    const read = plan.read;
    for (const hostname of plan.verify) this.schedule.polled(hostname);
    for (const hostname of read.kind === 'list' ? this.schedule.due() : read.hostnames ?? []) this.schedule.polled(hostname);
    // The answers reach the list together, at most every APPLY_EVERY_MS: a poll may re-verify
    // hundreds of domains, and each change of a list of thousands makes every view of it work
    // over the whole list.
    const answers = new Answers(project.id, APPLY_EVERY_MS);
    try {
      for (const hostnames of inChunks(plan.verify, REVERIFY_CHUNK)) {
        const { domains, stopped } = await api.reverify(project.id, hostnames);
        if (store.get().project?.id !== project.id) return;
        for (const domain of domains) answers.take(domain);
        if (stopped) throw stopped;
      }
      answers.apply();
      if (read.kind === 'list') {
        const domains = await api.domains(project.id, true);
        if (store.get().project?.id === project.id) store.set((s) => ({ domains: keepUnchanged(s.domains, domains) }));
      } else if (read.kind === 'each') {
        for (const hostname of read.hostnames) {
          const domain = await api.domain(project.id, hostname, true);
          if (store.get().project?.id !== project.id) return;
          answers.take(domain);
        }
      }
    } catch {
      // A failed background check is tried again a minute later; the meter shows why (429, ban).
      for (const hostname of [...plan.verify, ...(read.hostnames ?? [])]) this.schedule.postpone(hostname, 60_000);
    }
    answers.apply();
    this.watch(store.get().domains);
    // The notifications were sent as the answers reached the list (`tellChanges`); the
    // project's refresh after a change runs inside the poll, so what it brings is told too.
    const changed = store.get().domains.some((after) => notableChange(before.get(after.hostname), after));
    if (changed) await refreshProject().catch(() => {});
  }
}

/**
 * How long a poll's answers may wait to reach the list together: a second, which nobody
 * watching a background check can tell from at once, and which lets a re-verify of hundreds
 * of domains change a list of thousands once a second rather than four times.
 */
const APPLY_EVERY_MS = 1_000;

/**
 * A poll's answers on their way to the store's list: taken one by one, applied together once
 * `everyMs` has passed since the first waiting one (or when the poll says so), and dropped if
 * the window has moved to another project meanwhile.
 */
class Answers {
  constructor(projectId, everyMs) {
    this.projectId = projectId;
    this.everyMs = everyMs;
    this.waiting = [];
    this.timer = null;
  }

  take(domain) {
    this.waiting.push(domain);
    this.timer ??= setTimeout(() => this.apply(), this.everyMs);
  }

  apply() {
    clearTimeout(this.timer);
    this.timer = null;
    const answers = this.waiting;
    this.waiting = [];
    if (answers.length === 0 || store.get().project?.id !== this.projectId) return;
    store.set((s) => ({ domains: upsertDomains(s.domains, answers) }));
  }
}

/** The zone a dangling record lives in: its full name without its relative name. */
function zoneOf(entry) {
  const { fqdn, name } = entry.record;
  if (name === '@') return fqdn;
  return fqdn.startsWith(`${name}.`) ? fqdn.slice(name.length + 1) : '';
}

/** Ctrl+N (Cmd+N on a Mac): the Add domain shortcut. */
export function isAddShortcut(e) {
  return Boolean((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key?.toLowerCase() === 'n');
}

/** What a Refresh found: "Up to date: 28 domains, none changed", "2 of 28 changed", "1 new". */
export function refreshedText(before, after) {
  const old = new Map(before.map((d) => [d.hostname, JSON.stringify(d)]));
  const added = after.filter((d) => !old.has(d.hostname)).length;
  const changed = after.filter((d) => old.has(d.hostname) && old.get(d.hostname) !== JSON.stringify(d)).length;
  const gone = before.filter((d) => !after.some((a) => a.hostname === d.hostname)).length;
  const count = `${after.length} domain${after.length === 1 ? '' : 's'}`;
  const news = [changed ? `${changed} changed` : '', added ? `${added} new` : '', gone ? `${gone} gone` : ''].filter(Boolean);
  return news.length ? `Refreshed: ${count}, ${news.join(', ')}.` : `Up to date: ${count}, none changed.`;
}
