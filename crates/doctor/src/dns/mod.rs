//! Asking DNS servers questions and keeping their answers as evidence, live or from a
//! capture (`source.rs`; the capture file itself is `crate::capture`).
//!
//! The doctor talks to each server itself (questions it writes; answers read by its own
//! reader when they are plain, `fast/wire.rs`, and by hickory-proto otherwise; over UDP, TCP when
//! the answer is truncated) instead of going through a caching stub resolver: it must know which server said what, with which TTL and which response code,
//! and it must be able to ask an authoritative server without recursion or a validating
//! resolver with checking disabled.

pub mod answer;
pub mod engine;
pub mod exchange;
pub mod fast;
pub mod presentation;
pub mod query;
pub mod source;
pub mod wire_query;

pub use answer::{Answer, AnswerStatus, DnsRecord};
pub use engine::QueryEngine;
pub use exchange::Exchange;
pub use fast::udp::UdpSockets;
pub use fast::wire::{decode_datagram, read_datagram};
pub use query::QueryOptions;
pub use source::{DnsSource, NetworkSource, Recorder, Replayer};
pub use wire_query::{ByQuestion, WireQuery};
