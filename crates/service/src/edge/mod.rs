//! The TLS edge: what a browser reaches when it opens a project's default address or one of its
//! live custom domains. Certificates come from the local CA and are chosen by SNI from a live
//! table, so attaching, removing or renewing a domain takes effect at the next handshake.

pub mod routes;
pub mod server;

pub use routes::{CertificateBySni, EdgeDirectory, EdgeHost, EdgeRoutes, Route, certified_key};
pub use server::{
    SiteFiles, file_path, serve_http, serve_http_with_limits, serve_https, serve_https_with_limits,
    tls_config,
};

#[cfg(test)]
mod tests;
