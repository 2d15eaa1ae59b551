//! API keys in the OS keyring and nowhere else: the macOS Keychain, the Windows Credential
//! Manager, or on Linux the Secret Service (GNOME Keyring, KWallet) with the kernel's keyutils
//! as the fallback when no Secret Service answers.
//!
//! Callers hold a [`SecretStore`]: the app's is [`Keyring`], one keyring entry per account
//! under the app's identifier; tests hand in [`MemoryKeys`]. Errors carry the keyring's own
//! message, which names the entry but never the secret. Which store the keyring uses is
//! decided once at start by [`KeyStore::install`]; the platform-specific choice lives in one
//! small module per platform, and the vocabulary of stores in [`key_store`].

use std::collections::BTreeMap;
use std::sync::Mutex;

use domain_desk_client::ApiKey;

use crate::paths::IDENTIFIER;
use crate::{Error, Result};

pub mod key_store;
#[cfg(target_os = "linux")]
mod linux;

pub use key_store::KeyStore;

/// Where API keys are kept: the OS keyring ([`Keyring`]), or memory in tests ([`MemoryKeys`]).
pub trait SecretStore: Send + Sync + std::fmt::Debug {
    fn store_key(&self, account_id: &str, key: &ApiKey) -> Result<()>;
    /// The account's key; an error that says to connect again when none is kept.
    fn load_key(&self, account_id: &str) -> Result<ApiKey>;
    /// Forgets the account's key; forgetting one that is not there is not an error.
    fn delete_key(&self, account_id: &str) -> Result<()>;
}

impl KeyStore {
    /// Picks the store for this session and makes it the keyring's default.
    pub fn install() -> KeyStore {
        let store = Self::choose();
        let _ = INSTALLED.set(store);
        tracing::info!(
            store = store.describe(),
            "API keys are kept in the OS keyring"
        );
        store
    }

    /// The store [`KeyStore::install`] chose, once it has run.
    pub fn installed() -> Option<KeyStore> {
        INSTALLED.get().copied()
    }

    fn choose() -> KeyStore {
        #[cfg(target_os = "linux")]
        {
            linux::install()
        }
        #[cfg(target_os = "macos")]
        {
            KeyStore::MacosKeychain
        }
        #[cfg(target_os = "windows")]
        {
            KeyStore::WindowsCredentialManager
        }
        #[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
        {
            KeyStore::PlatformDefault
        }
    }
}

static INSTALLED: std::sync::OnceLock<KeyStore> = std::sync::OnceLock::new();

/// The OS keyring, in the store [`KeyStore::install`] chose.
#[derive(Debug, Clone, Copy, Default)]
pub struct Keyring;

fn entry(account_id: &str) -> Result<keyring::Entry> {
    keyring::Entry::new(IDENTIFIER, account_id).map_err(|err| Error::Keyring(err.to_string()))
}

/// The sentence for an account with no key kept.
const NO_KEY: &str = "no key is stored for this account; connect again with its key";

impl SecretStore for Keyring {
    fn store_key(&self, account_id: &str, key: &ApiKey) -> Result<()> {
        entry(account_id)?
            .set_password(key.expose())
            .map_err(|err| Error::Keyring(err.to_string()))
    }

    fn load_key(&self, account_id: &str) -> Result<ApiKey> {
        match entry(account_id)?.get_password() {
            Ok(key) => Ok(ApiKey::new(key)),
            Err(keyring::Error::NoEntry) => Err(Error::Keyring(NO_KEY.into())),
            Err(err) => Err(Error::Keyring(err.to_string())),
        }
    }

    fn delete_key(&self, account_id: &str) -> Result<()> {
        match entry(account_id)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(err) => Err(Error::Keyring(err.to_string())),
        }
    }
}

/// Keys in this process's memory, for tests: what was stored, and how often a key was read.
#[derive(Debug, Default)]
pub struct MemoryKeys {
    keys: Mutex<BTreeMap<String, ApiKey>>,
    loads: Mutex<u64>,
}

impl MemoryKeys {
    /// How many times a key was read (found or not).
    pub fn loads(&self) -> u64 {
        *self.loads.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl SecretStore for MemoryKeys {
    fn store_key(&self, account_id: &str, key: &ApiKey) -> Result<()> {
        self.keys
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(account_id.to_owned(), key.clone());
        Ok(())
    }

    fn load_key(&self, account_id: &str) -> Result<ApiKey> {
        *self.loads.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.keys
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(account_id)
            .cloned()
            .ok_or_else(|| Error::Keyring(NO_KEY.into()))
    }

    fn delete_key(&self, account_id: &str) -> Result<()> {
        self.keys
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(account_id);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_keys_keep_and_forget_as_the_keyring_does() {
        let keys = MemoryKeys::default();
        let key = ApiKey::new("dd_test_0123456789".to_owned());
        keys.store_key("acc_1@api.example.com", &key).unwrap();
        assert_eq!(keys.load_key("acc_1@api.example.com").unwrap(), key);
        keys.delete_key("acc_1@api.example.com").unwrap();
        let err = keys.load_key("acc_1@api.example.com").unwrap_err();
        assert_eq!(err.kind(), "keyring");
        assert!(!err.to_string().contains(key.expose()), "{err}");
        keys.delete_key("acc_1@api.example.com").unwrap();
        assert_eq!(keys.loads(), 2);
    }
}
