//! `domain_config`: primary and redirects in one step, and the redirect rules.

use domain_desk_api::Plan;
use serde_json::json;

use crate::common::TestService;

async fn project_with_three(service: &TestService, key: &str) -> String {
    let project = service.deployed_project(key, "config").await;
    for name in ["www.example.com", "shop.example.com", "old.example.com"] {
        service
            .add_domain(key, &project, json!({"hostname": name}))
            .await
            .expect(201);
    }
    project
}

#[tokio::test]
async fn put_sets_primary_and_redirects_in_one_step() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = project_with_three(&service, &key).await;
    let path = format!("/v1/projects/{project}/domain_config");
    let initial = service.get(&path, &key).await;
    initial.expect(200);
    assert_eq!(
        initial.body,
        json!({"primary": "www.example.com", "redirects": []})
    );

    let reply = service
        .put(
            &path,
            &key,
            json!({"primary": "Shop.example.com", "redirects": [
                {"from": "old.example.com", "to": "shop.example.com", "status": 301},
                {"from": "www.example.com", "to": "shop.example.com", "status": 301}
            ]}),
        )
        .await;
    reply.expect(200);
    assert_eq!(reply.body["primary"], "shop.example.com");
    let mut redirects: Vec<_> = reply.body["redirects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["from"].as_str().unwrap().to_owned(),
                r["to"].as_str().unwrap().to_owned(),
                r["status"].as_u64().unwrap(),
            )
        })
        .collect();
    redirects.sort();
    assert_eq!(
        redirects,
        [
            (
                "old.example.com".to_owned(),
                "shop.example.com".to_owned(),
                301
            ),
            (
                "www.example.com".to_owned(),
                "shop.example.com".to_owned(),
                301
            )
        ]
    );
    assert_eq!(service.get(&path, &key).await.body, reply.body);
    let www = service
        .get(
            &format!("/v1/projects/{project}/domains/www.example.com"),
            &key,
        )
        .await;
    assert_eq!(www.body["role"], "redirect");
    let p = service.get(&format!("/v1/projects/{project}"), &key).await;
    assert_eq!(p.body["primary_domain"], "shop.example.com");

    // a later config without redirects turns them back into aliases; no primary is allowed
    let cleared = service
        .put(&path, &key, json!({"primary": null, "redirects": []}))
        .await;
    cleared.expect(200);
    assert_eq!(cleared.body, json!({"primary": null, "redirects": []}));
    let www = service
        .get(
            &format!("/v1/projects/{project}/domains/www.example.com"),
            &key,
        )
        .await;
    assert_eq!(www.body["role"], "alias");
    assert_eq!(www.body["redirect"], serde_json::Value::Null);
}

#[tokio::test]
async fn only_301_is_supported() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = project_with_three(&service, &key).await;
    for status in [302, 307, 308, 200] {
        service
            .put(
                &format!("/v1/projects/{project}/domain_config"),
                &key,
                json!({"primary": "www.example.com", "redirects": [
                    {"from": "old.example.com", "to": "www.example.com", "status": status}
                ]}),
            )
            .await
            .expect_error(422, "unsupported_redirect_status");
    }
}

#[tokio::test]
async fn self_chains_loops_and_strangers_are_invalid() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = project_with_three(&service, &key).await;
    let path = format!("/v1/projects/{project}/domain_config");
    let rule = |from: &str, to: &str| json!({"from": from, "to": to, "status": 301});
    for redirects in [
        json!([rule("old.example.com", "old.example.com")]),
        json!([
            rule("old.example.com", "shop.example.com"),
            rule("shop.example.com", "www.example.com")
        ]),
        json!([
            rule("old.example.com", "shop.example.com"),
            rule("shop.example.com", "old.example.com")
        ]),
        json!([rule("old.example.com", "elsewhere.example.com")]),
        json!([rule("elsewhere.example.com", "www.example.com")]),
        json!([rule("www.example.com", "shop.example.com")]),
        json!([
            rule("old.example.com", "www.example.com"),
            rule("old.example.com", "shop.example.com")
        ]),
    ] {
        let reply = service
            .put(
                &path,
                &key,
                json!({"primary": "www.example.com", "redirects": redirects}),
            )
            .await;
        reply.expect_error(422, "invalid_redirect");
    }
    // nothing changed
    let config = service.get(&path, &key).await;
    assert_eq!(
        config.body,
        json!({"primary": "www.example.com", "redirects": []})
    );
}

#[tokio::test]
async fn the_primary_must_be_a_domain_of_the_project() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = project_with_three(&service, &key).await;
    let path = format!("/v1/projects/{project}/domain_config");
    service
        .put(
            &path,
            &key,
            json!({"primary": "elsewhere.example.com", "redirects": []}),
        )
        .await
        .expect_error(422, "validation_failed");
    service
        .put(
            &path,
            &key,
            json!({"primary": "not a host", "redirects": []}),
        )
        .await
        .expect_error(422, "invalid_hostname");
    service
        .put(&path, &key, json!({"primary": 7}))
        .await
        .expect_error(422, "validation_failed");
    service
        .put(
            &path,
            &service.key(Plan::Business).await,
            json!({"primary": null}),
        )
        .await
        .expect_error(404, "not_found");
}
