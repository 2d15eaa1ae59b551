//! A connection that fails says what was found, in words, with the next step: a host that
//! does not exist, a port where nothing listens, a plain http:// address to another computer.
//! None of the messages carries the key.

use std::time::Duration;

use domain_desk_client::{Client, ClientConfig};

const KEY: &str = "ddk_connection_failure_secret";

fn client(base_url: &str) -> Client {
    let mut config = ClientConfig::new(base_url, KEY);
    config.queue.sync_on_start = false;
    config.request_timeout = Duration::from_secs(20);
    Client::new(config).expect("client")
}

/// The log knew "Name or service not known" while the window said "could not be reached.
/// Check the internet connection": the name's absence is the finding.
#[tokio::test]
async fn a_host_that_does_not_exist_is_named_as_not_existing() {
    // `.invalid` is reserved never to exist (RFC 2606): every resolver says no such name.
    let err = client("https://api.no-such-platform.invalid")
        .account()
        .await
        .unwrap_err();
    assert_eq!(err.kind(), "no_such_host", "{err}");
    assert!(err.is_network(), "{err}");
    let message = err.to_string();
    assert_eq!(
        message,
        "No host named api.no-such-platform.invalid exists: no DNS record names it. Check \
         the platform’s address for a typo."
    );
    assert!(!message.contains(KEY));
}

#[tokio::test]
async fn a_port_where_nothing_listens_is_a_refused_connection() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let mut config = ClientConfig::new(format!("http://127.0.0.1:{port}"), KEY);
    config.queue.sync_on_start = false;
    // One try: the queue's retries of a refused connection are not what is tested here.
    config.queue.retry.max_attempts = 1;
    let err = Client::new(config)
        .expect("client")
        .account()
        .await
        .unwrap_err();
    assert_eq!(err.kind(), "connection_refused", "{err}");
    let message = err.to_string();
    assert!(
        message.starts_with("The computer at 127.0.0.1 refused the connection"),
        "{message}"
    );
    assert!(message.contains("Check the port"), "{message}");
    assert!(!message.contains(KEY));
}

#[test]
fn plain_http_to_another_computer_is_refused_in_a_sentence() {
    let Err(err) = Client::new(ClientConfig::new("http://api.example.com", KEY)) else {
        panic!("a client for plain http:// to another computer");
    };
    assert!(err.is_insecure_url(), "{err}");
    let message = err.to_string();
    assert!(
        message.starts_with(
            "The API key was not sent: http://api.example.com is a plain http:// address"
        ),
        "{message}"
    );
    assert!(message.contains("Use https://"), "{message}");
    assert!(!message.contains(KEY));
}
