// Escaping tagged template: every value from the API, DNS or the user goes through here.
const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export class SafeHtml {
  constructor(text) { this.text = text; }
  toString() { return this.text; }
}

export function escape(value) {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(escape).join('');
  if (value === null || value === undefined || value === false) return '';
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

export function html(strings, ...values) {
  let out = strings[0];
  values.forEach((value, i) => { out += escape(value) + strings[i + 1]; });
  return new SafeHtml(out);
}
