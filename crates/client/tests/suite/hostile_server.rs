//! The real HTTP transport against servers that misbehave on purpose, written with a raw
//! `TcpListener` so that they can do what no well-behaved framework would: announce a body of
//! a hundred gigabytes, stream one that never ends, redirect the key elsewhere. Plus a proxy
//! that must never see loopback traffic.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use domain_desk_client::{ApiKey, Client, ClientConfig, DEFAULT_MAX_RESPONSE_BYTES, HttpTransport};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const KEY: &str = "ddk_hostile_test_secret";

/// What the server answers to every request.
#[derive(Clone)]
enum Reply {
    /// 200 with a Content-Length of 100 GB, a few bytes, then silence.
    HugeLength,
    /// 200 chunked, 64 KiB chunks for as long as the client reads (at most 256 MiB, then the
    /// connection is dropped without the final chunk).
    EndlessChunked,
    /// 307 to this URL.
    Redirect(String),
    /// 200 with this JSON body.
    Json(&'static str),
}

struct Server {
    addr: SocketAddr,
    /// The head of every request received.
    requests: Arc<Mutex<Vec<String>>>,
    /// Body bytes written to clients, over all connections.
    written: Arc<AtomicU64>,
}

impl Server {
    async fn start(reply: Reply) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local address");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let written = Arc::new(AtomicU64::new(0));
        let (seen, count) = (requests.clone(), written.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, reply.clone(), seen.clone(), count.clone()));
            }
        });
        Self {
            addr,
            requests,
            written,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

async fn serve(
    mut stream: TcpStream,
    reply: Reply,
    seen: Arc<Mutex<Vec<String>>>,
    written: Arc<AtomicU64>,
) {
    loop {
        let Some(head) = read_head(&mut stream).await else {
            return;
        };
        seen.lock().unwrap().push(head);
        match &reply {
            Reply::HugeLength => {
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000000000\r\n\r\n{\"id\":")
                    .await;
                // Hold the connection open until the client goes away.
                let mut sink = [0u8; 1024];
                while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
                return;
            }
            Reply::EndlessChunked => {
                let head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
                if stream.write_all(head).await.is_err() {
                    return;
                }
                let mut chunk = b"10000\r\n".to_vec();
                chunk.extend(std::iter::repeat_n(b' ', 0x10000));
                chunk.extend_from_slice(b"\r\n");
                while written.load(Ordering::Relaxed) < 256 * 1024 * 1024 {
                    if stream.write_all(&chunk).await.is_err() {
                        return;
                    }
                    written.fetch_add(0x10000, Ordering::Relaxed);
                }
                return;
            }
            Reply::Redirect(location) => {
                let answer = format!(
                    "HTTP/1.1 307 Temporary Redirect\r\nlocation: {location}\r\ncontent-length: 0\r\n\r\n"
                );
                if stream.write_all(answer.as_bytes()).await.is_err() {
                    return;
                }
            }
            Reply::Json(body) => {
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                    body.len()
                );
                if stream.write_all(answer.as_bytes()).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Reads one request head (the client's requests here have no body).
async fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte).await {
            Ok(1) => head.push(byte[0]),
            _ => return None,
        }
    }
    Some(String::from_utf8_lossy(&head).into_owned())
}

fn client(base_url: &str) -> Client {
    let mut config = ClientConfig::new(base_url, KEY);
    config.queue.sync_on_start = false;
    config.request_timeout = Duration::from_secs(20);
    Client::new(config).expect("client")
}

#[tokio::test]
async fn a_huge_content_length_is_refused_before_reading_and_not_retried() {
    let server = Server::start(Reply::HugeLength).await;
    let err = client(&server.url()).account().await.unwrap_err();
    assert!(err.is_response_too_large(), "{err}");
    assert!(
        err.to_string()
            .contains(&DEFAULT_MAX_RESPONSE_BYTES.to_string()),
        "{err}"
    );
    assert!(!err.to_string().contains(KEY));
    assert_eq!(
        server.requests().len(),
        1,
        "sent again: {:?}",
        server.requests()
    );
}

#[tokio::test]
async fn an_endless_chunked_body_stops_at_the_cap() {
    let server = Server::start(Reply::EndlessChunked).await;
    let err = client(&server.url()).account().await.unwrap_err();
    assert!(err.is_response_too_large(), "{err}");
    assert_eq!(
        server.requests().len(),
        1,
        "sent again: {:?}",
        server.requests()
    );
    // The client read a little more than the cap and hung up; what the server managed to
    // write beyond that sits in socket buffers (a few MiB on loopback), not in the client.
    let written = server.written.load(Ordering::Relaxed);
    assert!(
        written < DEFAULT_MAX_RESPONSE_BYTES + 48 * 1024 * 1024,
        "the server wrote {written} bytes before the client stopped"
    );
}

#[tokio::test]
async fn a_smaller_cap_is_kept_and_answers_within_it_are_read() {
    let server = Server::start(Reply::Json(r#"{"ok":true,"padding":"0123456789"}"#)).await;
    let key = ApiKey::new(KEY);
    let small = HttpTransport::new(&server.url(), &key, Duration::from_secs(5))
        .unwrap()
        .max_response_bytes(16);
    let within = HttpTransport::new(&server.url(), &key, Duration::from_secs(5)).unwrap();
    let request = domain_desk_client::ApiRequest::get("/v1/account");
    use domain_desk_client::Transport;
    let err = small.send(&request).await.unwrap_err();
    assert_eq!(
        err,
        domain_desk_client::TransportError::TooLarge { limit: 16 }
    );
    let answer = within.send(&request).await.unwrap();
    assert_eq!(&answer.body[..], br#"{"ok":true,"padding":"0123456789"}"#);
}

#[tokio::test]
async fn redirects_are_not_followed_so_the_key_stays_put() {
    let elsewhere = Server::start(Reply::Json("{}")).await;
    let server = Server::start(Reply::Redirect(format!("{}/v1/account", elsewhere.url()))).await;
    let err = client(&server.url()).account().await.unwrap_err();
    assert_eq!(err.kind(), "decode", "{err}");
    assert!(
        elsewhere.requests().is_empty(),
        "followed the redirect: {:?}",
        elsewhere.requests()
    );
    let first = &server.requests()[0];
    assert!(
        first.to_ascii_lowercase().contains("authorization: bearer"),
        "{first}"
    );
}

/// The environment variable that tells a re-run of this test binary it is the child that runs
/// behind a proxy.
const PROXY_CHILD: &str = "DOMAIN_DESK_TEST_PROXY_CHILD";

/// `HTTP_PROXY` and `ALL_PROXY` point at a listener that counts connections; the client's
/// requests to a loopback platform must go straight there. Proxy settings are read from the
/// environment, which a test may not change in its own process (other tests run beside it),
/// so this test runs itself again as a child process with the proxy set.
#[tokio::test]
async fn loopback_requests_bypass_the_environment_proxy() {
    if std::env::var_os(PROXY_CHILD).is_some() {
        let server = Server::start(Reply::Json(r#"{"projects":[]}"#)).await;
        let result = client(&server.url())
            .send(domain_desk_client::ApiRequest::get("/v1/projects"))
            .await;
        let answer = result.expect("the loopback platform answers directly");
        assert_eq!(answer.status.as_u16(), 200);
        assert_eq!(server.requests().len(), 1);
        return;
    }
    let proxy = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let proxy_url = format!("http://{}", proxy.local_addr().unwrap());
    let connections = Arc::new(AtomicU64::new(0));
    let counted = connections.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = proxy.accept().await {
            counted.fetch_add(1, Ordering::Relaxed);
            drop(stream);
        }
    });
    let output = tokio::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "suite::hostile_server::loopback_requests_bypass_the_environment_proxy",
            "--exact",
            "--nocapture",
        ])
        .env(PROXY_CHILD, "1")
        .env("HTTP_PROXY", &proxy_url)
        .env("http_proxy", &proxy_url)
        .env("ALL_PROXY", &proxy_url)
        .env("all_proxy", &proxy_url)
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .output()
        .await
        .expect("the test binary runs again");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "the child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        connections.load(Ordering::Relaxed),
        0,
        "loopback traffic went through the proxy"
    );
}
