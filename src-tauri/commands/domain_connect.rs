//! "Set up automatically": Domain Connect for a domain whose DNS provider supports it. The
//! consent page opens in the user's browser once the window asked about its host; the answer
//! comes back to a loopback port; then the domain is verified
//! ([`domain_desk_app::auto_setup`], as `domains add --auto` does). Everything else keeps the
//! manual steps.

use domain_desk_api::Domain;
use domain_desk_app::auto_setup::{self, CONSENT_WAIT, SetUp as Done};
use domain_desk_client::domain_connect::DomainConnect;
use serde::Serialize;
use tauri::State;

use crate::Result;
use crate::state::{AppState, Session};

/// Discovery as the session's platform sees DNS: the demo's own DNS server (and its provider
/// on loopback), or the system's (and providers on the internet only).
async fn discovery_for(session: &Session) -> Result<DomainConnect> {
    let server = match &session.local {
        Some(local) => local.info().await?.dns.and_then(|dns| dns.parse().ok()),
        None => None,
    };
    Ok(auto_setup::discovery(server)?)
}

/// Whether "Set up automatically" is offered for the hostname, and why not.
#[derive(Debug, Serialize)]
pub struct Offer {
    pub offered: bool,
    /// The DNS provider's name, when offered.
    pub provider: Option<String>,
    /// The host its consent page is on, when offered: the window names it and asks before
    /// the browser opens, and passes it back to `domain_connect_set_up`.
    pub host: Option<String>,
    /// Why not, when not offered.
    pub reason: Option<String>,
}

#[tauri::command]
#[tracing::instrument(skip(state), err(Debug))]
pub async fn domain_connect_offer(state: State<'_, AppState>, hostname: String) -> Result<Offer> {
    let session = state.session().await?;
    let offer = discovery_for(&session).await?.offer(&hostname).await?;
    Ok(match offer {
        Ok(offered) => Offer {
            offered: true,
            provider: Some(offered.consent.provider),
            host: Some(offered.consent.host),
            reason: None,
        },
        Err(reason) => Offer {
            offered: false,
            provider: None,
            host: None,
            reason: Some(reason),
        },
    })
}

/// What "Set up automatically" did.
#[derive(Debug, Serialize)]
pub struct SetUp {
    /// `applied`, `refused` or `not_offered`.
    pub outcome: &'static str,
    pub message: String,
    /// The domain after Verify, when the records were written.
    pub domain: Option<Domain>,
}

/// `provider_host`: the consent page's host the user approved (the offer's `host`); the
/// browser opens only if the page is still there.
#[tauri::command]
#[tracing::instrument(skip(state), err(Debug))]
pub async fn domain_connect_set_up(
    state: State<'_, AppState>,
    project_id: String,
    hostname: String,
    provider_host: String,
) -> Result<SetUp> {
    let session = state.session().await?;
    let done = auto_setup::set_up_then_verify(
        &session.client,
        &discovery_for(&session).await?,
        &project_id,
        &hostname,
        // The window asked before it called: the host it names is the one approved.
        async |_| Some(provider_host),
        crate::browser::open_url,
        CONSENT_WAIT,
    )
    .await?;
    Ok(match done {
        // Not reached: the window's question came before the call.
        Done::Declined => SetUp {
            outcome: "not_offered",
            message: "Nothing was opened.".into(),
            domain: None,
        },
        Done::NotOffered { reason } => SetUp {
            outcome: "not_offered",
            message: reason,
            domain: None,
        },
        Done::Refused {
            provider, error, ..
        } => SetUp {
            outcome: "refused",
            message: if error == "access_denied" {
                format!(
                    "Cancelled at {provider}: nothing was written. Create the record by hand, or try again."
                )
            } else {
                format!("{provider} did not write the record ({error}). Create it by hand.")
            },
            domain: None,
        },
        Done::Applied { provider, domain } => {
            let message = match &domain.verification.error {
                None => format!("{provider} wrote the record and the domain is verified."),
                Some(_) => format!(
                    "{provider} wrote the record. The platform sees DNS changes after a short delay: press Re-verify in a minute."
                ),
            };
            SetUp {
                outcome: "applied",
                message,
                domain: Some(*domain),
            }
        }
    })
}
