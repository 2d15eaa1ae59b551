//! The platform API v1 as types: what goes over the wire between the API client and the
//! platform (or the bundled local service), and the hostname rules both sides must agree on.
//!
//! Both ends compile against these types, so a field renamed here breaks both at once instead
//! of drifting silently; the local service derives its OpenAPI document from them.

pub mod caa;
pub mod domain_connect;
pub mod error;
pub mod hostname;
pub mod links;
pub mod local;
pub mod private_file;
pub mod rate_limit;
pub mod txt;
pub mod types;

pub use error::{Error, Result};
pub use hostname::Hostname;
pub use types::*;
