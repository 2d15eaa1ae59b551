//! A TLS connection to the edge as a browser would make it (SNI = the hostname), live or from
//! a capture: which certificate is served (issuer, names, expiry) and what `GET /` answers.
//! What the doctor makes of it is `checks/tls.rs`; this is the observation, kept apart as
//! `dns/` keeps the asking apart from the checks.
//!
//! The handshake accepts any certificate so that a wrong or untrusted one can be shown rather
//! than only refused; whether it would be trusted is checked on the side and reported.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use x509_parser::prelude::{FromDer, GeneralName, X509Certificate};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;

use crate::report::CertificateInfo;

/// The most of an HTTP answer read to find its status and `Location`.
const MAX_HEAD_BYTES: usize = 16 * 1024;

/// What one TLS connection showed: the chain as sent, whether it would be trusted here, and
/// the answer to `GET /`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Observed {
    pub(crate) chain: Vec<Vec<u8>>,
    pub(crate) trust_error: Option<String>,
    pub(crate) http_status: Option<u16>,
    pub(crate) location: Option<String>,
}

/// Where TLS observations come from: the edge, the edge with each connection recorded for a
/// capture, or a capture alone.
pub(crate) enum TlsSource {
    Network,
    Recording(Mutex<Vec<TlsExchange>>),
    Replay(Vec<TlsExchange>),
}

impl TlsSource {
    /// One connection to `address` with the name `hostname`, as this source makes or
    /// remembers it.
    /// Trust is judged at `now`, the run's time (the platform's, against the local service).
    pub(crate) async fn observe(
        &self,
        hostname: &str,
        address: SocketAddr,
        extra_roots_pem: Option<&str>,
        timeout: Duration,
        now: DateTime<Utc>,
    ) -> Result<Observed, String> {
        match self {
            TlsSource::Network => observe(hostname, address, extra_roots_pem, timeout, now).await,
            TlsSource::Recording(log) => {
                let connected_at = now;
                let observed = observe(hostname, address, extra_roots_pem, timeout, now).await;
                let outcome = match &observed {
                    Ok(observed) => TlsOutcome::Connected {
                        chain: observed
                            .chain
                            .iter()
                            .map(|der| BASE64.encode(der))
                            .collect(),
                        trust_error: observed.trust_error.clone(),
                        http_status: observed.http_status,
                        location: observed.location.clone(),
                    },
                    Err(error) => TlsOutcome::Failed {
                        error: error.clone(),
                    },
                };
                log.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(TlsExchange {
                        hostname: hostname.to_owned(),
                        address,
                        connected_at,
                        outcome,
                    });
                observed
            }
            TlsSource::Replay(exchanges) => {
                let exchange = exchanges
                    .iter()
                    .find(|exchange| exchange.hostname == hostname && exchange.address == address)
                    .ok_or_else(|| {
                        format!("the capture holds no TLS connection to {address} for {hostname}")
                    })?;
                match &exchange.outcome {
                    TlsOutcome::Connected {
                        chain,
                        trust_error,
                        http_status,
                        location,
                    } => Ok(Observed {
                        chain: decode_chain(chain)?,
                        trust_error: trust_error.clone(),
                        http_status: *http_status,
                        location: location.clone(),
                    }),
                    TlsOutcome::Failed { error } => Err(error.clone()),
                }
            }
        }
    }

    /// The connections recorded so far (a recording source only).
    pub(crate) fn recorded(&self) -> Vec<TlsExchange> {
        match self {
            TlsSource::Recording(log) => log.lock().unwrap_or_else(PoisonError::into_inner).clone(),
            TlsSource::Network | TlsSource::Replay(_) => Vec::new(),
        }
    }
}

/// A certificate chain from its base64 form in a capture.
pub(crate) fn decode_chain(chain: &[String]) -> Result<Vec<Vec<u8>>, String> {
    chain
        .iter()
        .map(|certificate| {
            BASE64
                .decode(certificate)
                .map_err(|error| format!("a certificate in the capture is not base64: {error}"))
        })
        .collect()
}

async fn observe(
    hostname: &str,
    address: SocketAddr,
    extra_roots_pem: Option<&str>,
    timeout: Duration,
    now: DateTime<Utc>,
) -> Result<Observed, String> {
    tokio::time::timeout(
        timeout * 3,
        connect(hostname, address, extra_roots_pem, timeout, now),
    )
    .await
    .unwrap_or_else(|_| {
        Err(format!(
            "no TLS handshake within {} ms",
            (timeout * 3).as_millis()
        ))
    })
}

async fn connect(
    hostname: &str,
    address: SocketAddr,
    extra_roots_pem: Option<&str>,
    timeout: Duration,
    now: DateTime<Utc>,
) -> Result<Observed, String> {
    let recorder = Arc::new(RecordingVerifier::new(extra_roots_pem, unix_time(now))?);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| format!("TLS setup failed: {error}"))?
        .dangerous()
        .with_custom_certificate_verifier(recorder.clone())
        .with_no_client_auth();
    let server_name = ServerName::try_from(hostname.to_owned())
        .map_err(|_| format!("{hostname} is not a valid TLS server name"))?;
    let tcp = tokio::time::timeout(timeout, TcpStream::connect(address))
        .await
        .map_err(|_| "the connection timed out".to_owned())?
        .map_err(|error| format!("cannot connect: {error}"))?;
    let mut tls = TlsConnector::from(Arc::new(config))
        .connect(server_name, tcp)
        .await
        .map_err(|error| format!("TLS handshake failed: {error}"))?;
    let chain: Vec<Vec<u8>> = tls
        .get_ref()
        .1
        .peer_certificates()
        .map(|chain| chain.iter().map(|der| der.as_ref().to_vec()).collect())
        .unwrap_or_default();

    let request = format!(
        "GET / HTTP/1.1\r\nHost: {hostname}\r\nUser-Agent: domain-desk-doctor\r\nAccept: */*\r\nConnection: close\r\n\r\n"
    );
    let (http_status, location) = match tls.write_all(request.as_bytes()).await {
        Ok(()) => read_head(&mut tls, timeout).await,
        Err(_) => (None, None),
    };
    Ok(Observed {
        chain,
        trust_error: recorder.trust_error(),
        http_status,
        location,
    })
}

async fn read_head<S: tokio::io::AsyncRead + Unpin>(
    stream: &mut S,
    timeout: Duration,
) -> (Option<u16>, Option<String>) {
    let mut head = Vec::new();
    let mut buffer = [0u8; 4096];
    while head.len() < MAX_HEAD_BYTES && !head.windows(4).any(|window| window == b"\r\n\r\n") {
        match tokio::time::timeout(timeout, stream.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) | Err(_) => break,
            Ok(Ok(read)) => head.extend_from_slice(&buffer[..read]),
        }
    }
    parse_head(&String::from_utf8_lossy(&head))
}

/// The status code and `Location` of an HTTP/1.x response head.
pub fn parse_head(head: &str) -> (Option<u16>, Option<String>) {
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .filter(|line| line.starts_with("HTTP/"))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok());
    let location = lines.take_while(|line| !line.is_empty()).find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("location")
            .then(|| value.trim().to_owned())
    });
    (status, location)
}

pub(crate) fn describe(der: &[u8], hostname: &str, trust_error: Option<String>) -> CertificateInfo {
    let Ok((_, certificate)) = X509Certificate::from_der(der) else {
        return CertificateInfo {
            subject: String::new(),
            issuer: String::new(),
            names: Vec::new(),
            not_before: None,
            not_after: None,
            covers_hostname: false,
            trusted: false,
            trust_error: Some("the certificate could not be parsed".to_owned()),
        };
    };
    let mut names: Vec<String> = certificate
        .subject_alternative_name()
        .ok()
        .flatten()
        .map(|extension| {
            extension
                .value
                .general_names
                .iter()
                .filter_map(|name| match name {
                    GeneralName::DNSName(dns) => Some(dns.to_ascii_lowercase()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    if names.is_empty() {
        names.extend(
            certificate
                .subject()
                .iter_common_name()
                .filter_map(|name| name.as_str().ok())
                .map(str::to_ascii_lowercase),
        );
    }
    let time = |timestamp: i64| DateTime::<Utc>::from_timestamp(timestamp, 0);
    CertificateInfo {
        subject: certificate.subject().to_string(),
        issuer: certificate.issuer().to_string(),
        covers_hostname: names.iter().any(|name| name_covers(name, hostname)),
        names,
        not_before: time(certificate.validity().not_before.timestamp()),
        not_after: time(certificate.validity().not_after.timestamp()),
        trusted: trust_error.is_none(),
        trust_error,
    }
}

/// Whether a certificate name (`www.example.com`, `*.example.com`) covers `hostname`.
pub fn name_covers(pattern: &str, hostname: &str) -> bool {
    let pattern = pattern.trim_end_matches('.').to_ascii_lowercase();
    let hostname = hostname.trim_end_matches('.').to_ascii_lowercase();
    match pattern.strip_prefix("*.") {
        Some(parent) => hostname
            .split_once('.')
            .is_some_and(|(label, rest)| !label.is_empty() && rest == parent),
        None => pattern == hostname,
    }
}

/// `at` as rustls counts time (seconds since 1970; an instant before then is 1970 itself).
fn unix_time(at: DateTime<Utc>) -> UnixTime {
    UnixTime::since_unix_epoch(Duration::from_secs(
        u64::try_from(at.timestamp()).unwrap_or_default(),
    ))
}

/// Lets every certificate through the handshake but remembers whether the real verifier
/// (public roots plus the extra ones) would have accepted it at the run's time: rustls hands
/// the verifier this computer's time, which is not the platform's when the local service's
/// clock runs fast, so the verifier is given the run's instead.
#[derive(Debug)]
struct RecordingVerifier {
    inner: Arc<WebPkiServerVerifier>,
    outcome: Mutex<Option<String>>,
    /// The instant validity is judged at.
    now: UnixTime,
}

impl RecordingVerifier {
    fn new(extra_roots_pem: Option<&str>, now: UnixTime) -> Result<Self, String> {
        let mut roots = RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        if let Some(pem) = extra_roots_pem {
            for certificate in CertificateDer::pem_slice_iter(pem.as_bytes()) {
                let certificate =
                    certificate.map_err(|error| format!("unreadable extra root: {error}"))?;
                roots
                    .add(certificate)
                    .map_err(|error| format!("unusable extra root: {error}"))?;
            }
        }
        let inner = WebPkiServerVerifier::builder_with_provider(
            Arc::new(roots),
            Arc::new(rustls::crypto::ring::default_provider()),
        )
        .build()
        .map_err(|error| format!("TLS setup failed: {error}"))?;
        Ok(Self {
            inner,
            outcome: Mutex::new(Some("the handshake did not reach verification".to_owned())),
            now,
        })
    }

    fn trust_error(&self) -> Option<String> {
        self.outcome
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl ServerCertVerifier for RecordingVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        _this_computers_time: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let verdict = self
            .inner
            .verify_server_cert(
                end_entity,
                intermediates,
                server_name,
                ocsp_response,
                self.now,
            )
            .err()
            .map(|error| error.to_string());
        *self.outcome.lock().unwrap_or_else(PoisonError::into_inner) = verdict;
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// One TLS connection to the edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TlsExchange {
    pub hostname: String,
    pub address: SocketAddr,
    pub connected_at: DateTime<Utc>,
    #[serde(flatten)]
    pub outcome: TlsOutcome,
}

/// What a TLS connection showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TlsOutcome {
    Connected {
        /// The chain the server sent, base64 DER, leaf first.
        chain: Vec<String>,
        /// Why the chain was not trusted on the machine that captured it; `None` if it was.
        trust_error: Option<String>,
        http_status: Option<u16>,
        location: Option<String>,
    },
    Failed {
        error: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_names_cover_one_label() {
        assert!(name_covers("*.example.com", "www.example.com"));
        assert!(!name_covers("*.example.com", "a.b.example.com"));
        assert!(!name_covers("*.example.com", "example.com"));
        assert!(name_covers("WWW.example.com.", "www.example.com"));
        assert!(!name_covers("www.example.com", "shop.example.com"));
    }

    #[test]
    fn reads_status_and_location() {
        let head = "HTTP/1.1 301 Moved Permanently\r\nlocation: https://www.example.com/a\r\n\r\n";
        assert_eq!(
            parse_head(head),
            (Some(301), Some("https://www.example.com/a".to_owned()))
        );
        assert_eq!(parse_head("garbage"), (None, None));
        assert_eq!(parse_head("HTTP/1.1 200 OK\r\n\r\n"), (Some(200), None));
    }
}
