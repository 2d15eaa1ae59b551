//! The edge over real sockets, with a TLS client that trusts only the local CA.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use chrono::Utc;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, RootCertStore};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio_rustls::TlsConnector;

use super::*;
use crate::ca::CertificateAuthority;

/// Deployed files held in memory: project id → path → content.
struct MemoryFiles(HashMap<String, HashMap<String, Vec<u8>>>);

impl SiteFiles for MemoryFiles {
    fn file(&self, project_id: &str, path: &str) -> Option<Vec<u8>> {
        self.0.get(project_id)?.get(path).cloned()
    }
}

struct RunningEdge {
    https: SocketAddr,
    http: SocketAddr,
    routes: EdgeRoutes,
    root_pem: String,
    _stop: (oneshot::Sender<()>, oneshot::Sender<()>),
}

fn host_for(ca: &CertificateAuthority, name: &str, route: Route) -> EdgeHost {
    let issued = ca.issue(&[name.to_owned()], Utc::now()).unwrap();
    EdgeHost {
        certificate: certified_key(&issued, ca.certificate_pem()).unwrap(),
        route,
    }
}

async fn start_edge(ca: &CertificateAuthority) -> RunningEdge {
    let routes = EdgeRoutes::new();
    let project = || Route::Project {
        project_id: "prj_1".to_owned(),
    };
    routes.insert(
        "site-abc.pages.test",
        host_for(ca, "site-abc.pages.test", project()),
    );
    routes.insert(
        "bars1.example.com",
        host_for(ca, "bars1.example.com", project()),
    );
    routes.insert(
        "old1.example.com",
        host_for(
            ca,
            "old1.example.com",
            Route::Redirect {
                to: "bars1.example.com".to_owned(),
            },
        ),
    );
    let files = MemoryFiles(HashMap::from([(
        "prj_1".to_owned(),
        HashMap::from([
            ("index.html".to_owned(), b"<h1>bars world</h1>".to_vec()),
            ("docs/index.html".to_owned(), b"docs".to_vec()),
        ]),
    )]));
    let https_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let http_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let https = https_listener.local_addr().unwrap();
    let http = http_listener.local_addr().unwrap();
    let (stop_https, https_stopped) = oneshot::channel::<()>();
    let (stop_http, http_stopped) = oneshot::channel::<()>();
    let directory: Arc<dyn EdgeDirectory> = Arc::new(routes.clone());
    tokio::spawn(serve_https(
        https_listener,
        directory.clone(),
        Arc::new(files),
        async move {
            let _ = https_stopped.await;
        },
    ));
    tokio::spawn(serve_http(
        http_listener,
        directory,
        https.port(),
        async move {
            let _ = http_stopped.await;
        },
    ));
    RunningEdge {
        https,
        http,
        routes,
        root_pem: ca.certificate_pem().to_owned(),
        _stop: (stop_https, stop_http),
    }
}

/// GET over TLS with a client trusting only `root_pem`; the raw response text, or the
/// handshake error.
async fn get_tls(
    edge: SocketAddr,
    root_pem: &str,
    name: &str,
    path: &str,
) -> Result<String, std::io::Error> {
    let mut roots = RootCertStore::empty();
    for certificate in CertificateDer::pem_slice_iter(root_pem.as_bytes()) {
        roots.add(certificate.unwrap()).unwrap();
    }
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
    let tcp = TcpStream::connect(edge).await?;
    let server_name = ServerName::try_from(name.to_owned()).unwrap();
    let mut tls = TlsConnector::from(Arc::new(config))
        .connect(server_name, tcp)
        .await?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {name}\r\nConnection: close\r\n\r\n");
    tls.write_all(request.as_bytes()).await?;
    let mut response = String::new();
    tls.read_to_string(&mut response).await?;
    Ok(response)
}

async fn get_plain(edge: SocketAddr, host: &str, path: &str) -> String {
    let mut tcp = TcpStream::connect(edge).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    tcp.read_to_string(&mut response).await.unwrap();
    response
}

fn location(response: &str) -> Option<&str> {
    response
        .lines()
        .find_map(|line| {
            line.strip_prefix("location: ")
                .or_else(|| line.strip_prefix("Location: "))
        })
        .map(str::trim)
}

#[tokio::test]
async fn each_name_gets_its_own_certificate_and_the_project() {
    let ca = CertificateAuthority::generate("letsencrypt.org").unwrap();
    let edge = start_edge(&ca).await;
    for name in ["site-abc.pages.test", "bars1.example.com"] {
        let response = get_tls(edge.https, &edge.root_pem, name, "/")
            .await
            .unwrap();
        assert!(response.starts_with("HTTP/1.1 200"), "{name}: {response}");
        assert!(response.contains("text/html"));
        assert!(response.ends_with("<h1>bars world</h1>"));
    }
    let docs = get_tls(edge.https, &edge.root_pem, "bars1.example.com", "/docs/")
        .await
        .unwrap();
    assert!(docs.starts_with("HTTP/1.1 200") && docs.ends_with("docs"));
    let missing = get_tls(edge.https, &edge.root_pem, "bars1.example.com", "/nope.css")
        .await
        .unwrap();
    assert!(missing.starts_with("HTTP/1.1 404"));
    let escape = get_tls(
        edge.https,
        &edge.root_pem,
        "bars1.example.com",
        "/../secret",
    )
    .await
    .unwrap();
    assert!(escape.starts_with("HTTP/1.1 404"));
}

#[tokio::test]
async fn a_client_trusting_another_root_refuses_the_edge() {
    let ca = CertificateAuthority::generate("letsencrypt.org").unwrap();
    let other = CertificateAuthority::generate("letsencrypt.org").unwrap();
    let edge = start_edge(&ca).await;
    assert!(
        get_tls(
            edge.https,
            other.certificate_pem(),
            "bars1.example.com",
            "/"
        )
        .await
        .is_err()
    );
}

#[tokio::test]
async fn unknown_and_removed_names_get_no_certificate() {
    let ca = CertificateAuthority::generate("letsencrypt.org").unwrap();
    let edge = start_edge(&ca).await;
    assert!(
        get_tls(edge.https, &edge.root_pem, "unknown.example.com", "/")
            .await
            .is_err()
    );
    assert!(
        get_tls(edge.https, &edge.root_pem, "bars1.example.com", "/")
            .await
            .is_ok()
    );
    assert!(edge.routes.remove("bars1.example.com"));
    assert!(
        get_tls(edge.https, &edge.root_pem, "bars1.example.com", "/")
            .await
            .is_err()
    );
}

#[tokio::test]
async fn a_redirect_domain_answers_301_with_path_and_query() {
    let ca = CertificateAuthority::generate("letsencrypt.org").unwrap();
    let edge = start_edge(&ca).await;
    let response = get_tls(edge.https, &edge.root_pem, "old1.example.com", "/a/b?c=1")
        .await
        .unwrap();
    assert!(response.starts_with("HTTP/1.1 301"), "{response}");
    assert_eq!(
        location(&response),
        Some("https://bars1.example.com/a/b?c=1")
    );
}

#[tokio::test]
async fn plain_http_redirects_known_names_to_tls() {
    let ca = CertificateAuthority::generate("letsencrypt.org").unwrap();
    let edge = start_edge(&ca).await;
    let response = get_plain(
        edge.http,
        &format!("bars1.example.com:{}", edge.http.port()),
        "/x?y=2",
    )
    .await;
    assert!(response.starts_with("HTTP/1.1 301"), "{response}");
    let expected = format!("https://bars1.example.com:{}/x?y=2", edge.https.port());
    assert_eq!(location(&response), Some(expected.as_str()));
    let unknown = get_plain(edge.http, "unknown.example.com", "/").await;
    assert!(unknown.starts_with("HTTP/1.1 404"));
}

#[tokio::test]
async fn a_reloaded_ca_issues_certificates_that_chain_to_the_kept_root() {
    let first = CertificateAuthority::generate("letsencrypt.org").unwrap();
    let kept = first.material().clone();
    drop(first);
    let reloaded = CertificateAuthority::load("letsencrypt.org", kept.clone()).unwrap();
    assert_eq!(reloaded.certificate_pem(), kept.certificate_pem);
    let edge = start_edge(&reloaded).await;
    let response = get_tls(edge.https, &kept.certificate_pem, "bars1.example.com", "/")
        .await
        .unwrap();
    assert!(response.starts_with("HTTP/1.1 200"));
}

const SLOW_CLIENT_LIMITS: crate::ConnectionLimits = crate::ConnectionLimits {
    max_connections: 1,
    header_read_timeout: std::time::Duration::from_secs(5),
    idle_timeout: std::time::Duration::from_secs(20),
};

/// Reads until the edge closes the connection; `false` if it is still open after an hour.
async fn closed_within_an_hour(stream: &mut (impl tokio::io::AsyncRead + Unpin)) -> bool {
    let mut rest = Vec::new();
    let hour = std::time::Duration::from_secs(3600);
    tokio::time::timeout(hour, stream.read_to_end(&mut rest))
        .await
        .is_ok()
}

#[tokio::test(start_paused = true)]
async fn the_tls_edge_closes_a_client_that_sends_no_request_after_the_handshake() {
    let ca = CertificateAuthority::generate("letsencrypt.org").unwrap();
    let routes = EdgeRoutes::new();
    let name = "slow.example.com";
    let project = Route::Project {
        project_id: "prj_1".to_owned(),
    };
    routes.insert(name, host_for(&ca, name, project));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let directory: Arc<dyn EdgeDirectory> = Arc::new(routes);
    tokio::spawn(serve_https_with_limits(
        listener,
        directory,
        Arc::new(MemoryFiles(HashMap::new())),
        &SLOW_CLIENT_LIMITS,
        std::future::pending(),
    ));
    let mut roots = RootCertStore::empty();
    for certificate in CertificateDer::pem_slice_iter(ca.certificate_pem().as_bytes()) {
        roots.add(certificate.unwrap()).unwrap();
    }
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
    let tcp = TcpStream::connect(addr).await.unwrap();
    let mut tls = TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from(name).unwrap(), tcp)
        .await
        .unwrap();
    tls.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
    let started = tokio::time::Instant::now();
    assert!(
        closed_within_an_hour(&mut tls).await,
        "a client that never finished its request kept the TLS connection"
    );
    assert!(started.elapsed() < SLOW_CLIENT_LIMITS.idle_timeout);
}

#[tokio::test(start_paused = true)]
async fn the_http_edge_serves_one_client_at_a_time_when_the_limit_is_one() {
    let routes = EdgeRoutes::new();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let directory: Arc<dyn EdgeDirectory> = Arc::new(routes);
    tokio::spawn(serve_http_with_limits(
        listener,
        directory,
        443,
        &SLOW_CLIENT_LIMITS,
        std::future::pending(),
    ));
    let mut slowloris = TcpStream::connect(addr).await.unwrap();
    slowloris.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
    let mut next = TcpStream::connect(addr).await.unwrap();
    next.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut byte = [0; 1];
    let second = std::time::Duration::from_secs(1);
    let early = tokio::time::timeout(second, next.read(&mut byte)).await;
    assert!(
        early.is_err(),
        "a second client was served beside the first"
    );
    // The Slowloris client is closed at its header timeout, and the next one is served.
    assert!(closed_within_an_hour(&mut slowloris).await);
    let mut answer = String::new();
    next.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
}
