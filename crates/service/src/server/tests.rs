//! The API server's guards against clients that hold connections, on paused time: a Slowloris
//! client, a body that stops, more clients than the limit, and a listener out of file
//! descriptors.

use std::sync::atomic::{AtomicUsize, Ordering};

use axum::routing::{get, post};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::oneshot;

use super::*;

const LIMITS: ConnectionLimits = ConnectionLimits {
    max_connections: 2,
    header_read_timeout: Duration::from_secs(5),
    idle_timeout: Duration::from_secs(20),
};

/// Longer than any limit: a client still open after this was never closed.
const FOREVER: Duration = Duration::from_secs(3600);

async fn start(limits: ConnectionLimits) -> (SocketAddr, oneshot::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = Router::new()
        .route("/", get(|| async { "ok" }))
        .route("/echo", post(|body: String| async move { body }));
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        serve_with_limits(listener, router, &limits, async move {
            let _ = stopped.await;
        })
        .await
    });
    (addr, stop)
}

/// Reads until the server closes the connection; `None` if it is still open after [`FOREVER`].
async fn read_until_closed(stream: &mut TcpStream) -> Option<String> {
    let mut answer = Vec::new();
    match tokio::time::timeout(FOREVER, stream.read_to_end(&mut answer)).await {
        Ok(_) => Some(String::from_utf8_lossy(&answer).into_owned()),
        Err(_) => None,
    }
}

#[tokio::test(start_paused = true)]
async fn a_client_that_trickles_its_headers_is_closed_after_the_header_timeout() {
    let (addr, _stop) = start(LIMITS).await;
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    let answer = read_until_closed(&mut slow).await;
    assert!(answer.is_some(), "the Slowloris client kept its connection");
    let waited = started.elapsed();
    assert!(
        waited >= LIMITS.header_read_timeout && waited < LIMITS.idle_timeout,
        "closed after {waited:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn an_idle_keep_alive_connection_is_closed() {
    let (addr, _stop) = start(LIMITS).await;
    let mut client = TcpStream::connect(addr).await.unwrap();
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let answer = read_until_closed(&mut client).await;
    let answer = answer.expect("the idle connection stayed open");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[tokio::test(start_paused = true)]
async fn a_body_that_stops_coming_is_closed_after_the_idle_timeout() {
    let (addr, _stop) = start(LIMITS).await;
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc")
        .await
        .unwrap();
    let started = Instant::now();
    assert!(
        read_until_closed(&mut slow).await.is_some(),
        "a body that never ends kept the connection"
    );
    let waited = started.elapsed();
    assert!(waited >= LIMITS.idle_timeout, "closed after {waited:?}");
}

#[tokio::test(start_paused = true)]
async fn clients_beyond_the_limit_wait_until_a_connection_closes() {
    let (addr, _stop) = start(LIMITS).await;
    let first = TcpStream::connect(addr).await.unwrap();
    let _second = TcpStream::connect(addr).await.unwrap();
    let mut third = TcpStream::connect(addr).await.unwrap();
    third
        .write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut byte = [0; 1];
    let early = tokio::time::timeout(Duration::from_secs(1), third.read(&mut byte)).await;
    assert!(early.is_err(), "a third connection was served beside two");
    drop(first);
    let answer = read_until_closed(&mut third).await.expect("an answer");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// A listener that fails as one out of file descriptors does: at once, every time.
struct OutOfDescriptors {
    attempts: Arc<AtomicUsize>,
    fail_first: usize,
}

impl Listen for OutOfDescriptors {
    type Stream = tokio::io::DuplexStream;
    fn accept(&self) -> impl Future<Output = io::Result<(Self::Stream, SocketAddr)>> + Send {
        let attempt = self.attempts.fetch_add(1, Ordering::SeqCst);
        let fail_first = self.fail_first;
        async move {
            if attempt >= 100_000 {
                // Without a pause the loop would spin here forever; stop it for the test.
                return std::future::pending().await;
            }
            if attempt < fail_first {
                return Err(io::Error::from_raw_os_error(24)); // EMFILE
            }
            let (stream, _) = tokio::io::duplex(64);
            Ok((stream, SocketAddr::from(([127, 0, 0, 1], 1))))
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_listener_out_of_file_descriptors_is_retried_with_a_pause_not_in_a_busy_loop() {
    let attempts = Arc::new(AtomicUsize::new(0));
    let listener = OutOfDescriptors {
        attempts: attempts.clone(),
        fail_first: usize::MAX,
    };
    let ten_seconds = tokio::time::sleep(Duration::from_secs(10));
    accept_until(&listener, &LIMITS, ten_seconds, |_, _, _| {}).await;
    let tried = attempts.load(Ordering::SeqCst);
    // 10 ms, 20 ms, ... up to 1 s: about 7 attempts in the first second, then one a second.
    assert!((10..=20).contains(&tried), "{tried} attempts in 10 s");
}

#[tokio::test(start_paused = true)]
async fn the_listener_accepts_again_soon_after_descriptors_are_free() {
    let attempts = Arc::new(AtomicUsize::new(0));
    let listener = OutOfDescriptors {
        attempts: attempts.clone(),
        fail_first: 50,
    };
    let accepted = Arc::new(AtomicUsize::new(0));
    let counted = accepted.clone();
    let started = Instant::now();
    let (stop, stopped) = oneshot::channel::<()>();
    let mut stop = Some(stop);
    accept_until(
        &listener,
        &LIMITS,
        async move {
            let _ = stopped.await;
        },
        |_, _, _| {
            counted.fetch_add(1, Ordering::SeqCst);
            if let Some(stop) = stop.take() {
                let _ = stop.send(());
            }
        },
    )
    .await;
    assert_eq!(accepted.load(Ordering::SeqCst), 1);
    // 50 failures: 7 quick ones, then one a second.
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(40) && waited <= Duration::from_secs(50),
        "{waited:?}"
    );
}
