//! The crate's one error type. Most trouble the doctor meets (timeouts, SERVFAIL, refused
//! connections) is not an error of the doctor but a finding in the report; this type covers
//! what stops a diagnosis from starting at all.

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The hostname cannot be diagnosed as typed; the message says why, for a person.
    #[error("{0}")]
    InvalidHostname(String),
    /// The options contradict each other or name nothing to ask.
    #[error("{0}")]
    InvalidOptions(String),
    /// The system's resolver configuration could not be read.
    #[error("could not read the system resolver configuration: {0}")]
    SystemResolver(String),
    /// A local socket could not be opened.
    #[error("network error: {0}")]
    Io(#[from] std::io::Error),
}
