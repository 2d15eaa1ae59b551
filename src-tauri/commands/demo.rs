//! The offline demo's extras: the Demo DNS provider, the clock and reset.

use domain_desk_api::local::{
    ClockState, NewZoneRecord, ZoneDnssec, ZoneRecord, ZoneRecordList, ZoneSignatures,
};
use tauri::{AppHandle, Runtime, State};

use crate::Result;
use crate::accounts::{Accounts, follow_demo_clock};
use crate::commands::renewal::RenewalWatchState;
use crate::state::AppState;

#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn demo_dns_zones(state: State<'_, AppState>) -> Result<Vec<String>> {
    Ok(state.session().await?.local()?.zones().await?)
}

#[tauri::command]
#[tracing::instrument(skip(state), err(Debug))]
pub async fn demo_dns_records(state: State<'_, AppState>, zone: String) -> Result<ZoneRecordList> {
    Ok(state.session().await?.local()?.records(&zone).await?)
}

#[tauri::command]
#[tracing::instrument(skip(state, renewal), err(Debug))]
pub async fn demo_dns_add(
    state: State<'_, AppState>,
    renewal: State<'_, RenewalWatchState>,
    zone: String,
    record: NewZoneRecord,
) -> Result<ZoneRecord> {
    let session = state.session().await?;
    let done = session.local()?.add_record(&zone, &record).await?;
    // The renewal watch checks again after a change the user made (in DNS: it lists nothing).
    renewal.changed(&session.account_id, None);
    Ok(done)
}

#[tauri::command]
#[tracing::instrument(skip(state, renewal), err(Debug))]
pub async fn demo_dns_delete(
    state: State<'_, AppState>,
    renewal: State<'_, RenewalWatchState>,
    zone: String,
    id: String,
) -> Result<()> {
    let session = state.session().await?;
    session.local()?.delete_record(&zone, &id).await?;
    // The renewal watch checks again after a change the user made (in DNS: it lists nothing).
    renewal.changed(&session.account_id, None);
    Ok(())
}

#[tauri::command]
#[tracing::instrument(skip(state, renewal), err(Debug))]
pub async fn demo_dns_signatures(
    state: State<'_, AppState>,
    renewal: State<'_, RenewalWatchState>,
    zone: String,
    signatures: ZoneSignatures,
) -> Result<ZoneDnssec> {
    let session = state.session().await?;
    let done = session
        .local()?
        .set_zone_signatures(&zone, signatures)
        .await?;
    // The renewal watch checks again after a change the user made (in DNS: it lists nothing).
    renewal.changed(&session.account_id, None);
    Ok(done)
}

#[tauri::command]
#[tracing::instrument(skip(state), err(Debug))]
pub async fn demo_dns_add_zone(state: State<'_, AppState>, zone: String) -> Result<()> {
    Ok(state.session().await?.local()?.add_zone(&zone).await?)
}

/// The demo clock as read, and when it was read on this computer's clock: the middle of the
/// request to the local service, in milliseconds since the Unix epoch. The window anchors the
/// reading there rather than in the middle of its own call to this command, which at start-up
/// waits for the session for a second or more: anchored that way the clock was read up to
/// half that late, and a refill at 09:19:00 was named 09:18:59.
#[derive(Debug, serde::Serialize)]
pub struct ClockReading {
    #[serde(flatten)]
    clock: ClockState,
    read_at_ms: i64,
}

#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn clock_get(state: State<'_, AppState>) -> Result<ClockReading> {
    let session = state.session().await?;
    let local = session.local()?;
    let asked = chrono::Utc::now();
    let clock = local.clock().await?;
    let answered = chrono::Utc::now();
    // The clock may have been changed from outside the window (the command line, the control
    // plane): the queue follows every reading, not only the window's own changes.
    follow_demo_clock(&session.client, &clock).await?;
    Ok(ClockReading {
        clock,
        read_at_ms: (asked + (answered - asked) / 2).timestamp_millis(),
    })
}

/// Sets the demo clock's speed; the request queue is told, so its windows follow the clock.
#[tauri::command]
#[tracing::instrument(skip(app, accounts), err(Debug))]
pub async fn clock_set_speed<R: Runtime>(
    app: AppHandle<R>,
    accounts: State<'_, Accounts>,
    speed: f64,
) -> Result<ClockState> {
    accounts.set_clock_speed(&app, speed).await
}

/// Moves the demo clock forward, as if that much time had passed.
#[tauri::command]
#[tracing::instrument(skip(app, accounts), err(Debug))]
pub async fn clock_advance<R: Runtime>(
    app: AppHandle<R>,
    accounts: State<'_, Accounts>,
    seconds: f64,
) -> Result<ClockState> {
    accounts.advance_clock(&app, seconds).await
}

#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn demo_reset(state: State<'_, AppState>) -> Result<()> {
    Ok(state.session().await?.local()?.reset().await?)
}
