//! The one way to start the service and keep it running: [`Service::spawn`](crate::Service::spawn)
//! binds its addresses, serves on a task of the current runtime and hands back a [`Running`]
//! with what callers need next (addresses, demo keys) and the handle that stops it.
//!
//! The desktop app's offline demo, `domain-desk serve`, tests and benchmarks all start it
//! this way, so none of them repeats the dance of binding, asking for the info, wiring a
//! shutdown channel and spawning the serve loop.

use std::future::Future;
use std::net::SocketAddr;

use domain_desk_api::Plan;
use domain_desk_api::local::LocalInfo;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::{AppState, Error, Result};

/// A service serving on a task of its own. Dropping it asks the service to stop (open
/// requests finish, the DNS server, CA and edge stop); [`Running::shutdown`] does the same
/// and waits until it has.
#[derive(Debug)]
pub struct Running {
    info: LocalInfo,
    api: SocketAddr,
    state: AppState,
    /// Dropped (or sent on) to stop the serve loop.
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<()>>>,
}

impl Running {
    pub(crate) fn new(
        info: LocalInfo,
        api: SocketAddr,
        state: AppState,
        stop: oneshot::Sender<()>,
        task: JoinHandle<Result<()>>,
    ) -> Self {
        Self {
            info,
            api,
            state,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Addresses, platform names and demo keys, as `GET /_local/info` answered them at start.
    pub fn info(&self) -> &LocalInfo {
        &self.info
    }

    /// The HTTP API's bound address.
    pub fn api_addr(&self) -> SocketAddr {
        self.api
    }

    /// `http://` and the API's address.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.api)
    }

    /// The DNS server's address, when it runs.
    pub fn dns_addr(&self) -> Option<SocketAddr> {
        parse(self.info.dns.as_deref())
    }

    /// The TLS edge's address, when it runs.
    pub fn edge_https_addr(&self) -> Option<SocketAddr> {
        parse(self.info.edge_https.as_deref())
    }

    /// The demo account's API key on `plan`.
    pub fn demo_key(&self, plan: Plan) -> &str {
        self.info
            .demo_keys
            .get(plan.as_str())
            .map_or("", String::as_str)
    }

    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Stops the service and waits until it has stopped.
    pub async fn shutdown(mut self) -> Result<()> {
        self.stop.take();
        self.join().await
    }

    /// Serves until `signal` resolves, then stops as [`Running::shutdown`] does. Returns
    /// early with the service's error if it stops on its own.
    pub async fn run_until(mut self, signal: impl Future<Output = ()>) -> Result<()> {
        let Some(task) = self.task.as_mut() else {
            return Ok(());
        };
        tokio::select! {
            served = task => {
                self.task = None;
                return served?;
            }
            () = signal => {}
        }
        self.shutdown().await
    }

    async fn join(&mut self) -> Result<()> {
        match self.task.take() {
            Some(task) => task.await.map_err(Error::from)?,
            None => Ok(()),
        }
    }
}

fn parse(addr: Option<&str>) -> Option<SocketAddr> {
    addr.and_then(|addr| addr.parse().ok())
}
