// The window's calls reach the Rust commands with the argument keys they declare. Tauri maps
// each camelCase key to a snake_case parameter and fails at run time on a missing one, so the
// keys each `api` entry sends are checked against the parameters of the `#[tauri::command]`
// it names, read from src-tauri/commands/; and each command it names is granted to the window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api } from '../lib/api.js';
import { invoke } from '../lib/tauri.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Parameters Tauri fills itself: they are not sent from the window. */
const INJECTED = /^(State|AppHandle|Window|WebviewWindow|Webview)\b/;

/** `text` split at the commas outside any `<…>`, `(…)` or `[…]`. */
function topLevelCommas(text) {
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if ('<([{'.includes(text[i])) depth++;
    if ('>)]}'.includes(text[i])) depth--;
    if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/** Each `#[tauri::command]` function in `source`: its name and the parameters the window sends. */
export function declaredCommands(source) {
  const commands = new Map();
  const declaration = /#\[tauri::command[^\]]*\]\s*(?:#\[[^\]]*\]\s*)*pub\s+(?:async\s+)?fn\s+(\w+)\s*(?:<[^>]*>)?\s*\(/g;
  for (const found of source.matchAll(declaration)) {
    let depth = 1;
    let end = found.index + found[0].length;
    while (depth > 0 && end < source.length) {
      if (source[end] === '(') depth++;
      if (source[end] === ')') depth--;
      end++;
    }
    const parameters = topLevelCommas(source.slice(found.index + found[0].length, end - 1))
      .map((parameter) => parameter.split(':').map((side) => side.trim()))
      .filter(([, type]) => !INJECTED.test(type))
      .map(([name]) => name.replace(/^mut\s+/, ''));
    commands.set(found[1], parameters);
  }
  return commands;
}

function rustCommands() {
  const dir = join(root, 'src-tauri', 'commands');
  const commands = new Map();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.rs'))) {
    for (const [name, parameters] of declaredCommands(readFileSync(join(dir, file), 'utf8'))) {
      commands.set(name, parameters);
    }
  }
  return commands;
}

const snake = (key) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The command and arguments each `api` entry sends, through a fake `__TAURI__`. */
async function sent() {
  const calls = [];
  globalThis.__TAURI__ = { core: { invoke: async (command, args) => { calls.push({ command, args }); return null; } } };
  const out = [];
  try {
    for (const [entry, call] of Object.entries(api)) {
      calls.length = 0;
      await call('x', 'y', 'z');
      assert.equal(calls.length, 1, `api.${entry} invokes one command`);
      out.push({ entry, ...calls[0] });
    }
  } finally {
    delete globalThis.__TAURI__;
  }
  return out;
}

test('without the window there is a clear error, not a crash', async () => {
  delete globalThis.__TAURI__;
  await assert.rejects(invoke('app_info'), (err) => err.kind === 'no_backend' && /not running inside its window/.test(err.message));
});

test('the parameters are read from a command declaration as Tauri reads them', () => {
  const commands = declaredCommands(`
    #[tauri::command]
    #[tracing::instrument(skip(app, state), err(Debug))]
    pub async fn domains_import<R: Runtime>(
        app: AppHandle<R>,
        state: State<'_, AppState>,
        project_id: String,
        on_progress: Channel<Progress>,
        limits: HashMap<String, (u32, u32)>,
    ) -> Result<Option<ImportResult>> {}
    #[tauri::command]
    pub fn app_info(window: WebviewWindow) -> Info {}
  `);
  assert.deepEqual(Object.fromEntries(commands), {
    domains_import: ['project_id', 'on_progress', 'limits'],
    app_info: [],
  });
});

test('each api entry sends exactly the keys its Rust command declares', async () => {
  const commands = rustCommands();
  for (const { entry, command, args } of await sent()) {
    assert.ok(commands.has(command), `api.${entry} invokes ${command}, which no #[tauri::command] in src-tauri/commands declares`);
    const keys = Object.keys(args ?? {}).map(snake).sort();
    assert.deepEqual(keys, [...commands.get(command)].sort(), `api.${entry} → ${command}`);
  }
});

test('each command the api invokes is granted to the window', async () => {
  const capability = JSON.parse(readFileSync(join(root, 'capabilities', 'main.json'), 'utf8'));
  for (const { entry, command } of await sent()) {
    assert.ok(capability.permissions.includes(`allow-${command.replaceAll('_', '-')}`), `api.${entry}: ${command} is not granted`);
  }
});

// One script that got into the page could otherwise read or overwrite any file the user can:
// a file comes from the system's dialog, on the Rust side, never from the window.
test('no command the window may call takes a file path', () => {
  const capability = JSON.parse(readFileSync(join(root, 'capabilities', 'main.json'), 'utf8'));
  const pathLike = /^(path|file|file_path|filename|output|dir|directory|folder|destination)$/;
  for (const [command, parameters] of rustCommands()) {
    if (!capability.permissions.includes(`allow-${command.replaceAll('_', '-')}`)) continue;
    for (const parameter of parameters) {
      assert.doesNotMatch(parameter, pathLike, `${command} takes ${parameter} from the window`);
    }
  }
});
