//! What tests and benchmarks need to start the local service, in one place (as hickory-dns
//! keeps its `test-support` crate): the service in-process on loopback ports the OS picks
//! ([`start`], feature `in-process`), and the real `domain-desk serve` binary as a child
//! process whose banner is read for its addresses and keys ([`Served`]); and the project,
//! deploy and domains most tests start from ([`project_with_domains`]).
//!
//! Before this crate each test file started the service its own way; a change to how it
//! starts (a new address, a banner line) now has one place to go.

pub mod domain_connect;
#[cfg(feature = "in-process")]
mod in_process;
mod process;
#[cfg(feature = "in-process")]
mod projects;

#[cfg(feature = "in-process")]
pub use in_process::{loopback_settings, start, start_with};
pub use process::{Banner, LOOPBACK_ARGS, Served};
#[cfg(feature = "in-process")]
pub use projects::{deployed_project, project_with_domains};
