//! The crate's one error type. Almost all trouble the doctor meets (timeouts, SERVFAIL,
//! refused connections, invalid hostnames) is not an error of the doctor but a finding in
//! the report; this type covers what stops a run from starting at all.

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The options contradict each other or name nothing to ask; the message says why, for a
    /// person.
    #[error("{0}")]
    InvalidOptions(String),
}
