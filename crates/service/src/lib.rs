//! The platform on one machine, offline: the HTTP API of `api-v1.md` with plans, rate limits
//! and bans, persisted in SQLite, on a virtual clock. The desktop app embeds it in-process for
//! its offline demo; `domain-desk serve` runs it headless.

pub mod clock;
pub mod error;

pub use clock::Clock;
pub use error::{Error, Result};
