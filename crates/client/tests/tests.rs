//! The client's integration tests, one binary: the scheduler against an in-process platform on
//! a paused Tokio clock, and the typed client against the real local service on loopback.

mod suite;
