//! What tests and benchmarks need to start the local service, in one place (as hickory-dns
//! keeps its `test-support` crate): the service in-process on loopback ports the OS picks
//! ([`start`], feature `in-process`), and the real `domain-desk serve` binary as a child
//! process whose banner is read for its addresses and keys ([`Served`]); the project,
//! deploy and domains most tests start from ([`project_with_domains`]); and loopback ports
//! for programs that bind them later ([`free_loopback_port`]).
//!
//! Before this crate each test file started the service its own way; a change to how it
//! starts (a new address, a banner line) now has one place to go.

pub mod domain_connect;
#[cfg(feature = "in-process")]
mod in_process;
mod ports;
mod process;
#[cfg(feature = "in-process")]
mod projects;

#[cfg(feature = "in-process")]
pub use in_process::{loopback_settings, start, start_with};
pub use ports::{ephemeral_port_range, free_loopback_port};
pub use process::{Banner, LOOPBACK_ARGS, Served};
#[cfg(feature = "in-process")]
pub use projects::{deployed_project, project_with_domains};

/// An HTTP client for a test (reqwest's defaults, without proxies: tests speak to loopback).
#[cfg(feature = "in-process")]
pub fn http_client() -> reqwest::Client {
    http_client_builder()
        .build()
        .expect("an HTTP client builds")
}

/// reqwest's builder, once the process has the crypto provider reqwest 0.13 needs.
#[cfg(feature = "in-process")]
pub fn http_client_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder().no_proxy()
}

/// reqwest's blocking builder, once the process has the crypto provider.
#[cfg(feature = "in-process")]
pub fn blocking_http_client_builder() -> reqwest::blocking::ClientBuilder {
    install_crypto_provider();
    reqwest::blocking::Client::builder().no_proxy()
}

/// One blocking HTTP client for the whole test process (a clone shares its connections).
/// Building a client loads the system's root certificates, which in a debug build is a few
/// milliseconds of CPU each time: a test that built one per request (300 requests to spend a
/// window) spent seconds on it, and minutes with other tests competing for the cores.
#[cfg(feature = "in-process")]
pub fn blocking_http_client() -> reqwest::blocking::Client {
    static CLIENT: std::sync::OnceLock<reqwest::blocking::Client> = std::sync::OnceLock::new();
    CLIENT
        .get_or_init(|| {
            blocking_http_client_builder()
                .build()
                .expect("an HTTP client builds")
        })
        .clone()
}

/// ring as the process's rustls provider, as the product installs it (idempotent).
#[cfg(feature = "in-process")]
fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}
