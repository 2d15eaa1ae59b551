//! Serving the HTTP API from a bound listener until a shutdown future resolves, the way tests
//! (port 0) and `domain-desk serve` both start it.
//!
//! Connections are served with hyper directly (not `axum::serve`) so that the `drop_rate`
//! fault can close a connection without answering: a response marked
//! [`DropConnection`] becomes a service error, and hyper
//! closes the connection without writing anything.
//!
//! The accept loop and the connection guards here are shared with the edge: at most
//! [`ConnectionLimits::max_connections`] at once, headers within a time limit, idle
//! connections closed, and a listener that fails (out of file descriptors) is retried with a
//! growing pause instead of in a busy loop.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tower::ServiceExt;

use crate::Result;
use crate::settings::ConnectionLimits;

/// Put on a response to make the server close the connection without sending it
/// (the `drop_rate` fault): the HTTP layer marks, the server acts.
#[derive(Debug, Clone, Copy)]
pub struct DropConnection;

/// How long open connections get to finish after shutdown was asked for.
const DRAIN_TIME: Duration = Duration::from_secs(5);

/// The first pause after the listener failed; it doubles on each failure in a row.
const FIRST_BACKOFF: Duration = Duration::from_millis(10);
/// The longest pause between two attempts of a failing listener.
const MAX_BACKOFF: Duration = Duration::from_secs(1);

#[derive(Debug, thiserror::Error)]
#[error("connection dropped on purpose (injected fault)")]
struct Dropped;

/// Serves `router` on `listener` with the default [`ConnectionLimits`] until `shutdown`
/// resolves, then lets open requests finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<()> {
    serve_with_limits(listener, router, &ConnectionLimits::default(), shutdown).await
}

/// Serves `router` on `listener` within `limits` until `shutdown` resolves, then lets open
/// requests finish.
pub async fn serve_with_limits(
    listener: TcpListener,
    router: Router,
    limits: &ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<()> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let graceful = GracefulShutdown::new();
    let idle_timeout = limits.idle_timeout;
    accept_until(&listener, limits, shutdown, |stream, peer, permit| {
        let router = router.clone();
        let service = hyper::service::service_fn(move |req: Request<Incoming>| {
            let router = router.clone();
            async move {
                let response = match router.oneshot(req.map(Body::new)).await {
                    Ok(response) => response,
                    Err(never) => match never {},
                };
                if response.extensions().get::<DropConnection>().is_some() {
                    return Err(Dropped);
                }
                Ok::<_, Dropped>(response)
            }
        });
        let (stream, activity) = Watched::new(stream);
        let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
        let connection = graceful.watch(connection.into_owned());
        tokio::spawn(async move {
            let _permit = permit;
            match until_idle(connection, &activity, idle_timeout).await {
                Some(Ok(())) => {}
                Some(Err(err)) => {
                    tracing::debug!(%peer, error = %err, "connection ended with an error");
                }
                None => tracing::debug!(%peer, "closed an idle connection"),
            }
        });
    })
    .await;
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(DRAIN_TIME) => {
            tracing::warn!("open connections did not finish in time; closing them");
        }
    }
    Ok(())
}

/// Where connections come from: a [`TcpListener`], or a stand-in in tests.
pub(crate) trait Listen {
    type Stream;
    fn accept(&self) -> impl Future<Output = io::Result<(Self::Stream, SocketAddr)>> + Send;
}

impl Listen for TcpListener {
    type Stream = TcpStream;
    fn accept(&self) -> impl Future<Output = io::Result<(TcpStream, SocketAddr)>> + Send {
        TcpListener::accept(self)
    }
}

/// Accepts connections until `shutdown` resolves and hands each to `serve` with the permit
/// that counts it against `limits.max_connections`: the connection holds it until it closes.
/// While every permit is taken nothing is accepted, so further clients wait in the system's
/// accept queue.
///
/// A failed accept that concerns one connection (reset, aborted) is skipped. Any other
/// failure (out of file descriptors, out of memory) repeats at once on the next call, so the
/// loop pauses before trying again, twice as long each time up to [`MAX_BACKOFF`], and logs
/// it once per run of failures.
pub(crate) async fn accept_until<L: Listen>(
    listener: &L,
    limits: &ConnectionLimits,
    shutdown: impl Future<Output = ()>,
    mut serve: impl FnMut(L::Stream, SocketAddr, OwnedSemaphorePermit),
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let mut backoff: Option<Duration> = None;
    let mut saturated = false;
    tokio::pin!(shutdown);
    loop {
        if permits.available_permits() == 0 && !saturated {
            saturated = true;
            tracing::warn!(
                max_connections = limits.max_connections,
                "connection limit reached; new clients wait until a connection closes"
            );
        }
        // `biased`, shutdown first: once told to stop, no further connection is taken, even
        // when one is ready at the same moment.
        let permit = tokio::select! {
            biased;
            () = &mut shutdown => return,
            permit = permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => return,
            },
        };
        let accepted = tokio::select! {
            biased;
            () = &mut shutdown => return,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, peer)) => {
                if backoff.take().is_some() {
                    tracing::info!("accepting connections again");
                }
                saturated = false;
                serve(stream, peer, permit);
            }
            Err(error) if is_connection_error(&error) => {
                tracing::debug!(%error, "a connection failed before it was accepted");
            }
            Err(error) => {
                let pause = backoff.map_or(FIRST_BACKOFF, |last| (last * 2).min(MAX_BACKOFF));
                if backoff.is_none() {
                    tracing::warn!(%error, "cannot accept connections; retrying with a pause");
                }
                backoff = Some(pause);
                drop(permit);
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    () = &mut shutdown => return,
                }
            }
        }
    }
}

fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// When a connection last read or wrote a byte.
#[derive(Debug)]
pub(crate) struct Activity(Mutex<Instant>);

impl Activity {
    fn touch(&self) {
        if let Ok(mut last) = self.0.lock() {
            *last = Instant::now();
        }
    }

    fn last(&self) -> Instant {
        self.0.lock().map_or_else(|_| Instant::now(), |last| *last)
    }
}

/// A stream that notes in its [`Activity`] every byte read or written.
#[derive(Debug)]
pub(crate) struct Watched<T> {
    inner: T,
    activity: Arc<Activity>,
}

impl<T> Watched<T> {
    pub(crate) fn new(inner: T) -> (Self, Arc<Activity>) {
        let activity = Arc::new(Activity(Mutex::new(Instant::now())));
        (
            Self {
                inner,
                activity: activity.clone(),
            },
            activity,
        )
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Watched<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.activity.touch();
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Watched<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(written)) if written > 0) {
            this.activity.touch();
        }
        polled
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(written)) if written > 0) {
            this.activity.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// Runs `connection` until it ends (`Some` of its output) or until no byte moved on it for
/// `idle` (`None`; dropping the connection closes it).
pub(crate) async fn until_idle<F: Future>(
    connection: F,
    activity: &Activity,
    idle: Duration,
) -> Option<F::Output> {
    let watchdog = async {
        loop {
            let deadline = activity.last() + idle;
            if deadline <= Instant::now() {
                return;
            }
            tokio::time::sleep_until(deadline).await;
        }
    };
    tokio::select! {
        output = connection => Some(output),
        () = watchdog => None,
    }
}

#[cfg(test)]
mod tests;
