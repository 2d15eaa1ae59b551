//! A signed update feed on loopback, shared by the updater's tests and the end-to-end test of
//! the update notice: a minisign key pair made on the spot, packages signed as the release
//! signs them, and a tiny HTTP server answering the feed and the package.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;

use base64::Engine as _;
use serde_json::json;

/// The package the feed offers.
pub const PACKAGE: &[u8] = b"the installer of Domain Desk 0.2.0";

/// A release key pair in the shapes Tauri uses: the public key for the config, a signer.
pub struct Keys {
    pk: minisign::PublicKey,
    sk: minisign::SecretKey,
}

impl Keys {
    pub fn new() -> Keys {
        let minisign::KeyPair { pk, sk } =
            minisign::KeyPair::generate_unencrypted_keypair().expect("a key pair");
        Keys { pk, sk }
    }

    /// The public key as `tauri.conf.json` holds it: base64 of the minisign key file.
    pub fn config_pubkey(&self) -> String {
        let text = self.pk.to_box().expect("key box").to_string();
        base64::engine::general_purpose::STANDARD.encode(text)
    }

    /// The signature of `bytes` for `version`, as the feed carries it.
    pub fn sign(&self, bytes: &[u8], version: &str) -> String {
        let trusted =
            format!("timestamp:1790000000\tfile:domain-desk-setup.exe\tversion:{version}");
        let signature = minisign::sign(
            Some(&self.pk),
            &self.sk,
            std::io::Cursor::new(bytes),
            Some(&trusted),
            Some("signature from tauri secret key"),
        )
        .expect("sign");
        base64::engine::general_purpose::STANDARD.encode(signature.to_string())
    }
}

/// A tiny HTTP server on loopback answering fixed paths.
pub struct Feed {
    addr: SocketAddr,
}

impl Feed {
    /// Starts the server; `routes` gets its base URL (a manifest names the package there).
    pub fn start(routes: impl FnOnce(&str) -> Vec<(&'static str, Vec<u8>)>) -> Feed {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let routes = Arc::new(routes(&format!("http://{addr}")));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let routes = routes.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                    let mut request_line = String::new();
                    if reader.read_line(&mut request_line).is_err() {
                        return;
                    }
                    let path = request_line
                        .split_whitespace()
                        .nth(1)
                        .unwrap_or("/")
                        .to_owned();
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).map_or(true, |n| n == 0) || line == "\r\n" {
                            break;
                        }
                    }
                    let mut stream = stream;
                    let response = match routes.iter().find(|(p, _)| *p == path) {
                        Some((_, body)) => {
                            let mut head = format!(
                                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                                body.len()
                            )
                            .into_bytes();
                            head.extend_from_slice(body);
                            head
                        }
                        None => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
                    };
                    let _ = stream.write_all(&response);
                });
            }
        });
        Feed { addr }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

/// A feed announcing `version` with the package at `/package` and `signature`, for every
/// desktop target.
fn manifest(feed_base: &str, version: &str, signature: &str) -> Vec<u8> {
    let entry = json!({ "url": format!("{feed_base}/package"), "signature": signature });
    let mut platforms = serde_json::Map::new();
    for target in ["linux", "windows", "darwin"] {
        for arch in ["x86_64", "aarch64", "i686", "armv7"] {
            platforms.insert(format!("{target}-{arch}"), entry.clone());
        }
    }
    serde_json::to_vec(&json!({
        "version": version,
        "notes": "Faster Diagnose.\nLinks open domains.",
        "pub_date": "2030-01-01T00:00:00Z",
        "platforms": platforms,
    }))
    .expect("JSON")
}

/// A feed announcing `version` whose package is `package`, with `signature`.
pub fn feed(version: &str, signature: &str, package: &[u8]) -> Feed {
    let version = version.to_owned();
    let signature = signature.to_owned();
    let package = package.to_vec();
    Feed::start(move |base| {
        vec![
            ("/latest.json", manifest(base, &version, &signature)),
            ("/package", package),
        ]
    })
}
