//! The user's web browser, for the pages the app sends the user to (the Domain Connect consent
//! page): WebKitGTK's MiniBrowser driven by WebKitWebDriver, both from the WebKitGTK packages
//! the app itself runs on, so the page is loaded, laid out, submitted and redirected by a real
//! browser engine. [`OpenedPages`] is the `$BROWSER` command the app is started with: it
//! records each URL the app opens, and the test loads it in the driven browser.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;

use crate::harness::{App, Deadline, WAIT, free_port};

/// MiniBrowser where the WebKitGTK 4.1 packages put it on Debian and Ubuntu (multiarch
/// folders) and on Fedora.
fn mini_browser() -> PathBuf {
    let mut candidates: Vec<PathBuf> = std::fs::read_dir("/usr/lib")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("webkit2gtk-4.1/MiniBrowser"))
        .collect();
    candidates.push(PathBuf::from("/usr/libexec/webkit2gtk-4.1/MiniBrowser"));
    candidates
        .into_iter()
        .find(|path| path.is_file())
        .expect("MiniBrowser (apt-get install libwebkit2gtk-4.1-0)")
}

/// A browser window driven through WebDriver.
pub struct Browser {
    pub client: Client,
    driver: Child,
}

impl Browser {
    pub async fn start() -> Browser {
        let port = free_port();
        let mut command = Command::new("WebKitWebDriver");
        // Its own process group: dropping the browser ends the driver and MiniBrowser.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let driver = command
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("WebKitWebDriver starts (apt-get install webkit2gtk-driver)");
        let mut caps = serde_json::Map::new();
        caps.insert(
            "webkitgtk:browserOptions".into(),
            serde_json::json!({ "binary": mini_browser(), "args": ["--automation"] }),
        );
        let deadline = Deadline::after(WAIT);
        let client = loop {
            let connected = ClientBuilder::new(HttpConnector::new())
                .capabilities(caps.clone())
                .connect(&format!("http://127.0.0.1:{port}"))
                .await;
            match connected {
                Ok(client) => break client,
                Err(err) if deadline.passed() => {
                    panic!("WebDriver session with MiniBrowser: {err}")
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        };
        Browser { client, driver }
    }

    pub async fn goto(&self, url: &str) {
        self.client
            .goto(url)
            .await
            .expect("the browser loads the page");
    }

    /// The page's text as the user reads it.
    pub async fn text(&self) -> String {
        self.client
            .execute(
                "return document.body ? document.body.innerText : ''",
                Vec::new(),
            )
            .await
            .ok()
            .and_then(|value| value.as_str().map(str::to_owned))
            .unwrap_or_default()
    }

    /// Waits until the page says `needle`, and returns its text.
    pub async fn wait_text(&self, needle: &str) -> String {
        let deadline = Deadline::after(WAIT);
        loop {
            let text = self.text().await;
            if text.contains(needle) {
                return text;
            }
            if deadline.passed() {
                self.screenshot("failed-browser").await;
                panic!("the browser page should say “{needle}” within {WAIT:?}; it says: {text}");
            }
            Deadline::next_look().await;
        }
    }

    pub async fn click(&self, css: &str) {
        self.client
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|err| panic!("{css} on the browser page: {err}"))
            .click()
            .await
            .unwrap_or_else(|err| panic!("click {css} on the browser page: {err}"));
    }

    pub async fn screenshot(&self, name: &str) {
        crate::harness::screenshot(&self.client, name).await;
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // `--` before the negative group id, as for tauri-driver.
        #[cfg(unix)]
        let _ = Command::new("kill")
            .args(["-s", "TERM", "--", &format!("-{}", self.driver.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// The `$BROWSER` the app runs with: a script that appends each URL it is given to a file.
pub struct OpenedPages {
    dir: tempfile::TempDir,
    taken: usize,
}

impl OpenedPages {
    pub fn new() -> OpenedPages {
        let dir = tempfile::Builder::new()
            .prefix("domain-desk-e2e-browser-")
            .tempdir()
            .expect("a temporary folder for the opened pages");
        let script = dir.path().join("open-page.sh");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n",
                dir.path().join("opened.txt").display()
            ),
        )
        .expect("the $BROWSER script");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
                .expect("make the $BROWSER script executable");
        }
        OpenedPages { dir, taken: 0 }
    }

    /// The value for `$BROWSER`.
    pub fn command(&self) -> String {
        self.dir.path().join("open-page.sh").display().to_string()
    }

    fn opened(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("opened.txt"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The URLs the app opened that [`next`](Self::next) has not taken yet.
    pub fn not_taken(&self) -> Vec<String> {
        self.opened().split_off(self.taken.min(self.opened().len()))
    }

    /// The next URL the app opened, once it has.
    pub async fn next(&mut self, app: &App) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(url) = self.opened().get(self.taken) {
                self.taken += 1;
                return url.clone();
            }
            if Instant::now() >= deadline {
                app.fail(format!(
                    "the app should have opened a page in the browser within {WAIT:?}; opened: {:?}",
                    self.opened()
                ))
                .await;
            }
            Deadline::next_look().await;
        }
    }
}
