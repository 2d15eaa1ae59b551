//! What an account kept on this computer is called and where its key may be sent: the rules
//! the window's accounts controller (`src-tauri/accounts.rs`), its renewal watch and the
//! command line (`src-tauri/cli/accounts.rs`, `cli/connect.rs`) share, unit-tested here.
//!
//! A connected account is kept as `<account>@<host>`, the keyring entry's name, so the name
//! records where its key belongs; the offline demo's accounts are `offline-demo:<plan>` and
//! have no key.

use domain_desk_api::Plan;
use domain_desk_client::ApiKey;

use crate::secrets::SecretStore;
use crate::settings::{AccountEntry, AccountMode, DEMO_ACCOUNT_ID};
use crate::{Error, Result};

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

/// A kept account's key and where it may be sent ([`key_destination`]): the key leaves
/// `keys` only once the entry's address is the host it was stored for.
pub fn kept_key<'a>(
    entry: &'a AccountEntry,
    last_base_url: Option<&str>,
    keys: &dyn SecretStore,
) -> Result<(&'a str, ApiKey)> {
    let base_url = key_destination(entry, last_base_url)?;
    Ok((base_url, keys.load_key(&entry.id)?))
}

/// The account entry id of a demo plan's account: `offline-demo:pro`.
pub fn account_id(plan: Plan) -> String {
    format!("{DEMO_ACCOUNT_ID}:{}", plan.as_str())
}

/// The plan named by a demo account entry id, if it is one.
pub fn plan_of(account_id: &str) -> Option<Plan> {
    let plan = account_id.strip_prefix(DEMO_ACCOUNT_ID)?;
    if plan.is_empty() {
        return Some(Plan::Pro);
    }
    let plan = plan.strip_prefix(':')?;
    Plan::ALL.into_iter().find(|p| p.as_str() == plan)
}

/// A stopped clock never resets a window; the queue paces as if it ran in real time.
pub fn pacing_speed(clock_speed: f64) -> f64 {
    if clock_speed > 0.0 { clock_speed } else { 1.0 }
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

    #[test]
    fn a_kept_key_is_not_even_read_for_another_host() {
        use crate::secrets::MemoryKeys;
        let keys = MemoryKeys::default();
        let key = ApiKey::new("ddk_kept_0123456789");
        keys.store_key("acc_1@api.example.com", &key).unwrap();
        let good = entry("acc_1@api.example.com", "https://api.example.com");
        let (url, found) = kept_key(&good, None, &keys).unwrap();
        assert_eq!((url, found), ("https://api.example.com", key));
        let moved = entry("acc_1@api.example.com", "https://evil.example.net");
        let err = kept_key(&moved, None, &keys).unwrap_err();
        assert_eq!(err.kind(), "key_destination_mismatch");
        assert_eq!(keys.loads(), 1, "the key stayed in the store");
    }

    #[test]
    fn demo_account_ids_name_their_plan() {
        assert_eq!(account_id(Plan::Free), "offline-demo:free");
        assert_eq!(plan_of("offline-demo:free"), Some(Plan::Free));
        assert_eq!(plan_of("offline-demo"), Some(Plan::Pro));
        assert_eq!(plan_of("offline-demo:gold"), None);
        assert_eq!(plan_of("offline-demonstration"), None);
        assert_eq!(plan_of("acc_1@api.example.com"), None);
    }
}
