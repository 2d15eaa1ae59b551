//! The client's one error type.
//!
//! Callers ask questions of an error (`is_rate_limited`, `is_not_found`, `code()`) rather than
//! matching on its shape, so the variants can grow without breaking them. No variant carries
//! the API key or a request's headers: messages come from the platform's error body, from the
//! transport with the URL stripped, or from this crate. Errors are `Clone` because one answer
//! can go to several callers whose identical GETs were coalesced.

use std::time::Duration;

use chrono::{DateTime, Utc};
use domain_desk_api::{ErrorCode, ErrorDetail, RateWindow};
use serde::ser::SerializeStruct;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The platform refused the request with an error body (4xx other than the cases below,
    /// or a 5xx after the retries ran out).
    #[error("{}", detail.message)]
    Api {
        status: u16,
        detail: Box<ErrorDetail>,
    },

    /// 429 that the queue could not wait out (it retries rate-limited requests itself; this
    /// reaches a caller only after repeated 429s for the same request).
    #[error("the plan's rate limit is used up; try again in {} s", retry_after.map_or(0, |d| d.as_secs()))]
    RateLimited {
        /// In the platform's seconds.
        retry_after: Option<Duration>,
        window: Option<RateWindow>,
    },

    /// 403 `key_banned`: the key sent too many requests while rate limited.
    #[error("the API key is banned for sending requests while rate limited{}", until.map(|t| format!(" until {}", t.to_rfc3339())).unwrap_or_default())]
    Banned { until: Option<DateTime<Utc>> },

    #[error("the platform did not answer in time")]
    Timeout,

    /// The connection failed or broke; the message comes from the transport, without the URL.
    #[error("could not reach the platform: {0}")]
    Network(String),

    /// The platform's address names a host that does not exist (the system's resolver knows
    /// no such name): a typo in the address, or a name not yet in DNS.
    #[error(
        "No host named {host} exists: no DNS record names it. Check the platform’s address for a typo."
    )]
    NoSuchHost { host: String },

    /// The computer at the address answered, but nothing accepts connections on its port.
    #[error(
        "The computer at {host} refused the connection: nothing accepts connections at that address and port. Check the port, or start the platform there."
    )]
    ConnectionRefused { host: String },

    /// The certificate `host` presented is not one this computer trusts: the key was not sent.
    #[error(
        "The platform at {host} presented a certificate this computer does not trust, so the API key was not sent. Check the address, or ask whoever runs the platform."
    )]
    UntrustedCertificate { host: String },

    /// A response that does not follow the contract (wrong JSON, unexpected status).
    #[error("the platform's answer could not be read: {0}")]
    Decode(String),

    /// The caller's input cannot make a valid request (for example an empty project id).
    #[error("{0}")]
    InvalidInput(String),

    /// The request was withdrawn from the queue before it was sent.
    #[error("the request was cancelled before it was sent")]
    Cancelled,

    /// The queue's task has stopped (the runtime is shutting down).
    #[error("the request queue has stopped")]
    QueueClosed,

    /// Could not set up the HTTP client or the queue.
    #[error("the API client could not be set up: {0}")]
    Setup(String),

    /// The platform address is plain `http://` to another computer: the key would cross the
    /// network unencrypted, so nothing is sent. `url` is the address without credentials or
    /// query.
    #[error(
        "The API key was not sent: {url} is a plain http:// address, which would carry it across the network unencrypted. Use https:// (http:// is only for a platform on this computer: localhost, 127.0.0.1 or ::1)."
    )]
    InsecureUrl { url: String },

    /// Domain Connect discovery failed: a DNS lookup, the provider's settings or template
    /// query (not "unsupported", which is an answer).
    #[error("Domain Connect discovery failed: {0}")]
    DomainConnect(String),

    /// The consent page could not be opened in a browser (none is set up, or it failed to
    /// start). Not a discovery failure: the provider supports Domain Connect, and `url` is
    /// the page to open by hand. `reason` is for the log, not for the user's screen.
    #[error("The browser could not be opened.")]
    BrowserNotOpened { url: String, reason: String },

    /// The local service's control plane (`/_local`, see [`crate::LocalControl`]) refused or
    /// did not answer: `code` is its snake_case error code, `http_<status>` without one,
    /// `network` when it did not answer, `decode` when its answer could not be read.
    #[error("{message}")]
    Control { code: String, message: String },

    /// The platform's answer was longer than the client reads (`limit` bytes); it was cut off
    /// and dropped.
    #[error("the platform's answer was larger than {limit} bytes, so it was not read")]
    ResponseTooLarge { limit: u64 },
}

impl Error {
    /// The platform's error code, when the platform answered with an error body.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            Error::Api { detail, .. } => Some(detail.code),
            Error::RateLimited { .. } => Some(ErrorCode::RateLimited),
            Error::Banned { .. } => Some(ErrorCode::KeyBanned),
            _ => None,
        }
    }

    /// The HTTP status the platform answered with, when there was an answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api { status, .. } => Some(*status),
            Error::RateLimited { .. } => Some(429),
            Error::Banned { .. } => Some(403),
            _ => None,
        }
    }

    /// The platform's error body, when it sent one.
    pub fn detail(&self) -> Option<&ErrorDetail> {
        match self {
            Error::Api { detail, .. } => Some(detail),
            _ => None,
        }
    }

    pub fn is_rate_limited(&self) -> bool {
        matches!(self, Error::RateLimited { .. })
    }

    pub fn is_banned(&self) -> bool {
        matches!(self, Error::Banned { .. })
    }

    pub fn is_not_found(&self) -> bool {
        self.code() == Some(ErrorCode::NotFound)
    }

    pub fn is_unauthorized(&self) -> bool {
        self.code() == Some(ErrorCode::Unauthorized)
    }

    pub fn is_timeout(&self) -> bool {
        matches!(self, Error::Timeout)
    }

    /// The connection failed or timed out: nothing was learned from the platform.
    pub fn is_network(&self) -> bool {
        matches!(
            self,
            Error::Network(_)
                | Error::Timeout
                | Error::NoSuchHost { .. }
                | Error::ConnectionRefused { .. }
                | Error::UntrustedCertificate { .. }
        )
    }

    /// The key was not sent because the address is plain `http://` to another computer.
    pub fn is_insecure_url(&self) -> bool {
        matches!(self, Error::InsecureUrl { .. })
    }

    /// The answer was longer than the client's cap.
    pub fn is_response_too_large(&self) -> bool {
        matches!(self, Error::ResponseTooLarge { .. })
    }

    pub fn is_cancelled(&self) -> bool {
        matches!(self, Error::Cancelled)
    }

    /// A 5xx from the platform (after the queue's retries).
    pub fn is_server_error(&self) -> bool {
        self.status().is_some_and(|s| s >= 500)
    }

    /// The caller's request was refused as invalid (4xx other than auth, limits and bans).
    pub fn is_client_error(&self) -> bool {
        matches!(self, Error::InvalidInput(_))
            || self
                .status()
                .is_some_and(|s| (400..500).contains(&s) && s != 429 && s != 401)
                && !self.is_banned()
    }

    /// Seconds (in the platform's time) before trying again makes sense, when known.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Error::RateLimited { retry_after, .. } => *retry_after,
            Error::Api { detail, .. } => detail.retry_after_seconds.map(Duration::from_secs),
            _ => None,
        }
    }

    /// A stable snake_case name for the UI: `{kind, message}` is how errors are serialised.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Api { .. } => "api",
            Error::RateLimited { .. } => "rate_limited",
            Error::Banned { .. } => "banned",
            Error::Timeout => "timeout",
            Error::Network(_) => "network",
            Error::NoSuchHost { .. } => "no_such_host",
            Error::ConnectionRefused { .. } => "connection_refused",
            Error::UntrustedCertificate { .. } => "untrusted_certificate",
            Error::Decode(_) => "decode",
            Error::InvalidInput(_) => "invalid_input",
            Error::Cancelled => "cancelled",
            Error::QueueClosed => "queue_closed",
            Error::Setup(_) => "setup",
            Error::InsecureUrl { .. } => "insecure_url",
            Error::ResponseTooLarge { .. } => "response_too_large",
            Error::DomainConnect(_) => "domain_connect",
            Error::BrowserNotOpened { .. } => "browser_not_opened",
            Error::Control { .. } => "control",
        }
    }
}

/// `{"kind": "...", "message": "...", "code": "..."|null}`: the shape the window receives.
impl serde::Serialize for Error {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Error", 3)?;
        s.serialize_field("kind", self.kind())?;
        s.serialize_field("message", &self.to_string())?;
        s.serialize_field("code", &self.code())?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_browser_that_would_not_open_says_so_without_internals() {
        let err = Error::BrowserNotOpened {
            url: "https://dc.example/apply".into(),
            reason: "xdg-open: ExitStatus(unix_wait_status(768))".into(),
        };
        assert_eq!(err.kind(), "browser_not_opened");
        assert_eq!(err.to_string(), "The browser could not be opened.");
        assert!(!err.to_string().contains("ExitStatus"));
    }

    #[test]
    fn predicates_follow_the_platform_code() {
        let err = Error::Api {
            status: 404,
            detail: Box::new(ErrorDetail::new(ErrorCode::NotFound, "No such project.")),
        };
        assert!(err.is_not_found());
        assert!(!err.is_rate_limited());
        assert!(err.is_client_error());
        assert_eq!(err.code(), Some(ErrorCode::NotFound));
        assert_eq!(err.to_string(), "No such project.");

        let limited = Error::RateLimited {
            retry_after: Some(Duration::from_secs(7)),
            window: Some(RateWindow::Minute),
        };
        assert!(limited.is_rate_limited());
        assert_eq!(limited.status(), Some(429));
        assert!(!limited.is_client_error());
        assert!(Error::Timeout.is_timeout() && Error::Timeout.is_network());
        assert!(Error::Banned { until: None }.is_banned());
    }

    #[test]
    fn errors_serialise_to_kind_and_message() {
        let err = Error::Api {
            status: 409,
            detail: Box::new(ErrorDetail::new(
                ErrorCode::DeployRequired,
                "Deploy the project first.",
            )),
        };
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            serde_json::json!({"kind": "api", "message": "Deploy the project first.", "code": "deploy_required"})
        );
        assert_eq!(
            serde_json::to_value(Error::Cancelled).unwrap(),
            serde_json::json!({"kind": "cancelled", "message": "the request was cancelled before it was sent", "code": null})
        );
    }
}
