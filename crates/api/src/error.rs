//! The crate's one error type.

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The text is not a hostname a custom domain can use; the message says why, for a person.
    #[error("{0}")]
    InvalidHostname(String),
    /// The text is not a CAA record in presentation form; the message says why, for a person.
    #[error("{0}")]
    InvalidCaaRecord(String),
    /// A `domain-desk://` link was refused; the sentence says why and quotes nothing of it.
    #[error("{0}")]
    RefusedLink(&'static str),
}
