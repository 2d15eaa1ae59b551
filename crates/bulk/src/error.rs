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
    /// The rows to import again would replace the file being imported.
    #[error(
        "{} is the file being imported: the rows to import again go to another file",
        .0.display()
    )]
    RetryFileIsInput(std::path::PathBuf),
    /// Something other than a retry file this program wrote is at the retry file's path: it is
    /// neither replaced nor removed.
    #[error(
        "{} is not a retry file Domain Desk wrote (its first line is not \"{}\"), so it is left as it is: move it away or name another file for the rows to import again",
        .0.display(),
        crate::cells::RETRY_FILE_MARK
    )]
    NotOurRetryFile(std::path::PathBuf),
    /// A file could not be read, written or removed.
    #[error("cannot write {}: {source}", path.display())]
    File {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}
