//! Admission stays exact under concurrency: 64 clients hammering one key never get more than
//! the window's limit admitted.

use std::sync::Arc;

use domain_desk_api::Plan;

use crate::common::TestService;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixty_four_clients_get_exactly_the_limit() {
    let service = Arc::new(TestService::new());
    let key = Arc::new(service.key(Plan::Pro).await);
    let mut clients = Vec::new();
    for _ in 0..64 {
        let service = service.clone();
        let key = key.clone();
        clients.push(tokio::spawn(async move {
            let mut admitted = 0u32;
            let mut limited = 0u32;
            for _ in 0..10 {
                let reply = service.get("/v1/account", &key).await;
                match reply.status.as_u16() {
                    200 => admitted += 1,
                    429 => limited += 1,
                    403 => {}
                    other => panic!("unexpected {other}"),
                }
            }
            (admitted, limited)
        }));
    }
    let mut admitted = 0;
    let mut rejected = 0;
    for client in clients {
        let (a, l) = client.await.unwrap();
        admitted += a;
        rejected += l;
    }
    // 640 requests against a limit of 300 a minute, on a frozen clock
    assert_eq!(admitted, 300);
    assert!(rejected > 0);
    let status = service.get("/v1/rate_limit", &key).await;
    // the ban may have struck; either way nothing more was admitted
    if status.status.as_u16() == 200 {
        assert_eq!(status.body["minute"]["remaining"], 0);
        assert_eq!(status.body["day"]["remaining"], 10_000 - 300);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_adds_of_one_name_attach_it_once() {
    let service = Arc::new(TestService::new());
    let key = Arc::new(service.key(Plan::Business).await);
    let project = Arc::new(service.deployed_project(&key, "race").await);
    let mut tasks = Vec::new();
    for _ in 0..16 {
        let (service, key, project) = (service.clone(), key.clone(), project.clone());
        tasks.push(tokio::spawn(async move {
            service
                .add_domain(
                    &key,
                    &project,
                    serde_json::json!({"hostname": "race.example.com"}),
                )
                .await
                .status
                .as_u16()
        }));
    }
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.unwrap());
    }
    assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 1);
    assert_eq!(statuses.iter().filter(|s| **s == 409).count(), 15);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixty_four_clients_over_loopback_get_exactly_the_limit() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let service = TestService::new();
    let key = Arc::new(service.key(Plan::Free).await);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(domain_desk_service::run(
        service.state.clone(),
        listener,
        async move {
            let _ = stopped.await;
        },
    ));
    let mut clients = Vec::new();
    for _ in 0..64 {
        let key = key.clone();
        clients.push(tokio::spawn(async move {
            let mut statuses = Vec::new();
            for _ in 0..3 {
                let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
                let request = format!(
                    "GET /v1/account HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {key}\r\nConnection: close\r\n\r\n"
                );
                stream.write_all(request.as_bytes()).await.unwrap();
                let mut answer = String::new();
                stream.read_to_string(&mut answer).await.unwrap();
                statuses.push(answer.get(9..12).unwrap_or("").to_owned());
            }
            statuses
        }));
    }
    let mut admitted = 0;
    for client in clients {
        for status in client.await.unwrap() {
            assert!(["200", "429", "403"].contains(&status.as_str()), "{status}");
            admitted += usize::from(status == "200");
        }
    }
    // 192 requests against the Free plan's 60 a minute, on a frozen clock
    assert_eq!(admitted, 60);
    stop.send(()).unwrap();
    server.await.unwrap().unwrap();
}
