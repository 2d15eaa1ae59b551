//! State lives in the database file: a restart keeps projects, domains, demo keys and bans.

use domain_desk_api::Plan;
use serde_json::json;

use crate::common::TestService;

#[tokio::test]
async fn a_restart_keeps_everything_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/state.sqlite3");
    let (key, project, keys_before) = {
        let service = TestService::with_file(&path);
        let key = service.key(Plan::Pro).await;
        let project = service.deployed_project(&key, "durable").await;
        service
            .add_domain(&key, &project, json!({"hostname": "www.example.com"}))
            .await
            .expect(201);
        (key, project, service.state.demo_keys().await.unwrap())
    };
    let service = TestService::with_file(&path);
    assert_eq!(service.state.demo_keys().await.unwrap(), keys_before);
    let reply = service.get(&format!("/v1/projects/{project}"), &key).await;
    reply.expect(200);
    assert_eq!(reply.body["primary_domain"], "www.example.com");
    // the seed is not written twice
    assert_eq!(
        service.get("/v1/projects", &key).await.body["projects"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

#[tokio::test]
async fn a_ban_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite3");
    let key = {
        let service = TestService::with_file(&path);
        let key = service.key(Plan::Free).await;
        for _ in 0..60 {
            service.get("/v1/account", &key).await.expect(200);
        }
        for _ in 0..11 {
            service.get("/v1/account", &key).await.expect(429);
        }
        service.get("/v1/account", &key).await.expect(403);
        key
    };
    let service = TestService::with_file(&path);
    service
        .get("/v1/account", &key)
        .await
        .expect_error(403, "key_banned");
}

#[tokio::test]
async fn the_file_uses_wal_and_the_current_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite3");
    let service = TestService::with_file(&path);
    let (mode, version, sync): (String, u32, i64) = service
        .state
        .store()
        .read(|conn| {
            Ok((
                conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?,
                conn.query_row("PRAGMA user_version", [], |r| r.get(0))?,
                conn.query_row("PRAGMA synchronous", [], |r| r.get(0))?,
            ))
        })
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    assert_eq!(
        version as usize,
        domain_desk_service::store::migrations::MIGRATIONS.len()
    );
    // 2 = FULL
    assert_eq!(sync, 2);
}

#[tokio::test]
async fn an_acknowledged_change_is_in_the_file_before_anything_closes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite3");
    let service = TestService::with_file(&path);
    let key = service.key(Plan::Pro).await;
    let created = service
        .post("/v1/projects", &key, json!({"name": "acknowledged"}))
        .await;
    created.expect(201);
    // A second connection, as a process started after a crash would open, while the service
    // still holds its own: the committed row is there.
    let other = rusqlite::Connection::open(&path).unwrap();
    let name: String = other
        .query_row(
            "SELECT name FROM projects WHERE id = ?1",
            [created.body["id"].as_str().unwrap()],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(name, "acknowledged");
    // the service is dropped without any shutdown step
    std::mem::forget(service);
}
