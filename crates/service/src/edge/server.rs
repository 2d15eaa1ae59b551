//! The edge's two listeners: TLS (rustls, certificate chosen by SNI from the edge's directory) that
//! serves projects' files and answers redirect domains with 301, and plain HTTP that sends every
//! known name to its https address.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HOST, LOCATION};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rustls::ServerConfig;
use rustls::server::Acceptor;
use rustls::sign::CertifiedKey;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio_rustls::LazyConfigAcceptor;

use super::routes::{CertificateBySni, EdgeDirectory, Route};
use crate::Result;
use crate::server::{Activity, Watched, accept_until, until_idle};
use crate::settings::ConnectionLimits;

/// How long a client may take to complete the TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the edge reads a project's deployed files.
pub trait SiteFiles: Send + Sync + 'static {
    /// The file at `path` (no leading slash, e.g. `index.html`, `css/site.css`) of the
    /// project's current deploy.
    fn file(&self, project_id: &str, path: &str) -> Option<Vec<u8>>;
}

type Body = Full<Bytes>;

/// The rustls configuration of the edge: certificates come from the directory.
pub fn tls_config(routes: &Arc<dyn EdgeDirectory>) -> Result<Arc<ServerConfig>> {
    let mut config =
        ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_cert_resolver(Arc::new(CertificateBySni(routes.clone())));
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Serves TLS on a bound listener until `shutdown` completes, with the default
/// [`ConnectionLimits`].
pub async fn serve_https(
    listener: TcpListener,
    routes: Arc<dyn EdgeDirectory>,
    files: Arc<dyn SiteFiles>,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<()> {
    serve_https_with_limits(
        listener,
        routes,
        files,
        &ConnectionLimits::default(),
        shutdown,
    )
    .await
}

/// Serves TLS on a bound listener within `limits` until `shutdown` completes.
pub async fn serve_https_with_limits(
    listener: TcpListener,
    routes: Arc<dyn EdgeDirectory>,
    files: Arc<dyn SiteFiles>,
    limits: &ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<()> {
    let config = tls_config(&routes)?;
    let limits = *limits;
    accept_until(&listener, &limits, shutdown, |stream, peer, permit| {
        let config = config.clone();
        let routes = routes.clone();
        let files = files.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let (stream, activity) = Watched::new(stream);
            let handshake = async {
                // The directory is read on the blocking pool (it may ask the database), so the
                // name is taken from the ClientHello first and the certificate chosen then.
                let start = LazyConfigAcceptor::new(Acceptor::default(), stream).await?;
                let server_name = start
                    .client_hello()
                    .server_name()
                    .map(str::to_owned)
                    .ok_or_else(|| std::io::Error::other("no server name (SNI)"))?;
                let lookup = {
                    let (routes, name) = (routes.clone(), server_name.clone());
                    tokio::task::spawn_blocking(move || routes.host(&name))
                        .await
                        .map_err(std::io::Error::other)?
                };
                let host = lookup
                    .ok_or_else(|| std::io::Error::other("a name this edge does not serve"))?;
                let tls = start
                    .into_stream(with_certificate(&config, host.certificate))
                    .await?;
                Ok::<_, std::io::Error>((tls, server_name))
            };
            let (tls, server_name) = match tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake).await
            {
                Ok(Ok(done)) => done,
                Ok(Err(error)) => {
                    tracing::debug!(%error, %peer, "edge TLS handshake failed");
                    return;
                }
                Err(_) => return,
            };
            let server_name: Arc<str> = server_name.into();
            serve_connection(tls, &activity, &limits, peer, move |request| {
                let (routes, files, server_name) =
                    (routes.clone(), files.clone(), server_name.clone());
                let (method, uri) = (request.method().clone(), request.uri().clone());
                move || answer_https(routes.as_ref(), files.as_ref(), &server_name, &method, &uri)
            })
            .await;
        });
    })
    .await;
    Ok(())
}

/// The edge's TLS settings with one certificate: the one the directory chose for this
/// connection's name.
fn with_certificate(base: &Arc<ServerConfig>, certificate: Arc<CertifiedKey>) -> Arc<ServerConfig> {
    let mut config = (**base).clone();
    config.cert_resolver = Arc::new(SingleCertificate(certificate));
    Arc::new(config)
}

#[derive(Debug)]
struct SingleCertificate(Arc<CertifiedKey>);

impl rustls::server::ResolvesServerCert for SingleCertificate {
    fn resolve(&self, _: rustls::server::ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.clone())
    }
}

/// Serves plain HTTP on a bound listener until `shutdown` completes, with the default
/// [`ConnectionLimits`]: 301 to https for every name the edge serves. `https_port` is added to
/// the location unless it is 443.
pub async fn serve_http(
    listener: TcpListener,
    routes: Arc<dyn EdgeDirectory>,
    https_port: u16,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<()> {
    serve_http_with_limits(
        listener,
        routes,
        https_port,
        &ConnectionLimits::default(),
        shutdown,
    )
    .await
}

/// [`serve_http`] within `limits`.
pub async fn serve_http_with_limits(
    listener: TcpListener,
    routes: Arc<dyn EdgeDirectory>,
    https_port: u16,
    limits: &ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<()> {
    let limits = *limits;
    accept_until(&listener, &limits, shutdown, |stream, peer, permit| {
        let routes = routes.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let (stream, activity) = Watched::new(stream);
            serve_connection(stream, &activity, &limits, peer, move |request| {
                let routes = routes.clone();
                let host = request_host(request);
                let path_and_query = request
                    .uri()
                    .path_and_query()
                    .map_or_else(|| "/".to_owned(), |value| value.as_str().to_owned());
                move || answer_http(routes.as_ref(), https_port, &host, &path_and_query)
            })
            .await;
        });
    })
    .await;
    Ok(())
}

/// Serves one connection's requests until it ends or no byte moves on it for the idle time
/// of `limits`: HTTP/1.1, each request answered on the blocking pool (the directory may ask
/// the database) by the job `answer` makes of it. The HTTPS and HTTP edges differ only in
/// the stream (TLS or plain) and in the answer.
async fn serve_connection<S, A, J>(
    stream: S,
    activity: &Activity,
    limits: &ConnectionLimits,
    peer: SocketAddr,
    answer: A,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    A: Fn(&Request<Incoming>) -> J + Send + Sync + 'static,
    J: FnOnce() -> Response<Body> + Send + 'static,
{
    let service = service_fn(move |request: Request<Incoming>| {
        let job = answer(&request);
        async move {
            let response = tokio::task::spawn_blocking(job).await.unwrap_or_else(|_| {
                text(StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong.\n")
            });
            Ok::<_, std::convert::Infallible>(response)
        }
    });
    let connection = http1_builder(limits).serve_connection(TokioIo::new(stream), service);
    match until_idle(connection, activity, limits.idle_timeout).await {
        Some(Ok(())) => {}
        Some(Err(error)) => {
            tracing::debug!(%error, %peer, "edge connection ended with an error");
        }
        None => tracing::debug!(%peer, "edge closed an idle connection"),
    }
}

/// HTTP/1.1 with the header timeout of `limits`.
fn http1_builder(limits: &ConnectionLimits) -> http1::Builder {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    builder
}

fn answer_https(
    routes: &dyn EdgeDirectory,
    files: &dyn SiteFiles,
    server_name: &str,
    method: &Method,
    uri: &hyper::Uri,
) -> Response<Body> {
    // The route is read again for every request, so a removed name stops at once even on a
    // connection that was opened before.
    let Some(host) = routes.host(server_name) else {
        return text(
            StatusCode::MISDIRECTED_REQUEST,
            "This name is not served here.\n",
        );
    };
    let path_and_query = uri.path_and_query().map_or("/", |value| value.as_str());
    match host.route {
        Route::Redirect { to } => redirect(&format!("https://{to}{path_and_query}")),
        Route::Project { project_id } => {
            if method != Method::GET && method != Method::HEAD {
                return text(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "Only GET and HEAD are served.\n",
                );
            }
            let Some(path) = file_path(uri.path()) else {
                return text(StatusCode::NOT_FOUND, "Not found.\n");
            };
            match files.file(&project_id, &path) {
                Some(content) => {
                    let body = if method == Method::HEAD {
                        Bytes::new()
                    } else {
                        Bytes::from(content)
                    };
                    response(StatusCode::OK, content_type(&path), body)
                }
                None => text(StatusCode::NOT_FOUND, "Not found.\n"),
            }
        }
    }
}

/// The name a plain-HTTP request asks for: its Host header (or the URI's host), without port.
fn request_host(request: &Request<Incoming>) -> String {
    let host = request
        .headers()
        .get(HOST)
        .and_then(|value| value.to_str().ok())
        .or_else(|| request.uri().host())
        .unwrap_or_default();
    host.rsplit_once(':')
        .map_or(host, |(name, _)| name)
        .to_owned()
}

fn answer_http(
    routes: &dyn EdgeDirectory,
    https_port: u16,
    name: &str,
    path_and_query: &str,
) -> Response<Body> {
    if name.is_empty() || routes.host(name).is_none() {
        return text(StatusCode::NOT_FOUND, "This name is not served here.\n");
    }
    let port = if https_port == 443 {
        String::new()
    } else {
        format!(":{https_port}")
    };
    redirect(&format!(
        "https://{}{port}{path_and_query}",
        name.to_ascii_lowercase()
    ))
}

/// The file a request path names, percent-decoded: `/` and `/dir/` serve `index.html`; `..`
/// and `.` segments, and paths that do not decode to UTF-8, name nothing.
pub fn file_path(request_path: &str) -> Option<String> {
    let decoded = percent_decode(request_path)?;
    let trimmed = decoded.trim_start_matches('/');
    if trimmed
        .split('/')
        .any(|segment| segment == ".." || segment == ".")
    {
        return None;
    }
    if trimmed.is_empty() || trimmed.ends_with('/') {
        Some(format!("{trimmed}index.html"))
    } else {
        Some(trimmed.to_owned())
    }
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = text.get(index + 1..index + 3)?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            decoded.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

fn content_type(path: &str) -> &'static str {
    match path
        .rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase())
        .as_deref()
    {
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("txt") => "text/plain; charset=utf-8",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

fn response(status: StatusCode, content_type: &str, body: Bytes) -> Response<Body> {
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    if let Ok(value) = content_type.parse() {
        response.headers_mut().insert(CONTENT_TYPE, value);
    }
    response
}

fn text(status: StatusCode, message: &'static str) -> Response<Body> {
    response(
        status,
        "text/plain; charset=utf-8",
        Bytes::from_static(message.as_bytes()),
    )
}

fn redirect(location: &str) -> Response<Body> {
    let mut response = text(StatusCode::MOVED_PERMANENTLY, "Moved permanently.\n");
    match location.parse() {
        Ok(value) => {
            response.headers_mut().insert(LOCATION, value);
            response
        }
        Err(_) => text(
            StatusCode::BAD_REQUEST,
            "The request's path cannot be redirected.\n",
        ),
    }
}

#[cfg(test)]
mod path_tests {
    use super::file_path;

    #[test]
    fn paths_name_files_and_never_escape() {
        assert_eq!(file_path("/").as_deref(), Some("index.html"));
        assert_eq!(file_path("/docs/").as_deref(), Some("docs/index.html"));
        assert_eq!(file_path("/a%20b.html").as_deref(), Some("a b.html"));
        assert_eq!(file_path("/caf%C3%A9.txt").as_deref(), Some("café.txt"));
        assert_eq!(file_path("/../etc/passwd"), None);
        assert_eq!(file_path("/%2e%2e/secret"), None);
        assert_eq!(file_path("/bad%zz"), None);
        assert_eq!(file_path("/bad%ff"), None);
    }
}
