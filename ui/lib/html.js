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

/**
 * A name or value (a hostname, a record's value) for the page, escaped, with a line-break
 * opportunity (`<wbr>`) after each dot and hyphen: a narrow column wraps
 * "cname.pages.local-platform.test" between its labels, never inside one. A `<wbr>` adds no
 * character, so the value reads and copies as it is.
 */
export function breakable(value) {
  if (value === null || value === undefined || value === false) return new SafeHtml('');
  return new SafeHtml(String(value).split(/(?<=[.-])(?=.)/).map(escape).join('<wbr>'));
}
