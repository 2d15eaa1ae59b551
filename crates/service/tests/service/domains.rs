//! Domains: the add rules (plan, deploy, hostname, uniqueness, limits), roles, redirects,
//! get, list, remove, and verify without the DNS world.
//!
//! It is longer than the house's 500 lines: the domains resource holds most of the API's rules,
//! and `tests/service/` keeps one file per resource.

use domain_desk_api::Plan;
use serde_json::json;

use crate::common::TestService;

#[tokio::test]
async fn free_plan_cannot_add_domains() {
    let service = TestService::new();
    let key = service.key(Plan::Free).await;
    let project = service.deployed_project(&key, "free").await;
    service
        .add_domain(&key, &project, json!({"hostname": "free.example.com"}))
        .await
        .expect_error(403, "plan_upgrade_required");
}

#[tokio::test]
async fn a_successful_deploy_is_required() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let created = service
        .post("/v1/projects", &key, json!({"name": "x"}))
        .await;
    let id = created.body["id"].as_str().unwrap().to_owned();
    service
        .add_domain(&key, &id, json!({"hostname": "www.example.com"}))
        .await
        .expect_error(409, "deploy_required");
    // the seed's "broken build" project has only a failed deploy
    let list = service.get("/v1/projects", &key).await;
    let broken = list.body["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["last_deploy"]["status"] == "failed")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    service
        .add_domain(&key, &broken, json!({"hostname": "www.example.com"}))
        .await
        .expect_error(409, "deploy_required");
}

#[tokio::test]
async fn a_new_domain_carries_every_field_of_the_contract() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = service.deployed_project(&key, "site").await;
    let reply = service
        .add_domain(&key, &project, json!({"hostname": "WWW.Shop.Example.COM."}))
        .await;
    reply.expect(201);
    assert_eq!(
        reply.body,
        json!({
            "hostname": "www.shop.example.com",
            "unicode_hostname": "www.shop.example.com",
            "project_id": project,
            "apex": false,
            "role": "primary",
            "redirect": null,
            "status": "pending_verification",
            "dns_record": {"type": "CNAME", "name": "www.shop", "value": "cname.pages.local-platform.test", "ttl": 3600},
            "verification": {"checked_at": null, "error": null},
            "certificate": {"status": "none", "started_at": null, "issued_at": null, "expires_at": null, "error": null, "renews_at": null,
                "validation": {"method": null, "dns_record": {"type": "CNAME", "name": "_acme-challenge.www.shop",
                    "fqdn": "_acme-challenge.www.shop.example.com",
                    "value": "www.shop.example.com.acme.pages.local-platform.test"}}},
            "created_at": "2026-03-02T10:00:10Z"
        })
    );
    let fetched = service
        .get(
            &format!("/v1/projects/{project}/domains/www.shop.example.com"),
            &key,
        )
        .await;
    fetched.expect(200);
    assert_eq!(fetched.body, reply.body);
    // the project now names its primary, but serves at the default address until it is live
    let p = service.get(&format!("/v1/projects/{project}"), &key).await;
    assert_eq!(p.body["primary_domain"], "www.shop.example.com");
    assert_eq!(
        p.body["url"],
        format!("https://{}", p.body["default_address"].as_str().unwrap())
    );
}

#[tokio::test]
async fn apex_detection_follows_the_public_suffix_list() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = service.deployed_project(&key, "site").await;
    let apex = service
        .add_domain(&key, &project, json!({"hostname": "example.co.uk"}))
        .await;
    apex.expect(201);
    assert_eq!(apex.body["apex"], true);
    assert_eq!(apex.body["dns_record"]["type"], "ALIAS");
    assert_eq!(apex.body["dns_record"]["name"], "@");
    let sub = service
        .add_domain(&key, &project, json!({"hostname": "shop.example.co.uk"}))
        .await;
    sub.expect(201);
    assert_eq!(sub.body["apex"], false);
    assert_eq!(sub.body["dns_record"]["type"], "CNAME");
    assert_eq!(sub.body["dns_record"]["name"], "shop");
    assert_eq!(sub.body["role"], "alias");
}

#[tokio::test]
async fn unicode_names_are_stored_as_a_labels() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = service.deployed_project(&key, "site").await;
    let reply = service
        .add_domain(&key, &project, json!({"hostname": "Bücher.example.com"}))
        .await;
    reply.expect(201);
    assert_eq!(reply.body["hostname"], "xn--bcher-kva.example.com");
    assert_eq!(reply.body["unicode_hostname"], "bücher.example.com");
    // reachable by either form in the path
    service
        .get(
            &format!("/v1/projects/{project}/domains/b%C3%BCcher.example.com"),
            &key,
        )
        .await
        .expect(200);
    service
        .get(
            &format!("/v1/projects/{project}/domains/xn--bcher-kva.example.com"),
            &key,
        )
        .await
        .expect(200);
}

#[tokio::test]
async fn bad_hostnames_are_refused() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = service.deployed_project(&key, "site").await;
    let long_label = format!("{}.example.com", "x".repeat(70));
    for bad in [
        "exa mple.com",
        "-bad-.example.com",
        "a..b.com",
        "a.*.example.com",
        "*.*.example.com",
        "*shop.example.com",
        "*.com",
        "*.co.uk",
        "*",
        "*.shop.pages.local-platform.test",
        "127.0.0.1",
        "com",
        "co.uk",
        long_label.as_str(),
        "",
        "shop.pages.local-platform.test",
    ] {
        let reply = service
            .add_domain(&key, &project, json!({"hostname": bad}))
            .await;
        reply.expect_error(422, "invalid_hostname");
        assert_eq!(reply.body["error"]["field"], "hostname", "{bad}");
    }
}

#[tokio::test]
async fn a_name_is_attached_once() {
    let service = TestService::new();
    let pro = service.key(Plan::Pro).await;
    let business = service.key(Plan::Business).await;
    let mine = service.deployed_project(&pro, "mine").await;
    let second = service.deployed_project(&pro, "second").await;
    let theirs = service.deployed_project(&business, "theirs").await;
    service
        .add_domain(&pro, &mine, json!({"hostname": "www.example.com"}))
        .await
        .expect(201);
    service
        .add_domain(&pro, &mine, json!({"hostname": "WWW.example.com."}))
        .await
        .expect_error(409, "domain_already_attached");
    let same_account = service
        .add_domain(&pro, &second, json!({"hostname": "www.example.com"}))
        .await;
    same_account.expect_error(409, "domain_taken");
    assert!(
        same_account.body["error"]
            .get("ownership_challenge")
            .is_none(),
        "the account holds it already: nothing to prove"
    );
    let other_account = service
        .add_domain(&business, &theirs, json!({"hostname": "www.example.com"}))
        .await;
    other_account.expect_error(409, "domain_taken");
    assert_eq!(
        other_account.body["error"]["ownership_challenge"]["fqdn"],
        "_domain-desk-challenge.www.example.com"
    );
}

#[tokio::test]
async fn the_plans_domain_limit_holds() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = service.deployed_project(&key, "many").await;
    for i in 0..50 {
        service
            .add_domain(
                &key,
                &project,
                json!({"hostname": format!("n{i}.example.com")}),
            )
            .await
            .expect(201);
    }
    service
        .add_domain(&key, &project, json!({"hostname": "one-more.example.com"}))
        .await
        .expect_error(409, "domain_limit_reached");
    // removing one makes room again
    service
        .delete(
            &format!("/v1/projects/{project}/domains/n0.example.com"),
            &key,
        )
        .await
        .expect(204);
    service
        .add_domain(&key, &project, json!({"hostname": "one-more.example.com"}))
        .await
        .expect(201);
}

#[tokio::test]
async fn first_domain_is_primary_then_aliases_and_redirects() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = service.deployed_project(&key, "roles").await;
    let first = service
        .add_domain(&key, &project, json!({"hostname": "www.example.com"}))
        .await;
    assert_eq!(first.body["role"], "primary");
    let second = service
        .add_domain(&key, &project, json!({"hostname": "shop.example.com"}))
        .await;
    assert_eq!(second.body["role"], "alias");
    let redirect = service
        .add_domain(
            &key,
            &project,
            json!({"hostname": "old.example.com", "redirect_to": "WWW.example.com"}),
        )
        .await;
    redirect.expect(201);
    assert_eq!(redirect.body["role"], "redirect");
    assert_eq!(
        redirect.body["redirect"],
        json!({"to": "www.example.com", "status": 301})
    );

    let list = service
        .get(&format!("/v1/projects/{project}/domains"), &key)
        .await;
    let names: Vec<_> = list.body["domains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["hostname"].as_str().unwrap().to_owned())
        .collect();
    // The contract's order: creation time, then the hostname (the clock is frozen here, so
    // all three were added at the same instant).
    assert_eq!(
        names,
        ["old.example.com", "shop.example.com", "www.example.com"]
    );
}

#[tokio::test]
async fn redirect_targets_are_checked_when_adding() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = service.deployed_project(&key, "redirects").await;
    service
        .add_domain(&key, &project, json!({"hostname": "www.example.com"}))
        .await
        .expect(201);
    service
        .add_domain(
            &key,
            &project,
            json!({"hostname": "old.example.com", "redirect_to": "www.example.com"}),
        )
        .await
        .expect(201);
    for (hostname, to) in [
        ("self.example.com", "self.example.com"),
        ("chain.example.com", "old.example.com"),
        ("stray.example.com", "not-attached.example.com"),
        ("junk.example.com", "not a name"),
    ] {
        service
            .add_domain(
                &key,
                &project,
                json!({"hostname": hostname, "redirect_to": to}),
            )
            .await
            .expect_error(422, "invalid_redirect");
    }
    // the project's default address is a valid target
    let address = service
        .get(&format!("/v1/projects/{project}"), &key)
        .await
        .body["default_address"]
        .as_str()
        .unwrap()
        .to_owned();
    service
        .add_domain(
            &key,
            &project,
            json!({"hostname": "to-default.example.com", "redirect_to": address}),
        )
        .await
        .expect(201);
}

#[tokio::test]
async fn removing_stops_listing_and_repoints_redirects() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = service.deployed_project(&key, "remove").await;
    let address = service
        .get(&format!("/v1/projects/{project}"), &key)
        .await
        .body["default_address"]
        .as_str()
        .unwrap()
        .to_owned();
    service
        .add_domain(&key, &project, json!({"hostname": "www.example.com"}))
        .await
        .expect(201);
    service
        .add_domain(&key, &project, json!({"hostname": "shop.example.com"}))
        .await
        .expect(201);
    service
        .add_domain(
            &key,
            &project,
            json!({"hostname": "old.example.com", "redirect_to": "shop.example.com"}),
        )
        .await
        .expect(201);

    service
        .delete(
            &format!("/v1/projects/{project}/domains/shop.example.com"),
            &key,
        )
        .await
        .expect(204);
    service
        .get(
            &format!("/v1/projects/{project}/domains/shop.example.com"),
            &key,
        )
        .await
        .expect_error(404, "not_found");
    // the primary is not live, so the project's current address is its default address
    let old = service
        .get(
            &format!("/v1/projects/{project}/domains/old.example.com"),
            &key,
        )
        .await;
    assert_eq!(old.body["redirect"]["to"], address.as_str());

    // removing the primary leaves the project without one
    service
        .delete(
            &format!("/v1/projects/{project}/domains/www.example.com"),
            &key,
        )
        .await
        .expect(204);
    let p = service.get(&format!("/v1/projects/{project}"), &key).await;
    assert_eq!(p.body["primary_domain"], serde_json::Value::Null);
    // and the next plain domain becomes primary
    let next = service
        .add_domain(&key, &project, json!({"hostname": "new.example.com"}))
        .await;
    assert_eq!(next.body["role"], "primary");

    service
        .delete(
            &format!("/v1/projects/{project}/domains/gone.example.com"),
            &key,
        )
        .await
        .expect_error(404, "not_found");
    service
        .delete(
            &format!("/v1/projects/{project}/domains/not%20a%20name"),
            &key,
        )
        .await
        .expect_error(404, "not_found");
}

#[tokio::test]
async fn a_live_primary_is_the_redirect_target_after_a_removal() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = service.deployed_project(&key, "live").await;
    for body in [
        json!({"hostname": "www.example.com"}),
        json!({"hostname": "shop.example.com"}),
        json!({"hostname": "old.example.com", "redirect_to": "shop.example.com"}),
    ] {
        service.add_domain(&key, &project, body).await.expect(201);
    }
    // what the CA does once a certificate is issued
    service
        .state
        .store()
        .write(|tx| {
            use domain_desk_api::{Certificate, CertificateStatus, DomainStatus};
            let certificate = Certificate {
                status: CertificateStatus::Issued,
                ..Certificate::default()
            };
            domain_desk_service::store::domains::set_certificate(
                tx,
                "www.example.com",
                DomainStatus::Live,
                &certificate,
            )
        })
        .await
        .unwrap();
    let p = service.get(&format!("/v1/projects/{project}"), &key).await;
    assert_eq!(p.body["url"], "https://www.example.com");
    service
        .delete(
            &format!("/v1/projects/{project}/domains/shop.example.com"),
            &key,
        )
        .await
        .expect(204);
    let old = service
        .get(
            &format!("/v1/projects/{project}/domains/old.example.com"),
            &key,
        )
        .await;
    assert_eq!(old.body["redirect"]["to"], "www.example.com");
}

#[tokio::test]
async fn verify_is_501_without_the_dns_world_and_404_for_unknown_domains() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = service.deployed_project(&key, "verify").await;
    service
        .add_domain(&key, &project, json!({"hostname": "www.example.com"}))
        .await
        .expect(201);
    let reply = service
        .call(
            axum::http::Method::POST,
            &format!("/v1/projects/{project}/domains/www.example.com/verify"),
            Some(&key),
            None,
        )
        .await;
    if service.state.world().is_none() {
        reply.expect(501);
        assert_eq!(reply.code(), "internal");
    }
    service
        .call(
            axum::http::Method::POST,
            &format!("/v1/projects/{project}/domains/nope.example.com/verify"),
            Some(&key),
            None,
        )
        .await
        .expect_error(404, "not_found");
}

#[tokio::test]
async fn domains_of_another_accounts_project_are_404() {
    let service = TestService::new();
    let pro = service.key(Plan::Pro).await;
    let business = service.key(Plan::Business).await;
    let project = service.deployed_project(&pro, "private").await;
    service
        .add_domain(&pro, &project, json!({"hostname": "www.example.com"}))
        .await
        .expect(201);
    service
        .get(&format!("/v1/projects/{project}/domains"), &business)
        .await
        .expect_error(404, "not_found");
    service
        .get(
            &format!("/v1/projects/{project}/domains/www.example.com"),
            &business,
        )
        .await
        .expect_error(404, "not_found");
    service
        .delete(
            &format!("/v1/projects/{project}/domains/www.example.com"),
            &business,
        )
        .await
        .expect_error(404, "not_found");
    service
        .add_domain(&business, &project, json!({"hostname": "x.example.com"}))
        .await
        .expect_error(404, "not_found");
}
