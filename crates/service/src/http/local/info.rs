//! `GET /_local/info`: the addresses, the platform's names, the CA, and the demo keys.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use domain_desk_api::local::LocalInfo;

use crate::Result;
use crate::http::state::AppState;

pub async fn local_info(state: &AppState) -> Result<LocalInfo> {
    let keys = state.demo_keys().await?;
    let world = state.world().map(|world| world.info()).unwrap_or_default();
    let settings = state.settings();
    Ok(LocalInfo {
        api: state.api_addr().to_string(),
        dns: world.dns.map(|addr| addr.to_string()),
        platform_resolver: world.platform_resolver.map(|addr| addr.to_string()),
        edge_https: world.edge_https.map(|addr| addr.to_string()),
        edge_http: world.edge_http.map(|addr| addr.to_string()),
        platform_domain: settings.platform_domain.clone(),
        platform_dns_target: settings.platform_dns_target.clone(),
        ca_identity: settings.ca_identity.clone(),
        ca_certificate_pem: world.ca_certificate_pem,
        dnssec_trust_anchor: world.dnssec_trust_anchor,
        propagation_delay_seconds: u64::try_from(settings.dns_propagation_delay.num_seconds()).ok(),
        validation_zone: Some(settings.validation_zone()),
        demo_keys: keys
            .into_iter()
            .map(|(plan, key)| (plan.as_str().to_owned(), key))
            .collect::<BTreeMap<_, _>>(),
    })
}

#[utoipa::path(
    get,
    path = "/_local/info",
    tag = "local",
    summary = "Addresses, platform names, the local CA and the demo API keys",
    responses((status = 200, description = "The local service's facts", body = LocalInfo)),
)]
pub async fn get_info(State(state): State<AppState>) -> Result<Json<LocalInfo>> {
    Ok(Json(local_info(&state).await?))
}
