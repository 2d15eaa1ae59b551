//! What the Domain Connect flow says when it will not apply a template: the HTTP status and,
//! for the consent page, the reason. Apart from the flow (`mod.rs`) because the template
//! reader (`template.rs`), which the flow uses, refuses too.

use axum::http::StatusCode;

/// A request the flow refuses: the status and, for the page, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub status: StatusCode,
    pub reason: String,
}

impl Refusal {
    pub fn bad_request(reason: impl Into<String>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            reason: reason.into(),
        }
    }

    pub fn not_supported(reason: impl Into<String>) -> Self {
        Self {
            status: StatusCode::NOT_FOUND,
            reason: reason.into(),
        }
    }

    pub fn forbidden(reason: impl Into<String>) -> Self {
        Self {
            status: StatusCode::FORBIDDEN,
            reason: reason.into(),
        }
    }
}
