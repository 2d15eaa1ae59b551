//! `api-v1.md`, "Certificates before the switch, wildcards, moving a domain", end to end on
//! the world: the certificate issued by DNS validation through the `_acme-challenge`
//! delegation while the old host still serves the name, live at the first Verify after the
//! switch, renewed through the delegation again; wildcards with an explicit name winning at
//! the edge; moving a domain between projects with the edge switched at once. The clock is
//! the service's, moved by hand.
//!
//! It is longer than the house's 500 lines: each of these workflows is a long story on one
//! running world (delegation, certificate, switch, renewal, a move), told as one test or two.

use axum::body::Body;
use axum::http::{Method, Request};
use chrono::{DateTime, TimeDelta, Utc};
use domain_desk_api::Plan;
use domain_desk_service::verify::Verifier;
use serde_json::{Value, json};

use super::{Reply, WorldService, started, text};

const VALIDATION_ZONE: &str = "acme.pages.local-platform.test";

fn time(reply: &Reply, pointer: &str) -> DateTime<Utc> {
    text(reply, pointer)
        .parse()
        .unwrap_or_else(|_| panic!("{pointer} is not a time: {}", reply.body))
}

impl WorldService {
    /// A project of the Pro account whose newest deploy serves `<h1>{label}</h1>`.
    async fn project_serving(&self, label: &str) -> String {
        let project = self.service.deployed_project(&self.key, label).await;
        self.service
            .post(
                &format!("/v1/projects/{project}/deploys"),
                &self.key,
                json!({"files": {"index.html": format!("<h1>{label}</h1>")}}),
            )
            .await
            .expect(201);
        project
    }

    async fn record(&self, zone: &str, name: &str, record_type: &str, value: &str) -> String {
        let added = self
            .dns_add(
                zone,
                json!({"name": name, "type": record_type, "value": value, "ttl": 60}),
            )
            .await;
        added.expect(201);
        text(&added, "/id").to_owned()
    }

    async fn move_domain(
        &self,
        from: &str,
        hostname: &str,
        body: Value,
        key: Option<&str>,
    ) -> Reply {
        let mut builder = Request::builder()
            .method(Method::POST)
            .uri(format!("/v1/projects/{from}/domains/{hostname}/move"))
            .header("authorization", format!("Bearer {}", self.key))
            .header("content-type", "application/json");
        if let Some(key) = key {
            builder = builder.header("idempotency-key", key);
        }
        self.service
            .request(builder.body(Body::from(body.to_string())).unwrap())
            .await
    }

    /// What the edge answers for `name`: the page's body, or `None` when it does not serve
    /// the name (no certificate for it).
    async fn served(&self, name: &str) -> Option<String> {
        let answer = self.edge(name, "/").await.ok()?;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        Some(
            answer
                .rsplit("\r\n\r\n")
                .next()
                .unwrap_or_default()
                .to_owned(),
        )
    }
}

#[tokio::test]
async fn the_certificate_is_issued_before_the_switch_and_the_domain_is_live_at_the_first_verify_after_it()
 {
    let world = started().await;
    let project = world.project_serving("new").await;
    // seeded: shop.example.org is live on another host, A 192.0.2.77
    let added = world
        .add(&project, json!({"hostname": "shop.example.org"}))
        .await;
    added.expect(201);
    let delegation = &added.body["certificate"]["validation"];
    assert_eq!(
        *delegation,
        json!({"method": null, "dns_record": {
            "type": "CNAME",
            "name": "_acme-challenge.shop",
            "fqdn": "_acme-challenge.shop.example.org",
            "value": format!("shop.example.org.{VALIDATION_ZONE}"),
        }})
    );
    let value = text(&added, "/certificate/validation/dns_record/value").to_owned();

    // without the delegation a Verify only says why routing fails
    let failing = world.verify(&project, "shop.example.org").await;
    assert_eq!(text(&failing, "/status"), "pending_verification");
    assert_eq!(
        text(&failing, "/verification/error/code"),
        "conflicting_record"
    );
    assert_eq!(text(&failing, "/certificate/status"), "none");

    world
        .record("example.org", "_acme-challenge.shop", "CNAME", &value)
        .await;
    // The platform's resolver sees the new record only after the propagation delay, and
    // keeps the "no such name" it was told at the first Verify for the zone's negative TTL
    // (300 s in the demo zones): past the delay, the delegation is still not seen.
    let too_soon = world.verify(&project, "shop.example.org").await;
    assert_eq!(text(&too_soon, "/certificate/status"), "none");
    world.advance(61.0).await;
    let cached = world.verify(&project, "shop.example.org").await;
    assert_eq!(text(&cached, "/certificate/status"), "none");
    world.advance(240.0).await;
    let issuing = world.verify(&project, "shop.example.org").await;
    assert_eq!(text(&issuing, "/status"), "pending_verification");
    assert_eq!(
        text(&issuing, "/verification/error/code"),
        "conflicting_record",
        "the error still says why routing fails"
    );
    assert!(text(&issuing, "/verification/error/message").contains("192.0.2.77"));
    assert_eq!(text(&issuing, "/certificate/status"), "issuing");
    // the CA published its DNS-01 token in the validation zone (what dig sees)
    let dns = Verifier::new(world.world.addresses().dns, &world.target);
    let tokens = dns.txt_values(&value).await.unwrap();
    assert_eq!(tokens.len(), 1, "{tokens:?}");
    assert_eq!(tokens[0].len(), 43);

    world.advance(120.0).await;
    let issued = world.domain(&project, "shop.example.org").await;
    assert_eq!(text(&issued, "/status"), "pending_verification");
    assert_eq!(
        text(&issued, "/certificate/status"),
        "issued",
        "{}",
        issued.body
    );
    assert_eq!(text(&issued, "/certificate/validation/method"), "dns");
    assert!(issued.body["certificate"]["error"].is_null());
    assert_eq!(
        time(&issued, "/certificate/issued_at") - time(&issued, "/certificate/started_at"),
        TimeDelta::minutes(2)
    );
    assert!(
        world.served("shop.example.org").await.is_none(),
        "the edge does not serve a pending domain"
    );
    // the token is withdrawn once the certificate is issued
    assert!(dns.txt_values(&value).await.unwrap().is_empty());
    // a Verify before the switch keeps it so
    let still = world.verify(&project, "shop.example.org").await;
    assert_eq!(text(&still, "/status"), "pending_verification");
    assert_eq!(text(&still, "/certificate/status"), "issued");
    let project_reply = world
        .service
        .get(&format!("/v1/projects/{project}"), &world.key)
        .await;
    assert!(text(&project_reply, "/url").ends_with(".pages.local-platform.test"));

    // the switch: the old host's A record makes way for the routing record, which the
    // platform's resolver sees once the delay and its cached "no such record" have passed
    world.dns_delete("example.org", "seed-org-shop-a").await;
    world.cname("example.org", "shop").await;
    let propagating = world.verify(&project, "shop.example.org").await;
    assert_eq!(text(&propagating, "/status"), "pending_verification");
    assert_eq!(text(&propagating, "/certificate/status"), "issued");
    assert!(world.served("shop.example.org").await.is_none());
    world.advance(301.0).await;
    let live = world.verify(&project, "shop.example.org").await;
    assert_eq!(text(&live, "/status"), "live", "{}", live.body);
    assert!(live.body["verification"]["error"].is_null());
    assert_eq!(
        live.body["certificate"], issued.body["certificate"],
        "the certificate was already there"
    );
    assert_eq!(
        world.served("shop.example.org").await.as_deref(),
        Some("<h1>new</h1>")
    );
    let project_reply = world
        .service
        .get(&format!("/v1/projects/{project}"), &world.key)
        .await;
    assert_eq!(text(&project_reply, "/url"), "https://shop.example.org");

    // renewal uses the delegation again: 60 days on, the CA publishes a new token and, once
    // it has propagated, renews
    let expires_at = time(&live, "/certificate/expires_at");
    assert_eq!(
        time(&live, "/certificate/renews_at"),
        expires_at - TimeDelta::days(30)
    );
    world.advance(60.0 * 86_400.0).await;
    let renewing = world.domain(&project, "shop.example.org").await;
    assert_eq!(time(&renewing, "/certificate/expires_at"), expires_at);
    assert!(
        renewing.body["certificate"]["error"].is_null(),
        "waiting for the token is no failure: {}",
        renewing.body
    );
    assert_eq!(dns.txt_values(&value).await.unwrap().len(), 1);
    world.advance(61.0).await;
    let renewed = world.domain(&project, "shop.example.org").await;
    assert!(
        time(&renewed, "/certificate/expires_at") > expires_at,
        "{}",
        renewed.body
    );
    assert_eq!(text(&renewed, "/certificate/validation/method"), "dns");
    assert_eq!(text(&renewed, "/status"), "live");

    // without the delegation the next renewal fails (the routing record alone does not do)
    let delegation_id = world
        .service
        .call(Method::GET, "/_local/dns/example.org/records", None, None)
        .await
        .body["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|record| record["name"] == "_acme-challenge.shop")
        .map(|record| record["id"].as_str().unwrap().to_owned())
        .unwrap();
    world.dns_delete("example.org", &delegation_id).await;
    world.advance(61.0 * 86_400.0).await;
    let failing = world.domain(&project, "shop.example.org").await;
    assert_eq!(text(&failing, "/certificate/status"), "issued");
    assert_eq!(
        text(&failing, "/certificate/error/code"),
        "delegation_missing",
        "{}",
        failing.body
    );
    assert!(
        text(&failing, "/certificate/error/message").contains("_acme-challenge.shop.example.org")
    );
    assert_eq!(
        world.served("shop.example.org").await.as_deref(),
        Some("<h1>new</h1>"),
        "still served until it expires"
    );
}

#[tokio::test]
async fn a_wildcard_is_validated_by_dns_and_an_explicit_name_wins_at_the_edge() {
    let world = started().await;
    let first = world.project_serving("wild").await;
    let second = world.project_serving("explicit").await;
    let added = world
        .add(&first, json!({"hostname": "*.W.example.net"}))
        .await;
    added.expect(201);
    assert_eq!(text(&added, "/hostname"), "*.w.example.net");
    assert_eq!(
        text(&added, "/role"),
        "alias",
        "a wildcard is never primary"
    );
    assert_eq!(
        added.body["dns_record"],
        json!({"type": "CNAME", "name": "*.w", "value": world.target, "ttl": 3600})
    );
    assert_eq!(
        added.body["certificate"]["validation"]["dns_record"],
        json!({"type": "CNAME", "name": "_acme-challenge.w",
               "fqdn": "_acme-challenge.w.example.net",
               "value": format!("w.example.net.{VALIDATION_ZONE}")})
    );

    // routing is checked at a random label under the wildcard
    world
        .add(&first, json!({"hostname": "*.none.example.net"}))
        .await
        .expect(201);
    let missing = world.verify(&first, "*.none.example.net").await;
    assert_eq!(text(&missing, "/verification/error/code"), "record_missing");
    let message = text(&missing, "/verification/error/message");
    assert!(
        message.contains("*.none.example.net")
            && message.contains(".none.example.net, a name under it"),
        "{message}"
    );
    world.cname("example.net", "*.w").await;
    world
        .record(
            "example.net",
            "_acme-challenge.w",
            "CNAME",
            &format!("w.example.net.{VALIDATION_ZONE}"),
        )
        .await;
    world.advance(61.0).await;
    let verified = world.verify(&first, "*.w.example.net").await;
    assert_eq!(text(&verified, "/status"), "verified", "{}", verified.body);
    assert_eq!(text(&verified, "/certificate/status"), "issuing");
    world.advance(120.0).await;
    let live = world.domain(&first, "*.w.example.net").await;
    assert_eq!(text(&live, "/status"), "live", "{}", live.body);
    assert_eq!(text(&live, "/certificate/validation/method"), "dns");
    // any name one label under it, with a certificate a TLS client accepts for that name
    assert_eq!(
        world.served("anything.w.example.net").await.as_deref(),
        Some("<h1>wild</h1>")
    );
    assert!(
        world.served("a.b.w.example.net").await.is_none(),
        "one label only"
    );
    assert!(world.served("w.example.net").await.is_none());

    // an explicit name held by another project wins, even before it is live
    world
        .add(&second, json!({"hostname": "x.w.example.net"}))
        .await
        .expect(201);
    assert!(
        world.served("x.w.example.net").await.is_none(),
        "held by another domain: not the wildcard's"
    );
    let explicit = world.verify(&second, "x.w.example.net").await;
    assert_eq!(text(&explicit, "/status"), "verified", "{}", explicit.body);
    world.advance(120.0).await;
    assert_eq!(
        text(&world.domain(&second, "x.w.example.net").await, "/status"),
        "live"
    );
    assert_eq!(
        world.served("x.w.example.net").await.as_deref(),
        Some("<h1>explicit</h1>")
    );
    assert_eq!(
        world.served("y.w.example.net").await.as_deref(),
        Some("<h1>wild</h1>")
    );

    // no wildcard as primary or at either end of a redirect
    world
        .add(
            &first,
            json!({"hostname": "*.v.example.net", "redirect_to": "x.w.example.net"}),
        )
        .await
        .expect_error(422, "invalid_redirect");
    world
        .add(
            &first,
            json!({"hostname": "old.example.net", "redirect_to": "*.w.example.net"}),
        )
        .await
        .expect_error(422, "invalid_redirect");
    let config = format!("/v1/projects/{first}/domain_config");
    world
        .service
        .put(&config, &world.key, json!({"primary": "*.w.example.net"}))
        .await
        .expect_error(422, "validation_failed");
    world
        .add(&first, json!({"hostname": "z.w.example.net"}))
        .await
        .expect(201);
    for redirects in [
        json!([{"from": "*.w.example.net", "to": "z.w.example.net", "status": 301}]),
        json!([{"from": "z.w.example.net", "to": "*.w.example.net", "status": 301}]),
    ] {
        world
            .service
            .put(
                &config,
                &world.key,
                json!({"primary": null, "redirects": redirects}),
            )
            .await
            .expect_error(422, "invalid_redirect");
    }
    // other wildcard forms stay invalid
    world
        .add(&first, json!({"hostname": "a.*.example.net"}))
        .await
        .expect_error(422, "invalid_hostname");
}

#[tokio::test]
async fn a_wildcard_needs_the_delegation_and_its_parent_caa_allowing_issuewild() {
    let world = started().await;
    let project = world.project_serving("wild").await;
    // routing passes, no delegation: issuance cannot validate and fails at the deadline
    world.cname("example.net", "*.nodelegation").await;
    world
        .add(&project, json!({"hostname": "*.nodelegation.example.net"}))
        .await
        .expect(201);
    // the delegation passes, but CAA at the parent forbids wildcards for this CA
    world.cname("example.net", "*.caa").await;
    world
        .record(
            "example.net",
            "_acme-challenge.caa",
            "CNAME",
            &format!("caa.example.net.{VALIDATION_ZONE}"),
        )
        .await;
    world
        .record(
            "example.net",
            "caa",
            "CAA",
            "0 issuewild \"other-ca.example\"",
        )
        .await;
    world
        .add(&project, json!({"hostname": "*.caa.example.net"}))
        .await
        .expect(201);
    world.advance(61.0).await;
    for name in ["*.nodelegation.example.net", "*.caa.example.net"] {
        let verified = world.verify(&project, name).await;
        assert_eq!(text(&verified, "/status"), "verified", "{}", verified.body);
        assert_eq!(text(&verified, "/certificate/status"), "issuing");
    }
    world.advance(1800.0).await;
    let failed = world.domain(&project, "*.nodelegation.example.net").await;
    assert_eq!(
        text(&failed, "/certificate/status"),
        "failed",
        "{}",
        failed.body
    );
    assert_eq!(
        text(&failed, "/certificate/error/code"),
        "delegation_missing"
    );
    assert!(
        text(&failed, "/certificate/error/message")
            .contains("_acme-challenge.nodelegation.example.net")
    );
    let refused = world.domain(&project, "*.caa.example.net").await;
    assert_eq!(
        text(&refused, "/certificate/status"),
        "failed",
        "{}",
        refused.body
    );
    assert_eq!(
        text(&refused, "/certificate/error/code"),
        "caa_forbids_issuance"
    );
    assert!(text(&refused, "/certificate/error/message").contains("issuewild"));
    // `issue` alone allows the plain name beside it: the explicit name is not a wildcard
    world.cname("example.net", "www.caa").await;
    world
        .add(&project, json!({"hostname": "www.caa.example.net"}))
        .await
        .expect(201);
    world.advance(61.0).await;
    world.verify(&project, "www.caa.example.net").await;
    world.advance(120.0).await;
    let plain = world.domain(&project, "www.caa.example.net").await;
    assert_eq!(text(&plain, "/status"), "live", "{}", plain.body);
    assert_eq!(text(&plain, "/certificate/validation/method"), "http");
}

#[tokio::test]
async fn a_domain_moves_between_projects_with_the_edge_switched_at_once() {
    let world = started().await;
    let from = world.project_serving("from").await;
    let to = world.project_serving("to").await;
    // seeded: www.example.com has the routing CNAME
    world
        .add(&from, json!({"hostname": "www.example.com"}))
        .await
        .expect(201);
    world.verify(&from, "www.example.com").await;
    world.advance(120.0).await;
    let live = world.domain(&from, "www.example.com").await;
    assert_eq!(text(&live, "/status"), "live");
    assert_eq!(text(&live, "/certificate/validation/method"), "http");
    world
        .add(
            &from,
            json!({"hostname": "old.example.com", "redirect_to": "www.example.com"}),
        )
        .await
        .expect(201);
    assert_eq!(
        world.served("www.example.com").await.as_deref(),
        Some("<h1>from</h1>")
    );

    let moved = world
        .move_domain(
            &from,
            "www.example.com",
            json!({"to_project_id": to}),
            Some("move-1"),
        )
        .await;
    moved.expect(200);
    assert_eq!(text(&moved, "/project_id"), to);
    assert_eq!(
        text(&moved, "/role"),
        "primary",
        "the target had no primary"
    );
    assert_eq!(text(&moved, "/status"), "live");
    assert_eq!(moved.body["certificate"], live.body["certificate"]);
    assert_eq!(moved.body["verification"], live.body["verification"]);
    assert_eq!(moved.body["dns_record"], live.body["dns_record"]);
    // the edge serves the target's newest deploy from the same instant, same certificate
    assert_eq!(
        world.served("www.example.com").await.as_deref(),
        Some("<h1>to</h1>")
    );
    world
        .service
        .get(
            &format!("/v1/projects/{from}/domains/www.example.com"),
            &world.key,
        )
        .await
        .expect_error(404, "not_found");
    assert_eq!(world.domain(&to, "www.example.com").await.body, moved.body);
    // the old project's redirect now leads to its current address
    let from_reply = world
        .service
        .get(&format!("/v1/projects/{from}"), &world.key)
        .await;
    let default_address = text(&from_reply, "/default_address").to_owned();
    assert!(from_reply.body["primary_domain"].is_null());
    assert_eq!(
        text(&from_reply, "/url"),
        format!("https://{default_address}")
    );
    assert_eq!(
        text(
            &world.domain(&from, "old.example.com").await,
            "/redirect/to"
        ),
        default_address
    );
    let to_reply = world
        .service
        .get(&format!("/v1/projects/{to}"), &world.key)
        .await;
    assert_eq!(text(&to_reply, "/url"), "https://www.example.com");

    // the same key and body: the first answer again, nothing done twice
    let replayed = world
        .move_domain(
            &from,
            "www.example.com",
            json!({"to_project_id": to}),
            Some("move-1"),
        )
        .await;
    replayed.expect(200);
    assert_eq!(replayed.header("idempotent-replayed"), Some("true"));
    assert_eq!(replayed.raw, moved.raw);
    world
        .move_domain(
            &from,
            "www.example.com",
            json!({"to_project_id": from}),
            Some("move-1"),
        )
        .await
        .expect_error(422, "idempotency_key_reused");

    // back again: the target has a primary now (the alias added meanwhile is not one), so a
    // primary moves as an alias
    world
        .add(&from, json!({"hostname": "www.example.co.uk"}))
        .await
        .expect(201);
    let back = world
        .move_domain(&to, "www.example.com", json!({"to_project_id": from}), None)
        .await;
    back.expect(200);
    assert_eq!(text(&back, "/role"), "alias");
    assert_eq!(
        world.served("www.example.com").await.as_deref(),
        Some("<h1>from</h1>")
    );
}

#[tokio::test]
async fn a_move_is_refused_as_the_contract_says() {
    let world = started().await;
    let from = world.project_serving("from").await;
    let to = world.project_serving("to").await;
    world
        .add(&from, json!({"hostname": "www.example.com"}))
        .await
        .expect(201);
    let move_to = |target: &str| json!({"to_project_id": target});

    // a target without a successful deploy
    let bare = world
        .service
        .post("/v1/projects", &world.key, json!({"name": "bare"}))
        .await;
    let bare = text(&bare, "/id").to_owned();
    world
        .move_domain(&from, "www.example.com", move_to(&bare), None)
        .await
        .expect_error(409, "deploy_required");
    // the same project, an unknown domain, a project of another account
    world
        .move_domain(&from, "www.example.com", move_to(&from), None)
        .await
        .expect_error(409, "domain_already_attached");
    world
        .move_domain(&from, "nothere.example.com", move_to(&to), None)
        .await
        .expect_error(404, "not_found");
    let business = world.service.key(Plan::Business).await;
    let theirs = world.service.deployed_project(&business, "theirs").await;
    world
        .move_domain(&from, "www.example.com", move_to(&theirs), None)
        .await
        .expect_error(404, "not_found");
    world
        .move_domain(&from, "www.example.com", json!({}), None)
        .await
        .expect_error(422, "validation_failed");
    // a target at the plan's limit (Pro: 50 domains)
    for n in 0..50 {
        world
            .add(&to, json!({"hostname": format!("n{n}.example.net")}))
            .await
            .expect(201);
    }
    world
        .move_domain(&from, "www.example.com", move_to(&to), None)
        .await
        .expect_error(409, "domain_limit_reached");
    // the refusals changed nothing
    let kept = world.domain(&from, "www.example.com").await;
    assert_eq!(text(&kept, "/project_id"), from);
    assert_eq!(text(&kept, "/role"), "primary");

    // the Free plan has no custom domains to move
    let free = world.service.key(Plan::Free).await;
    let free_project = world.service.deployed_project(&free, "free").await;
    let refused = world
        .service
        .post(
            &format!("/v1/projects/{free_project}/domains/www.example.com/move"),
            &free,
            move_to(&free_project),
        )
        .await;
    refused.expect_error(403, "plan_upgrade_required");
}
