// <dd-move-dialog>: Move to another project. The target is one of the account's other
// projects; the dialog says what keeps working (nothing stops being served) and what changes,
// and Move domain (a harmless step: not drawn as a removal) asks the platform. A refusal (the
// target's plan, its domain limit, no deploy yet) is said in the dialog, which stays open.
import { html } from '../../lib/html.js';
import { registerDialog } from '../../lib/dialogs.js';
import { render, openDialog, setText } from '../../lib/dom.js';
import { store, loadProjects } from '../../lib/app-state.js';
import { findDomain } from '../../lib/actions.js';
import { describeError } from '../../lib/errors.js';
import { moveTargets, moveSummary, moveDomain, moveRefusal } from '../../lib/move.js';

export class MoveDialog extends HTMLElement {
  disconnectedCallback() {
    this.leave?.();
  }

  connectedCallback() {
    this.leave = registerDialog('move', this);
    render(this, html`<dialog id="move-dialog" aria-labelledby="move-title"><div id="move-body"></div></dialog>`);
    this.dialog = this.querySelector('dialog');
  }

  async open(hostname) {
    const domain = findDomain(hostname);
    if (!domain) return;
    const from = store.get().project;
    let projects = store.get().projects;
    if (!projects) projects = await loadProjects().catch(() => []);
    const targets = moveTargets(projects, from.id);
    const body = this.querySelector('#move-body');
    render(body, html`<form id="move-form" novalidate>
      <h3 id="move-title">Move ${domain.unicode_hostname} to another project</h3>
      ${targets.length === 0
        ? html`<p class="error">This account has no other project to move it to.</p>`
        : html`<label for="move-target">Move to</label>
          <select id="move-target">${targets.map((p) => html`<option value="${p.id}">${p.name}</option>`)}</select>
          <p id="move-summary" aria-live="polite"></p>`}
      <p id="move-error" class="error" role="alert" hidden></p>
      <div class="dialog-buttons">
        <button type="button" id="move-cancel">Cancel</button>
        <button type="submit" id="move-submit" class="primary" ${targets.length === 0 ? html`disabled` : ''}>Move domain</button>
      </div></form>`);
    const select = body.querySelector('#move-target');
    const error = body.querySelector('#move-error');
    const target = () => targets.find((p) => p.id === select?.value);
    const describe = () => {
      if (!select) return;
      setText(body.querySelector('#move-summary'), moveSummary(domain, from, target(), store.get().domains));
      error.hidden = true;
    };
    select?.addEventListener('change', describe);
    describe();
    body.querySelector('#move-cancel').addEventListener('click', () => this.dialog.close());
    body.querySelector('#move-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      const submit = body.querySelector('#move-submit');
      if (!select || submit.disabled) return;
      submit.disabled = true;
      submit.textContent = 'Moving…';
      try {
        await moveDomain(hostname, target());
        this.dialog.close();
      } catch (err) {
        const { message, action } = describeError(err);
        error.textContent = moveRefusal(err, target()) ?? (action ? `${message} ${action}` : message);
        error.hidden = false;
        submit.disabled = false;
        submit.textContent = 'Move domain';
      }
    });
    openDialog(this.dialog, '#move-target');
  }
}
