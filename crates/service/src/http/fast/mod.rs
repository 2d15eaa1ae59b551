//! The HTTP layer's fast path: `read_cache/`, answers to repeated `GET`s from memory while the
//! store's generation holds, an optimised twin of running the handler again (the plain path,
//! still taken for every first `GET`, after every write, and always with `--no-read-cache`).
//! `read_cache/tests.rs` holds the two to the same answer: status, body and the handler's
//! headers.

pub mod read_cache;
