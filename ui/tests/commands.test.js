// Every command the window invokes exists on the Rust side: registered in the app's handler
// (`tauri::generate_handler!` in src-tauri/lib.rs), declared in the build script's
// `AppManifest` (which makes its `allow-…` permission) and granted to the main window. The
// lists are read from the Rust sources, not searched for a substring, and every `invoke(` in
// the UI's code is found, not only the ones the `api` object makes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ui = join(root, 'ui');

/** Rust source without its comments (string literals here hold no comment markers). */
function withoutComments(source) {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
}

/** The text between `opening` and the bracket that closes it. */
function bracketed(source, opening) {
  const start = source.indexOf(opening);
  assert.ok(start >= 0, `${opening} not found`);
  const open = opening.at(-1);
  const close = { '[': ']', '(': ')', '{': '}' }[open];
  let depth = 0;
  for (let i = start + opening.length - 1; i < source.length; i++) {
    if (source[i] === open) depth++;
    if (source[i] === close && --depth === 0) return source.slice(start + opening.length, i);
  }
  assert.fail(`${opening} is never closed`);
}

/** The command names `tauri::generate_handler![…]` registers: the last segment of each path. */
export function handlerCommands(libRs) {
  const list = bracketed(withoutComments(libRs), 'generate_handler![');
  return list
    .split(',')
    .map((path) => path.trim())
    .filter((path) => path !== '')
    .map((path) => {
      assert.match(path, /^[A-Za-z_][\w]*(::[A-Za-z_]\w*)*$/, `not a command path: ${path}`);
      return path.split('::').at(-1);
    });
}

/** The names of the build script's `COMMANDS` list, which `AppManifest::commands` receives. */
export function manifestCommands(buildRs) {
  const source = withoutComments(buildRs);
  assert.match(source, /AppManifest::new\(\)\s*\.commands\(COMMANDS\)/, 'the manifest is not built from COMMANDS');
  const list = bracketed(source, 'const COMMANDS: &[&str] = &[');
  const names = [...list.matchAll(/"([^"\\]*)"/g)].map((m) => m[1]);
  const rest = list.replace(/"([^"\\]*)"/g, '').replace(/[\s,]/g, '');
  assert.equal(rest, '', 'COMMANDS holds something other than string literals');
  return names;
}

function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ['tests', 'node_modules'].includes(entry.name) ? [] : jsFiles(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

/** Every command the UI's code invokes, with where; a call whose name is not a literal fails. */
export function invokedCommands(files) {
  const invoked = [];
  for (const [file, source] of files) {
    // lib/tauri.js is the one wrapper that forwards a name it is given.
    if (file === 'lib/tauri.js') continue;
    for (const call of source.matchAll(/\binvoke\(\s*([^,)]*)/g)) {
      const literal = call[1].trim().match(/^(['"`])([a-z_][a-z0-9_]*)\1$/);
      assert.ok(literal, `${file}: invoke(${call[1]}…) does not name its command literally`);
      invoked.push({ command: literal[2], file });
    }
  }
  return invoked;
}

const registered = handlerCommands(readFileSync(join(root, 'src-tauri', 'lib.rs'), 'utf8'));
const declared = manifestCommands(readFileSync(join(root, 'src-tauri', 'build.rs'), 'utf8'));
const granted = JSON.parse(readFileSync(join(root, 'capabilities', 'main.json'), 'utf8')).permissions;
const sources = jsFiles(ui).map((path) => [relative(ui, path).replaceAll('\\', '/'), readFileSync(path, 'utf8')]);

test('the handler and the manifest list the same commands, each once', () => {
  assert.ok(registered.length > 10, `only ${registered.length} commands read from generate_handler!`);
  assert.equal(new Set(registered).size, registered.length, 'a command is registered twice');
  assert.deepEqual([...declared].sort(), [...registered].sort());
});

test('every command the UI invokes is registered, declared and granted', () => {
  const invoked = invokedCommands(sources);
  assert.ok(invoked.length > 10, `only ${invoked.length} invoke( calls found in ui/`);
  for (const { command, file } of invoked) {
    assert.ok(registered.includes(command), `${file} invokes ${command}, which generate_handler! does not register`);
    assert.ok(declared.includes(command), `${file} invokes ${command}, which build.rs does not declare`);
    assert.ok(granted.includes(`allow-${command.replaceAll('_', '-')}`), `${file} invokes ${command}, which the main window is not granted`);
  }
});

test('the parsers read what they are given, not a substring', () => {
  const lib = `tauri::generate_handler![\n  commands::a::app_info, // commands::b::ghost,\n  commands::c::demo_reset,\n]`;
  assert.deepEqual(handlerCommands(lib), ['app_info', 'demo_reset']);
  const build = `/// "ghost"\nconst COMMANDS: &[&str] = &["app_info", /* "old" */ "demo_reset"];\nAppManifest::new().commands(COMMANDS)`;
  assert.deepEqual(manifestCommands(build), ['app_info', 'demo_reset']);
  assert.deepEqual(invokedCommands([['x.js', "invoke('app_info'); api.invoke(\"demo_reset\", {})"]]).map((c) => c.command), ['app_info', 'demo_reset']);
  assert.throws(() => invokedCommands([['x.js', 'invoke(name, {})']]), /does not name its command literally/);
});
