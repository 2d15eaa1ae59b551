//! `Service::spawn` over real loopback: what the returned `Running` says, and that stopping
//! it (by `shutdown`, or by the signal given to `run_until`) closes the API.

use domain_desk_api::Plan;
use domain_desk_service::{Running, Service};
use tokio::net::TcpStream;

use crate::common::loopback_settings;

async fn spawn() -> Running {
    Service::spawn(loopback_settings())
        .await
        .expect("the service starts")
}

#[tokio::test]
async fn running_gives_the_bound_addresses_and_the_demo_keys() {
    let running = spawn().await;
    let api = running.api_addr();
    assert_ne!(api.port(), 0, "the address bound, not the one asked for");
    assert_eq!(running.info().api, api.to_string());
    assert_eq!(running.base_url(), format!("http://{api}"));
    assert_ne!(running.dns_addr().expect("the DNS server runs").port(), 0);
    assert!(running.edge_https_addr().is_some());
    for plan in Plan::ALL {
        assert!(!running.demo_key(plan).is_empty(), "{plan:?}");
        assert_eq!(
            running.demo_key(plan),
            running.info().demo_keys[plan.as_str()]
        );
    }
    TcpStream::connect(api).await.expect("the API accepts");
}

#[tokio::test]
async fn shutdown_closes_the_api_before_it_returns() {
    let running = spawn().await;
    let api = running.api_addr();
    drop(TcpStream::connect(api).await.expect("the API accepts"));
    running.shutdown().await.expect("a clean stop");
    assert!(
        TcpStream::connect(api).await.is_err(),
        "nothing listens on {api} once shutdown returned"
    );
}

#[tokio::test]
async fn run_until_stops_when_its_signal_resolves() {
    let running = spawn().await;
    let api = running.api_addr();
    running.run_until(async {}).await.expect("a clean stop");
    assert!(TcpStream::connect(api).await.is_err());
}
