//! The vocabulary of keyring stores: which one keeps the keys on this computer, in words for
//! the About panel. Imported by the per-platform choice (`linux.rs`) and by its caller
//! ([`super::KeyStore::install`]), and importing neither.

use serde::Serialize;

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
    /// The kernel's keyutils too, because the Secret Service that owns its name on the session
    /// bus did not answer (a locked keyring whose unlock prompt could not show, a broken
    /// daemon): not "no Secret Service is running", which would send the user looking for one.
    KernelKeyutilsSecretServiceRefused,
    /// The keyring crate's own choice on other systems.
    PlatformDefault,
}

impl KeyStore {
    /// A sentence for the About panel.
    pub fn describe(self) -> &'static str {
        match self {
            KeyStore::MacosKeychain => "the macOS Keychain",
            KeyStore::WindowsCredentialManager => "the Windows Credential Manager",
            KeyStore::SecretService => "the Secret Service (your desktop's keyring)",
            KeyStore::KernelKeyutils => {
                "the kernel keyring (no Secret Service is running: keys last until you log out)"
            }
            KeyStore::KernelKeyutilsSecretServiceRefused => {
                "the kernel keyring (the Secret Service on the session bus did not answer, so \
                 keys last until you log out; unlock your desktop's keyring and restart the app \
                 to keep them there)"
            }
            KeyStore::PlatformDefault => "the system keyring",
        }
    }
}
