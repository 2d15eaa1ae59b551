//! Projects and deploys: default addresses, listing, another account's project, deploys.

use domain_desk_api::Plan;
use serde_json::json;

use crate::common::TestService;

#[tokio::test]
async fn a_new_project_has_a_default_address_under_the_platform_domain() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let reply = service
        .post("/v1/projects", &key, json!({"name": "Bar's Site!"}))
        .await;
    reply.expect(201);
    let address = reply.body["default_address"].as_str().unwrap();
    let (label, domain) = address.split_once('.').unwrap();
    assert_eq!(domain, "pages.local-platform.test");
    let (slug, random) = label.rsplit_once('-').unwrap();
    assert_eq!(slug, "bar-s-site");
    assert_eq!(random.len(), 6);
    assert!(
        random
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    );
    assert_eq!(reply.body["url"], format!("https://{address}"));
    assert_eq!(reply.body["primary_domain"], serde_json::Value::Null);
    assert_eq!(reply.body["last_deploy"], serde_json::Value::Null);
    assert_eq!(reply.body["name"], "Bar's Site!");
    assert_eq!(reply.body["created_at"], "2026-03-02T10:00:10Z");
}

#[tokio::test]
async fn projects_are_listed_and_fetched_per_account() {
    let service = TestService::new();
    let pro = service.key(Plan::Pro).await;
    let business = service.key(Plan::Business).await;
    let created = service
        .post("/v1/projects", &pro, json!({"name": "mine"}))
        .await;
    let id = created.body["id"].as_str().unwrap().to_owned();

    let list = service.get("/v1/projects", &pro).await;
    list.expect(200);
    let projects = list.body["projects"].as_array().unwrap();
    // the seed's three projects and the new one, in the contract's order (creation time,
    // then id: the clock is frozen here, so the ids decide)
    assert_eq!(projects.len(), 4);
    assert!(projects.iter().any(|p| p["id"] == id.as_str()));
    let order: Vec<(&str, &str)> = projects
        .iter()
        .map(|p| (p["created_at"].as_str().unwrap(), p["id"].as_str().unwrap()))
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);

    service
        .get(&format!("/v1/projects/{id}"), &pro)
        .await
        .expect(200);
    service
        .get(&format!("/v1/projects/{id}"), &business)
        .await
        .expect_error(404, "not_found");
    service
        .get("/v1/projects/prj_doesnotexist", &pro)
        .await
        .expect_error(404, "not_found");
    let theirs = service.get("/v1/projects", &business).await;
    assert!(
        theirs.body["projects"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["id"] != id.as_str())
    );
}

#[tokio::test]
async fn the_seed_has_projects_with_and_without_a_successful_deploy() {
    let service = TestService::new();
    for plan in Plan::ALL {
        let key = service.key(plan).await;
        let list = service.get("/v1/projects", &key).await;
        let statuses: Vec<_> = list.body["projects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["last_deploy"]["status"].clone())
            .collect();
        assert!(statuses.contains(&json!("succeeded")), "{plan:?}");
        assert!(statuses.contains(&serde_json::Value::Null), "{plan:?}");
        assert!(statuses.contains(&json!("failed")), "{plan:?}");
    }
}

#[tokio::test]
async fn project_names_are_validated() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    for bad in [
        json!({"name": ""}),
        json!({"name": "   "}),
        json!({"name": "x".repeat(101)}),
        json!({"name": "a\u{0}b"}),
    ] {
        let reply = service.post("/v1/projects", &key, bad).await;
        reply.expect_error(422, "validation_failed");
        assert_eq!(reply.body["error"]["field"], "name");
    }
    service
        .post("/v1/projects", &key, json!({"name": 5}))
        .await
        .expect_error(422, "validation_failed");
    service
        .post("/v1/projects", &key, json!({}))
        .await
        .expect_error(422, "validation_failed");
}

#[tokio::test]
async fn deploys_carry_files_and_become_the_last_deploy() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let id = service
        .post("/v1/projects", &key, json!({"name": "site"}))
        .await
        .body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let deploy = service
        .post(
            &format!("/v1/projects/{id}/deploys"),
            &key,
            json!({"files": {"index.html": "<h1>x</h1>", "/css/a.css": "body{}"}}),
        )
        .await;
    deploy.expect(201);
    assert_eq!(deploy.body["status"], "succeeded");
    assert_eq!(deploy.body["file_count"], 2);
    assert_eq!(deploy.body["project_id"], id.as_str());
    let project = service.get(&format!("/v1/projects/{id}"), &key).await;
    assert_eq!(project.body["last_deploy"]["id"], deploy.body["id"]);
    assert_eq!(project.body["last_deploy"]["status"], "succeeded");

    let files = service
        .state
        .store()
        .read(move |conn| domain_desk_service::store::deploys::served_files(conn, &id))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(files.get("css/a.css").map(String::as_str), Some("body{}"));
}

#[tokio::test]
async fn a_deploy_without_a_body_publishes_a_placeholder() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let id = service
        .post("/v1/projects", &key, json!({"name": "empty"}))
        .await
        .body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let reply = service
        .call(
            axum::http::Method::POST,
            &format!("/v1/projects/{id}/deploys"),
            Some(&key),
            None,
        )
        .await;
    reply.expect(201);
    assert_eq!(reply.body["file_count"], 1);
    for body in [
        serde_json::Value::Null,
        json!({}),
        json!({"files": null}),
        json!({"files": {}}),
    ] {
        let reply = service
            .post(&format!("/v1/projects/{id}/deploys"), &key, body)
            .await;
        reply.expect(201);
        assert_eq!(reply.body["file_count"], 1);
    }
}

#[tokio::test]
async fn deploy_paths_are_validated_and_other_accounts_refused() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let other = service.key(Plan::Business).await;
    let id = service
        .post("/v1/projects", &key, json!({"name": "p"}))
        .await
        .body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    service
        .post(
            &format!("/v1/projects/{id}/deploys"),
            &key,
            json!({"files": {"../../etc/passwd": "x"}}),
        )
        .await
        .expect_error(422, "validation_failed");
    service
        .post(
            &format!("/v1/projects/{id}/deploys"),
            &key,
            json!({"files": {"a": 1}}),
        )
        .await
        .expect_error(422, "validation_failed");
    service
        .post(&format!("/v1/projects/{id}/deploys"), &other, json!({}))
        .await
        .expect_error(404, "not_found");
}

#[tokio::test]
async fn a_repeated_list_shows_every_change_at_once() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let first = service.get("/v1/projects", &key).await;
    let again = service.get("/v1/projects", &key).await;
    assert_eq!(again.raw, first.raw);
    let created = service
        .post("/v1/projects", &key, json!({"name": "seen at once"}))
        .await;
    created.expect(201);
    let after = service.get("/v1/projects", &key).await;
    assert!(
        after.body["projects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "seen at once"),
        "a cached list hid a new project"
    );
    // the deploy changes the project's last_deploy in the list and in the project itself
    let id = created.body["id"].as_str().unwrap().to_owned();
    let before = service.get(&format!("/v1/projects/{id}"), &key).await;
    assert!(before.body["last_deploy"].is_null());
    service
        .post(&format!("/v1/projects/{id}/deploys"), &key, json!({}))
        .await
        .expect(201);
    let deployed = service.get(&format!("/v1/projects/{id}"), &key).await;
    assert_eq!(deployed.body["last_deploy"]["status"], "succeeded");
}
