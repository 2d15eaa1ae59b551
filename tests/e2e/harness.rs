//! The harness of the end-to-end tests: one tauri-driver (and so one app) per test, each with
//! its own data, settings and cache folders so that no test sees another's demo, and waits
//! that poll what the window shows until a deadline, then save a screenshot and fail.
//!
//! tauri-driver runs in its own process group, so dropping the [`App`] also ends the
//! WebKitWebDriver and the app it started, even when a test fails half-way.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;

/// How long a step may take before the test gives up: the window answers in well under a
/// second, but a loaded CI machine compiles other things at the same time.
pub const WAIT: Duration = Duration::from_secs(20);

/// How often a wait looks again.
const POLL_EVERY: Duration = Duration::from_millis(100);

struct Driver {
    child: Child,
    port: u16,
    /// The app's XDG data, config and cache folders, removed after the driver has stopped.
    _home: tempfile::TempDir,
}

impl Driver {
    fn start() -> Driver {
        let home = tempfile::Builder::new()
            .prefix("domain-desk-e2e-app-")
            .tempdir()
            .expect("a temporary folder for the app's data");
        let port = free_port();
        let native_port = free_port();
        let mut command = Command::new(find_tauri_driver());
        // Its own process group, so dropping the driver also ends the WebKitWebDriver and
        // the app it started.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        for (var, sub) in [
            ("XDG_DATA_HOME", "data"),
            ("XDG_CONFIG_HOME", "config"),
            ("XDG_CACHE_HOME", "cache"),
        ] {
            let path = home.path().join(sub);
            std::fs::create_dir_all(&path).expect("the app's XDG folder");
            command.env(var, path);
        }
        let child = command
            .args(["--port", &port.to_string()])
            .args(["--native-port", &native_port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("tauri-driver starts (cargo install tauri-driver --locked)");
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "tauri-driver did not listen within 20 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Driver {
            child,
            port,
            _home: home,
        }
    }

    async fn session(&self) -> Client {
        let app = app_binary();
        assert!(app.exists(), "build the app first: {}", app.display());
        let mut caps = serde_json::Map::new();
        caps.insert(
            "tauri:options".into(),
            serde_json::json!({ "application": app }),
        );
        caps.insert("browserName".into(), "wry".into());
        // tauri-driver listens before WebKitWebDriver behind it is ready; a session asked
        // for in that moment is cut off, so it is asked for again until a deadline.
        let deadline = Deadline::after(WAIT);
        loop {
            let connected = ClientBuilder::new(HttpConnector::new())
                .capabilities(caps.clone())
                .connect(&format!("http://127.0.0.1:{}", self.port))
                .await;
            match connected {
                Ok(client) => return client,
                Err(err) if deadline.passed() => panic!("WebDriver session with the app: {err}"),
                Err(_) => tokio::time::sleep(Duration::from_millis(500)).await,
            }
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // `--` before the negative group id: procps kill otherwise reads `-<pid>` as options
        // and signals `-<first digit>` instead, which for a pid starting with 1 is every
        // process on the machine.
        #[cfg(unix)]
        let _ = Command::new("kill")
            .args(["-s", "TERM", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

fn find_tauri_driver() -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(Path::new(&home).join(".cargo/bin"));
    }
    dirs.into_iter()
        .map(|d| d.join("tauri-driver"))
        .find(|p| p.is_file())
        .expect("tauri-driver on PATH or in ~/.cargo/bin")
}

fn app_binary() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/debug")
        .join(format!("domain-desk{}", std::env::consts::EXE_SUFFIX))
}

/// Saves the window as `target/e2e/<name>.png`, once the page has painted its latest state
/// (two animation frames: the one pending and the one after it).
pub async fn screenshot(client: &Client, name: &str) {
    let _ = client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
            Vec::new(),
        )
        .await;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/e2e");
    std::fs::create_dir_all(&dir).expect("target/e2e");
    let png = client.screenshot().await.expect("screenshot");
    std::fs::write(dir.join(format!("{name}.png")), png).expect("write screenshot");
}

/// A point in time after which a wait gives up.
struct Deadline(Instant);

impl Deadline {
    fn after(timeout: Duration) -> Self {
        Self(Instant::now() + timeout)
    }

    fn passed(&self) -> bool {
        Instant::now() >= self.0
    }

    /// The pause between two looks of a polling loop (the loop itself has the deadline).
    async fn next_look() {
        tokio::time::sleep(POLL_EVERY).await;
    }
}

/// The app in its window, driven through WebDriver, with a fresh demo of its own.
pub struct App {
    pub client: Client,
    /// Names the screenshot saved when a wait fails.
    test: &'static str,
    _driver: Driver,
}

impl App {
    /// Starts tauri-driver and the app with empty data folders: the window opens on the
    /// first-run screen.
    pub async fn launch(test: &'static str) -> App {
        let driver = Driver::start();
        let client = driver.session().await;
        App {
            client,
            test,
            _driver: driver,
        }
    }

    pub async fn screenshot(&self, name: &str) {
        screenshot(&self.client, name).await;
    }

    /// Saves what the window shows as `failed-<test>.png`, then fails the test.
    pub async fn fail(&self, message: String) -> ! {
        screenshot(&self.client, &format!("failed-{}", self.test)).await;
        panic!("{message}");
    }

    pub async fn close(self) {
        self.client.close().await.expect("close the session");
    }

    /// The element `css` matches, once it exists.
    pub async fn find(&self, css: &str) -> Element {
        match self
            .client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css(css))
            .await
        {
            Ok(element) => element,
            Err(err) => self.fail(format!("{css} did not appear: {err}")).await,
        }
    }

    /// Whether `css` matches anything right now.
    pub async fn exists(&self, css: &str) -> bool {
        self.client.find(Locator::Css(css)).await.is_ok()
    }

    /// The text of `css` as rendered (`innerText`; empty when it is not rendered) right
    /// now, or `None` when nothing matches.
    ///
    /// WebDriver's own element text leaves out table cells that clip with an ellipsis,
    /// although the window shows them, so the page's rendering is asked instead.
    pub async fn try_text(&self, css: &str) -> Option<String> {
        let value = self
            .client
            .execute(
                "const element = document.querySelector(arguments[0]);
                 if (!element) return null;
                 return element.getClientRects().length === 0 ? '' : element.innerText;",
                vec![serde_json::Value::from(css)],
            )
            .await
            .ok()?;
        value.as_str().map(|text| text.trim().to_owned())
    }

    /// The rendered text of `css`, once it exists.
    pub async fn text(&self, css: &str) -> String {
        self.find(css).await;
        match self.try_text(css).await {
            Some(text) => text,
            None => self.fail(format!("{css} went away while being read")).await,
        }
    }

    /// An attribute of `css` right now, or `None`.
    pub async fn try_attr(&self, css: &str, attribute: &str) -> Option<String> {
        let element = self.client.find(Locator::Css(css)).await.ok()?;
        element.attr(attribute).await.ok().flatten()
    }

    /// Waits until the visible text of `css` satisfies `accept` (described by `what`) and
    /// returns it.
    pub async fn wait_text(&self, css: &str, what: &str, accept: impl Fn(&str) -> bool) -> String {
        self.wait_text_for(css, what, WAIT, accept).await
    }

    /// [`App::wait_text`] with its own timeout, for steps that wait on the demo's clock.
    pub async fn wait_text_for(
        &self,
        css: &str,
        what: &str,
        timeout: Duration,
        accept: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Deadline::after(timeout);
        let mut last = None;
        loop {
            if let Some(text) = self.try_text(css).await {
                if accept(&text) {
                    return text;
                }
                last = Some(text);
            }
            if deadline.passed() {
                self.fail(format!(
                    "{css} should show {what} within {timeout:?}; it showed {last:?}"
                ))
                .await;
            }
            Deadline::next_look().await;
        }
    }

    /// Waits until `css` contains `needle` in its visible text.
    pub async fn wait_contains(&self, css: &str, needle: &str) -> String {
        self.wait_text(css, &format!("“{needle}”"), |text| {
            text.contains(needle)
        })
        .await
    }

    /// Waits until an attribute of `css` is `expected`.
    pub async fn wait_attr(&self, css: &str, attribute: &str, expected: &str) {
        self.wait_attr_for(css, attribute, expected, WAIT).await;
    }

    pub async fn wait_attr_for(
        &self,
        css: &str,
        attribute: &str,
        expected: &str,
        timeout: Duration,
    ) {
        let deadline = Deadline::after(timeout);
        let mut last = None;
        loop {
            let value = self.try_attr(css, attribute).await;
            if value.as_deref() == Some(expected) {
                return;
            }
            last = value.or(last);
            if deadline.passed() {
                self.fail(format!(
                    "{css} should have {attribute}=“{expected}” within {timeout:?}; it had {last:?}"
                ))
                .await;
            }
            Deadline::next_look().await;
        }
    }

    /// Waits until nothing matches `css`.
    pub async fn wait_gone(&self, css: &str) {
        let deadline = Deadline::after(WAIT);
        while self.exists(css).await {
            if deadline.passed() {
                self.fail(format!("{css} should have gone within {WAIT:?}"))
                    .await;
            }
            Deadline::next_look().await;
        }
    }

    /// Waits until the page has replaced `element` (it is no longer in the document): a
    /// redrawn panel is the sign that an answer arrived.
    pub async fn wait_replaced(&self, element: &Element, what: &str) {
        let deadline = Deadline::after(WAIT);
        while element.tag_name().await.is_ok() {
            if deadline.passed() {
                self.fail(format!("{what} should have been redrawn within {WAIT:?}"))
                    .await;
            }
            Deadline::next_look().await;
        }
    }

    /// Waits until `css` exists and is enabled.
    pub async fn wait_enabled(&self, css: &str) -> Element {
        let deadline = Deadline::after(WAIT);
        loop {
            if let Ok(element) = self.client.find(Locator::Css(css)).await {
                if element.is_enabled().await.unwrap_or(false) {
                    return element;
                }
            }
            if deadline.passed() {
                self.fail(format!("{css} should be enabled within {WAIT:?}"))
                    .await;
            }
            Deadline::next_look().await;
        }
    }

    pub async fn is_enabled(&self, css: &str) -> bool {
        let element = self.find(css).await;
        match element.is_enabled().await {
            Ok(enabled) => enabled,
            Err(err) => {
                self.fail(format!("reading whether {css} is enabled: {err}"))
                    .await
            }
        }
    }

    pub async fn is_displayed(&self, css: &str) -> bool {
        let element = self.find(css).await;
        match element.is_displayed().await {
            Ok(shown) => shown,
            Err(err) => {
                self.fail(format!("reading whether {css} shows: {err}"))
                    .await
            }
        }
    }

    /// Clicks `css` once it exists and is enabled. A click that lands on something in front
    /// of it (a notice sliding in) or on an element the page just replaced is tried again
    /// until the deadline.
    pub async fn click(&self, css: &str) {
        let deadline = Deadline::after(WAIT);
        loop {
            let element = self.wait_enabled(css).await;
            match element.click().await {
                Ok(()) => return,
                Err(err) if deadline.passed() => {
                    self.fail(format!("clicking {css}: {err}")).await;
                }
                Err(_) => Deadline::next_look().await,
            }
        }
    }

    /// Sends keys to `css` (focusing it first), trying again while the page replaces it.
    pub async fn press(&self, css: &str, keys: &str) {
        let deadline = Deadline::after(WAIT);
        loop {
            let element = self.find(css).await;
            match element.send_keys(keys).await {
                Ok(()) => return,
                Err(err) if deadline.passed() => {
                    self.fail(format!("pressing keys on {css}: {err}")).await;
                }
                Err(_) => Deadline::next_look().await,
            }
        }
    }

    /// Types `text` into the field `css` (key by key, as a person types).
    pub async fn type_into(&self, css: &str, text: &str) {
        let element = self.wait_enabled(css).await;
        if let Err(err) = element.clear().await {
            self.fail(format!("clearing {css}: {err}")).await;
        }
        if let Err(err) = element.send_keys(text).await {
            self.fail(format!("typing into {css}: {err}")).await;
        }
    }

    /// Picks the option whose value is `value` in the select `css`.
    pub async fn choose(&self, css: &str, value: &str) {
        let element = self.wait_enabled(css).await;
        if let Err(err) = element.select_by_value(value).await {
            self.fail(format!("choosing {value} in {css}: {err}")).await;
        }
    }

    /// Picks the option whose visible label is `label` in the select `css`.
    pub async fn choose_label(&self, css: &str, label: &str) {
        let element = self.wait_enabled(css).await;
        if let Err(err) = element.select_by_label(label).await {
            self.fail(format!("choosing {label} in {css}: {err}")).await;
        }
    }

    /// The value of a form field (`value` property) right now.
    pub async fn value(&self, css: &str) -> String {
        let element = self.find(css).await;
        match element.prop("value").await {
            Ok(value) => value.unwrap_or_default(),
            Err(err) => {
                self.fail(format!("reading the value of {css}: {err}"))
                    .await
            }
        }
    }

    /// Runs a script in the page (for reading several figures at the same instant).
    pub async fn script(&self, script: &str) -> serde_json::Value {
        match self.client.execute(script, Vec::new()).await {
            Ok(value) => value,
            Err(err) => {
                self.fail(format!("running a script in the page: {err}"))
                    .await
            }
        }
    }
}
