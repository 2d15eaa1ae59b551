// <dd-confirm-dialog>: the confirmation asked before a removal; `ask()` resolves true when the
// user confirms.
import { html } from '../../lib/html.js';
import { registerDialog } from '../../lib/dialogs.js';
import { render, openDialog } from '../../lib/dom.js';

export class ConfirmDialog extends HTMLElement {
  disconnectedCallback() {
    this.leave?.();
  }

  connectedCallback() {
    this.leave = registerDialog('confirm', this);
    render(this, html`<dialog id="confirm-dialog" aria-labelledby="confirm-title" aria-describedby="confirm-body">
      <h3 id="confirm-title"></h3>
      <p id="confirm-body"></p>
      <div class="dialog-buttons">
        <button type="button" id="confirm-cancel">Cancel</button>
        <button type="button" id="confirm-ok" class="danger-solid"></button>
      </div></dialog>`);
    this.dialog = this.querySelector('dialog');
    this.querySelector('#confirm-cancel').addEventListener('click', () => this.dialog.close('cancel'));
    this.querySelector('#confirm-ok').addEventListener('click', () => this.dialog.close('ok'));
  }

  /** Resolves true when the user confirms; Escape and Cancel resolve false. */
  ask({ title, body, confirm }) {
    this.querySelector('#confirm-title').textContent = title;
    this.querySelector('#confirm-body').textContent = body;
    this.querySelector('#confirm-ok').textContent = confirm;
    const returnFocus = document.activeElement;
    this.dialog.returnValue = '';
    return new Promise((resolve) => {
      this.dialog.addEventListener('close', () => {
        returnFocus?.focus?.();
        resolve(this.dialog.returnValue === 'ok');
      }, { once: true });
      openDialog(this.dialog, '#confirm-cancel');
    });
  }
}
