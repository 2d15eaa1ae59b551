// WCAG contrast of the window's text, computed from the stylesheets' own colours for the light
// and the dark theme: the primary buttons, the red confirm button, the status badges (drawn in
// their tone's colour on every background a row or the details can have), muted text and
// links. Text needs 4.5:1 (WCAG 2.x AA for normal text).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const read = (path) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const styles = read('styles.css');

/** The custom properties declared in the first rule whose selector is exactly `selector`. */
function properties(css, selector) {
  const start = css.indexOf(`${selector} {`);
  assert.ok(start >= 0, `a rule for ${selector}`);
  const body = css.slice(css.indexOf('{', start) + 1, css.indexOf('}', start));
  return Object.fromEntries([...body.matchAll(/--([\w-]+):\s*([^;]+);/g)].map(([, name, value]) => [name, value.trim()]));
}

/** The declarations of the rule for `selector` in `css`, as {property: value}. */
function declarations(css, selector) {
  const start = css.indexOf(`${selector} {`);
  assert.ok(start >= 0, `a rule for ${selector}`);
  const body = css.slice(css.indexOf('{', start) + 1, css.indexOf('}', start));
  return Object.fromEntries(body.split(';').map((d) => d.split(':').map((x) => x.trim())).filter(([p, v]) => p && v));
}

const light = properties(styles, ':root');
// The dark theme, chosen in the settings and as the system's (the two blocks must agree).
const dark = { ...light, ...properties(styles, ':root[data-theme="dark"]') };
const systemDark = { ...light, ...properties(styles, '  :root:not([data-theme="light"])') };

function rgb(value, theme) {
  const v = value.trim();
  const named = /^var\(--([\w-]+)\)$/.exec(v);
  if (named) return rgb(theme[named[1]], theme);
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(v);
  assert.ok(hex, `a colour the test can read: ${value}`);
  const h = hex[1].length === 3 ? [...hex[1]].map((c) => c + c).join('') : hex[1];
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
}

function luminance([r, g, b]) {
  const channel = (c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

export function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

const confirm = declarations(read('components/confirm-dialog/confirm-dialog.css'), '.danger-solid');
const primary = declarations(styles, 'button.primary');

/** [what, text colour, background] for a theme. */
function pairs() {
  const list = [
    ['a primary button', primary.color, primary.background],
    ['the red confirm button (Remove)', confirm.color, confirm.background],
  ];
  // Badges and coloured words are drawn in their tone's colour on the row (plain, hovered or
  // selected), the details and the page.
  for (const tone of ['ok', 'accent', 'warn', 'error']) {
    for (const bg of ['surface', 'hover', 'selected', 'bg', 'surface-2']) list.push([`--${tone} text on --${bg}`, `var(--${tone})`, `var(--${bg})`]);
  }
  for (const bg of ['surface', 'hover', 'selected', 'bg', 'surface-2']) {
    list.push([`--fg on --${bg}`, 'var(--fg)', `var(--${bg})`]);
    list.push([`--muted on --${bg}`, 'var(--muted)', `var(--${bg})`]);
  }
  list.push(['a warning box', 'var(--fg)', 'var(--warn-bg)']);
  return list;
}

for (const [name, theme] of [['light', light], ['dark', dark]]) {
  test(`${name} theme: every text colour has at least 4.5:1 against its background`, () => {
    const failing = pairs()
      .map(([what, fg, bg]) => [what, contrast(rgb(fg, theme), rgb(bg, theme))])
      .filter(([, ratio]) => ratio < 4.5)
      .map(([what, ratio]) => `${what}: ${ratio.toFixed(2)}:1`);
    assert.deepEqual(failing, []);
  });
}

test('the dark theme is the same whether the system or the settings pick it', () => {
  assert.deepEqual(systemDark, dark);
});

test('the contrast arithmetic is WCAG’s', () => {
  assert.equal(contrast([0, 0, 0], [255, 255, 255]).toFixed(1), '21.0');
  assert.equal(contrast([118, 118, 118], [255, 255, 255]).toFixed(2), '4.54');
});
