// <dd-confirm-dialog>: the question asked before a removal (or a suggested step, such as
// redirecting the old primary); `ask()` resolves true when the user confirms.
import { html } from '../../lib/html.js';
import { registerDialog } from '../../lib/dialogs.js';
import { render, openDialog } from '../../lib/dom.js';

/**
 * The confirm button's class for a question's `tone`: the destructive red only for what
 * destroys (`danger`, the default: Remove, Reset demo); a suggested, harmless step is drawn
 * as the primary action.
 */
export function confirmClass(tone = 'danger') {
  return tone === 'danger' ? 'danger-solid' : 'primary';
}

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
  ask({ title, body, confirm, tone }) {
    this.querySelector('#confirm-title').textContent = title;
    this.querySelector('#confirm-body').textContent = body;
    const ok = this.querySelector('#confirm-ok');
    ok.textContent = confirm;
    ok.className = confirmClass(tone);
    this.dialog.returnValue = '';
    // The focus goes back to what asked (openDialog).
    return new Promise((resolve) => {
      this.dialog.addEventListener('close', () => {
        resolve(this.dialog.returnValue === 'ok');
      }, { once: true });
      openDialog(this.dialog, '#confirm-cancel');
    });
  }
}
