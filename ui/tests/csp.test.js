// The window runs under a strict CSP (tauri.conf.json): no inline scripts, styles or event
// handlers. These checks read the sources so a regression fails here rather than as a blank
// window. They also check that every component is registered and its stylesheet linked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ui = join(dirname(fileURLToPath(import.meta.url)), '..');

function files(dir, ext) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'tests' ? [] : files(path, ext);
    return path.endsWith(ext) ? [path] : [];
  });
}

test('no inline style attributes, inline scripts or inline event handlers', () => {
  for (const file of [...files(ui, '.js'), ...files(ui, '.html')]) {
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /\sstyle="/, `${file} has a style attribute`);
    assert.doesNotMatch(text, /<style[\s>]/, `${file} has a <style> element`);
    assert.doesNotMatch(text, /\son[a-z]+="/, `${file} has an inline event handler`);
    assert.doesNotMatch(text, /<script(?![^>]*\bsrc=)[^>]*>/, `${file} has an inline script`);
    assert.doesNotMatch(text, /\beval\(|new Function\(/, `${file} evaluates strings`);
  }
});

test('the CSP forbids inline code', () => {
  const conf = JSON.parse(readFileSync(join(ui, '..', 'tauri.conf.json'), 'utf8'));
  const csp = conf.app.security.csp;
  assert.equal(csp['script-src'], "'self'");
  assert.equal(csp['style-src'], "'self'");
});

test('every component folder is registered and its stylesheet linked', () => {
  const index = readFileSync(join(ui, 'index.html'), 'utf8');
  const registry = readFileSync(join(ui, 'index.js'), 'utf8');
  for (const folder of readdirSync(join(ui, 'components'))) {
    const css = `components/${folder}/${folder}.css`;
    assert.ok(index.includes(`href="${css}"`), `${css} is not linked`);
    assert.ok(registry.includes(`./components/${folder}/`), `${folder} is not imported`);
  }
});

test('each custom element is <dd-NAME>, defined in components/NAME/NAME.js', () => {
  const registry = readFileSync(join(ui, 'index.js'), 'utf8');
  const folderOf = new Map();
  for (const [, names, folder, file] of registry.matchAll(/import \{([^}]+)\} from '\.\/components\/([^/]+)\/([^/]+)\.js'/g)) {
    assert.equal(file, folder, `components/${folder}/${file}.js is not named for its folder`);
    for (const name of names.split(',')) folderOf.set(name.trim(), folder);
  }
  const tags = [...registry.matchAll(/'(dd-[a-z-]+)': (\w+),/g)];
  assert.ok(tags.length >= readdirSync(join(ui, 'components')).length, 'every folder defines an element');
  for (const [, tag, element] of tags) {
    assert.equal(tag, `dd-${folderOf.get(element)}`, `${element} is <${tag}>`);
  }
});

test('innerHTML is only set through the escaping template', () => {
  for (const file of files(ui, '.js')) {
    const text = readFileSync(file, 'utf8');
    for (const line of text.split('\n').filter((l) => l.includes('innerHTML ='))) {
      assert.match(line, /markup\.text|html`/, `${file}: ${line.trim()}`);
    }
  }
});
