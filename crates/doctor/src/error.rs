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
    /// The capture file cannot be read or written.
    #[error("cannot use the capture file {path}: {message}")]
    CaptureFile { path: String, message: String },
    /// The file is not a doctor capture at all (another program's JSON, say).
    #[error("this is not a DNS doctor capture (no \"format\": \"domain-desk-doctor-capture\")")]
    NotACapture,
    /// A capture of a format version this doctor does not read.
    #[error("this capture is of format version {found}; this doctor reads version {supported}")]
    CaptureVersion { found: String, supported: u32 },
    /// A capture that is damaged: truncated, edited, or missing fields.
    #[error("the capture is damaged: {0}")]
    CaptureCorrupt(String),
}
