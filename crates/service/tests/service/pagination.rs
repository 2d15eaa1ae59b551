//! Pagination of the lists (projects, domains, deploys): `limit` and an opaque, signed
//! `cursor`; stable order (creation time, then id) so items created or deleted while paging
//! neither repeat nor make another item be skipped; clear 422s for bad limits, cursors and
//! unknown parameters.

use std::collections::BTreeSet;

use domain_desk_api::Plan;
use serde_json::{Value, json};

use crate::common::TestService;

/// A project with a successful deploy, on the Enterprise key (no domain limit in the way).
async fn project_with_deploy(service: &TestService, key: &str) -> String {
    let created = service
        .post("/v1/projects", key, json!({"name": "paged"}))
        .await;
    created.expect(201);
    let id = created.body["id"].as_str().unwrap().to_owned();
    service
        .post(&format!("/v1/projects/{id}/deploys"), key, json!({}))
        .await
        .expect(201);
    id
}

async fn add(service: &TestService, key: &str, project: &str, hostname: &str) {
    service
        .post(
            &format!("/v1/projects/{project}/domains"),
            key,
            json!({ "hostname": hostname }),
        )
        .await
        .expect(201);
}

fn names(page: &Value) -> Vec<String> {
    page["domains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["hostname"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn pages_cover_every_domain_once_while_others_come_and_go() {
    let service = TestService::new();
    let key = service.key(Plan::Enterprise).await;
    let project = project_with_deploy(&service, &key).await;
    let mut before = BTreeSet::new();
    for n in 0..25 {
        // the clock is frozen, so the hostname breaks the tie: a stable, known order
        let name = format!("d{n:02}.example.com");
        add(&service, &key, &project, &name).await;
        before.insert(name);
    }
    let path = format!("/v1/projects/{project}/domains");
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    let mut deleted = BTreeSet::new();
    loop {
        let url = match &cursor {
            Some(cursor) => format!("{path}?limit=7&cursor={cursor}"),
            None => format!("{path}?limit=7"),
        };
        let page = service.get(&url, &key).await;
        page.expect(200);
        let batch = names(&page.body);
        assert!(batch.len() <= 7);
        seen.extend(batch);
        pages += 1;
        // between pages: add one before and one after the cursor, delete one not yet seen
        add(&service, &key, &project, &format!("a{pages}.example.com")).await;
        add(&service, &key, &project, &format!("z{pages}.example.com")).await;
        if let Some(victim) = before
            .iter()
            .find(|name| !seen.contains(name) && !deleted.contains(*name))
            .cloned()
        {
            service
                .delete(&format!("{path}/{victim}"), &key)
                .await
                .expect(204);
            deleted.insert(victim);
        }
        match page.body["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => {
                assert!(page.body["next_cursor"].is_null());
                break;
            }
        }
        assert!(pages < 50, "paging does not end");
    }
    let unique: BTreeSet<_> = seen.iter().cloned().collect();
    assert_eq!(unique.len(), seen.len(), "an item was repeated: {seen:?}");
    for name in before.difference(&deleted) {
        assert!(unique.contains(name), "{name} was skipped");
    }
    // items created behind the cursor are not shown; those created ahead of it may be
    assert!(
        !unique.iter().any(|name| name.starts_with('a')),
        "{unique:?}"
    );
}

#[tokio::test]
async fn the_default_page_is_100_and_the_last_page_says_so() {
    let service = TestService::new();
    let key = service.key(Plan::Enterprise).await;
    let project = project_with_deploy(&service, &key).await;
    for n in 0..101 {
        add(&service, &key, &project, &format!("n{n:03}.example.com")).await;
    }
    let path = format!("/v1/projects/{project}/domains");
    let first = service.get(&path, &key).await;
    first.expect(200);
    assert_eq!(names(&first.body).len(), 100);
    let cursor = first.body["next_cursor"].as_str().unwrap().to_owned();
    let second = service.get(&format!("{path}?cursor={cursor}"), &key).await;
    assert_eq!(names(&second.body), ["n100.example.com"]);
    assert!(second.body["next_cursor"].is_null());
    let all = service.get(&format!("{path}?limit=1000"), &key).await;
    assert_eq!(names(&all.body).len(), 101);
    assert!(all.body["next_cursor"].is_null());
}

#[tokio::test]
async fn projects_and_deploys_page_too() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = project_with_deploy(&service, &key).await;
    for _ in 0..4 {
        service
            .post(&format!("/v1/projects/{project}/deploys"), &key, json!({}))
            .await
            .expect(201);
    }
    let mut deploys = Vec::new();
    let mut cursor = None::<String>;
    loop {
        let url = match &cursor {
            Some(c) => format!("/v1/projects/{project}/deploys?limit=2&cursor={c}"),
            None => format!("/v1/projects/{project}/deploys?limit=2"),
        };
        let page = service.get(&url, &key).await;
        page.expect(200);
        for deploy in page.body["deploys"].as_array().unwrap() {
            assert_eq!(deploy["project_id"], project.as_str());
            assert_eq!(deploy["file_count"], 1);
            deploys.push(deploy["id"].as_str().unwrap().to_owned());
        }
        match page.body["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(deploys.len(), 5);

    let mut projects = Vec::new();
    let mut cursor = None::<String>;
    loop {
        let url = match &cursor {
            Some(c) => format!("/v1/projects?limit=1&cursor={c}"),
            None => "/v1/projects?limit=1".to_owned(),
        };
        let page = service.get(&url, &key).await;
        page.expect(200);
        projects.extend(
            page.body["projects"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["id"].as_str().unwrap().to_owned()),
        );
        match page.body["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    let whole = service.get("/v1/projects", &key).await;
    let all: Vec<String> = whole.body["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(projects, all);
    assert!(projects.contains(&project));
}

#[tokio::test]
async fn bad_limits_cursors_and_parameters_are_clear_422s() {
    let service = TestService::new();
    let key = service.key(Plan::Enterprise).await;
    let project = project_with_deploy(&service, &key).await;
    let other = project_with_deploy(&service, &key).await;
    for n in 0..3 {
        add(&service, &key, &project, &format!("p{n}.example.com")).await;
        add(&service, &key, &other, &format!("o{n}.example.com")).await;
    }
    let path = format!("/v1/projects/{project}/domains");
    for limit in ["0", "-1", "1001", "1000000000", "ten", ""] {
        service
            .get(&format!("{path}?limit={limit}"), &key)
            .await
            .expect_error(422, "invalid_limit");
    }
    let page = service.get(&format!("{path}?limit=1"), &key).await;
    let cursor = page.body["next_cursor"].as_str().unwrap().to_owned();
    // a cursor from another project's list, from the projects list, forged or mangled
    for bad in [
        format!("/v1/projects/{other}/domains?cursor={cursor}"),
        format!("/v1/projects?cursor={cursor}"),
        format!("{path}?cursor=x{cursor}"),
        format!("{path}?cursor=not-a-cursor"),
        format!("{path}?cursor="),
    ] {
        service
            .get(&bad, &key)
            .await
            .expect_error(422, "invalid_cursor");
    }
    // another account cannot page this project at all
    let pro = service.key(Plan::Pro).await;
    service
        .get(&format!("{path}?cursor={cursor}"), &pro)
        .await
        .expect_error(404, "not_found");
    for bad in ["limt=5", "limit=5&limit=6", "page=2"] {
        service
            .get(&format!("{path}?{bad}"), &key)
            .await
            .expect_error(422, "validation_failed");
    }
    service
        .get("/v1/projects?offset=10", &key)
        .await
        .expect_error(422, "validation_failed");
    // and the good cursor still works
    service
        .get(&format!("{path}?cursor={cursor}"), &key)
        .await
        .expect(200);
}
