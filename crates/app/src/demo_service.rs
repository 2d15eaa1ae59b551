//! The offline demo's service: the local service started on the demo's database on loopback
//! ports the OS picks, unless another process on this computer already runs it. The window
//! (through its accounts controller, `src-tauri/accounts.rs`) and the command line
//! (`src-tauri/cli/connect.rs`) start it the same way, so there is one service per database.

// The service runs in the window's process: a panic in one of its handlers must unwind to its
// catch-panic layer (a 500 for that request), not abort the process and close the window.
#[cfg(panic = "abort")]
compile_error!(
    "Domain Desk must be built with panic = \"unwind\": the window embeds the local service, \
     whose catch-panic layer needs unwinding (see [profile.release] in Cargo.toml)"
);

use std::net::SocketAddr;

use domain_desk_service::{Service, ServiceSettings, Storage};
use tokio::sync::oneshot;

use crate::paths::AppPaths;
use crate::{Error, Result};

fn loopback_any_port() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

/// The demo's service as [`start_embedded`] found it.
#[derive(Debug)]
pub enum EmbeddedService {
    /// Started here; it runs until `stop` is dropped.
    Started {
        base_url: String,
        stop: oneshot::Sender<()>,
    },
    /// Another process (the window, or the command line) runs it at `base_url`.
    Elsewhere { base_url: String },
}

impl EmbeddedService {
    pub fn base_url(&self) -> &str {
        match self {
            EmbeddedService::Started { base_url, .. } | EmbeddedService::Elsewhere { base_url } => {
                base_url
            }
        }
    }
}

/// Starts the local service on the demo's database, on loopback ports the OS picks, unless
/// another process on this computer already runs it: one service per database, or their
/// in-memory views (DNS zones, cached answers) would drift apart.
///
/// The running process holds an OS lock on `demo-service.lock` in the data folder, which
/// names its address; the lock goes with the process, so a crashed holder blocks nobody.
pub async fn start_embedded(paths: &AppPaths) -> Result<EmbeddedService> {
    use std::io::{Read, Seek, Write};
    std::fs::create_dir_all(&paths.data_dir)?;
    let mut lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(paths.data_dir.join("demo-service.lock"))?;
    if let Err(std::fs::TryLockError::WouldBlock) = lock.try_lock() {
        let mut base_url = String::new();
        lock.read_to_string(&mut base_url)?;
        let base_url = base_url.trim().to_owned();
        if base_url.starts_with("http://127.0.0.1:") || base_url.starts_with("http://[::1]:") {
            return Ok(EmbeddedService::Elsewhere { base_url });
        }
        return Err(Error::DemoStart(
            "another process is starting the offline demo; try again in a moment".into(),
        ));
    }
    let settings = ServiceSettings {
        storage: Storage::File(paths.demo_database()),
        api_addr: loopback_any_port(),
        dns_addr: loopback_any_port(),
        edge_https_addr: loopback_any_port(),
        edge_http_addr: loopback_any_port(),
        // Signed zones, so the demo can show a DNSSEC problem (Demo DNS → signatures) and
        // Diagnose validates from the service's key.
        sign_zones: true,
        ..ServiceSettings::default()
    };
    let service = Service::spawn(settings)
        .await
        .map_err(|err| Error::DemoStart(err.to_string()))?;
    let base_url = service.base_url();
    lock.set_len(0)?;
    lock.rewind()?;
    lock.write_all(base_url.as_bytes())?;
    lock.flush()?;
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        // Resolves when the sender is dropped as well as when it sends.
        let shutdown = async {
            let _ = stopped.await;
        };
        if let Err(err) = service.run_until(shutdown).await {
            tracing::error!(%err, "the offline demo's service stopped");
        }
        // Held while the service runs.
        drop(lock);
    });
    Ok(EmbeddedService::Started { base_url, stop })
}
