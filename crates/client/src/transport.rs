//! What the queue sends and how: a request as data, and the [`Transport`] that puts it on the
//! wire.
//!
//! The queue decides *when*; the transport only *sends*. Keeping them apart lets the
//! scheduler's tests run against an in-process platform on a paused clock, and lets a
//! benchmark wrap the real transport to count what was sent. [`HttpTransport`] is the real
//! one: reqwest with rustls, the API key in a sensitive `Authorization` header.
//!
//! The key goes only where it belongs: over `https://`, or over plain `http://` to a loopback
//! address (the local service), never through a proxy when the platform is on loopback, and
//! never along a redirect (reqwest keeps `Authorization` on a redirect that stays on the same
//! host and port, even from `https` to `http`). An answer is read up to a size cap, so a
//! hostile or broken server cannot make the app read gigabytes.

use std::fmt;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures::future::BoxFuture;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode, Url};

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

/// The most of one answer the client reads, unless configured otherwise: 16 MiB. The
/// largest answer of API v1 (a project's domain list) is a few hundred kilobytes.
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 16 * 1024 * 1024;

/// Why no answer arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportError {
    Timeout,
    /// Connect or I/O failure; the message names no URL and no header.
    Network(String),
    /// The system's resolver says no such name exists (`host`, from the address the caller
    /// gave): nobody answers there, however often it is tried.
    NoSuchHost {
        host: String,
    },
    /// The computer at `host` answered, but nothing accepts connections on the port.
    ConnectionRefused {
        host: String,
    },
    /// The TLS handshake with `host` failed its certificate check: the key was not sent.
    UntrustedCertificate {
        host: String,
    },
    /// The answer's body was longer than `limit` bytes; the rest was not read. Sending the
    /// request again would only read as much again, so the queue does not retry it.
    TooLarge {
        limit: u64,
    },
}

impl TransportError {
    /// Worth sending again (after a backoff): the failure may be gone next time.
    pub fn is_retryable(&self) -> bool {
        // A name that does not exist or a certificate not trusted will be so next time too.
        !matches!(
            self,
            TransportError::TooLarge { .. }
                | TransportError::NoSuchHost { .. }
                | TransportError::UntrustedCertificate { .. }
        )
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::Timeout => f.write_str("timed out"),
            TransportError::Network(message) => f.write_str(message),
            TransportError::NoSuchHost { host } => write!(f, "no such host: {host}"),
            TransportError::ConnectionRefused { host } => write!(f, "connection refused by {host}"),
            TransportError::UntrustedCertificate { host } => {
                write!(f, "untrusted certificate at {host}")
            }
            TransportError::TooLarge { limit } => {
                write!(f, "the answer was larger than {limit} bytes")
            }
        }
    }
}

impl From<TransportError> for Error {
    fn from(err: TransportError) -> Self {
        match err {
            TransportError::Timeout => Error::Timeout,
            TransportError::Network(message) => Error::Network(message),
            TransportError::NoSuchHost { host } => Error::NoSuchHost { host },
            TransportError::ConnectionRefused { host } => Error::ConnectionRefused { host },
            TransportError::UntrustedCertificate { host } => Error::UntrustedCertificate { host },
            TransportError::TooLarge { limit } => Error::ResponseTooLarge { limit },
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
    max_response_bytes: u64,
}

impl fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpTransport")
            .field("base_url", &self.base_url)
            .field("max_response_bytes", &self.max_response_bytes)
            .finish_non_exhaustive()
    }
}

/// The host is this computer: `localhost`, 127.0.0.0/8 or `::1`.
pub fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse::<std::net::Ipv6Addr>().is_ok_and(|ip| {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        });
    }
    if let Ok(ip) = host.parse::<std::net::Ipv4Addr>() {
        return ip.is_loopback();
    }
    let name = host.strip_suffix('.').unwrap_or(host);
    name.eq_ignore_ascii_case("localhost")
}

/// The URL as it may appear in a message: no user name, password, query or fragment (any of
/// which could hold a secret someone pasted).
fn shown(url: &Url) -> String {
    let mut url = url.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_fragment(None);
    url.as_str().trim_end_matches('/').to_owned()
}

impl HttpTransport {
    /// `base_url` is the platform's root, e.g. `http://127.0.0.1:8787` (without `/v1`).
    /// Refuses plain `http://` to anything but a loopback address: the key would cross the
    /// network readable by anyone on the way.
    pub fn new(base_url: &str, api_key: &ApiKey, timeout: Duration) -> Result<Self> {
        let base_url = base_url.trim_end_matches('/').to_owned();
        let parsed = Url::parse(&base_url)
            .map_err(|err| Error::Setup(format!("the platform address is not a URL: {err}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(Error::Setup(
                "the platform address must start with http:// or https://".into(),
            ));
        }
        let loopback = is_loopback(&parsed);
        if parsed.scheme() == "http" && !loopback {
            return Err(Error::InsecureUrl {
                url: shown(&parsed),
            });
        }
        if api_key.is_empty() {
            return Err(Error::Setup("the API key is empty".into()));
        }
        let mut authorization = HeaderValue::from_str(&format!("Bearer {}", api_key.expose()))
            .map_err(|_| {
                Error::Setup("the API key contains characters a header cannot carry".into())
            })?;
        authorization.set_sensitive(true);
        let mut http = crate::http::client_builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .user_agent(concat!("domain-desk/", env!("CARGO_PKG_VERSION")))
            // API v1 never redirects; a redirect is a misconfigured or hostile server, and
            // following it could carry the key elsewhere.
            .redirect(reqwest::redirect::Policy::none());
        if loopback {
            // A proxy from HTTP_PROXY/ALL_PROXY has no business seeing loopback traffic, let
            // alone the key sent over plain http to it.
            http = http.no_proxy();
        }
        let http = http
            .build()
            .map_err(|err| Error::Setup(err.without_url().to_string()))?;
        Ok(Self {
            http,
            base_url,
            authorization,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        })
    }

    /// Reads at most `limit` bytes of an answer's body; a longer answer fails with
    /// [`Error::ResponseTooLarge`].
    pub fn max_response_bytes(mut self, limit: u64) -> Self {
        self.max_response_bytes = limit;
        self
    }
}

/// Reads the body chunk by chunk, giving up as soon as it passes `limit` (or announces that
/// it will, with its Content-Length).
async fn read_capped(
    mut response: reqwest::Response,
    limit: u64,
) -> std::result::Result<Bytes, TransportError> {
    let announced = response.content_length();
    if announced.is_some_and(|length| length > limit) {
        return Err(TransportError::TooLarge { limit });
    }
    let capacity = announced.unwrap_or(0).min(limit).min(1024 * 1024);
    let mut body = BytesMut::with_capacity(usize::try_from(capacity).unwrap_or(0));
    while let Some(chunk) = response.chunk().await.map_err(transport_error)? {
        if body.len() as u64 + chunk.len() as u64 > limit {
            return Err(TransportError::TooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
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
        let limit = self.max_response_bytes;
        Box::pin(async move {
            let response = builder.send().await.map_err(transport_error)?;
            let status = response.status();
            let headers = response.headers().clone();
            let body = read_capped(response, limit).await?;
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
        return TransportError::Timeout;
    }
    // The host is the one the caller gave (never the key, which travels in a header); it lets
    // the failure name what was tried in words.
    let host = err
        .url()
        .and_then(|url| url.host_str())
        .unwrap_or("the platform")
        .to_owned();
    let err = err.without_url();
    let mut message = err.to_string();
    let mut failure = Failure::Other;
    let mut source = std::error::Error::source(&err);
    while let Some(cause) = source {
        let text = cause.to_string();
        failure = failure.or(classify(cause, &text));
        message.push_str(": ");
        message.push_str(&text);
        source = cause.source();
    }
    match failure {
        Failure::NoSuchHost => TransportError::NoSuchHost { host },
        Failure::Refused => TransportError::ConnectionRefused { host },
        Failure::Certificate => TransportError::UntrustedCertificate { host },
        Failure::Other => TransportError::Network(message),
    }
}

/// What a connection failure's cause says, as far as the user's next step differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    NoSuchHost,
    Refused,
    Certificate,
    Other,
}

impl Failure {
    fn or(self, other: Failure) -> Failure {
        if self == Failure::Other { other } else { self }
    }
}

/// Reads one cause of a connection failure. A refusal and a certificate are typed errors; a
/// name the system's resolver does not know is only told by getaddrinfo's words (EAI_NONAME,
/// EAI_NODATA as glibc, macOS and Windows say them): "Temporary failure in name resolution"
/// (no DNS reachable) stays a plain network failure.
fn classify(cause: &(dyn std::error::Error + 'static), text: &str) -> Failure {
    if let Some(io) = cause.downcast_ref::<std::io::Error>()
        && io.kind() == std::io::ErrorKind::ConnectionRefused
    {
        return Failure::Refused;
    }
    if let Some(tls) = cause.downcast_ref::<rustls::Error>()
        && matches!(
            tls,
            rustls::Error::InvalidCertificate(_) | rustls::Error::NoCertificatesPresented
        )
    {
        return Failure::Certificate;
    }
    const NO_SUCH_NAME: [&str; 4] = [
        "Name or service not known",
        "No address associated with hostname",
        "nodename nor servname provided",
        "No such host is known",
    ];
    if NO_SUCH_NAME.iter().any(|words| text.contains(words)) {
        return Failure::NoSuchHost;
    }
    Failure::Other
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

    #[test]
    fn plain_http_is_refused_except_to_loopback_naming_the_url_not_the_key() {
        let key = ApiKey::new("ddk_secret_value");
        let timeout = Duration::from_secs(5);
        for remote in [
            "http://api.example.com",
            "http://192.168.1.10:8787/",
            "http://localhost.example.com",
            "http://[2001:db8::1]:8787",
            "http://user:pw@api.example.com/?key=ddk_secret_value#ddk_secret_value",
        ] {
            let err = HttpTransport::new(remote, &key, timeout).unwrap_err();
            assert!(err.is_insecure_url(), "{remote}: {err}");
            let text = err.to_string();
            assert!(!text.contains("ddk_secret_value"), "{text}");
            assert!(!text.contains("pw@"), "{text}");
            let url = Url::parse(remote).unwrap();
            assert!(text.contains(url.host_str().unwrap()), "{text}");
        }
        for local in [
            "http://127.0.0.1:8787",
            "http://127.3.2.1",
            "http://localhost:8787/",
            "http://LOCALHOST.",
            "http://[::1]:8787",
            "https://api.example.com",
            "https://192.168.1.10",
        ] {
            assert!(HttpTransport::new(local, &key, timeout).is_ok(), "{local}");
        }
    }

    #[test]
    fn loopback_is_localhost_127_slash_8_and_ipv6_one() {
        let yes = |u: &str| is_loopback(&Url::parse(u).unwrap());
        assert!(yes("http://127.0.0.1"));
        assert!(yes("http://127.255.0.9:1"));
        assert!(yes("http://[::1]"));
        assert!(yes("http://localhost"));
        assert!(!yes("http://128.0.0.1"));
        assert!(!yes("http://0.0.0.0"));
        assert!(!yes("http://[::2]"));
        assert!(!yes("http://localhost.evil.example"));
        assert!(!yes("http://evil-localhost"));
    }
}
