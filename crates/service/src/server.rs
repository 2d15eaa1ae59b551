//! Serving the HTTP API from a bound listener until a shutdown future resolves, the way tests
//! (port 0) and `domain-desk serve` both start it.
//!
//! Connections are served with hyper directly (not `axum::serve`) so that the `drop_rate`
//! fault can close a connection without answering: a response marked
//! [`DropConnection`](crate::http::gate::DropConnection) becomes a service error, and hyper
//! closes the connection without writing anything.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tower::ServiceExt;

use crate::Result;
use crate::http::gate::DropConnection;

/// How long open connections get to finish after shutdown was asked for.
const DRAIN_TIME: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
#[error("connection dropped on purpose (injected fault)")]
struct Dropped;

/// Serves `router` on `listener` until `shutdown` resolves, then lets open requests finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<()> {
    let builder = auto::Builder::new(TokioExecutor::new());
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(err) => {
                    // Running out of file descriptors and the like: wait a little, go on.
                    tracing::warn!(error = %err, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
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
        let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
        let connection = graceful.watch(connection.into_owned());
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!(%peer, error = %err, "connection ended with an error");
            }
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(DRAIN_TIME) => {
            tracing::warn!("open connections did not finish in time; closing them");
        }
    }
    Ok(())
}
