//! The one error type of the desktop shell: the application layer's errors
//! ([`domain_desk_app::Error`]) and the window's own (Tauri, logging, the browser, desktop
//! notifications, the updater, the session). It reaches the UI as `{kind, message}`, a shape
//! the UI can switch on without parsing sentences.

use serde::Serialize;

pub use domain_desk_app::Error as AppError;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// What the application layer refused or failed at, shown as it says.
    #[error(transparent)]
    App(#[from] AppError),
    #[error("could not set up logging: {0}")]
    Logging(String),
    #[error("the window could not start: {0}")]
    Tauri(#[from] tauri::Error),
    /// The user's input in the window cannot be used; the message says why, for a person.
    #[error("{0}")]
    InvalidInput(String),
    #[error("Not signed in.")]
    NotSignedIn,
    #[error("This works in the offline demo only.")]
    NotDemo,
    #[error("could not open the browser: {0}")]
    Open(String),
    #[error("could not show a desktop notification: {0}")]
    Notification(String),
    #[error("the update could not be installed: {0}")]
    Update(String),
}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Error::App(err.into())
    }
}

impl From<domain_desk_client::Error> for Error {
    fn from(err: domain_desk_client::Error) -> Self {
        Error::App(err.into())
    }
}

impl From<domain_desk_doctor::Error> for Error {
    fn from(err: domain_desk_doctor::Error) -> Self {
        Error::App(err.into())
    }
}

impl Error {
    /// The stable name the UI switches on: the application layer's ([`AppError::kind`]), or
    /// the kind of the window's own failure.
    pub fn kind(&self) -> String {
        match self {
            Error::App(err) => err.kind(),
            Error::Logging(_) => "logging".into(),
            Error::Tauri(_) => "internal".into(),
            Error::InvalidInput(_) => "invalid_input".into(),
            Error::NotSignedIn => "not_signed_in".into(),
            Error::NotDemo => "not_demo".into(),
            Error::Open(_) => "open".into(),
            Error::Notification(_) => "notification".into(),
            Error::Update(_) => "update".into(),
        }
    }
}

impl Serialize for Error {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        if let Error::App(err) = self {
            return err.serialize(serializer);
        }
        let mut s = serializer.serialize_struct("Error", 2)?;
        s.serialize_field("kind", &self.kind())?;
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
