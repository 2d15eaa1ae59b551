//! The crate's one error type.

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The platform or the queue failed; the client's error says how.
    #[error(transparent)]
    Client(#[from] domain_desk_client::Error),
    /// The import was refused before anything was sent.
    #[error("{0}")]
    Refused(crate::plan::Refusal),
    #[error("could not write JSON: {0}")]
    Json(serde_json::Error),
}
