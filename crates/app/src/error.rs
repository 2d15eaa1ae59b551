//! The one error type of the application layer. The window shows it as `{kind, message}` (with
//! the ownership challenge, the page to open or the import's refusal when there is one), a
//! shape the UI can switch on without parsing sentences; the command line maps it to its exit
//! statuses.

use serde::Serialize;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The OS names no home folder for this user (no `HOME`, no entry in the user database),
    /// so there is no folder of the user's own for the data and logs.
    #[error(
        "Domain Desk cannot find your home folder (is HOME set?), so it has nowhere of your own to keep its data and logs. It does not fall back to a shared folder such as /tmp, where other users could read or replace its files."
    )]
    NoHomeFolder,
    #[error("file system: {0}")]
    Io(#[from] std::io::Error),
    /// The platform (or the queue in front of it) refused or failed; the message is the
    /// platform's sentence and never contains the API key.
    #[error(transparent)]
    Api(domain_desk_client::Error),
    /// The user's input cannot be used; the message says why, for a person.
    #[error("{0}")]
    InvalidInput(String),
    /// The OS keyring refused; the message comes from the keyring, never holds the key.
    #[error("the system keyring: {0}")]
    Keyring(String),
    #[error("the settings could not be saved: {0}")]
    Settings(String),
    /// A kept account's key was stored for one address and its entry now names another (the
    /// settings file was edited or damaged): the key was not sent. `url` is the address the
    /// entry names, `stored` the host the key was stored for.
    #[error(
        "The key of this account was stored for {stored}, but its settings now point at {url}, so the key was not sent. Connect again with the key if the address really changed."
    )]
    KeyDestination { stored: String, url: String },
    /// The offline demo's control plane answered with an error; `code` is its snake_case code.
    #[error("{message}")]
    Demo { code: String, message: String },
    #[error("the offline demo could not start: {0}")]
    DemoStart(String),
    #[error("the DNS doctor: {0}")]
    Doctor(#[from] domain_desk_doctor::Error),
    /// An import refused before anything was sent because rows of `file` cannot be imported
    /// as written: every problem (line, what the line says, why) and how many rows are
    /// valid, for the bulk panel's table and its "Import the N valid rows". The values come
    /// from the user's file, never from the keyring.
    #[error("{}", domain_desk_bulk::plan::Refusal::Rows { problems: problems.clone(), valid: *valid })]
    ImportRefused {
        file: String,
        /// Where importing the valid rows would write the others.
        retry_file: String,
        problems: Vec<domain_desk_bulk::rows::RowProblem>,
        valid: u64,
    },
}

impl From<domain_desk_client::Error> for Error {
    fn from(err: domain_desk_client::Error) -> Self {
        match err {
            // The control plane's refusals keep their own codes, which the Demo DNS panel
            // switches on.
            domain_desk_client::Error::Control { code, message } => Error::Demo { code, message },
            other => Error::Api(other),
        }
    }
}

impl Error {
    /// The stable name the UI switches on: for the platform's refusals its error code
    /// (`plan_upgrade_required`, `deploy_required`, …), otherwise the kind of failure.
    pub fn kind(&self) -> String {
        match self {
            Error::NoHomeFolder => "no_home_folder".into(),
            Error::Io(_) => "io".into(),
            Error::Api(err) => match err.code() {
                Some(code) => serde_json::to_value(code)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_else(|| err.kind().into()),
                // A failure that says what was found keeps its own kind, for its next step.
                None if matches!(
                    err.kind(),
                    "no_such_host" | "connection_refused" | "untrusted_certificate"
                ) =>
                {
                    err.kind().into()
                }
                None if err.is_network() => "network".into(),
                None => err.kind().into(),
            },
            Error::InvalidInput(_) => "invalid_input".into(),
            Error::Keyring(_) => "keyring".into(),
            Error::Settings(_) => "settings".into(),
            Error::KeyDestination { .. } => "key_destination_mismatch".into(),
            Error::Demo { code, .. } => code.clone(),
            Error::DemoStart(_) => "demo_start".into(),
            Error::Doctor(_) => "doctor".into(),
            Error::ImportRefused { .. } => "import_refused".into(),
        }
    }

    /// With `domain_taken` when another account holds the name: the TXT record that proves
    /// control of it, which the window shows as a record card.
    pub fn ownership_challenge(&self) -> Option<&domain_desk_api::OwnershipChallenge> {
        match self {
            Error::Api(err) => err.detail()?.ownership_challenge.as_ref(),
            _ => None,
        }
    }

    /// With `browser_not_opened`: the page the user can open by hand (Copy link).
    pub fn url_to_open(&self) -> Option<&str> {
        match self {
            Error::Api(domain_desk_client::Error::BrowserNotOpened { url, .. }) => Some(url),
            _ => None,
        }
    }
}

impl Serialize for Error {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let challenge = self.ownership_challenge();
        let url = self.url_to_open();
        let refusal = match self {
            Error::ImportRefused {
                file,
                retry_file,
                problems,
                valid,
            } => Some(serde_json::json!({
                "file": file,
                "retry_file": retry_file,
                "problems": problems,
                "valid": valid,
            })),
            _ => None,
        };
        let fields = 2
            + usize::from(challenge.is_some())
            + usize::from(url.is_some())
            + usize::from(refusal.is_some());
        let mut s = serializer.serialize_struct("Error", fields)?;
        s.serialize_field("kind", &self.kind())?;
        s.serialize_field("message", &self.to_string())?;
        if let Some(challenge) = challenge {
            s.serialize_field("ownership_challenge", challenge)?;
        }
        if let Some(url) = url {
            s.serialize_field("url", url)?;
        }
        if let Some(refusal) = refusal {
            s.serialize_field("refusal", &refusal)?;
        }
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_refusals_use_the_error_code_as_kind() {
        use domain_desk_api::{ErrorCode, ErrorDetail};
        let err = Error::from(domain_desk_client::Error::Api {
            status: 403,
            detail: Box::new(ErrorDetail::new(
                ErrorCode::PlanUpgradeRequired,
                "Custom domains need a paid plan.",
            )),
        });
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            serde_json::json!({"kind": "plan_upgrade_required", "message": "Custom domains need a paid plan."})
        );
        let offline = Error::from(domain_desk_client::Error::Network(
            "connection refused".into(),
        ));
        assert_eq!(offline.kind(), "network");
    }

    #[test]
    fn a_name_another_account_holds_carries_its_ownership_challenge() {
        use domain_desk_api::{ErrorCode, ErrorDetail, OwnershipChallenge};
        let mut detail = ErrorDetail::new(ErrorCode::DomainTaken, "Another account holds it.");
        detail.ownership_challenge = Some(OwnershipChallenge {
            record_type: "TXT".into(),
            name: "_domain-desk-challenge.shop".into(),
            fqdn: "_domain-desk-challenge.shop.example.com".into(),
            value: "domain-desk-challenge=abc".into(),
            expires_at: "2026-12-04T12:00:00Z".parse().unwrap(),
        });
        let err = Error::from(domain_desk_client::Error::Api {
            status: 409,
            detail: Box::new(detail),
        });
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            serde_json::json!({
                "kind": "domain_taken",
                "message": "Another account holds it.",
                "ownership_challenge": {
                    "type": "TXT",
                    "name": "_domain-desk-challenge.shop",
                    "fqdn": "_domain-desk-challenge.shop.example.com",
                    "value": "domain-desk-challenge=abc",
                    "expires_at": "2026-12-04T12:00:00Z"
                }
            })
        );
    }

    #[test]
    fn control_plane_refusals_keep_their_code_as_kind() {
        let err = Error::from(domain_desk_client::Error::Control {
            code: "record_conflict".into(),
            message: "Delete the CNAME first.".into(),
        });
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            serde_json::json!({"kind": "record_conflict", "message": "Delete the CNAME first."})
        );
    }
}
