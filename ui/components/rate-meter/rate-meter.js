// The rate-limit meter, always visible while an account is signed in: remaining of limit for the binding window, when it
// refills, until when the queue is paused after a 429 (or a ban), the work waiting, and what
// the day reserve holds back for interactive work and why. Its words are lib/meter.js's.
import { html } from '../../lib/html.js';
import { render, setAttribute, setStyle, setText } from '../../lib/dom.js';
import { store } from '../../lib/app-state.js';
import { meterView, screenTimeOfDay } from '../../lib/meter.js';

export class RateMeter extends HTMLElement {
  connectedCallback() {
    render(this, html`<div class="meter" id="meter" role="group" aria-label="API rate limit">
      <div class="meter-bar" aria-hidden="true"><div class="meter-fill" id="meter-fill"></div></div>
      <div class="meter-text">
        <span id="meter-budget"></span>
        <span id="meter-reset" class="muted"></span>
        <span id="meter-pause" class="meter-pause" role="status"></span>
        <span id="meter-queued" class="muted"></span>
        <span id="meter-held" class="muted"></span>
      </div></div>`);
    this.unsubscribe = store.subscribe((_s, changed) => {
      if (changed.includes('queue') || changed.includes('session')) this.draw();
    });
    this.ticker = setInterval(() => this.draw(), 1000);
    this.draw();
  }

  disconnectedCallback() {
    this.unsubscribe?.();
    clearInterval(this.ticker);
  }

  /**
   * Draws the meter from the queue's state. Called every second (a window that refills at its
   * reset changes the figures without a request), but only what changed is written, so a
   * screen reader hears a pause start or end, not a tick.
   */
  draw() {
    const { queue, clock, session } = store.get();
    // Signed in to no account, there is no API to count: nothing is drawn in place of a budget.
    if (this.hidden !== !session) this.hidden = !session;
    const view = meterView(queue, Date.now(), { timeText: screenTimeOfDay(clock) });
    const meter = this.querySelector('#meter');
    setAttribute(meter, 'data-level', view.level);
    setAttribute(meter, 'title', view.label);
    setStyle(this.querySelector('#meter-fill'), 'width', `${Math.round(view.fraction * 100)}%`);
    setText(this.querySelector('#meter-budget'), view.budget);
    const reset = this.querySelector('#meter-reset');
    setText(reset, view.reset);
    setAttribute(reset, 'data-at', view.resetAt == null ? '' : String(view.resetAt));
    setText(this.querySelector('#meter-pause'), view.pause);
    setText(this.querySelector('#meter-queued'), view.queued);
    const held = this.querySelector('#meter-held');
    setText(held, view.held);
    if (held.title !== view.held) held.title = view.held;
  }
}
