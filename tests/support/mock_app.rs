//! The app on Tauri's mock runtime with its real capabilities, in a temporary data folder, and
//! a way to call its commands through IPC exactly as the window does. Shared by the command
//! tests and the updater tests so both build the app the one way the window gets it.

use std::path::PathBuf;

use domain_desk_app::paths::AppPaths;
use serde_json::Value;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder};
use tauri::webview::InvokeRequest;
use tauri::{App, Context, WebviewWindow, WebviewWindowBuilder};

pub struct MockApp {
    _dir: tempfile::TempDir,
    data_dir: PathBuf,
    /// The app itself, for listening to its events (not every test binary does).
    #[allow(dead_code)]
    pub app: App<MockRuntime>,
    pub window: WebviewWindow<MockRuntime>,
}

impl MockApp {
    /// Builds the app from `context` (the project's, perhaps with a plugin's config changed)
    /// with its data and logs in a fresh temporary folder, and opens its main window.
    pub fn start(context: Context<MockRuntime>) -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let paths = AppPaths {
            data_dir: dir.path().join("data"),
            log_dir: dir.path().join("logs"),
        };
        let data_dir = paths.data_dir.clone();
        let app = domain_desk::configure(mock_builder())
            .manage(paths)
            .build(context)
            .expect("the app builds on the mock runtime");
        let window = WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .expect("the main window");
        Self {
            _dir: dir,
            data_dir,
            app,
            window,
        }
    }

    /// The app's data folder (settings, logs aside), inside the temporary folder.
    #[allow(dead_code)]
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir.clone()
    }

    /// Calls a command as the window would; `Err` holds the serialised error.
    pub fn invoke(&self, cmd: &str, args: Value) -> Result<Value, Value> {
        let request = InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().expect("the app's origin"),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        };
        get_ipc_response(&self.window, request).map(|body| {
            body.deserialize::<Value>()
                .expect("command answers are JSON")
        })
    }
}
