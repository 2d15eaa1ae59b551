//! Signing in, as both front ends do it: the window's Connect, account switcher, Forget and
//! renewal watch (`src-tauri/accounts.rs`, `src-tauri/commands/renewal.rs`), and
//! `domain-desk login`, `logout` and every command's account (`src-tauri/cli/accounts.rs`,
//! `src-tauri/cli/connect.rs`).
//!
//! Where the list of accounts lives differs by front end — the window's store, which its
//! other plugins share, and the command line's [`AccountsFile`] — so it is an [`AccountList`];
//! where the keys live does not: the OS keyring, behind [`SecretStore`]. The steps are here
//! once: a key is proved against the platform before it is kept ([`sign_in`]), a kept key
//! leaves the keyring only for the address it was stored for ([`kept_client`]), a demo
//! account's queue paces by the demo's clock ([`demo_client`]), and forgetting an account
//! deletes its key ([`forget`]).

use domain_desk_api::local::LocalInfo;
use domain_desk_api::{Account, Plan};
use domain_desk_client::{ApiKey, Client, ClientConfig, ClientPool};

use crate::account_rules::{account_entry, kept_key, normalise_base_url, pacing_speed, plan_of};
use crate::accounts_file::AccountsFile;
use crate::secrets::SecretStore;
use crate::settings::AccountEntry;
use crate::{Error, Result};

/// Where a front end keeps the list of accounts; each change is saved before it returns.
pub trait AccountList: Send {
    fn accounts(&self) -> Result<Vec<AccountEntry>>;
    /// Adds the entry, or replaces the one with its id (keeping the fields this version does
    /// not know).
    fn remember(&mut self, entry: AccountEntry) -> Result<()>;
    /// Drops the entry; `false` when there was none.
    fn forget(&mut self, id: &str) -> Result<bool>;
}

/// The command line's list: the settings file, which also records the account as the last
/// one used.
impl AccountList for AccountsFile {
    fn accounts(&self) -> Result<Vec<AccountEntry>> {
        AccountsFile::accounts(self)
    }

    fn remember(&mut self, entry: AccountEntry) -> Result<()> {
        AccountsFile::remember(self, entry)?;
        self.save()
    }

    fn forget(&mut self, id: &str) -> Result<bool> {
        let removed = AccountsFile::forget(self, id)?;
        self.save()?;
        Ok(removed)
    }
}

/// An account signed in to: its entry in the list, its key's client and what the platform
/// said of it.
#[derive(Debug)]
pub struct SignedIn {
    pub entry: AccountEntry,
    pub client: Client,
    pub account: Account,
}

/// Proves `key` at `base_url` (the platform's account answer), then keeps the key in the
/// keyring and the account in `list`. Nothing is kept for a key the platform refuses.
pub async fn sign_in(
    pool: &ClientPool,
    list: &mut dyn AccountList,
    keys: &dyn SecretStore,
    base_url: &str,
    key: ApiKey,
) -> Result<SignedIn> {
    let base_url = normalise_base_url(base_url)?;
    if key.is_empty() {
        return Err(Error::InvalidInput("Enter the API key.".into()));
    }
    let client = pool.client(ClientConfig::new(&base_url, key.clone()))?;
    let account = client.account().await?;
    let entry = account_entry(&base_url, &account);
    keys.store_key(&entry.id, &key)?;
    list.remember(entry.clone())?;
    Ok(SignedIn {
        entry,
        client,
        account,
    })
}

/// The client of a kept account's key. Before the key leaves the keyring its entry must still
/// name the host it was stored for, and the last connected URL when one is given
/// ([`crate::account_rules::key_destination`]).
pub fn kept_client(
    pool: &ClientPool,
    keys: &dyn SecretStore,
    entry: &AccountEntry,
    last_base_url: Option<&str>,
) -> Result<Client> {
    let (base_url, key) = kept_key(entry, last_base_url, keys)?;
    Ok(pool.client(ClientConfig::new(base_url, key))?)
}

/// The client of the offline demo's account on `plan` at `base_url`, its queue pacing by the
/// demo's clock (`clock_speed` platform seconds per second; a stopped clock paces as real
/// time). The key's queue is the running one when there is one: it keeps its budget.
pub fn demo_client(
    pool: &ClientPool,
    base_url: &str,
    info: &LocalInfo,
    plan: Plan,
    clock_speed: f64,
) -> Result<Client> {
    let key = info.demo_keys.get(plan.as_str()).ok_or_else(|| {
        Error::DemoStart(format!("the service has no {} demo key", plan.as_str()))
    })?;
    let mut config = ClientConfig::new(base_url, key.as_str()).plan(plan);
    config.queue.platform_clock_speed = pacing_speed(clock_speed);
    Ok(pool.client(config)?)
}

/// Forgets an account: its key leaves the keyring (a demo account has none), its entry the
/// list. `false` when the list had no such entry.
pub fn forget(list: &mut dyn AccountList, keys: &dyn SecretStore, id: &str) -> Result<bool> {
    if plan_of(id).is_none() {
        keys.delete_key(id)?;
    }
    list.forget(id)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Mutex;

    use super::*;
    use crate::settings::AccountMode;

    /// Keys in memory, as the keyring would keep them.
    #[derive(Debug, Default)]
    struct Keys(Mutex<HashMap<String, String>>);

    impl SecretStore for Keys {
        fn store_key(&self, account_id: &str, key: &ApiKey) -> Result<()> {
            let mut keys = self.0.lock().unwrap();
            keys.insert(account_id.to_owned(), key.expose().to_owned());
            Ok(())
        }

        fn load_key(&self, account_id: &str) -> Result<ApiKey> {
            let keys = self.0.lock().unwrap();
            keys.get(account_id)
                .map(|key| ApiKey::new(key.as_str()))
                .ok_or_else(|| Error::Keyring("no key".into()))
        }

        fn delete_key(&self, account_id: &str) -> Result<()> {
            self.0.lock().unwrap().remove(account_id);
            Ok(())
        }
    }

    fn entry(id: &str, base_url: &str) -> AccountEntry {
        AccountEntry {
            id: id.to_owned(),
            label: id.to_owned(),
            mode: AccountMode::Connected,
            base_url: base_url.to_owned(),
            extra: Default::default(),
        }
    }

    #[tokio::test]
    async fn a_key_the_platform_refuses_is_not_kept() {
        let service = domain_desk_test_support::start().await;
        let dir = tempfile::tempdir().unwrap();
        let mut list = AccountsFile::open(dir.path()).unwrap();
        let keys = Keys::default();
        let pool = ClientPool::new();
        let refused = sign_in(
            &pool,
            &mut list,
            &keys,
            &service.base_url(),
            ApiKey::new("dd_not_a_key"),
        )
        .await;
        assert!(refused.is_err());
        assert!(AccountList::accounts(&list).unwrap().is_empty());
        assert!(keys.0.lock().unwrap().is_empty());

        let empty = sign_in(
            &pool,
            &mut list,
            &keys,
            &service.base_url(),
            ApiKey::new(""),
        )
        .await;
        assert!(matches!(empty, Err(Error::InvalidInput(_))), "{empty:?}");
    }

    #[tokio::test]
    async fn a_proved_key_is_kept_and_forgetting_the_account_deletes_it() {
        let service = domain_desk_test_support::start().await;
        let dir = tempfile::tempdir().unwrap();
        let mut list = AccountsFile::open(dir.path()).unwrap();
        let keys = Keys::default();
        let pool = ClientPool::new();
        let key = ApiKey::new(service.demo_key(Plan::Pro));
        let signed_in = sign_in(&pool, &mut list, &keys, &service.base_url(), key)
            .await
            .expect("the demo key works");
        let id = signed_in.entry.id.clone();
        // Saved: a second reader of the file sees the account.
        let reread = AccountsFile::open(dir.path()).unwrap();
        assert_eq!(
            AccountList::accounts(&reread).unwrap(),
            vec![signed_in.entry.clone()]
        );
        assert!(keys.0.lock().unwrap().contains_key(&id));
        kept_client(&pool, &keys, &signed_in.entry, None).expect("the kept key opens");

        assert!(forget(&mut list, &keys, &id).unwrap());
        assert!(keys.0.lock().unwrap().is_empty());
        let reread = AccountsFile::open(dir.path()).unwrap();
        assert!(AccountList::accounts(&reread).unwrap().is_empty());
        assert!(
            !forget(&mut list, &keys, &id).unwrap(),
            "nothing left to forget"
        );
    }

    #[tokio::test]
    async fn a_kept_key_goes_only_to_the_host_it_was_stored_for() {
        let keys = Keys::default();
        keys.store_key("acct_1@api.example.com", &ApiKey::new("dd_secret"))
            .unwrap();
        let pool = ClientPool::new();
        let moved = entry("acct_1@api.example.com", "https://elsewhere.example.net");
        assert!(matches!(
            kept_client(&pool, &keys, &moved, None),
            Err(Error::KeyDestination { .. })
        ));
    }
}
