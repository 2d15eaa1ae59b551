// The rate-limit meter, always visible: remaining of limit for the binding window, time to
// reset, a countdown while paused after a 429 (or banned), queued work per class, and what the
// day reserve holds back for interactive work and why.
import { html } from '../../lib/html.js';
import { render } from '../../lib/dom.js';
import { store } from '../../lib/app-state.js';
import { meterView } from '../../lib/meter.js';

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
      if (changed.includes('queue')) this.draw();
    });
    this.ticker = setInterval(() => this.draw(), 1000);
    this.draw();
  }

  disconnectedCallback() {
    this.unsubscribe?.();
    clearInterval(this.ticker);
  }

  draw() {
    const view = meterView(store.get().queue, Date.now());
    const meter = this.querySelector('#meter');
    meter.dataset.level = view.level;
    meter.title = view.label;
    this.querySelector('#meter-fill').style.width = `${Math.round(view.fraction * 100)}%`;
    this.querySelector('#meter-budget').textContent = view.budget;
    this.querySelector('#meter-reset').textContent = view.reset;
    this.querySelector('#meter-pause').textContent = view.pause;
    this.querySelector('#meter-queued').textContent = view.queued;
    this.querySelector('#meter-held').textContent = view.held;
  }
}
