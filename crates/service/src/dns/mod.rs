//! The platform's DNS: the zone store (`zone.rs`: platform zone and customer zones, with
//! history, and the demo DNS provider's rules for editing them), answering a question from it
//! (`answer.rs`), the seed zones, and the authoritative server that answers over UDP and TCP:
//! its request handler (`handler.rs`), its sockets (`server.rs`) and its fast path over UDP
//! (`fast/`: the loops and their answer cache).
//!
//! It exists so that verification, the CA's CAA check and the DNS doctor all run against real
//! DNS messages rather than a table lookup: what `dig` shows is what the verifier sees (after
//! the propagation delay, and once the platform's resolver no longer keeps a negative answer
//! it gave before the record existed: `negative_cache.rs`).
//!
//! The server answers from the zones in memory and never touches the database on an async
//! worker; the edge, which may ask the database for a name's route, asks on the blocking pool
//! (`edge/server.rs`).

pub mod answer;
mod fast;
pub mod handler;
pub mod negative_cache;
pub mod records;
pub mod seed;
pub mod server;
pub mod signing;
pub mod zone;

pub use answer::Resolution;
pub use handler::{ZoneHandler, ZoneView};
pub use negative_cache::NegativeCache;
pub use seed::{DEMO_ZONES, demo_zones};
pub use server::{bind_dns, serve_dns};
pub use signing::{Signatures, ZoneSigning};
pub use zone::{
    DEFAULT_SOA_MINIMUM, PlatformZone, StoredRecord, ZoneJournal, ZoneSnapshot, ZoneStore,
};

#[cfg(test)]
pub(crate) mod tests;
