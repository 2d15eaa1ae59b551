// Offline demo extras in the header: the Demo DNS panel, the clock's speed, and reset.
import { html } from '../../lib/html.js';
import { render, setAttribute, setText } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { store, loadProjects, refreshDomains, refreshClock, refreshProject, screenNow } from '../../lib/app-state.js';
import { clockTime, dayUnlessToday } from '../../lib/format.js';
import { errorText } from '../../lib/errors.js';
import { toast } from '../../lib/toast.js';
import * as actions from '../../lib/actions.js';

export const SPEEDS = [
  { value: 0, label: 'Stopped' },
  { value: 1, label: '1× real time' },
  { value: 10, label: '10×' },
  { value: 60, label: '60× (1\u00a0min/s)' },
  { value: 600, label: '600× (10\u00a0min/s)' },
];

export class DemoControls extends HTMLElement {
  connectedCallback() {
    this.unsubscribe = store.subscribe((state, changed) => {
      if (changed.includes('session')) this.draw(state.session);
      else if (changed.includes('now')) this.drawTime();
      if (changed.includes('clock')) this.drawSpeed();
    });
    this.draw(store.get().session);
  }

  disconnectedCallback() {
    this.unsubscribe?.();
  }

  async draw(session) {
    const demo = session?.mode === 'demo';
    this.hidden = !demo;
    if (!demo) {
      render(this, html``);
      return;
    }
    render(this, html`<div class="demo-controls" role="group" aria-label="Offline demo">
      <span class="demo-tag">Offline demo</span>
      <button type="button" id="demo-dns-button">Demo DNS</button>
      <label for="clock-speed" class="muted">Clock</label>
      <span id="demo-clock-day" class="demo-day" hidden></span>
      <time id="demo-clock-now" class="demo-time" title="The demo platform’s time: every time in the window is on this clock"></time>
      <select id="clock-speed">${SPEEDS.map((s) => html`<option value="${s.value}">${s.label}</option>`)}</select>
      <button type="button" id="clock-skip" title="Move the demo clock 5 minutes ahead">+5 min</button>
      <button type="button" id="demo-reset-button">Reset demo</button>
    </div>`);
    this.drawTime();
    this.querySelector('#demo-dns-button').addEventListener('click', () => document.getElementById('demo-dns-host').open());
    const select = this.querySelector('#clock-speed');
    select.addEventListener('change', async () => {
      try {
        await api.setClockSpeed(Number(select.value));
        await refreshClock();
        toast(`Demo clock: ${select.selectedOptions[0].textContent}.`, 'ok');
      } catch (err) {
        // The menu goes back to the speed the clock runs at.
        this.drawSpeed();
        toast(errorText(err), 'error');
      }
    });
    this.querySelector('#demo-reset-button').addEventListener('click', () => this.reset());
    this.querySelector('#clock-skip').addEventListener('click', async () => {
      try {
        await api.advanceClock(300);
        await refreshClock();
        await refreshDomains(true);
        // A domain the move made live can change the project's address ("Served at").
        refreshProject().catch(() => {});
        toast('The demo clock moved 5 minutes ahead.', 'ok');
      } catch (err) {
        toast(errorText(err), 'error');
      }
    });
    this.drawSpeed();
  }

  /**
   * The speed the clock was last read at: changed here, or from outside the window (the
   * command line, the control plane), which the half-minute reading of the clock brings in.
   */
  drawSpeed() {
    const select = this.querySelector('#clock-speed');
    const { clock } = store.get();
    if (!select || clock?.platformMs == null || select.value === String(clock.speed)) return;
    if (![...select.options].some((o) => o.value === String(clock.speed))) select.append(new Option(`${clock.speed}×`, String(clock.speed)));
    select.value = String(clock.speed);
  }

  /**
   * The demo platform's time of day, from the same tick as every other time on screen, and its
   * day when that is not today here (a clock set ahead or run fast reaches other days; the
   * dates in the window are on it).
   */
  drawTime() {
    const time = this.querySelector('#demo-clock-now');
    if (!time) return;
    const now = screenNow();
    const text = clockTime(new Date(now).toISOString(), now);
    if (time.textContent !== text) time.textContent = text;
    time.dateTime = new Date(now).toISOString();
    const day = dayUnlessToday(now, Date.now());
    const dayNode = this.querySelector('#demo-clock-day');
    setText(dayNode, day);
    if (dayNode.hidden !== !day) dayNode.hidden = !day;
    // Stopped, it never reaches the rate limit's refills, which the meter then names on this
    // computer's clock (lib/meter.js): the title says so rather than "every time".
    const stopped = store.get().clock?.speed === 0;
    setAttribute(time, 'title', `The demo platform’s time${day ? `, on ${day}` : ''}${stopped ? ', stopped' : ''}: ${stopped ? 'every time in the window is on this clock but the rate limit’s, which are on this computer’s' : 'every time in the window is on this clock'}`);
  }

  async reset() {
    const ok = await actions.confirmDialog({
      title: 'Reset the offline demo?',
      body: 'Every project, domain, DNS record and certificate goes back to the seed data. Your own accounts are not touched.',
      confirm: 'Reset demo',
    });
    if (!ok) return;
    try {
      await api.resetDemo();
      store.set({ selected: null });
      await loadProjects();
      const project = store.get().project;
      if (project) {
        const fresh = store.get().projects.find((p) => p.id === project.id);
        if (fresh) {
          store.set({ project: fresh });
          await refreshDomains();
        } else {
          store.set({ route: 'projects', project: null, domains: [] });
        }
      }
      await refreshClock();
      this.draw(store.get().session);
      toast('The demo is back to its seed data.', 'ok');
    } catch (err) {
      toast(errorText(err), 'error');
    }
  }
}
