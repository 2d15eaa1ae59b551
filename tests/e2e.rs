//! End-to-end: the real `domain-desk` binary in a real window, driven through tauri-driver
//! (WebDriver) the way a person clicks. Needs a display and tauri-driver, so it is ignored by
//! plain `cargo test`; `cargo xtask e2e` (part of `cargo xtask test`) sets both up and runs it.
//!
//! Screenshots land in `target/e2e/` as artifacts.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;

struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    fn start() -> Driver {
        let port = free_port();
        let native_port = free_port();
        let binary = find_tauri_driver();
        let mut command = Command::new(binary);
        // Its own process group, so dropping the driver also ends the WebKitWebDriver and
        // the app it started, even when a test fails half-way.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
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
        Driver { child, port }
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
        ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("WebDriver session with the app")
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        #[cfg(unix)]
        let _ = Command::new("kill")
            .args(["-TERM", &format!("-{}", self.child.id())])
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

pub async fn screenshot(client: &Client, name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/e2e");
    std::fs::create_dir_all(&dir).expect("target/e2e");
    let png = client.screenshot().await.expect("screenshot");
    std::fs::write(dir.join(format!("{name}.png")), png).expect("write screenshot");
}

#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn about_shows_the_version_the_rust_side_reports() {
    let driver = Driver::start();
    let client = driver.session().await;
    let button = client
        .wait()
        .at_most(Duration::from_secs(15))
        .for_element(Locator::Id("about-button"))
        .await
        .expect("the About button renders");
    button.click().await.expect("click About");
    let version = client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Id("about-version"))
        .await
        .expect("the Rust side answered app_info");
    assert_eq!(version.text().await.unwrap(), env!("CARGO_PKG_VERSION"));
    screenshot(&client, "about").await;
    client.close().await.expect("close the session");
}
