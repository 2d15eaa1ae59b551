// The Demo DNS panel plays the customer's DNS provider for the demo zones: list, add and
// delete records. Changes reach the platform's resolvers after the demo's propagation delay.
import { html, breakable } from '../../lib/html.js';
import { render, openDialog } from '../../lib/dom.js';
import { api } from '../../lib/api.js';
import { store } from '../../lib/app-state.js';
import { RECORD_TYPES, checkZoneRecord, signaturesNotice, zoneFor, propagationText } from '../../lib/zone-record.js';
import { describeError, errorText } from '../../lib/errors.js';
import { toast } from '../../lib/toast.js';
import { recordDeleted } from '../../lib/dangling.js';

export class DemoDns extends HTMLElement {
  connectedCallback() {
    render(this, html`<dialog id="demo-dns-panel" aria-labelledby="demo-dns-title" class="wide">
      <div class="panel-head">
        <h3 id="demo-dns-title">Demo DNS</h3>
        <button type="button" id="demo-dns-close" aria-label="Close Demo DNS">Close</button>
      </div>
      <p class="muted" id="dns-propagation"></p>
      <div class="zone-bar">
        <label for="dns-zone">Zone</label>
        <select id="dns-zone"></select>
        <form id="dns-zone-form" class="inline" novalidate>
          <label for="dns-new-zone" class="visually-hidden">New zone</label>
          <input id="dns-new-zone" placeholder="new-zone.example" autocomplete="off">
          <button type="submit" id="dns-add-zone">Add zone</button>
        </form>
      </div>
      <div class="zone-bar" id="dns-signatures-bar" hidden>
        <label for="dns-signatures">DNSSEC</label>
        <select id="dns-signatures">
          <option value="valid">Signatures valid</option>
          <option value="expired">Signatures expired (a DNSSEC problem)</option>
        </select>
      </div>
      <div class="dns-records-scroll">
      <table class="dns-records" id="dns-records" aria-label="Records in the zone">
        <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Value</th><th scope="col">TTL</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody></tbody>
      </table>
      </div>
      <p id="dns-error" class="error" role="alert" hidden></p>
      <p id="dns-undo-bar" class="undo-bar" role="status" hidden><span id="dns-undo-text"></span> <button type="button" id="dns-undo">Undo</button></p>
      <form id="dns-add-form" class="dns-add" novalidate>
        <label><span>Name</span><input id="dns-new-name" placeholder="shop or @" autocomplete="off"></label>
        <label><span>Type</span><select id="dns-new-type">${RECORD_TYPES.map((t) => html`<option>${t}</option>`)}</select></label>
        <label class="grow"><span>Value</span><input id="dns-new-value" autocomplete="off" spellcheck="false"></label>
        <label><span>TTL</span><input id="dns-new-ttl" inputmode="numeric" value="3600"></label>
        <button type="submit" id="dns-add" class="primary">Add record</button>
      </form>
    </dialog>`);
    this.dialog = this.querySelector('dialog');
    this.querySelector('#demo-dns-close').addEventListener('click', () => this.dialog.close());
    this.querySelector('#dns-undo').addEventListener('click', () => this.undo());
    this.dialog.addEventListener('close', () => this.offerUndo(null));
    this.querySelector('#dns-zone').addEventListener('change', () => this.loadRecords());
    this.querySelector('#dns-signatures').addEventListener('change', (e) => this.setSignatures(e.target.value));
    this.querySelector('#dns-add-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.add();
    });
    this.querySelector('#dns-zone-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.addZone();
    });
    this.querySelector('#dns-records').addEventListener('click', (e) => {
      const button = e.target.closest('.dns-delete');
      if (button) this.remove(button.dataset.recordId);
    });
  }

  async open(zone) {
    this.querySelector('#dns-propagation').textContent = propagationText(store.get().session?.propagation_delay_seconds);
    openDialog(this.dialog, '#dns-zone');
    this.error('');
    try {
      this.zones = await api.zones();
      const select = this.querySelector('#dns-zone');
      const wanted = zone ?? zoneFor(store.get().selected, this.zones) ?? select.value ?? this.zones[0];
      render(select, html`${this.zones.map((z) => html`<option value="${z}">${z}</option>`)}`);
      select.value = this.zones.includes(wanted) ? wanted : this.zones[0] ?? '';
      await this.loadRecords();
    } catch (err) {
      this.error(errorText(err));
    }
  }

  zone() {
    return this.querySelector('#dns-zone').value;
  }

  async loadRecords() {
    const zone = this.zone();
    const body = this.querySelector('#dns-records tbody');
    if (!zone) {
      render(body, html``);
      return;
    }
    try {
      const list = await api.zoneRecords(zone);
      if (zone !== this.zone()) return;
      this.showSignatures(list.signatures);
      this.records = list.records;
      render(body, list.records.length === 0
        ? html`<tr><td colspan="5" class="muted">No records in ${zone}.</td></tr>`
        : html`${list.records.map((r) => html`<tr data-record-id="${r.id}" data-name="${r.name}" data-type="${r.type}">
            <td class="mono name">${breakable(r.name)}</td><td>${r.type}</td><td class="mono value">${breakable(r.value)}</td><td>${r.ttl}</td>
            <td><button type="button" class="dns-delete" data-record-id="${r.id}" data-label="${r.type} ${r.name}" aria-label="Delete ${r.type} record ${r.name} ${r.value}">Delete</button></td>
          </tr>`)}`);
    } catch (err) {
      this.error(errorText(err));
    }
  }

  async add() {
    const zone = this.zone();
    const checked = checkZoneRecord({
      name: this.querySelector('#dns-new-name').value,
      type: this.querySelector('#dns-new-type').value,
      value: this.querySelector('#dns-new-value').value,
      ttl: this.querySelector('#dns-new-ttl').value,
    }, zone);
    if (!checked.ok) {
      this.error(checked.message);
      this.querySelector(`#dns-new-${checked.field}`)?.focus();
      return;
    }
    try {
      await api.addZoneRecord(zone, checked.record);
      this.error('');
      this.offerUndo(null);
      this.querySelector('#dns-new-name').value = '';
      this.querySelector('#dns-new-value').value = '';
      // The next record starts from the usual type again, not the one just added.
      const type = this.querySelector('#dns-new-type');
      type.value = type.options[0]?.value ?? '';
      toast(`Added ${checked.record.type} ${checked.record.name} in ${zone}.`, 'ok');
      this.changed(zone);
      await this.loadRecords();
      this.querySelector('#dns-new-name').focus();
    } catch (err) {
      const { message, action } = describeError(err);
      this.error(action ? `${message} ${action}` : message);
    }
  }

  /**
   * Deletes a record at once and offers Undo in its place (the panel's own bar, not a notice
   * that outlives the panel). Messages about the record go with it: the panel's error line,
   * and the warning a removed domain left about this record (lib/dangling.js).
   */
  async remove(id) {
    const zone = this.zone();
    const record = this.records?.find((r) => String(r.id) === String(id));
    try {
      await api.deleteZoneRecord(zone, id);
      this.error('');
      if (record) {
        recordDeleted({ type: record.type, fqdn: record.name === '@' ? zone : `${record.name}.${zone}` });
        this.offerUndo({ zone, record });
      }
      this.changed(zone);
      await this.loadRecords();
      this.querySelector(record ? '#dns-undo' : '#dns-new-name').focus();
    } catch (err) {
      this.error(errorText(err));
    }
  }

  /** Shows (or, with null, takes away) the Undo of the last deletion. */
  offerUndo(deleted) {
    this.deleted = deleted;
    const bar = this.querySelector('#dns-undo-bar');
    bar.hidden = !deleted;
    if (deleted) {
      const { record, zone } = deleted;
      this.querySelector('#dns-undo-text').textContent = `Deleted ${record.type} ${record.name} → ${record.value} from ${zone}.`;
    }
  }

  /** Puts the deleted record back as it was. */
  async undo() {
    const deleted = this.deleted;
    if (!deleted) return;
    const { zone, record } = deleted;
    try {
      await api.addZoneRecord(zone, { name: record.name, type: record.type, value: record.value, ttl: record.ttl });
      this.offerUndo(null);
      toast(`Restored ${record.type} ${record.name} in ${zone}.`, 'ok');
      this.changed(zone);
      if (this.zone() === zone) await this.loadRecords();
      this.querySelector('#dns-new-name').focus();
    } catch (err) {
      this.error(errorText(err));
    }
  }

  /**
   * A record changed in `zone`: the window looks at DNS again, and the domains in the zone
   * that wait for DNS are checked again once the platform's resolver can see the change.
   */
  changed(zone) {
    const delay = store.get().session?.propagation_delay_seconds ?? 60;
    const hostnames = store.get().domains.map((d) => d.hostname).filter((h) => zoneFor(h, [zone]) === zone);
    document.dispatchEvent(new CustomEvent('dd-dns-changed', { detail: { zone } }));
    document.dispatchEvent(new CustomEvent('dd-recheck', { detail: { hostnames, after: (delay + 5) * 1000 } }));
  }

  /** The zone's DNSSEC switch, shown only when the demo's service signs its zones. */
  showSignatures(signatures) {
    this.querySelector('#dns-signatures-bar').hidden = !signatures;
    if (signatures) this.querySelector('#dns-signatures').value = signatures;
  }

  async setSignatures(signatures) {
    const zone = this.zone();
    try {
      const set = await api.setZoneSignatures(zone, signatures);
      this.error('');
      this.changed(zone);
      toast(signaturesNotice(zone, set.signatures), set.signatures === 'expired' ? 'warning' : 'ok');
    } catch (err) {
      this.error(errorText(err));
      await this.loadRecords();
    }
  }

  async addZone() {
    const input = this.querySelector('#dns-new-zone');
    const zone = input.value.trim().toLowerCase().replace(/\.$/, '');
    if (!zone) return this.error('Enter a zone name such as example.io.');
    try {
      await api.addZone(zone);
      input.value = '';
      await this.open(zone);
    } catch (err) {
      this.error(errorText(err));
    }
  }

  error(text) {
    const box = this.querySelector('#dns-error');
    box.textContent = text;
    box.hidden = !text;
  }
}
