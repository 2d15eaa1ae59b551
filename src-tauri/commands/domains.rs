//! A project's domains: list, add, verify, remove, make primary, redirect, and the hostname
//! check the Add domain dialog runs as the user types.
//!
//! Background refreshes (the window's polling) go in the queue's background class, so they
//! never delay what the user clicked.

use domain_desk_api::{AddDomain, Domain, DomainConfig, Hostname};
use domain_desk_client::Client;
use serde::Serialize;
use tauri::State;

use crate::commands::renewal::RenewalWatchState;
use crate::state::AppState;
use crate::{Error, Result};

fn class(client: &Client, background: Option<bool>) -> Client {
    if background.unwrap_or(false) {
        client.background()
    } else {
        client.interactive()
    }
}

#[tauri::command]
#[tracing::instrument(skip(state, renewal), err(Debug))]
pub async fn domains_list(
    state: State<'_, AppState>,
    renewal: State<'_, RenewalWatchState>,
    project_id: String,
    background: Option<bool>,
) -> Result<Vec<Domain>> {
    let session = state.session().await?;
    let asked = renewal.list_asked();
    let domains = class(&session.client, background)
        .domains(&project_id)
        .await?;
    // The renewal watch takes this list rather than asking for its own.
    renewal.listed(&session.account_id, &project_id, asked, &domains);
    Ok(domains)
}

#[tauri::command]
#[tracing::instrument(skip(state), err(Debug))]
pub async fn domain_get(
    state: State<'_, AppState>,
    project_id: String,
    hostname: String,
    background: Option<bool>,
) -> Result<Domain> {
    let session = state.session().await?;
    Ok(class(&session.client, background)
        .domain(&project_id, &hostname)
        .await?)
}

#[tauri::command]
#[tracing::instrument(skip(state), err(Debug))]
pub async fn domain_add(
    state: State<'_, AppState>,
    project_id: String,
    hostname: String,
    redirect_to: Option<String>,
) -> Result<Domain> {
    let request = AddDomain {
        hostname,
        redirect_to,
    };
    let done = state
        .session()
        .await?
        .client
        .add_domain(&project_id, &request)
        .await?;
    // A new domain has no certificate yet, so the renewal watch has nothing new to look at:
    // it learns of the domain when a check passes (see `domain_verify`), and the add spends
    // nothing more of the rate limit.
    Ok(done)
}

#[tauri::command]
#[tracing::instrument(skip(state, renewal), err(Debug))]
pub async fn domain_verify(
    state: State<'_, AppState>,
    renewal: State<'_, RenewalWatchState>,
    project_id: String,
    hostname: String,
) -> Result<Domain> {
    let session = state.session().await?;
    // The user's Verify: the window's own re-verify goes through `domains_reverify`.
    let done = session
        .client
        .interactive()
        .verify_domain(&project_id, &hostname)
        .await?;
    // A check that passed starts a certificate: the renewal watch lists the domains again to
    // follow it. One that failed changed nothing the watch looks at, so it spends nothing of
    // the rate limit (a burst of Re-verify costs only its own requests).
    if done.status != domain_desk_api::DomainStatus::PendingVerification {
        renewal.changed(&session.account_id, Some(&project_id));
    }
    Ok(done)
}

/// What a background re-verify of several domains found: each answer in the order asked, and
/// the error that stopped it early (a 429, a ban, a dead server), if one did. The answers
/// before the error are kept: their checks were made.
#[derive(Debug, Serialize)]
pub struct Reverified {
    pub domains: Vec<Domain>,
    pub stopped: Option<Error>,
}

/// The window's watch re-verifying the domains that wait for DNS, several in one call: one
/// answer crossing into the window for many checks rather than one each (a re-verify of
/// hundreds of domains made as many round trips through the web view). The checks go one at a
/// time in the queue's background class, as the window's own did, and the first that fails
/// ends the call.
#[tauri::command]
#[tracing::instrument(skip(state, renewal, hostnames), fields(count = hostnames.len()), err(Debug))]
pub async fn domains_reverify(
    state: State<'_, AppState>,
    renewal: State<'_, RenewalWatchState>,
    project_id: String,
    hostnames: Vec<String>,
) -> Result<Reverified> {
    let session = state.session().await?;
    let client = session.client.background();
    let mut domains = Vec::with_capacity(hostnames.len());
    let mut stopped = None;
    for hostname in &hostnames {
        match client.verify_domain(&project_id, hostname).await {
            Ok(domain) => domains.push(domain),
            Err(error) => {
                stopped = Some(Error::from(error));
                break;
            }
        }
    }
    // As for `domain_verify`: a check that passed starts a certificate, which the renewal
    // watch follows; checks that failed change nothing it looks at.
    if domains
        .iter()
        .any(|d| d.status != domain_desk_api::DomainStatus::PendingVerification)
    {
        renewal.changed(&session.account_id, Some(&project_id));
    }
    Ok(Reverified { domains, stopped })
}

#[tauri::command]
#[tracing::instrument(skip(state, renewal), err(Debug))]
pub async fn domain_remove(
    state: State<'_, AppState>,
    renewal: State<'_, RenewalWatchState>,
    project_id: String,
    hostname: String,
) -> Result<Option<domain_desk_api::DanglingRecord>> {
    let session = state.session().await?;
    // The record still pointing at the platform, if any: the window asks to delete it.
    let done = session
        .client
        .remove_domain_reporting(&project_id, &hostname)
        .await?
        .dangling_record;
    // The renewal watch checks again after a change the user made.
    renewal.changed(&session.account_id, Some(&project_id));
    Ok(done)
}

#[tauri::command]
#[tracing::instrument(skip(state), err(Debug))]
pub async fn domain_config_get(
    state: State<'_, AppState>,
    project_id: String,
) -> Result<DomainConfig> {
    Ok(state
        .session()
        .await?
        .client
        .domain_config(&project_id)
        .await?)
}

#[tauri::command]
#[tracing::instrument(skip(state, renewal), err(Debug))]
pub async fn domain_make_primary(
    state: State<'_, AppState>,
    renewal: State<'_, RenewalWatchState>,
    project_id: String,
    hostname: String,
) -> Result<DomainConfig> {
    let session = state.session().await?;
    let done = session.client.make_primary(&project_id, &hostname).await?;
    // The renewal watch checks again after a change the user made.
    renewal.changed(&session.account_id, Some(&project_id));
    Ok(done)
}

#[tauri::command]
#[tracing::instrument(skip(state, renewal), err(Debug))]
pub async fn domain_redirect(
    state: State<'_, AppState>,
    renewal: State<'_, RenewalWatchState>,
    project_id: String,
    hostname: String,
    to: Option<String>,
) -> Result<DomainConfig> {
    let session = state.session().await?;
    let done = session
        .client
        .redirect(&project_id, &hostname, to.as_deref())
        .await?;
    // The renewal watch checks again after a change the user made.
    renewal.changed(&session.account_id, Some(&project_id));
    Ok(done)
}

/// Moves a domain to another project of the same account: the platform keeps its status and
/// certificate and serves it from the target project at once (the client's `move_domain`).
#[tauri::command]
#[tracing::instrument(skip(state, renewal), err(Debug))]
pub async fn domain_move(
    state: State<'_, AppState>,
    renewal: State<'_, RenewalWatchState>,
    project_id: String,
    hostname: String,
    to_project_id: String,
) -> Result<Domain> {
    let session = state.session().await?;
    let moved = session
        .client
        .move_domain(&project_id, &hostname, &to_project_id)
        .await?;
    renewal.changed(&session.account_id, None);
    Ok(moved)
}

/// What the Add domain dialog shows under the field once the name is valid.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct HostnameInfo {
    pub ascii: String,
    pub unicode: String,
    pub apex: bool,
    /// `*.shop.example.com`: its certificate comes only through the `_acme-challenge` record.
    pub wildcard: bool,
    pub relative_name: String,
    pub registrable_domain: String,
}

/// The contract's hostname rules, with the Public Suffix List, as the service applies them
/// (a wildcard one label below the registrable domain or deeper included).
#[tauri::command]
pub fn hostname_check(hostname: String) -> Result<HostnameInfo> {
    let name =
        Hostname::parse_domain(&hostname).map_err(|err| Error::InvalidInput(err.to_string()))?;
    Ok(HostnameInfo {
        ascii: name.as_str().to_owned(),
        unicode: name.unicode(),
        apex: name.is_apex(),
        wildcard: name.is_wildcard(),
        relative_name: name.relative_name().to_owned(),
        registrable_domain: name.registrable_domain().to_owned(),
    })
}
