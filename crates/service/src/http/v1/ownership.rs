//! Taking over a name another account holds, by proving control of it in DNS.
//!
//! Adding a hostname that a project of another account holds is refused with `409
//! domain_taken`, which carries an ownership challenge: a TXT record (`_domain-desk-challenge`
//! under the hostname) with a token for this account and hostname, good until it expires on
//! the service clock. Once the platform's resolver sees that record (after the propagation
//! delay, like every DNS check), adding the name again moves it: it leaves the other project
//! at once (the edge stops serving it there), its owner finds it among the project's removed
//! domains with the reason, and it joins the caller's project as a new, unverified domain.
//!
//! The DNS lookup happens before the add's transaction (no network inside a database
//! transaction); the transaction checks the challenge again, so an expired or replaced token
//! proves nothing.

use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use domain_desk_api::{
    Domain, DomainRemoval, ErrorCode, ErrorDetail, Hostname, OwnershipChallenge, RemovalReason,
};
use rusqlite::Connection;

use crate::http::state::AppState;
use crate::store::ownership::{self, Challenge};
use crate::store::{domains, projects};
use crate::{Error, Result};

/// The label under the hostname where the challenge's TXT record goes.
pub const CHALLENGE_LABEL: &str = "_domain-desk-challenge";

/// What the TXT value starts with; the token follows.
pub const CHALLENGE_PREFIX: &str = "domain-desk-challenge=";

/// The caller's challenge for a name another account holds, and whether DNS carries it.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    challenge: Challenge,
    proved: bool,
}

/// The TXT record that answers `challenge` for `hostname`; a wildcard's goes under the name
/// it stands over (`_domain-desk-challenge.shop` for `*.shop.example.com`), where DNS can
/// hold it.
pub fn challenge_record(hostname: &Hostname, challenge: &Challenge) -> OwnershipChallenge {
    let relative = hostname.relative_name();
    let name = match relative
        .strip_prefix('*')
        .map(|rest| rest.trim_start_matches('.'))
    {
        Some("") => CHALLENGE_LABEL.to_owned(),
        Some(rest) => format!("{CHALLENGE_LABEL}.{rest}"),
        None if relative == "@" => CHALLENGE_LABEL.to_owned(),
        None => format!("{CHALLENGE_LABEL}.{relative}"),
    };
    OwnershipChallenge {
        record_type: "TXT".to_owned(),
        name,
        fqdn: format!("{CHALLENGE_LABEL}.{}", hostname.wildcard_base()),
        value: format!("{CHALLENGE_PREFIX}{}", challenge.token),
        expires_at: challenge.expires_at,
    }
}

/// The account holding `hostname`, if a project holds it.
fn holder(conn: &Connection, hostname: &str) -> Result<Option<String>> {
    let Some(domain) = domains::get(conn, hostname)? else {
        return Ok(None);
    };
    Ok(projects::row_by_id(conn, &domain.project_id)?.map(|project| project.account_id))
}

/// Before the add's transaction: when another account holds `hostname`, the caller's
/// challenge (made now if it has none that is still good) and whether the platform's resolver
/// sees its TXT record. `None` when no other account holds the name.
pub(crate) async fn prepare(
    state: &AppState,
    account_id: &str,
    hostname: &Hostname,
) -> Result<Option<Prepared>> {
    let name = hostname.as_str().to_owned();
    let held_by = state.store().read(move |conn| holder(conn, &name)).await?;
    if held_by.is_none_or(|holder| holder == account_id) {
        return Ok(None);
    }
    let now = state.now();
    let ttl = state.settings().ownership_challenge_ttl;
    let (account, name) = (account_id.to_owned(), hostname.as_str().to_owned());
    let challenge = state
        .store()
        .write(move |tx| ownership::current_or_new_challenge(tx, &account, &name, now, ttl))
        .await?;
    let record = challenge_record(hostname, &challenge);
    let proved = match state.world() {
        Some(world) => match world.txt_values(&record.fqdn).await {
            Ok(values) => values.iter().any(|value| value.trim() == record.value),
            Err(failed) => {
                tracing::warn!(name = %record.fqdn, cause = %failed.0, "ownership challenge lookup failed");
                false
            }
        },
        None => false,
    };
    Ok(Some(Prepared { challenge, proved }))
}

/// Inside the add's transaction, for a name that `existing` (a domain of another project)
/// holds: moves it away from there when the caller proved control with a challenge that is
/// still good, else refuses with `409 domain_taken`, carrying the challenge when the caller
/// has one.
pub(crate) fn take_over_or_refuse(
    tx: &Connection,
    account_id: &str,
    hostname: &Hostname,
    existing: &Domain,
    prepared: Option<&Prepared>,
    now: DateTime<Utc>,
) -> Result<()> {
    let holder = projects::row_by_id(tx, &existing.project_id)?
        .ok_or_else(|| Error::Internal(format!("{hostname} belongs to no project")))?;
    if holder.account_id == account_id {
        return Err(Error::conflict(
            ErrorCode::DomainTaken,
            format!(
                "{hostname} is attached to another project of this account; remove it there first."
            ),
        ));
    }
    let current = ownership::challenge(tx, account_id, hostname.as_str())?;
    if let (Some(prepared), Some(current)) = (prepared, current) {
        if prepared.proved && current.token == prepared.challenge.token && current.is_valid_at(now)
        {
            transfer(tx, hostname, existing, &holder, now)?;
            return Ok(());
        }
    }
    let mut detail = ErrorDetail::new(ErrorCode::DomainTaken, "");
    match prepared {
        Some(prepared) => {
            let record = challenge_record(hostname, &prepared.challenge);
            detail.message = format!(
                "{hostname} is attached to a project of another account. If it is yours, add a TXT record {} with the value {} and add the domain again (once DNS has propagated) before {}.",
                record.fqdn,
                record.value,
                record
                    .expires_at
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            );
            detail.ownership_challenge = Some(record);
        }
        None => {
            detail.message = format!(
                "{hostname} is attached to a project of another account; add it again to get the TXT record that proves it is yours."
            );
        }
    }
    Err(Error::from_detail(StatusCode::CONFLICT, detail))
}

/// Moves `existing` out of `holder`'s project: serving stops there at once, redirects to it
/// re-point to that project's current address, and its owner is told why.
fn transfer(
    tx: &Connection,
    hostname: &Hostname,
    existing: &Domain,
    holder: &projects::ProjectRow,
    now: DateTime<Utc>,
) -> Result<()> {
    domains::delete(tx, &existing.hostname)?;
    let current = projects::current_address(tx, holder)?;
    domains::repoint_redirects(tx, &holder.id, &existing.hostname, &current)?;
    ownership::forget_challenges(tx, hostname.as_str())?;
    ownership::record_removal(
        tx,
        &holder.id,
        &DomainRemoval {
            hostname: existing.hostname.clone(),
            reason: RemovalReason::OwnershipTransferred,
            message: format!(
                "{hostname} was moved to another account that proved control of it with a DNS TXT record; this project no longer serves it."
            ),
            removed_at: now,
        },
    )?;
    tracing::info!(%hostname, from = %holder.id, "domain moved to the account that proved control");
    Ok(())
}
