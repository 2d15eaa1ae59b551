//! Injected faults hit `/v1` only: 503s, added latency, and connections closed without an
//! answer (over real loopback).

use std::time::Duration;

use axum::http::Method;
use domain_desk_api::Plan;
use domain_desk_service::{AppState, Clock, ServiceSettings};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::common::{START, TestService, at};

async fn set_faults(service: &TestService, faults: serde_json::Value) {
    service
        .call(Method::PUT, "/_local/faults", None, Some(faults))
        .await
        .expect(200);
}

#[tokio::test]
async fn error_rate_one_answers_503_on_v1_only() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    set_faults(&service, json!({"error_rate": 1.0})).await;
    let reply = service.get("/v1/account", &key).await;
    reply.expect_error(503, "service_unavailable");
    assert!(reply.header("x-ratelimit-remaining").is_some());
    service
        .call(Method::GET, "/_local/info", None, None)
        .await
        .expect(200);
    set_faults(&service, json!({"error_rate": 0.0})).await;
    service.get("/v1/account", &key).await.expect(200);
}

#[tokio::test]
async fn faults_are_validated() {
    let service = TestService::new();
    for bad in [
        json!({"error_rate": 1.5}),
        json!({"drop_rate": -0.1}),
        json!({"latency_ms": 3_600_000}),
        json!({"latency_ms": -1}),
    ] {
        service
            .call(Method::PUT, "/_local/faults", None, Some(bad))
            .await
            .expect_error(422, "validation_failed");
    }
}

#[tokio::test(start_paused = true)]
async fn latency_delays_v1_answers() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    set_faults(&service, json!({"latency_ms": 1500})).await;
    let started = tokio::time::Instant::now();
    service.get("/v1/account", &key).await.expect(200);
    assert!(started.elapsed() >= Duration::from_millis(1500));
    let started = tokio::time::Instant::now();
    service
        .call(Method::GET, "/_local/clock", None, None)
        .await
        .expect(200);
    assert!(started.elapsed() < Duration::from_millis(1500));
}

async fn raw_get(addr: std::net::SocketAddr, path: &str, key: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(
            format!(
                "GET {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {key}\r\nConnection: close\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let mut answer = Vec::new();
    // A dropped connection may end with a reset instead of a clean close; both are "no answer".
    let _ = stream.read_to_end(&mut answer).await;
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn drop_rate_closes_the_connection_without_an_answer() {
    let state = AppState::open(ServiceSettings::default(), Clock::frozen_at(at(START))).unwrap();
    let key = state
        .demo_keys()
        .await
        .unwrap()
        .into_iter()
        .find(|(plan, _)| *plan == Plan::Pro)
        .unwrap()
        .1;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(domain_desk_service::run(
        state.clone(),
        listener,
        async move {
            let _ = stopped.await;
        },
    ));

    let answer = raw_get(addr, "/v1/account", &key).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");

    state.set_faults(domain_desk_api::local::Faults {
        drop_rate: 1.0,
        ..Default::default()
    });
    let answer = raw_get(addr, "/v1/account", &key).await;
    assert_eq!(answer, "", "a dropped request got an answer");
    // the control plane still answers
    let answer = raw_get(addr, "/_local/faults", "").await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");

    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("the server stops on shutdown")
        .unwrap()
        .unwrap();
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "still listening after shutdown"
    );
}
