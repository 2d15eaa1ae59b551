//! Signing in: to a platform with a base URL and an API key (the key goes to the keyring),
//! switching between the accounts kept on this computer, and the offline demo.
//!
//! The commands in [`crate::commands::session`] are one call into here each.

use domain_desk_client::{ApiKey, Client, ClientConfig};
use tauri::{Manager, Runtime};

use crate::settings::{self, AccountEntry, AccountMode};
use crate::state::{AppState, Session, SessionDto};
use crate::{Error, Result, secrets};

/// Checks the base URL a person typed: http(s), a host, no credentials or query.
pub fn normalise_base_url(input: &str) -> Result<String> {
    let trimmed = input.trim().trim_end_matches('/');
    let bad = || {
        Error::InvalidInput(
            "Enter the API base URL, such as https://api.example.com (http:// only for a local service).".into(),
        )
    };
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"))
        .ok_or_else(bad)?;
    if rest.is_empty()
        || rest.contains(['@', '?', '#', ' '])
        || rest.starts_with('/')
        || rest.starts_with(':')
    {
        return Err(bad());
    }
    Ok(trimmed.strip_suffix("/v1").unwrap_or(trimmed).to_owned())
}

fn host_of(base_url: &str) -> &str {
    let rest = base_url.split_once("://").map_or(base_url, |(_, r)| r);
    rest.split('/').next().unwrap_or(rest)
}

/// The entry an account connected at `base_url` is kept under: `<account>@<host>`, the
/// keyring entry's name, so that the name records where its key may be sent.
pub fn account_entry(base_url: &str, account: &domain_desk_api::Account) -> AccountEntry {
    AccountEntry {
        id: format!("{}@{}", account.id, host_of(base_url)),
        label: format!(
            "{} · {} · {}",
            account.name,
            account.plan.as_str(),
            host_of(base_url)
        ),
        mode: AccountMode::Connected,
        base_url: base_url.to_owned(),
        extra: Default::default(),
    }
}

/// Starts a client for `base_url` and asks for the account, which proves the key works.
async fn open<R: Runtime>(
    app: &tauri::AppHandle<R>,
    base_url: &str,
    key: ApiKey,
) -> Result<(Client, domain_desk_api::Account)> {
    let client = app
        .state::<AppState>()
        .clients()
        .client(ClientConfig::new(base_url, key))?;
    let account = client.account().await?;
    Ok((client, account))
}

/// Connects with a key, keeps the key in the keyring and the account in the list, and makes it
/// the current session.
pub async fn connect<R: Runtime>(
    app: &tauri::AppHandle<R>,
    base_url: &str,
    api_key: &str,
) -> Result<SessionDto> {
    let base_url = normalise_base_url(base_url)?;
    let key = ApiKey::new(api_key);
    if key.is_empty() {
        return Err(Error::InvalidInput("Enter the API key.".into()));
    }
    let (client, account) = open(app, &base_url, key.clone()).await?;
    let entry = account_entry(&base_url, &account);
    let id = entry.id.clone();
    secrets::store_key(&id, &key)?;
    settings::remember_account(app, entry)?;
    let session = Session::new(id, AccountMode::Connected, base_url, client, account);
    activate(app, session).await
}

/// Where a kept account's key may be sent: its entry's base URL, when that is the host the key
/// was stored for. The keyring entry is named `<account>@<host>` at connect time, so its name
/// records where the key belongs; the settings file (the entry's URL, the last base URL) is a
/// plain file anything may have edited. `last_base_url` is the settings' last connected URL,
/// checked on resume, when it is the entry's own.
pub fn key_destination<'a>(
    entry: &'a AccountEntry,
    last_base_url: Option<&str>,
) -> Result<&'a str> {
    let refuse = |stored: &str| Error::KeyDestination {
        stored: stored.to_owned(),
        url: entry.base_url.clone(),
    };
    let stored = entry.id.rsplit_once('@').map_or("", |(_, host)| host);
    let url = normalise_base_url(&entry.base_url).map_err(|_| refuse(stored))?;
    if stored.is_empty() || !host_of(&url).eq_ignore_ascii_case(stored) {
        return Err(refuse(stored));
    }
    if let Some(last) = last_base_url {
        let same = normalise_base_url(last).is_ok_and(|last| last.eq_ignore_ascii_case(&url));
        if !same {
            return Err(Error::KeyDestination {
                stored: entry.base_url.clone(),
                url: last.to_owned(),
            });
        }
    }
    Ok(&entry.base_url)
}

/// Switches to an account kept on this computer (the demo starts if it is not running).
pub async fn switch<R: Runtime>(app: &tauri::AppHandle<R>, id: &str) -> Result<SessionDto> {
    switch_checked(app, id, None).await
}

/// [`switch`], also requiring a connected account's URL to be `last_base_url` when given.
async fn switch_checked<R: Runtime>(
    app: &tauri::AppHandle<R>,
    id: &str,
    last_base_url: Option<&str>,
) -> Result<SessionDto> {
    if let Some(plan) = crate::demo::plan_of(id) {
        return crate::demo::start(app, plan).await;
    }
    let entry = settings::accounts(app)?
        .into_iter()
        .find(|e| e.id == id)
        .ok_or_else(|| {
            Error::InvalidInput("This account is no longer kept here; connect again.".into())
        })?;
    // Before the key leaves the keyring: is this where it belongs?
    key_destination(&entry, last_base_url)?;
    let key = secrets::load_key(&entry.id)?;
    let (client, account) = open(app, &entry.base_url, key).await?;
    let session = Session::new(
        entry.id,
        AccountMode::Connected,
        entry.base_url,
        client,
        account,
    );
    activate(app, session).await
}

/// Forgets an account: its key leaves the keyring, its entry the list.
pub async fn forget<R: Runtime>(app: &tauri::AppHandle<R>, id: &str) -> Result<()> {
    if crate::demo::plan_of(id).is_none() {
        secrets::delete_key(id)?;
    }
    settings::forget_account(app, id)?;
    let state = app.state::<AppState>();
    if state.current().await.is_some_and(|s| s.account_id == id) {
        state.clear().await;
    }
    Ok(())
}

/// Makes `session` the current one, forwards its queue to the window and remembers it.
pub async fn activate<R: Runtime>(
    app: &tauri::AppHandle<R>,
    mut session: Session,
) -> Result<SessionDto> {
    session.forward_queue_events(app.clone());
    let dto = session.dto();
    let id = session.account_id.clone();
    let base_url = (session.mode == AccountMode::Connected).then(|| session.base_url.clone());
    let same_account = app
        .state::<AppState>()
        .current()
        .await
        .is_some_and(|s| s.account_id == id);
    app.state::<AppState>().replace(session).await;
    settings::update(app, |s| {
        if !same_account && s.last_account.as_deref() != Some(id.as_str()) {
            s.last_project = None;
        }
        s.last_account = Some(id);
        if let Some(url) = base_url {
            s.base_url = Some(url);
        }
    })?;
    tracing::info!(account = %dto.account.id, mode = ?dto.mode, "signed in");
    Ok(dto)
}

/// On start: signs in again to the last account, if there was one and it still works.
pub async fn resume<R: Runtime>(app: &tauri::AppHandle<R>) -> Result<Option<SessionDto>> {
    if let Some(session) = app.state::<AppState>().current().await {
        return Ok(Some(session.dto()));
    }
    let settings = settings::load(app)?;
    let Some(last) = settings.last_account else {
        return Ok(None);
    };
    match switch_checked(app, &last, settings.base_url.as_deref()).await {
        Ok(dto) => Ok(Some(dto)),
        // The person should hear why they are not signed in: the window shows it on the
        // first-run screen.
        Err(err @ Error::KeyDestination { .. }) => {
            tracing::warn!(%err, "refused to send the last account's key");
            Err(err)
        }
        Err(err) => {
            tracing::warn!(%err, "could not sign in to the last account again");
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_checked_and_normalised() {
        assert_eq!(
            normalise_base_url(" https://api.example.com/ ").unwrap(),
            "https://api.example.com"
        );
        assert_eq!(
            normalise_base_url("http://127.0.0.1:8787/v1").unwrap(),
            "http://127.0.0.1:8787"
        );
        for bad in [
            "api.example.com",
            "ftp://x",
            "https://",
            "https://user:pw@host",
            "https://h?x=1",
        ] {
            assert!(normalise_base_url(bad).is_err(), "{bad}");
        }
        assert_eq!(
            host_of("https://api.example.com:8443/x"),
            "api.example.com:8443"
        );
    }

    fn entry(id: &str, base_url: &str) -> AccountEntry {
        AccountEntry {
            id: id.into(),
            label: "Shop".into(),
            mode: AccountMode::Connected,
            base_url: base_url.into(),
            extra: Default::default(),
        }
    }

    #[test]
    fn a_kept_key_goes_only_to_the_host_it_was_stored_for() {
        let good = entry("acc_1@api.example.com", "https://api.example.com");
        assert_eq!(
            key_destination(&good, None).unwrap(),
            "https://api.example.com"
        );
        assert!(key_destination(&good, Some("https://api.example.com/")).is_ok());
        let local = entry("acc_2@127.0.0.1:8787", "http://127.0.0.1:8787");
        assert!(key_destination(&local, Some("http://127.0.0.1:8787")).is_ok());

        for (id, url, last) in [
            // The entry's URL was moved to another host or port.
            ("acc_1@api.example.com", "https://evil.example.net", None),
            (
                "acc_1@api.example.com",
                "https://api.example.com:8443",
                None,
            ),
            ("acc_2@127.0.0.1:8787", "http://127.0.0.1:9999", None),
            (
                "acc_1@api.example.com",
                "https://api.example.com.evil.net",
                None,
            ),
            // No host recorded with the key, or no usable URL.
            ("acc_1", "https://api.example.com", None),
            ("acc_1@api.example.com", "", None),
            // The settings' last base URL is not the entry's.
            (
                "acc_1@api.example.com",
                "https://api.example.com",
                Some("https://evil.example.net"),
            ),
        ] {
            let err = key_destination(&entry(id, url), last).unwrap_err();
            assert_eq!(
                err.kind(),
                "key_destination_mismatch",
                "{id} {url} {last:?}"
            );
        }
    }
}
