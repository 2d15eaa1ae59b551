//! The service in this process, on loopback ports the OS picks, so tests run side by side.

use std::net::SocketAddr;

use domain_desk_service::{Running, Service, ServiceSettings};

/// The default settings with the API, DNS server and both edge listeners on `127.0.0.1:0`
/// (storage in memory).
pub fn loopback_settings() -> ServiceSettings {
    let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
    ServiceSettings {
        api_addr: loopback,
        dns_addr: loopback,
        edge_https_addr: loopback,
        edge_http_addr: loopback,
        ..ServiceSettings::default()
    }
}

/// Starts the service with [`loopback_settings`]; it stops when the result is dropped.
///
/// # Panics
/// When the service cannot start.
pub async fn start() -> Running {
    start_with(loopback_settings()).await
}

/// Starts the service with `settings` (usually [`loopback_settings`] with a field changed).
///
/// # Panics
/// When the service cannot start.
pub async fn start_with(settings: ServiceSettings) -> Running {
    Service::spawn(settings)
        .await
        .unwrap_or_else(|err| panic!("the service starts: {err}"))
}
