//! The local DNS provider's Domain Connect: the platform's templates against the standard's
//! schema, `_domainconnect` discovery over DNS, and the settings and template documents.

use std::net::SocketAddr;

use axum::http::Method;
use domain_desk_service::verify::Verifier;
use domain_desk_service::world::WorldAddresses;
use serde_json::Value;

use crate::common::TestService;

const SCHEMA: &str = include_str!("../../data/domainconnect/template.schema.json");
const TEMPLATES: &[(&str, &str)] = &[
    (
        "local-platform.test.custom-domain.json",
        include_str!("../../data/domainconnect/local-platform.test.custom-domain.json"),
    ),
    (
        "local-platform.test.custom-domain-apex.json",
        include_str!("../../data/domainconnect/local-platform.test.custom-domain-apex.json"),
    ),
];

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(SCHEMA).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

#[test]
fn the_platform_templates_follow_the_standard_schema() {
    let validator = validator();
    for (name, text) in TEMPLATES {
        let template: Value = serde_json::from_str(text).expect("a template is JSON");
        let errors: Vec<String> = validator
            .iter_errors(&template)
            .map(|error| error.to_string())
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        // The file is named providerId.serviceId.json, as the standard's repository asks.
        assert_eq!(
            *name,
            format!(
                "{}.{}.json",
                template["providerId"].as_str().unwrap(),
                template["serviceId"].as_str().unwrap()
            )
        );
    }
}

#[test]
fn the_schema_catches_a_broken_template() {
    // A CNAME at the applied name without hostRequired could land on an apex.
    let broken: Value = serde_json::json!({
        "providerId": "p", "providerName": "P", "serviceId": "s", "serviceName": "S",
        "records": [{"type": "CNAME", "host": "@", "pointsTo": "x.test", "ttl": 3600}]
    });
    assert!(!validator().is_valid(&broken));
    let missing_ttl: Value = serde_json::json!({
        "providerId": "p", "providerName": "P", "serviceId": "s", "serviceName": "S",
        "records": [{"type": "A", "host": "www", "pointsTo": "192.0.2.1"}]
    });
    assert!(!validator().is_valid(&missing_ttl));
}

fn loopback() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

#[tokio::test]
async fn each_zone_names_the_provider_api_and_its_settings_answer() {
    let service = TestService::new();
    let world = service
        .state
        .start_world(WorldAddresses {
            dns: loopback(),
            edge_https: loopback(),
            edge_http: loopback(),
        })
        .await
        .expect("the world starts");
    let api = service.state.api_addr().to_string();

    let dns = Verifier::new(world.addresses().dns, "unused.test");
    assert_eq!(
        dns.txt_values("_domainconnect.example.com").await.unwrap(),
        vec![api.clone()]
    );
    assert!(
        dns.txt_values("_domainconnect.pages.local-platform.test")
            .await
            .unwrap()
            .is_empty()
    );

    let settings = service
        .call(Method::GET, "/v2/example.com/settings", None, None)
        .await;
    settings.expect(200);
    assert_eq!(settings.body["providerId"], "dns.local-platform.test");
    assert_eq!(settings.body["urlSyncUX"], format!("http://{api}"));
    assert_eq!(settings.body["urlAPI"], format!("http://{api}"));
    service
        .call(Method::GET, "/v2/not-mine.example/settings", None, None)
        .await
        .expect_error(404, "not_found");

    let supported = service
        .call(
            Method::GET,
            "/v2/domainTemplates/providers/local-platform.test/services/custom-domain",
            None,
            None,
        )
        .await;
    supported.expect(200);
    assert_eq!(supported.body["serviceId"], "custom-domain");
    service
        .call(
            Method::GET,
            "/v2/domainTemplates/providers/local-platform.test/services/mail",
            None,
            None,
        )
        .await
        .expect_error(404, "not_found");
    world.stop();
}
