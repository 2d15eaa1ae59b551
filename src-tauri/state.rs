//! What the window's commands share: the signed-in session (API client, account, and for the
//! offline demo its control plane), kept in Tauri's managed state.
//!
//! A session is replaced whole when the user switches account or starts the demo; commands
//! clone the `Arc` and never hold the lock across a request.

use std::sync::Arc;

use domain_desk_api::Account;
use domain_desk_client::{Client, LocalControl, QueueState, watch_paced};
use serde::Serialize;
use tauri::{Emitter, Runtime};
use tokio::sync::RwLock;

use crate::settings::AccountMode;
use crate::{Error, Result};

/// The event that carries the queue's state to the rate-limit meter.
pub const QUEUE_CHANGED: &str = "queue://changed";

/// The least time between two `queue://changed` events: four a second is as often as the meter
/// can be read, where a busy queue changes state a hundred times a second.
pub const QUEUE_EVENT_GAP: std::time::Duration = std::time::Duration::from_millis(250);

#[derive(Debug)]
pub struct Session {
    /// The account entry (see [`crate::settings::AccountEntry`]).
    pub account_id: String,
    pub mode: AccountMode,
    pub base_url: String,
    pub client: Client,
    pub account: Account,
    /// The control plane, for the offline demo.
    pub local: Option<LocalControl>,
    pub platform_domain: Option<String>,
    pub ca_identity: Option<String>,
    /// How long the platform's resolver lags a DNS change (the offline demo says; a real
    /// platform does not).
    pub propagation_delay_seconds: Option<u64>,
    /// Forwards queue changes to the window; stopped when the session is dropped.
    queue_events: Option<tauri::async_runtime::JoinHandle<()>>,
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(task) = self.queue_events.take() {
            task.abort();
        }
    }
}

/// The session as the window sees it: no client, no key.
#[derive(Debug, Clone, Serialize)]
pub struct SessionDto {
    pub account_id: String,
    pub mode: AccountMode,
    pub base_url: String,
    pub account: Account,
    pub platform_domain: Option<String>,
    pub ca_identity: Option<String>,
    pub propagation_delay_seconds: Option<u64>,
}

impl Session {
    pub fn new(
        account_id: String,
        mode: AccountMode,
        base_url: String,
        client: Client,
        account: Account,
    ) -> Self {
        Self {
            account_id,
            mode,
            base_url,
            client,
            account,
            local: None,
            platform_domain: None,
            ca_identity: None,
            propagation_delay_seconds: None,
            queue_events: None,
        }
    }

    /// Sends the queue's state to the window as `queue://changed` when it changes, at most
    /// every [`QUEUE_EVENT_GAP`].
    pub fn forward_queue_events<R: Runtime>(&mut self, app: tauri::AppHandle<R>) {
        let changes = self.client.state();
        self.queue_events = Some(tauri::async_runtime::spawn(watch_paced(
            changes,
            QUEUE_EVENT_GAP,
            move |state: &QueueState| {
                if let Err(err) = app.emit(QUEUE_CHANGED, state) {
                    tracing::warn!(%err, "could not send the queue state to the window");
                }
            },
        )));
    }

    pub fn dto(&self) -> SessionDto {
        SessionDto {
            account_id: self.account_id.clone(),
            mode: self.mode,
            base_url: self.base_url.clone(),
            account: self.account.clone(),
            platform_domain: self.platform_domain.clone(),
            ca_identity: self.ca_identity.clone(),
            propagation_delay_seconds: self.propagation_delay_seconds,
        }
    }

    /// The demo's control plane, or a clear error outside the demo.
    pub fn local(&self) -> Result<&LocalControl> {
        self.local.as_ref().ok_or(Error::NotDemo)
    }
}

#[derive(Debug, Default)]
pub struct AppState {
    session: RwLock<Option<Arc<Session>>>,
    /// One request queue per API key for the whole app: switching accounts back and forth
    /// reuses a key's queue, so its budget is never counted twice.
    clients: domain_desk_client::ClientPool,
}

impl AppState {
    pub fn clients(&self) -> &domain_desk_client::ClientPool {
        &self.clients
    }

    pub async fn session(&self) -> Result<Arc<Session>> {
        self.session.read().await.clone().ok_or(Error::NotSignedIn)
    }

    pub async fn current(&self) -> Option<Arc<Session>> {
        self.session.read().await.clone()
    }

    pub async fn replace(&self, session: Session) -> Arc<Session> {
        let session = Arc::new(session);
        *self.session.write().await = Some(session.clone());
        session
    }

    pub async fn clear(&self) {
        *self.session.write().await = None;
    }
}

#[cfg(test)]
mod tests {
    use domain_desk_api::Plan;
    use domain_desk_client::ClientConfig;

    use super::*;

    /// The shell's types that hold a key (through the client and the pool), printed as a log
    /// line or a panic would print them: the key's text never appears.
    #[tokio::test]
    async fn debug_of_the_session_and_state_never_shows_the_key() {
        const SECRET: &str = "dd_pro_state_debug_secret";
        let state = AppState::default();
        let client = state
            .clients()
            .client(ClientConfig::new("http://127.0.0.1:9", SECRET).plan(Plan::Pro))
            .unwrap();
        let account = Account {
            id: "acc_1".into(),
            name: "Shop".into(),
            plan: Plan::Pro,
            limits: Plan::Pro.default_limits(),
        };
        let session = Session::new(
            "acc_1@127.0.0.1:9".into(),
            AccountMode::Connected,
            "http://127.0.0.1:9".into(),
            client,
            account,
        );
        let session = state.replace(session).await;
        let shown = format!("{session:?} {session:#?} {state:?} {:?}", session.dto());
        assert!(!shown.contains(SECRET), "{shown}");
        assert!(!shown.contains("debug_secret"), "{shown}");
    }
}
