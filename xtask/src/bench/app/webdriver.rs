//! A WebDriver session with the app through tauri-driver, spoken over plain HTTP.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::bench::processes::{call, expect};

/// A WebDriver session with the app, spoken over plain HTTP with curl.
pub(super) struct WebDriver {
    pub(super) base: String,
    pub(super) session: String,
}

impl WebDriver {
    pub(super) fn launch(driver: &str, app: &Path) -> Result<Self> {
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "wry",
            "tauri:options": {"application": app},
        }}});
        // tauri-driver listens before WebKitWebDriver behind it does (seen right after a
        // build, at load 2): a session asked for in that moment is cut off unanswered, so it
        // is asked for again until a deadline, as the end-to-end tests do.
        let url = format!("{driver}/session");
        let deadline = Instant::now() + Duration::from_secs(20);
        let answer = loop {
            let (status, answer) = call("POST", &url, None, Some(&caps))?;
            match status {
                200 => break answer,
                0 if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(500)),
                _ => bail!("POST {url}: expected 200, got {status}: {answer}"),
            }
        };
        let session = answer["value"]["sessionId"]
            .as_str()
            .context("WebDriver answered without a session id")?
            .to_owned();
        let webdriver = Self {
            base: format!("{driver}/session/{session}"),
            session,
        };
        expect(
            "POST",
            &format!("{}/timeouts", webdriver.base),
            None,
            Some(&json!({"script": 120_000})),
            200,
        )?;
        Ok(webdriver)
    }

    pub(super) fn script(&self, script: &str, asynchronous: bool) -> Result<Value> {
        self.script_with(script, asynchronous, json!([]))
    }

    pub(super) fn script_with(
        &self,
        script: &str,
        asynchronous: bool,
        args: Value,
    ) -> Result<Value> {
        let kind = if asynchronous { "async" } else { "sync" };
        let answer = expect(
            "POST",
            &format!("{}/execute/{kind}", self.base),
            None,
            Some(&json!({"script": script, "args": args})),
            200,
        )?;
        Ok(answer["value"].clone())
    }

    /// Polls `condition` (a JS expression) until it holds.
    pub(super) fn wait_for(&self, condition: &str, what: &str) -> Result<()> {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(120) {
            if self.script(&format!("return Boolean({condition});"), false)? == Value::Bool(true) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        bail!("the window did not show {what} within 120 s")
    }

    pub(super) fn close(self) -> Result<()> {
        expect("DELETE", &self.base, None, None, 200)
            .map(|_| ())
            .with_context(|| format!("closing WebDriver session {}", self.session))
    }
}
