//! The platform resolver's negative cache, end to end: a Verify pressed before the record
//! exists makes the platform's resolver keep "no such name" for the zone's SOA minimum
//! (300 s in the demo zones) on the service clock, and every Verify until then fails with a
//! `record_missing` that says when it was cached and when the resolver asks again; the live
//! DNS server answers the new record at once all along. Off, only the propagation delay
//! holds a new record back.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::http::Method;
use domain_desk_api::Plan;
use domain_desk_service::ServiceSettings;
use domain_desk_service::verify::Verifier;
use domain_desk_service::world::{LocalWorld, WorldAddresses};
use hickory_proto::op::{Message, MessageType, OpCode, Query, ResponseCode};
use hickory_proto::rr::{Name, RData, RecordType};
use serde_json::{Value, json};

use crate::common::{Reply, TestService};

struct World {
    service: TestService,
    world: Arc<LocalWorld>,
    key: String,
    target: String,
    info: Value,
}

impl Drop for World {
    fn drop(&mut self) {
        self.world.stop();
    }
}

async fn started(settings: ServiceSettings) -> World {
    let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
    let service = TestService::with_settings(settings);
    let world = service
        .state
        .start_world(WorldAddresses {
            dns: loopback,
            edge_https: loopback,
            edge_http: loopback,
        })
        .await
        .expect("the world starts");
    // a whole minute, so the times in the message read as set here
    service
        .call(
            Method::PUT,
            "/_local/clock",
            None,
            Some(json!({"now": "2026-03-02T12:40:00Z", "speed": 0})),
        )
        .await
        .expect(200);
    let key = service.key(Plan::Pro).await;
    let info = service.call(Method::GET, "/_local/info", None, None).await;
    info.expect(200);
    World {
        target: info.body["platform_dns_target"]
            .as_str()
            .unwrap()
            .to_owned(),
        info: info.body.clone(),
        service,
        world,
        key,
    }
}

impl World {
    async fn verify(&self, project: &str, hostname: &str) -> Reply {
        let reply = self
            .service
            .post(
                &format!("/v1/projects/{project}/domains/{hostname}/verify"),
                &self.key,
                json!({}),
            )
            .await;
        reply.expect(200);
        reply
    }

    async fn advance(&self, seconds: f64) {
        self.service
            .call(
                Method::POST,
                "/_local/clock/advance",
                None,
                Some(json!({"seconds": seconds})),
            )
            .await
            .expect(200);
    }

    async fn add_cname(&self, zone: &str, name: &str) {
        self.service
            .call(
                Method::POST,
                &format!("/_local/dns/{zone}/records"),
                None,
                Some(json!({"name": name, "type": "CNAME", "value": self.target})),
            )
            .await
            .expect(201);
    }

    /// The CNAME records the live DNS server (what `dig` asks) answers for `name`.
    async fn live_cnames(&self, name: &str) -> usize {
        Verifier::new(self.world.addresses().dns, &self.target)
            .lookup(name, RecordType::CNAME)
            .await
            .unwrap()
            .len()
    }

    fn platform_resolver(&self) -> SocketAddr {
        self.info["platform_resolver"]
            .as_str()
            .expect("/_local/info names the platform's resolver")
            .parse()
            .unwrap()
    }
}

fn error(reply: &Reply) -> &Value {
    &reply.body["verification"]["error"]
}

#[tokio::test]
async fn a_verify_before_the_record_existed_fails_until_the_soa_minimum_has_passed() {
    let world = started(ServiceSettings::default()).await;
    let project = world.service.deployed_project(&world.key, "cached").await;
    world
        .service
        .add_domain(
            &world.key,
            &project,
            json!({"hostname": "late.example.com"}),
        )
        .await
        .expect(201);

    let cached_sentence = "The platform's resolver cached 'no such name' for late.example.com \
                           at 12:40 UTC and asks again at 12:45 UTC.";
    let first = world.verify(&project, "late.example.com").await;
    assert_eq!(first.body["status"], "pending_verification");
    assert_eq!(error(&first)["code"], "record_missing");
    let message = error(&first)["message"].as_str().unwrap();
    assert!(message.starts_with(cached_sentence), "{message}");
    assert!(message.contains(&world.target), "{message}");
    assert_eq!(error(&first)["cached_at"], "2026-03-02T12:40:00Z");
    assert_eq!(error(&first)["cached_until"], "2026-03-02T12:45:00Z");

    world.advance(30.0).await;
    world.add_cname("example.com", "late").await;
    assert_eq!(
        world.live_cnames("late.example.com").await,
        1,
        "dig sees it at once"
    );
    // past the propagation delay (60 s), inside the SOA minimum: the cached answer again
    world.advance(120.0).await;
    let again = world.verify(&project, "late.example.com").await;
    assert_eq!(again.body["status"], "pending_verification");
    assert_eq!(error(&again)["code"], "record_missing");
    let message = error(&again)["message"].as_str().unwrap();
    assert!(message.starts_with(cached_sentence), "{message}");
    assert_eq!(error(&again)["cached_until"], "2026-03-02T12:45:00Z");
    assert_eq!(world.live_cnames("late.example.com").await, 1);
    // the platform's resolver, as /_local/info names it, answers from its cache too
    let platform = Verifier::new(world.platform_resolver(), &world.target);
    assert!(
        platform
            .lookup("late.example.com", RecordType::CNAME)
            .await
            .unwrap()
            .is_empty()
    );

    world.advance(150.0).await;
    let verified = world.verify(&project, "late.example.com").await;
    assert_eq!(verified.body["status"], "verified", "{}", verified.body);
    assert!(error(&verified).is_null());
}

#[tokio::test]
async fn with_the_negative_cache_off_a_record_counts_after_the_propagation_delay() {
    let world = started(ServiceSettings {
        dns_negative_cache: false,
        ..ServiceSettings::default()
    })
    .await;
    let project = world.service.deployed_project(&world.key, "uncached").await;
    world
        .service
        .add_domain(
            &world.key,
            &project,
            json!({"hostname": "late.example.com"}),
        )
        .await
        .expect(201);
    let first = world.verify(&project, "late.example.com").await;
    assert_eq!(error(&first)["code"], "record_missing");
    assert_eq!(
        error(&first)["message"],
        format!(
            "late.example.com has no CNAME record yet; add a CNAME to {}.",
            world.target
        )
    );
    assert!(error(&first).get("cached_until").is_none());
    world.add_cname("example.com", "late").await;
    world.advance(61.0).await;
    let verified = world.verify(&project, "late.example.com").await;
    assert_eq!(verified.body["status"], "verified", "{}", verified.body);
}

#[tokio::test]
async fn the_demo_zones_negative_answers_carry_a_300_second_soa_minimum() {
    let world = started(ServiceSettings::default()).await;
    for server in [world.world.addresses().dns, world.platform_resolver()] {
        let mut question = Message::new(7, MessageType::Query, OpCode::Query);
        question.add_query(Query::query(
            Name::from_ascii("nothing.example.org.").unwrap(),
            RecordType::A,
        ));
        let socket = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        socket
            .send_to(&question.to_vec().unwrap(), server)
            .await
            .unwrap();
        let mut buffer = vec![0; 4096];
        let length = socket.recv(&mut buffer).await.unwrap();
        let answer = Message::from_vec(&buffer[..length]).unwrap();
        assert_eq!(answer.response_code, ResponseCode::NXDomain);
        let soa = answer
            .authorities
            .iter()
            .find_map(|record| match &record.data {
                RData::SOA(soa) => Some((record.ttl, soa.minimum)),
                _ => None,
            });
        assert_eq!(soa, Some((300, 300)), "{server}");
    }
}

#[test]
fn the_openapi_document_describes_the_cache_fields_and_the_resolver_address() {
    let document = serde_json::to_value(domain_desk_service::openapi_document()).unwrap();
    let schemas = &document["components"]["schemas"];
    for field in ["cached_at", "cached_until"] {
        let property = &schemas["VerificationError"]["properties"][field];
        assert!(
            property["description"]
                .as_str()
                .is_some_and(|text| text.contains("resolver")),
            "{field}: {property}"
        );
    }
    let required = schemas["VerificationError"]["required"].to_string();
    assert!(!required.contains("cached_"), "optional: {required}");
    assert!(
        schemas["LocalInfo"]["properties"]["platform_resolver"].is_object(),
        "{}",
        schemas["LocalInfo"]
    );
}
