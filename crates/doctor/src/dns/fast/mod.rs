//! The doctor's fast paths for DNS, each an optimised twin of a plainer path and held to it by
//! the tests beside it:
//! - `wire.rs` reads the plain answers (A, AAAA, CNAME, NS, PTR, a negative answer's SOA, plain
//!   names) off the wire; the plain path is hickory-proto's decoding and presentation, which
//!   still reads every other answer, and `wire.rs`'s tests (and the `dns_wire` fuzz target)
//!   check that the two read alike;
//! - `udp.rs` shares one socket among a run's questions to a server, where the plain path is a
//!   socket per question; its tests check each answer reaches its own question.

pub mod udp;
pub(super) mod wire;
