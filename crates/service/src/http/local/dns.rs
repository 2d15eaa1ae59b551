//! The demo DNS provider under `/_local/dns`: list, add and delete records of the demo zones,
//! and add a zone. Changes are served by the DNS server at once; the platform's resolver sees
//! them after the propagation delay.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use domain_desk_api::ErrorBody;
use domain_desk_api::local::{
    NewZone, NewZoneRecord, ZoneDnssec, ZoneList, ZoneRecord, ZoneRecordList, ZoneSignatures,
};

use crate::dns::Signatures;
use crate::http::extract::{ApiJson, ApiPath};
use crate::http::state::AppState;
use crate::world::LocalWorld;
use crate::{Error, Result};

#[utoipa::path(
    get,
    path = "/_local/dns",
    tag = "local",
    summary = "The demo DNS provider's zones",
    responses((status = 200, description = "The zones, sorted", body = ZoneList)),
)]
pub async fn list_zones(State(state): State<AppState>) -> Result<Json<ZoneList>> {
    let world = state.require_demo_dns()?;
    Ok(Json(ZoneList {
        zones: world.zones().zone_names(),
    }))
}

#[utoipa::path(
    post,
    path = "/_local/dns",
    tag = "local",
    summary = "Add a zone to the demo DNS provider",
    request_body = NewZone,
    responses(
        (status = 201, description = "The new, empty zone", body = ZoneRecordList),
        (status = 409, description = "`zone_exists`", body = ErrorBody),
        (status = 422, description = "`validation_failed`: not a domain, inside the platform's zone, or one zone more than the provider holds (`--max-dns-zones`)", body = ErrorBody),
    ),
)]
pub async fn add_zone(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<NewZone>,
) -> Result<(StatusCode, Json<ZoneRecordList>)> {
    let world = state.require_demo_dns()?;
    let now = state.now();
    let zones = world.zones().clone();
    let zone = tokio::task::spawn_blocking(move || zones.add_zone(&body.zone, now)).await??;
    tracing::info!(%zone, "demo zone added");
    Ok((
        StatusCode::CREATED,
        Json(ZoneRecordList {
            signatures: signatures_of(&world, &zone),
            zone,
            records: Vec::new(),
        }),
    ))
}

#[utoipa::path(
    get,
    path = "/_local/dns/{zone}/records",
    tag = "local",
    summary = "The records of a demo zone",
    params(("zone" = String, Path, description = "The zone, e.g. example.com")),
    responses(
        (status = 200, description = "The zone's records", body = ZoneRecordList),
        (status = 404, description = "`not_found`: no such zone", body = ErrorBody),
    ),
)]
pub async fn list_records(
    State(state): State<AppState>,
    ApiPath(zone): ApiPath<String>,
) -> Result<Json<ZoneRecordList>> {
    let world = state.require_demo_dns()?;
    let records = world.zones().records(&zone)?;
    let zone = zone.trim_end_matches('.').to_ascii_lowercase();
    Ok(Json(ZoneRecordList {
        signatures: signatures_of(&world, &zone),
        zone,
        records,
    }))
}

/// The signatures `zone` gets, when the service signs its zones.
fn signatures_of(world: &LocalWorld, zone: &str) -> Option<ZoneSignatures> {
    world
        .signing()
        .map(|signing| match signing.signatures(zone) {
            Signatures::Valid => ZoneSignatures::Valid,
            Signatures::Expired => ZoneSignatures::Expired,
        })
}

#[utoipa::path(
    post,
    path = "/_local/dns/{zone}/records",
    tag = "local",
    summary = "Add a record; like real providers, a CNAME cannot stand beside other records",
    params(("zone" = String, Path, description = "The zone, e.g. example.com")),
    request_body = NewZoneRecord,
    responses(
        (status = 201, description = "The record as stored", body = ZoneRecord),
        (status = 404, description = "`not_found`: no such zone", body = ErrorBody),
        (status = 409, description = "`record_conflict`: a CNAME beside other records, or the reverse", body = ErrorBody),
        (status = 422, description = "`validation_failed`: a value that does not fit its type, or one record more than a zone holds (`--max-zone-records`)", body = ErrorBody),
    ),
)]
pub async fn add_record(
    State(state): State<AppState>,
    ApiPath(zone): ApiPath<String>,
    ApiJson(body): ApiJson<NewZoneRecord>,
) -> Result<(StatusCode, Json<ZoneRecord>)> {
    let world = state.require_demo_dns()?;
    let now = state.now();
    let zones = world.zones().clone();
    let record = tokio::task::spawn_blocking(move || zones.add_record(&zone, &body, now)).await??;
    tracing::info!(id = %record.id, name = %record.name, kind = record.record_type.as_str(), "demo DNS record added");
    Ok((StatusCode::CREATED, Json(record)))
}

#[utoipa::path(
    delete,
    path = "/_local/dns/{zone}/records/{id}",
    tag = "local",
    summary = "Delete a record",
    params(
        ("zone" = String, Path, description = "The zone, e.g. example.com"),
        ("id" = String, Path, description = "The record's id"),
    ),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "`not_found`: no such zone or record", body = ErrorBody),
    ),
)]
pub async fn delete_record(
    State(state): State<AppState>,
    ApiPath((zone, id)): ApiPath<(String, String)>,
) -> Result<StatusCode> {
    let world = state.require_demo_dns()?;
    let now = state.now();
    let zones = world.zones().clone();
    tokio::task::spawn_blocking(move || zones.delete_record(&zone, &id, now)).await??;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    put,
    path = "/_local/dns/{zone}/dnssec",
    tag = "local",
    summary = "The signatures a zone gets (with serve --sign-zones): valid, or expired to show a DNSSEC problem",
    params(("zone" = String, Path, description = "The zone, e.g. example.com")),
    request_body = ZoneDnssec,
    responses(
        (status = 200, description = "The zone's signatures from now on", body = ZoneDnssec),
        (status = 404, description = "`not_found`: no such zone, or the service does not sign its zones (started without --sign-zones)", body = ErrorBody),
    ),
)]
pub async fn set_dnssec(
    State(state): State<AppState>,
    ApiPath(zone): ApiPath<String>,
    ApiJson(body): ApiJson<ZoneDnssec>,
) -> Result<Json<ZoneDnssec>> {
    let world = state.require_demo_dns()?;
    // Without signing there is no such switch: a 404 (not a 5xx, which would say the service
    // failed).
    let signing = world.signing().ok_or_else(|| {
        Error::not_found("This service does not sign its zones: start it with serve --sign-zones.")
    })?;
    let zone = zone.trim_end_matches('.').to_ascii_lowercase();
    let zones = world.zones();
    if zone != zones.platform().domain && !zones.zone_names().contains(&zone) {
        return Err(Error::not_found(format!(
            "The demo DNS provider has no zone {zone}."
        )));
    }
    signing.set(
        &zone,
        match body.signatures {
            ZoneSignatures::Valid => Signatures::Valid,
            ZoneSignatures::Expired => Signatures::Expired,
        },
    );
    tracing::info!(%zone, signatures = ?body.signatures, "demo zone signatures set");
    Ok(Json(body))
}
