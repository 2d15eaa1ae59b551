//! The store's fast paths: each an optimised twin of a plainer path elsewhere in `store`, held
//! to it by the tests beside it.
//!
//! - `domain_json.rs` and `project_json.rs` write the API's JSON for a page of `Domain`s or
//!   `Project`s straight from the rows, byte for byte what `serde_json` writes for the API's
//!   types (the plain path: `domains::page_of_project`, `projects::page_of_account`, then
//!   serde). `twins.rs` is their fence: a field added to `Domain` or `Project` fails to compile
//!   there until the twin writes it, and its tests compare the twins' bytes with serde's.
//! - `answer_index.rs` finds a remembered idempotency answer's row in a hash map, where the
//!   plain path is a unique index (a B-tree) on the answers' table; `idempotency.rs` uses it.

pub mod answer_index;
pub mod domain_json;
pub mod project_json;
#[cfg(test)]
mod twins;
