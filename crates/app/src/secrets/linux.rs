//! Linux: the Secret Service when one answers on the session bus, else the kernel's keyutils.
//!
//! Desktops run a Secret Service (GNOME Keyring, KWallet), which keeps keys across logins.
//! Minimal window managers and remote sessions often have none; there the kernel's session
//! keyring still keeps the key out of every file, for as long as the login session lasts.
//!
//! It answers with [`KeyStore`], the vocabulary of stores ([`super::key_store`]), not with
//! anything of its caller's.

use keyring::{keyutils, secret_service};

use super::key_store::KeyStore;
use crate::paths::IDENTIFIER;

pub fn install() -> KeyStore {
    if secret_service_answers() {
        keyring::set_default_credential_builder(secret_service::default_credential_builder());
        return KeyStore::SecretService;
    }
    use_keyutils();
    // The probe's error does not tell "nobody serves the Secret Service" from "it serves
    // but refused": the bus's owner of the name does.
    let bus = crate::session_bus::session();
    match crate::session_bus::secret_service_provider(bus.as_ref()) {
        Some(provider) => {
            tracing::warn!(
                %provider,
                "the Secret Service is on the session bus but did not answer; keys go to the \
                 kernel keyring"
            );
            KeyStore::KernelKeyutilsSecretServiceRefused
        }
        None => KeyStore::KernelKeyutils,
    }
}

pub fn use_keyutils() -> KeyStore {
    keyring::set_default_credential_builder(keyutils::default_credential_builder());
    KeyStore::KernelKeyutils
}

/// Asks the Secret Service for an entry that never exists: "no entry" means it answered.
fn secret_service_answers() -> bool {
    let probe = secret_service::SsCredential::new_with_target(None, IDENTIFIER, "store-probe")
        .map(|credential| keyring::Entry::new_with_credential(Box::new(credential)));
    match probe.map(|entry| entry.get_password()) {
        Ok(Ok(_)) | Ok(Err(keyring::Error::NoEntry)) => {
            let bus = crate::session_bus::session();
            if let Some(provider) = crate::session_bus::secret_service_provider(bus.as_ref()) {
                tracing::info!(%provider, "the Secret Service answered");
            }
            true
        }
        Ok(Err(err)) | Err(err) => {
            tracing::info!(%err, "no Secret Service answered; keys go to the kernel keyring");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use domain_desk_client::ApiKey;

    use super::*;
    use crate::secrets::{Keyring, SecretStore};

    fn round_trip(account: &str) {
        let key = ApiKey::new("dd_test_0123456789".to_owned());
        Keyring.store_key(account, &key).expect("store");
        assert_eq!(
            Keyring.load_key(account).expect("load").expose(),
            key.expose()
        );
        Keyring.delete_key(account).expect("delete");
        let err = Keyring.load_key(account).expect_err("gone after delete");
        assert!(!err.to_string().contains(key.expose()), "{err}");
        // deleting what is not there is not an error
        Keyring.delete_key(account).expect("delete again");
    }

    /// The fallback must work wherever the app may run without a Secret Service. A login
    /// session has a session keyring (pam_keyinit); a test process gets one from
    /// `keyctl session -`, which `cargo xtask e2e` uses.
    #[test]
    #[ignore = "needs a kernel session keyring: run by cargo xtask e2e"]
    fn kernel_keyutils_keeps_and_forgets_a_key() {
        assert_eq!(use_keyutils(), KeyStore::KernelKeyutils);
        round_trip("test-keyutils-account");
    }

    /// Needs a session bus with an unlocked Secret Service: `cargo xtask e2e` provides one.
    #[test]
    #[ignore = "needs a Secret Service on the session bus: run by cargo xtask e2e"]
    fn secret_service_keeps_and_forgets_a_key() {
        assert_eq!(install(), KeyStore::SecretService);
        round_trip("test-secret-service-account");
    }
}
