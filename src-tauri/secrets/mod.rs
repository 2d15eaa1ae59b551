//! API keys in the OS keyring (Secret Service, Keychain, Credential Manager) and nowhere else.
//!
//! One keyring entry per account entry, under the app's identifier. Errors carry the keyring's
//! own message, which names the entry but never the secret.

use domain_desk_client::ApiKey;

use crate::paths::IDENTIFIER;
use crate::{Error, Result};

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
