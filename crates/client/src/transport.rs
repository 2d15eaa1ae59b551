//! What the queue sends and how: a request as data, and the [`Transport`] that puts it on the
//! wire.
//!
//! The queue decides *when*; the transport only *sends*. Keeping them apart lets the
//! scheduler's tests run against an in-process platform on a paused clock, and lets a
//! benchmark wrap the real transport to count what was sent. [`HttpTransport`] is the real
//! one: reqwest with rustls, the API key in a sensitive `Authorization` header.

use std::fmt;
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode};

use crate::error::{Error, Result};
use crate::secret::ApiKey;

/// One API call as the queue holds it. Built by the typed client; the path is already
/// percent-encoded and starts with `/v1/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiRequest {
    pub method: Method,
    pub path: String,
    /// JSON, when the method carries a body.
    pub body: Option<Bytes>,
    /// Set on every POST, so a retried create is answered from the platform's memory instead
    /// of creating twice.
    pub idempotency_key: Option<String>,
    /// `false` for the one endpoint the platform does not count (`GET /v1/rate_limit`).
    pub counted: bool,
}

impl ApiRequest {
    pub fn get(path: impl Into<String>) -> Self {
        Self {
            method: Method::GET,
            path: path.into(),
            body: None,
            idempotency_key: None,
            counted: true,
        }
    }

    /// A POST with a fresh idempotency key.
    pub fn post(path: impl Into<String>, body: Bytes) -> Self {
        Self {
            method: Method::POST,
            path: path.into(),
            body: Some(body),
            idempotency_key: Some(uuid::Uuid::new_v4().to_string()),
            counted: true,
        }
    }

    pub fn put(path: impl Into<String>, body: Bytes) -> Self {
        Self {
            method: Method::PUT,
            path: path.into(),
            body: Some(body),
            idempotency_key: None,
            counted: true,
        }
    }

    pub fn delete(path: impl Into<String>) -> Self {
        Self {
            method: Method::DELETE,
            path: path.into(),
            body: None,
            idempotency_key: None,
            counted: true,
        }
    }

    /// Safe to send again after a network error or a 5xx: the method is idempotent, or the
    /// platform deduplicates it by its `Idempotency-Key`.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self.method,
            Method::GET | Method::HEAD | Method::PUT | Method::DELETE | Method::OPTIONS
        ) || self.idempotency_key.is_some()
    }

    /// Identical GETs share one trip; this is what makes two GETs identical.
    pub fn coalescing_key(&self) -> Option<&str> {
        (self.method == Method::GET).then_some(self.path.as_str())
    }
}

/// An answer from the platform, whatever its status. Cheap to clone (the body is shared).
#[derive(Debug, Clone)]
pub struct WireResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// Why no answer arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportError {
    Timeout,
    /// Connect or I/O failure; the message names no URL and no header.
    Network(String),
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::Timeout => f.write_str("timed out"),
            TransportError::Network(message) => f.write_str(message),
        }
    }
}

impl From<TransportError> for Error {
    fn from(err: TransportError) -> Self {
        match err {
            TransportError::Timeout => Error::Timeout,
            TransportError::Network(message) => Error::Network(message),
        }
    }
}

/// Sends one request and returns the platform's answer. Implementations add the credentials.
pub trait Transport: Send + Sync + 'static {
    fn send(
        &self,
        request: &ApiRequest,
    ) -> BoxFuture<'static, std::result::Result<WireResponse, TransportError>>;
}

/// The real transport: HTTPS (or HTTP on loopback) through reqwest with rustls.
pub struct HttpTransport {
    http: reqwest::Client,
    base_url: String,
    authorization: HeaderValue,
}

impl fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpTransport")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

impl HttpTransport {
    /// `base_url` is the platform's root, e.g. `http://127.0.0.1:8787` (without `/v1`).
    pub fn new(base_url: &str, api_key: &ApiKey, timeout: Duration) -> Result<Self> {
        let base_url = base_url.trim_end_matches('/').to_owned();
        let parsed = reqwest::Url::parse(&base_url)
            .map_err(|err| Error::Setup(format!("the platform address is not a URL: {err}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(Error::Setup(
                "the platform address must start with http:// or https://".into(),
            ));
        }
        if api_key.is_empty() {
            return Err(Error::Setup("the API key is empty".into()));
        }
        let mut authorization = HeaderValue::from_str(&format!("Bearer {}", api_key.expose()))
            .map_err(|_| {
                Error::Setup("the API key contains characters a header cannot carry".into())
            })?;
        authorization.set_sensitive(true);
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .user_agent(concat!("domain-desk/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|err| Error::Setup(err.without_url().to_string()))?;
        Ok(Self {
            http,
            base_url,
            authorization,
        })
    }
}

impl Transport for HttpTransport {
    fn send(
        &self,
        request: &ApiRequest,
    ) -> BoxFuture<'static, std::result::Result<WireResponse, TransportError>> {
        let mut builder = self
            .http
            .request(
                request.method.clone(),
                format!("{}{}", self.base_url, request.path),
            )
            .header(AUTHORIZATION, self.authorization.clone());
        if let Some(body) = &request.body {
            builder = builder
                .header(CONTENT_TYPE, "application/json")
                .body(body.clone());
        }
        if let Some(key) = &request.idempotency_key {
            builder = builder.header(domain_desk_api::rate_limit::IDEMPOTENCY_KEY, key.as_str());
        }
        Box::pin(async move {
            let response = builder.send().await.map_err(transport_error)?;
            let status = response.status();
            let headers = response.headers().clone();
            let body = response.bytes().await.map_err(transport_error)?;
            Ok(WireResponse {
                status,
                headers,
                body,
            })
        })
    }
}

fn transport_error(err: reqwest::Error) -> TransportError {
    if err.is_timeout() {
        TransportError::Timeout
    } else {
        let err = err.without_url();
        let mut message = err.to_string();
        let mut source = std::error::Error::source(&err);
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        TransportError::Network(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posts_carry_a_fresh_idempotency_key_and_are_retryable() {
        let a = ApiRequest::post("/v1/projects", Bytes::from_static(b"{}"));
        let b = ApiRequest::post("/v1/projects", Bytes::from_static(b"{}"));
        assert!(a.idempotency_key.is_some());
        assert_ne!(a.idempotency_key, b.idempotency_key);
        assert!(a.is_retryable());
        let mut bare = a.clone();
        bare.idempotency_key = None;
        assert!(!bare.is_retryable());
        assert!(ApiRequest::delete("/v1/x").is_retryable());
    }

    #[test]
    fn only_gets_coalesce() {
        assert_eq!(
            ApiRequest::get("/v1/account").coalescing_key(),
            Some("/v1/account")
        );
        assert_eq!(ApiRequest::delete("/v1/account").coalescing_key(), None);
    }

    #[test]
    fn transport_setup_refuses_bad_addresses_without_echoing_the_key() {
        let key = ApiKey::new("ddk_secret_value");
        let err = HttpTransport::new("ftp://127.0.0.1", &key, Duration::from_secs(5)).unwrap_err();
        assert!(!err.to_string().contains("ddk_secret_value"));
        let err = HttpTransport::new(
            "http://127.0.0.1:1",
            &ApiKey::new("bad\nkey x\u{7f}"),
            Duration::from_secs(5),
        );
        // Whitespace inside is allowed in a header value only if visible ASCII; DEL is not.
        if let Err(err) = err {
            assert!(!err.to_string().contains("bad"));
        }
        let transport =
            HttpTransport::new("http://127.0.0.1:1/", &key, Duration::from_secs(5)).unwrap();
        assert!(!format!("{transport:?}").contains("ddk_secret_value"));
    }
}
