//! API keys in the OS keyring and nowhere else: the macOS Keychain, the Windows Credential
//! Manager, or on Linux the Secret Service (GNOME Keyring, KWallet) with the kernel's keyutils
//! as the fallback when no Secret Service answers.
//!
//! One keyring entry per account, under the app's identifier. Errors carry the keyring's own
//! message, which names the entry but never the secret. Which store is used is decided once
//! at start by [`KeyStore::install`]; the platform-specific choice lives in one small module
//! per platform.

use domain_desk_client::ApiKey;
use serde::Serialize;

use crate::paths::IDENTIFIER;
use crate::{Error, Result};

#[cfg(target_os = "linux")]
mod linux;

/// Where API keys are kept on this computer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyStore {
    MacosKeychain,
    WindowsCredentialManager,
    /// GNOME Keyring, KWallet or another Secret Service on the session bus.
    SecretService,
    /// The Linux kernel's keyutils: kept for the login session only.
    KernelKeyutils,
    /// The keyring crate's own choice on other systems.
    PlatformDefault,
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

    /// A sentence for the About panel.
    pub fn describe(self) -> &'static str {
        match self {
            KeyStore::MacosKeychain => "the macOS Keychain",
            KeyStore::WindowsCredentialManager => "the Windows Credential Manager",
            KeyStore::SecretService => "the Secret Service (your desktop's keyring)",
            KeyStore::KernelKeyutils => {
                "the kernel keyring (no Secret Service is running: keys last until you log out)"
            }
            KeyStore::PlatformDefault => "the system keyring",
        }
    }
}

static INSTALLED: std::sync::OnceLock<KeyStore> = std::sync::OnceLock::new();

fn entry(account_id: &str) -> Result<keyring::Entry> {
    keyring::Entry::new(IDENTIFIER, account_id).map_err(|err| Error::Keyring(err.to_string()))
}

pub fn store_key(account_id: &str, key: &ApiKey) -> Result<()> {
    entry(account_id)?
        .set_password(key.expose())
        .map_err(|err| Error::Keyring(err.to_string()))
}

pub fn load_key(account_id: &str) -> Result<ApiKey> {
    match entry(account_id)?.get_password() {
        Ok(key) => Ok(ApiKey::new(key)),
        Err(keyring::Error::NoEntry) => Err(Error::Keyring(
            "no key is stored for this account; connect again with its key".into(),
        )),
        Err(err) => Err(Error::Keyring(err.to_string())),
    }
}

pub fn delete_key(account_id: &str) -> Result<()> {
    match entry(account_id)?.delete_credential() {
        Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
        Err(err) => Err(Error::Keyring(err.to_string())),
    }
}
