//! The platform API client: a typed call for every endpoint of API v1, all of them going
//! through one rate-limit-aware scheduler per API key.
//!
//! The promise to the user: work gets done as fast as the plan allows, the app never earns a
//! 429 it could have avoided, and it never does what gets a key banned. No general-purpose
//! crate paces itself from the platform's Remaining/Reset headers, so this one does:
//!
//! ```no_run
//! # async fn demo() -> domain_desk_client::Result<()> {
//! use domain_desk_client::{Client, ClientConfig};
//! use domain_desk_api::Plan;
//!
//! let client = Client::new(ClientConfig::new("http://127.0.0.1:8787", "ddk_…").plan(Plan::Pro))?;
//! let projects = client.projects().await?;            // interactive by default
//! let meter = client.state();                            // watch::Receiver<QueueState>
//! let bulk = client.bulk();                              // same queue, lowest priority
//! # let _ = (projects, meter, bulk); Ok(()) }
//! ```
//!
//! Use one [`ClientPool`] per process so that every part of the app shares the key's one
//! queue. `cargo run -p domain-desk-client --example queue_bench` measures the queue against
//! the local service and a naive client.

mod answers;
mod budget;
mod client;
mod clock;
mod config;
mod domain_config;
pub mod domain_connect;
mod error;
pub mod headers;
mod http;
mod ledger;
mod local_control;
mod pool;
mod queue;
mod secret;
mod state;
mod transport;
mod windows;
mod www_pair;

pub use client::{AddedDomain, Client, RemovedDomain};
pub use config::{ClientConfig, QueueConfig, RetryPolicy};
pub use error::{Error, Result};
pub use local_control::LocalControl;
pub use pool::ClientPool;
pub use queue::JobId;
pub use secret::ApiKey;
pub use state::{
    HeldBack, HeldBackReason, Priority, QueueState, QueuedCounts, WindowState, watch_paced,
};
pub use transport::{
    ApiRequest, DEFAULT_MAX_RESPONSE_BYTES, HttpTransport, Transport, TransportError, WireResponse,
    is_loopback,
};
pub use windows::WindowBudget;
pub use www_pair::{AddedPair, PairTarget, WwwPair, www_pair, www_partner};
