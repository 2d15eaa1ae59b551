//! The one error type of the desktop shell. It reaches the UI as `{kind, message}`, a shape the
//! UI can switch on without parsing sentences.

use serde::Serialize;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("could not set up logging: {0}")]
    Logging(String),
    #[error("the window could not start: {0}")]
    Tauri(#[from] tauri::Error),
    #[error("file system: {0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    fn kind(&self) -> &'static str {
        match self {
            Error::Logging(_) => "logging",
            Error::Tauri(_) => "internal",
            Error::Io(_) => "io",
        }
    }
}

impl Serialize for Error {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("Error", 2)?;
        s.serialize_field("kind", self.kind())?;
        s.serialize_field("message", &self.to_string())?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_as_kind_and_message() {
        let err = Error::Logging("disk full".into());
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            serde_json::json!({"kind": "logging", "message": "could not set up logging: disk full"})
        );
    }
}
