//! The crate's one error type, and how each error becomes the contract's JSON error answer.
//!
//! Refusals the contract names (`404 not_found`, `409 deploy_required`, …) are
//! [`Error::Api`] and show their message to the caller. Everything else is a fault of the
//! service: the caller sees `500 internal` with "Something went wrong" and the cause is logged
//! once, here. A 500 is always a bug to fix.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use domain_desk_api::{ErrorBody, ErrorCode, ErrorDetail, RateWindow};

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A refusal the contract names, answered as it is.
    #[error("{}", .detail.message)]
    Api {
        status: StatusCode,
        detail: Box<ErrorDetail>,
    },
    /// A clock setting out of range.
    #[error("{0}")]
    InvalidClock(String),
    /// A part of the service that is not running in this build or configuration.
    #[error("{0}")]
    NotAvailable(String),
    #[error("database: {0}")]
    Database(#[from] rusqlite::Error),
    /// The database file is newer than this build, or a migration step failed.
    #[error("database schema: {0}")]
    Schema(String),
    /// A stored value that this build cannot read back (a bad timestamp or enum name).
    #[error("stored data is unreadable: {0}")]
    Corrupt(String),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("background task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
    /// The DNS server or the platform resolver failed (not a negative answer).
    #[error("dns: {0}")]
    Dns(String),
    /// The local CA could not create, load or sign a certificate.
    #[error("certificate authority: {0}")]
    Certificate(String),
    #[error("tls: {0}")]
    Tls(#[from] rustls::Error),
    /// An invariant of the service broke; the message says which.
    #[error("internal: {0}")]
    Internal(String),
}

impl Error {
    /// A contract refusal with its status, code and one sentence for a person.
    pub fn api(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Self {
        Self::from_detail(status, ErrorDetail::new(code, message))
    }

    pub fn from_detail(status: StatusCode, detail: ErrorDetail) -> Self {
        Error::Api {
            status,
            detail: Box::new(detail),
        }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::api(StatusCode::NOT_FOUND, ErrorCode::NotFound, message)
    }

    pub fn unauthorized() -> Self {
        Self::api(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            "Send a valid API key as `Authorization: Bearer <key>`.",
        )
    }

    /// `422 validation_failed` naming the field at fault.
    pub fn validation(field: &str, message: impl Into<String>) -> Self {
        let mut detail = ErrorDetail::new(ErrorCode::ValidationFailed, message);
        detail.field = Some(field.to_owned());
        Self::from_detail(StatusCode::UNPROCESSABLE_ENTITY, detail)
    }

    /// `422 invalid_hostname` naming the field at fault.
    pub fn invalid_hostname(field: &str, message: impl Into<String>) -> Self {
        let mut detail = ErrorDetail::new(ErrorCode::InvalidHostname, message);
        detail.field = Some(field.to_owned());
        Self::from_detail(StatusCode::UNPROCESSABLE_ENTITY, detail)
    }

    pub fn invalid_redirect(message: impl Into<String>) -> Self {
        Self::api(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::InvalidRedirect,
            message,
        )
    }

    pub fn conflict(code: ErrorCode, message: impl Into<String>) -> Self {
        Self::api(StatusCode::CONFLICT, code, message)
    }

    /// `429 rate_limited` with the seconds to wait and the exhausted window.
    pub fn rate_limited(retry_after_seconds: u64, window: RateWindow) -> Self {
        let which = match window {
            RateWindow::Minute => "per-minute",
            RateWindow::Day => "per-day",
        };
        let mut detail = ErrorDetail::new(
            ErrorCode::RateLimited,
            format!(
                "The {which} rate limit of this API key is used up; retry after {retry_after_seconds} s."
            ),
        );
        detail.retry_after_seconds = Some(retry_after_seconds);
        detail.window = Some(window);
        Self::from_detail(StatusCode::TOO_MANY_REQUESTS, detail)
    }

    /// `403 key_banned` until `banned_until`.
    pub fn key_banned(
        retry_after_seconds: u64,
        banned_until: chrono::DateTime<chrono::Utc>,
    ) -> Self {
        let mut detail = ErrorDetail::new(
            ErrorCode::KeyBanned,
            format!(
                "This API key sent too many requests while rate limited and is banned until {}.",
                banned_until.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            ),
        );
        detail.retry_after_seconds = Some(retry_after_seconds);
        detail.banned_until = Some(banned_until);
        Self::from_detail(StatusCode::FORBIDDEN, detail)
    }

    /// The HTTP status this error is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            Error::Api { status, .. } => *status,
            Error::InvalidClock(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Error::NotAvailable(_) => StatusCode::NOT_IMPLEMENTED,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The error code, for tests and logs.
    pub fn code(&self) -> ErrorCode {
        self.body().error.code
    }

    /// The JSON body the caller receives. Internal causes are not shown.
    pub fn body(&self) -> ErrorBody {
        let detail = match self {
            Error::Api { detail, .. } => (**detail).clone(),
            Error::InvalidClock(message) => {
                ErrorDetail::new(ErrorCode::ValidationFailed, message.clone())
            }
            Error::NotAvailable(message) => ErrorDetail::new(ErrorCode::Internal, message.clone()),
            _ => ErrorDetail::new(
                ErrorCode::Internal,
                "Something went wrong in the service; the error was logged.",
            ),
        };
        ErrorBody { error: detail }
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() && status != StatusCode::NOT_IMPLEMENTED {
            tracing::error!(error = %self, "request failed inside the service");
        }
        (status, axum::Json(self.body())).into_response()
    }
}

impl From<domain_desk_api::Error> for Error {
    fn from(err: domain_desk_api::Error) -> Self {
        match err {
            domain_desk_api::Error::InvalidHostname(message) => {
                Error::invalid_hostname("hostname", message)
            }
            other => Error::validation("hostname", other.to_string()),
        }
    }
}
