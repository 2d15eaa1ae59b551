//! Where every HTTP client of this crate is built. reqwest 0.13 brings no crypto provider of
//! its own (its default would be aws-lc-rs, a second one beside the workspace's ring), so the
//! process's rustls provider is set to ring before the first client is built.

/// reqwest's builder, once the process has a rustls crypto provider.
pub(crate) fn client_builder() -> reqwest::ClientBuilder {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Another thread may have installed one in between: either way there is one.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
    reqwest::Client::builder()
}
